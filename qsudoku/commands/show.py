"""``qsudoku show``: draw a puzzle (and optionally its solve) as a PNG, SVG or PDF picture."""

from __future__ import annotations

import sys

from qsudoku.errors import ConfigError, ContradictionError, exit_code_for
from qsudoku.io.output import check_target
from qsudoku.commands.common import (add_config_args, add_input_args, add_route_args,
                                     config_from_args, iter_inputs)

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
    g.add_argument("--index", type=int, default=1, metavar="K",
                   help="which puzzle of a file (1-based, default 1)")
    g.add_argument("--solve", action="store_true", help="solve it and draw the best sample")
    g.add_argument("--candidates", action="store_true",
                   help="pencil-mark the candidates of open cells (without --solve)")
    g.add_argument("--out", required=True, metavar="FILE", help="grid.png, grid.svg or grid.pdf")
    g.add_argument("--hist", metavar="FILE",
                   help="also an energy histogram of the sample set (with --solve)")
    g.add_argument("--dpi", type=int, default=110,
                   help=f"resolution of PNG output ({MIN_DPI} to {MAX_DPI}, default 110)")
    p.set_defaults(run=run)


def _check_out(path: str, flag: str) -> None:
    if not path.lower().endswith(_FORMATS):
        raise ConfigError(f"{flag} {path!r} must end in {', '.join(_FORMATS)}")
    check_target(path, flag)


def _pick(args):
    if args.index < 1:
        raise ConfigError(f"--index {args.index} must be >= 1")
    count = 0
    for puzzle in iter_inputs(args):
        count += 1
        if count == args.index:
            return puzzle
    raise ConfigError(f"--index {args.index}: the input has only {count} puzzle(s)")


def run(args) -> int:
    from qsudoku.plots import grid as plot
    from qsudoku.solving import solve
    from qsudoku.model.propagate import propagate

    if not MIN_DPI <= args.dpi <= MAX_DPI:
        raise ConfigError(f"--dpi {args.dpi} must be between {MIN_DPI} and {MAX_DPI}")
    _check_out(args.out, "--out")
    if args.hist:
        if not args.solve:
            raise ConfigError("--hist needs --solve (it shows the energies of the samples)")
        _check_out(args.hist, "--hist")
    cfg = config_from_args(args)
    puzzle = _pick(args)
    code = 0
    if args.solve:
        try:
            result = solve(puzzle, cfg)
        except ContradictionError as e:
            print(f"qsudoku: {puzzle.name or 'puzzle'} has no solution: {e}", file=sys.stderr)
            fig = plot.draw_grid(puzzle, title=f"{puzzle.name or 'puzzle'}: no solution")
            plot.save_figure(fig, args.out, dpi=args.dpi)
            return exit_code_for(e)
        fig = plot.draw_result(result)
        code = 0 if result.valid else 1
        status = "valid" if result.valid else "NOT valid"
        energy = "no sample" if result.energy is None else f"energy {result.energy:g}"
        print(f"{puzzle.name or 'puzzle'}: {status} (solved by {result.solved_by}, "
              f"{energy})", file=sys.stderr)
        if args.hist:
            if result.decoded:
                h = plot.energy_histogram(result, label=result.solved_by,
                                          title=f"{puzzle.name or 'puzzle'}: "
                                                f"{result.num_reads} reads")
                plot.save_figure(h, args.hist, dpi=args.dpi)
            else:
                print("qsudoku: note: propagation solved it; no samples, no histogram",
                      file=sys.stderr)
    else:
        try:
            cands = propagate(puzzle, cfg.propagate.rules)
        except ContradictionError as e:
            print(f"qsudoku: {puzzle.name or 'puzzle'} has no solution: {e}", file=sys.stderr)
            cands, code = None, exit_code_for(e)
        if cands is None:
            fig = plot.draw_grid(puzzle, title=f"{puzzle.name or 'puzzle'}: no solution")
        else:
            left = len(cands.open_cells)
            fig = plot.draw_grid(puzzle, candidates=cands if args.candidates else None,
                                 fixed=cands.grid,
                                 title=f"{puzzle.name or 'puzzle'}: {left} open cells, "
                                       f"{cands.num_variables} variables after propagation")
    plot.save_figure(fig, args.out, dpi=args.dpi)
    print(f"wrote {args.out}", file=sys.stderr)
    return code
