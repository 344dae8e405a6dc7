"""``qsudoku generate``: random puzzles with a given fraction of givens, with their solutions.

The generator is :mod:`qsudoku.exact.generate` (Lewis's method: a shuffled valid grid,
then givens removed at random; ``--unique`` removes a given only while the exact search
proves the solution unique); one ``--seed`` gives the same file on every platform.  Each
format (:data:`FORMATS`) is one the package reads back.

With ``-o FILE`` the solutions go to ``<stem>.solutions<ext>`` and the seeds to
``<stem>.ids<ext>``; the three files are checked before any is written, then written as
one (all old or all new after a failure) under the lock of
:mod:`qsudoku.experiments.locks`.  ``--time-budget S`` stops the run (exit 1, nothing
written); a puzzle that takes more than :data:`QUIET_SECONDS` says what it does on stderr.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from qsudoku.errors import ConfigError, ContradictionError, TimeLimitError
from qsudoku.exact.generate import (ATTEMPTS, make_puzzle, random_regions, region_letters,
                                    symmetries)
from qsudoku.io.files import companion
from qsudoku.io.output import write_texts
from qsudoku.model.symbols import MAX_SIZE
from qsudoku.commands.common import (SecondsAction, add_option, add_options, check_writes,
                                     rules_from_args)

__all__ = ["register", "run", "render", "size_line", "FORMATS"]

#: Output format -> what it writes.
FORMATS = {"line": "one puzzle a line (jigsaw: puzzle, space, region map)",
           "grid": "grids separated by blank lines",
           "tuples": "a # size N line, then a list of 1-indexed [row, col, value] triples "
                     "(one puzzle)",
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
    add_options(p, "--box", "--variant")
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
    p.add_argument("--time-budget", dest="time_limit", action=SecondsAction, metavar="S",
                   help="seconds the whole run may take (default: no limit); past it the "
                        "run stops with exit 1 and -o FILE is not written. Progress goes "
                        "to stderr once a puzzle takes more than a few seconds")
    p.set_defaults(run=run)


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
    # the puzzles and their two companions: all checked before any is written
    check_writes(args, _outputs(args.output))


def _outputs(output: str) -> list[str]:
    """The files ``-o output`` writes: the puzzles, then their companions."""
    if output == "-":
        return [output]
    return [output, companion(output, "solutions"), companion(output, "ids")]


def run(args) -> int:
    _check(args)
    if args.output == "-":
        return _generate(args)
    from qsudoku.experiments.locks import lock, unlock

    held = lock(args.output)  # one writer of these three files at a time
    try:
        return _generate(args)
    finally:
        unlock(args.output, held)


def _generate(args) -> int:
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
    clock = _Clock(args.time_limit, args.count, big=n >= LOUD_FROM)
    for k in range(1, args.count + 1):
        clock.puzzle = k
        try:
            p = (make_puzzle(template, args.fraction, rng, unique=args.unique, moves=moves,
                             time_limit=clock.left(), progress=clock.progress)
                 if template is not None else _random_jigsaw(rules, n, args, rng, clock))
        except TimeLimitError:
            kept = ("nothing was written" if args.output != "-" else
                    f"{k - 1} puzzle{'s' if k != 2 else ''} printed")
            raise TimeLimitError(f"generate stopped at --time-budget {args.time_limit:g} s "
                                 f"while making puzzle {k} of {args.count}; {kept}") from None
        clock.done()
        puzzles.append(p)
        if args.output == "-":
            sys.stdout.write(render(p, args.format, f"generated_{seed}_{k}"))
            sys.stdout.flush()
    if args.output != "-":
        write_texts({  # the three as one: all old or all new after a failure
            args.output: "".join(render(p, args.format, f"generated_{seed}_{k}")
                                 for k, p in enumerate(puzzles, start=1)),
            companion(args.output, "solutions"):
                size_line(puzzles[0], args.format)
                + "".join(p.format(p.solution) + "\n" for p in puzzles),
            companion(args.output, "ids"):
                "".join(f"qsudoku generate --seed {seed} #{k}\n"
                        for k in range(1, len(puzzles) + 1))})
        givens = sum(sum(1 for d in p.givens if d) for p in puzzles) / len(puzzles)
        print(f"wrote {args.output} ({len(puzzles)} {puzzles[0].kind} puzzles, "
              f"{givens:.1f} givens on average, seed {seed}) with its .solutions and .ids "
              "companions")
    return 0


class _Clock:
    """The run's time limit, and its progress on stderr: said once a puzzle has taken
    :data:`QUIET_SECONDS`, then at most every :data:`QUIET_SECONDS`."""

    def __init__(self, limit: float | None, count: int, big: bool):
        self.start = self.last = time.monotonic()
        self.deadline = None if limit is None else self.start + limit
        self.count, self.puzzle, self.began, self.big = count, 1, self.start, big

    def left(self) -> float | None:
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeLimitError("generate stopped at its time limit")
        return left

    def progress(self, what: str) -> None:
        """Say ``what`` the run is doing, if quiet for long enough (a search for a big
        grid, slow at every attempt, is always said)."""
        now = time.monotonic()
        if now - self.last >= QUIET_SECONDS or (self.big and what.startswith(("searching",
                                                                             "making"))):
            self.last = now
            print(f"qsudoku: generate: puzzle {self.puzzle} of {self.count}: {what} "
                  f"({now - self.start:.0f} s)", file=sys.stderr, flush=True)

    def done(self) -> None:
        now = time.monotonic()
        if now - self.began >= QUIET_SECONDS:
            print(f"qsudoku: generate: puzzle {self.puzzle} of {self.count} made in "
                  f"{now - self.began:.1f} s", file=sys.stderr, flush=True)
            self.last = now
        self.began = now


#: Seconds of silence before generate shows progress on stderr.
QUIET_SECONDS = 5.0
#: From this size up each step of a random grid (a region map, a search attempt, each
#: of which may take minutes) is said on stderr as it starts.
LOUD_FROM = 26


def _random_jigsaw(rules, n: int, args, rng, clock):
    """A puzzle on a random region map (a new map while one admits no grid)."""
    for _ in range(ATTEMPTS):
        clock.progress(f"making a random {n}x{n} region map")
        left = clock.left()
        regions = random_regions(n, rng, deadline=None if left is None
                                 else time.monotonic() + left)
        template = rules.make([0] * (n * n), regions=regions)
        try:
            return make_puzzle(template, args.fraction, rng, unique=args.unique,
                               time_limit=clock.left(), progress=clock.progress)
        except ContradictionError:
            continue
    raise ContradictionError(f"no random {n}x{n} region map with a solution in {ATTEMPTS} "
                             "tries (rules too tight for this size?)")


def size_line(p, fmt: str) -> str:
    """The ``# size N`` line that begins a file of format ``fmt`` (tuple lists only), and
    its solutions companion, so that line ``k`` of both is the same puzzle.

    >>> from qsudoku.io import parse_puzzle
    >>> size_line(parse_puzzle("1.3." "3..2" ".3.." "2..3"), "tuples")
    '# size 4\\n'
    """
    return f"# size {p.size}\n" if fmt == "tuples" else ""


def render(p, fmt: str, name: str) -> str:
    """One puzzle in output format ``fmt`` (see :data:`FORMATS`), ending in a newline.

    >>> from qsudoku.io import parse_puzzle
    >>> p = parse_puzzle("1.3." "3..2" ".3.." "2..3")
    >>> render(p, "tuples", "x")
    '# size 4\\n[[1, 1, 1], [1, 3, 3], [2, 1, 3], [2, 4, 2], [3, 2, 3], [4, 1, 2], [4, 4, 3]]\\n'
    """
    from qsudoku.io.text import format_grid

    regions = region_letters(p)
    if fmt == "line":
        return p.format() + (f" {regions}" if regions else "") + "\n"
    if fmt == "grid":
        return format_grid(p) + "\n\n"
    if fmt == "tuples":  # the size first: a tuple list of few givens does not show it
        n = p.size
        return size_line(p, fmt) + "[" + ", ".join(f"[{i // n + 1}, {i % n + 1}, {d}]"
                                                   for i, d in enumerate(p.givens) if d) + "]\n"
    solution = p.format(p.solution) if p.solution else ""
    return "\t".join((name, p.format(), regions or "-", solution)) + "\n"
