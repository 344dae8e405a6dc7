"""``qsudoku generate``: random puzzles with a given fraction of givens, with their solutions.

The generator is :mod:`qsudoku.exact.generate` (Lewis's method: a randomly shuffled
valid grid, then givens removed at random; ``--unique`` removes a given only while
the exact search proves the solution unique).  One ``--seed`` gives the same file on
every platform.  Each format is one the package reads back:

* ``line``: one puzzle a line (a jigsaw adds a space and its region map);
* ``grid``: grids separated by blank lines (a jigsaw needs a fixed ``--regions``,
  given again when reading);
* ``tuples``: a list of 1-indexed ``[row, col, value]`` triples (one puzzle a file,
  so ``--count 1``; a jigsaw needs a fixed ``--regions``);
* ``tsv``: the seeds format, ``name  puzzle  regions  solution``.

With ``-o FILE`` the solutions go, one a line in the order of the puzzles, to
``<stem>.solutions<ext>`` and the seed of each puzzle to ``<stem>.ids<ext>``, the
companions that ``data/`` sets have; ``-o -`` (the default) prints the puzzles only.
"""

from __future__ import annotations

import argparse
import random
import sys

from qsudoku.errors import ConfigError, ContradictionError
from qsudoku.exact.generate import (ATTEMPTS, make_puzzle, random_regions, region_letters,
                                    symmetries)
from qsudoku.io.output import check_target, write_text
from qsudoku.model.symbols import MAX_SIZE
from qsudoku.commands.common import add_option, rules_from_args

__all__ = ["register", "run", "render", "FORMATS", "companion"]

#: Output format -> what it writes.
FORMATS = {"line": "one puzzle a line (jigsaw: puzzle, space, region map)",
           "grid": "grids separated by blank lines",
           "tuples": "a list of 1-indexed [row, col, value] triples (one puzzle)",
           "tsv": "name, puzzle, regions (- for boxes), solution; tab-separated"}


def register(sub) -> None:
    p = sub.add_parser(
        "generate", help="make random puzzles with a given fraction of givens (Lewis 2007)",
        description="Make random puzzles: a randomly shuffled valid grid with cells removed at "
                    "random down to --fraction of givens (Lewis, J. Heuristics 13:387, 2007). "
                    "--unique removes a given only while qsudoku's exact search proves the "
                    "solution unique (the puzzle may then keep more givens than asked). The same "
                    "--seed gives the same file on every platform. With -o FILE the solutions "
                    "go to <stem>.solutions<ext> and the seeds to <stem>.ids<ext>.")
    p.add_argument("--size", type=int, default=9, metavar="N", help="grid size (default 9)")
    p.add_argument("--box", metavar="RxC", help="box shape, e.g. 2x3 (default: most square)")
    p.add_argument("--variant", choices=["standard", "x"], help="x adds both main diagonals")
    p.add_argument("--regions", metavar="MAP|FILE|random",
                   help="jigsaw: a region map (letters, rows separated by / or newlines), a file "
                        "holding one, or 'random' for a new random map per puzzle")
    p.add_argument("--fraction", type=float, default=0.5, metavar="F",
                   help="share of cells left given, 0..1 (default 0.5)")
    p.add_argument("--count", type=int, default=1, metavar="K", help="puzzles (default 1)")
    p.add_argument("--seed", type=int, metavar="S",
                   help="random seed (default: a fresh one, printed on stderr)")
    p.add_argument("--unique", action="store_true",
                   help="only puzzles with exactly one solution (removal stops where it must)")
    add_option(p, "--to", choices=list(FORMATS), default="line", dest="format", old=("--format",),
               help="output format (default line): "
                    + "; ".join(f"{k}: {v}" for k, v in FORMATS.items()))
    p.add_argument("-o", "--output", default="-", metavar="FILE",
                   help="output file (default - : standard output, puzzles only)")
    p.set_defaults(run=run)


def companion(path: str, what: str) -> str:
    """The companion file of ``path``: ``companion("a/x.txt", "solutions")`` is
    ``a/x.solutions.txt`` (the name :func:`qsudoku.io.load_puzzles` looks for).

    >>> companion("data/generated/sudoku4/unique.txt", "ids")
    'data/generated/sudoku4/unique.ids.txt'
    """
    stem, dot, ext = path.rpartition(".")
    return f"{stem}.{what}.{ext}" if dot and "/" not in ext else f"{path}.{what}"


