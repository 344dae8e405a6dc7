"""``qsudoku show``: draw a puzzle (and optionally its solve) as a PNG, SVG or PDF picture."""

from __future__ import annotations

import sys

from qsudoku.errors import ConfigError, ContradictionError, exit_code_for
from qsudoku.io.output import is_stdout
from qsudoku.model.result import count_noun
from qsudoku.commands.common import (add_config_args, add_index_arg, add_input_args, add_option,
                                     add_route_args, check_writes, config_from_args, pick_puzzle)

_FORMATS = (".png", ".svg", ".pdf")
#: Resolution limits of ``--dpi`` (the picture's pixel count is bounded too, see
#: :data:`qsudoku.plots.grid.MAX_PIXELS`).
MIN_DPI, MAX_DPI = 10, 1200


def register(sub) -> None:
    p = sub.add_parser(
        "show", help="draw a puzzle, its propagation or its solve as a picture",
        description="Draw the grid: givens bold, digits found by propagation blue, digits found "
                    "by the sampler orange, thick lines between boxes/regions, diagonals "
                    "shaded, cells of broken constraints red. Exit 0, or 1 if --solve found "
                    "no valid grid.")
    add_input_args(p, many=False)
    add_config_args(p)
    add_route_args(p)
    g = p.add_argument_group("picture")
    add_index_arg(g)
    g.add_argument("--solve", action="store_true", help="solve it and draw the best sample")
    g.add_argument("--candidates", action="store_true",
                   help="pencil-mark the candidates of open cells (without --solve)")
    add_option(g, "-o", "--output", required=True, metavar="FILE", dest="out", old=("--out",),
               help="grid.png, grid.svg or grid.pdf; - writes PNG to standard output "
                    "when it is redirected (not to a terminal)")
    g.add_argument("--hist", metavar="FILE",
                   help="also an energy histogram of the sample set (with --solve; "
                        "a file name as for --output)")
    g.add_argument("--dpi", type=int, default=110,
                   help=f"resolution of PNG output ({MIN_DPI} to {MAX_DPI}, default 110)")
    p.set_defaults(run=run)


def _check_out(path: str, flag: str) -> bool:
    """Refuse a picture name of no known format; True if the format is binary."""
    if not is_stdout(path) and not path.lower().endswith(_FORMATS):
        raise ConfigError(f"{flag} {path!r} must end in {', '.join(_FORMATS)} (or be -)")
    return not path.lower().endswith(".svg")


def _wrote(path: str) -> None:
    """Say where a picture went (nothing when standard output holds it)."""
    if not is_stdout(path):
        print(f"wrote {path}", file=sys.stderr)


def run(args) -> int:
    from qsudoku.plots import grid as plot
    from qsudoku.solving import solve
    from qsudoku.model.propagate import propagate

    if not MIN_DPI <= args.dpi <= MAX_DPI:
        raise ConfigError(f"--dpi {args.dpi} must be between {MIN_DPI} and {MAX_DPI}")
    outputs, flags = [args.out], ["-o"]
    if args.hist:
        if not args.solve:
            raise ConfigError("--hist needs --solve (it shows the energies of the samples)")
        outputs, flags = [args.out, args.hist], ["-o", "--hist"]
    # both pictures: checked together, against each other and every input, before either
    check_writes(args, outputs, what=flags,
                 binary=[_check_out(p, f) for p, f in zip(outputs, flags)])
    cfg = config_from_args(args)
    puzzle = pick_puzzle(args)
    name, code = puzzle.name or "puzzle", 0
    try:
        if args.solve:
            result = solve(puzzle, cfg)
        else:
            cands = propagate(puzzle, cfg.propagate.rules)
    except ContradictionError as e:
        print(f"qsudoku: {name} has no solution: {e}", file=sys.stderr)
        fig = plot.draw_grid(puzzle, title=f"{name}: no solution")
        code = exit_code_for(e)
    else:
        if args.solve:
            fig = plot.draw_result(result)
            code = 0 if result.valid else 1
            status = "valid" if result.valid else "NOT valid"
            energy = "no sample" if result.energy is None else f"energy {result.energy:g}"
            print(f"{name}: {status} (solved by {result.solved_by}, {energy})", file=sys.stderr)
            if args.hist and result.decoded:
                h = plot.energy_histogram(result, label=result.solved_by,
                                          title=f"{name}: {count_noun(result.num_reads, 'read')}")
                plot.save_figure(h, args.hist, dpi=args.dpi)
                _wrote(args.hist)
            elif args.hist:
                print("qsudoku: note: propagation solved it; no samples, no histogram",
                      file=sys.stderr)
        else:
            fig = plot.draw_grid(puzzle, candidates=cands if args.candidates else None,
                                 fixed=cands.grid,
                                 title=f"{name}: {len(cands.open_cells)} open cells, "
                                       f"{cands.num_variables} variables after propagation")
    plot.save_figure(fig, args.out, dpi=args.dpi)
    _wrote(args.out)
    return code