def _check(args) -> None:
    if not 0 <= args.fraction <= 1:
        raise ConfigError(f"--fraction {args.fraction} must be between 0 and 1")
    if args.count < 1:
        raise ConfigError(f"--count {args.count} must be >= 1")
    if not 2 <= args.size <= MAX_SIZE:
        raise ConfigError(f"--size {args.size} must be between 2 and {MAX_SIZE}")
    if args.format == "tuples" and args.count != 1:
        raise ConfigError("--to tuples holds one puzzle a file: use --count 1")
    if args.format in ("grid", "tuples") and args.regions == "random":
        raise ConfigError(f"--to {args.format} carries no region map: use --to line "
                          "or tsv with --regions random, or give a fixed --regions")
    if args.output != "-":
        check_target(args.output, "-o")


def run(args) -> int:
    _check(args)
    seed = args.seed
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
        print(f"qsudoku: seed {seed} (pass --seed {seed} to make the same puzzles)",
              file=sys.stderr)
    rng = random.Random(seed)
    fixed = None if args.regions == "random" else args.regions
    rules = rules_from_args(argparse.Namespace(box=args.box, variant=args.variant,
                                               regions=fixed, digits=None, format="auto",
                                               size=None))
    n = args.size if rules.regions is None else round(len(rules.regions) ** 0.5)
    template = None if args.regions == "random" else rules.make([0] * (n * n))
    moves = None if template is None else symmetries(template)
    puzzles = []
    for k in range(1, args.count + 1):
        p = (make_puzzle(template, args.fraction, rng, unique=args.unique, moves=moves)
             if template is not None else _random_jigsaw(rules, n, args, rng))
        puzzles.append(p)
        if args.output == "-":
            sys.stdout.write(render(p, args.format, f"generated_{seed}_{k}"))
            sys.stdout.flush()
    if args.output != "-":
        write_text(args.output, "".join(render(p, args.format, f"generated_{seed}_{k}")
                                        for k, p in enumerate(puzzles, start=1)))
        write_text(companion(args.output, "solutions"),
                   "".join(p.format(p.solution) + "\n" for p in puzzles))
        write_text(companion(args.output, "ids"),
                   "".join(f"qsudoku generate --seed {seed} #{k}\n"
                           for k in range(1, len(puzzles) + 1)))
        givens = sum(sum(1 for d in p.givens if d) for p in puzzles) / len(puzzles)
        print(f"wrote {args.output} ({len(puzzles)} {puzzles[0].kind} puzzles, "
              f"{givens:.1f} givens on average, seed {seed}) with its .solutions and .ids "
              "companions")
    return 0


def _random_jigsaw(rules, n: int, args, rng):
    """A puzzle on a random region map (a new map while one admits no grid)."""
    for _ in range(ATTEMPTS):
        template = rules.make([0] * (n * n), regions=random_regions(n, rng))
        try:
            return make_puzzle(template, args.fraction, rng, unique=args.unique)
        except ContradictionError:
            continue
    raise ContradictionError(f"no random {n}x{n} region map with a solution in {ATTEMPTS} "
                             "tries (rules too tight for this size?)")


def render(p, fmt: str, name: str) -> str:
    """One puzzle in output format ``fmt`` (see :data:`FORMATS`), ending in a newline.

    >>> from qsudoku.io import parse_puzzle
    >>> p = parse_puzzle("1.3." "3..2" ".3.." "2..3")
    >>> render(p, "tuples", "x")
    '[[1, 1, 1], [1, 3, 3], [2, 1, 3], [2, 4, 2], [3, 2, 3], [4, 1, 2], [4, 4, 3]]\\n'
    """
    from qsudoku.io.text import format_grid

    regions = region_letters(p)
    if fmt == "line":
        return p.format() + (f" {regions}" if regions else "") + "\n"
    if fmt == "grid":
        return format_grid(p) + "\n\n"
    if fmt == "tuples":
        n = p.size
        return "[" + ", ".join(f"[{i // n + 1}, {i % n + 1}, {d}]"
                               for i, d in enumerate(p.givens) if d) + "]\n"
    solution = p.format(p.solution) if p.solution else ""
    return "\t".join((name, p.format(), regions or "-", solution)) + "\n"
