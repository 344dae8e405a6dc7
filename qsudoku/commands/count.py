"""``qsudoku count``: how many solutions a puzzle has (0, 1, or at least K)."""

from __future__ import annotations

from qsudoku.errors import ConfigError
from qsudoku.exact.backends import COUNT_METHODS
from qsudoku.exact.count import count_solutions
from qsudoku.io.text import format_grid
from qsudoku.commands.common import (SecondsAction, add_input_args, add_option, add_options,
                                     error_reporter, iter_inputs, report)


def register(sub) -> None:
    p = sub.add_parser(
        "count", help="count the solutions of puzzles (no solution, unique, or at least K)",
        description="Count each puzzle's solutions with qsudoku's exact search, stopping at "
                    "--max-solutions. When a puzzle is not unique the first two solutions are "
                    "shown, with the cells where they differ. Exit 0 if every puzzle has exactly "
                    "one solution, 1 if some has none, several, or was not counted to the end "
                    "(--time-budget), 2 on bad input.")
    add_input_args(p)
    add_option(p, "--max-solutions", type=int, default=2, metavar="K", old=("--limit",),
               help="stop counting at K solutions (default 2: enough to decide uniqueness)")
    add_option(p, "--time-budget", action=SecondsAction, metavar="S", dest="time_limit",
               old=("--time-limit",),
               help="seconds per puzzle before giving up (the count is then a lower bound)")
    p.add_argument("--method", choices=["auto", *COUNT_METHODS], default="auto",
                   help="qsudoku's own search (fast up to 16x16), a SAT solver with blocking "
                        "clauses (python-sat; better on hard 25x25 puzzles), or auto (default: "
                        "sat above 16x16 when python-sat is installed, else search)")
    add_options(p, "--json")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.max_solutions < 1:
        raise ConfigError(f"--max-solutions {args.max_solutions} must be >= 1")
    for puzzle in iter_inputs(args, error_reporter(args)):
        result = count_solutions(puzzle, args.max_solutions, time_limit=args.time_limit,
                                 method=args.method)
        report(args, to_dict(puzzle, result), render(puzzle, result), 0 if result.unique else 1)
    return args.exit_so_far


def to_dict(puzzle, result) -> dict:
    """JSON-ready record of one count."""
    return {"name": puzzle.name, "puzzle": puzzle.format(), "size": puzzle.size,
            "kind": puzzle.kind, "count": result.count, "at_least": result.at_least,
            "complete": result.complete, "unique": result.unique,
            "solutions": [puzzle.format(g) for g in result.solutions],
            "seconds": round(result.stats.get("seconds", 0.0), 6)}


def differences(puzzle, a, b) -> list[str]:
    """Cells where two grids differ, as ``r1c3 4/7``."""
    n = puzzle.size
    return [f"r{i // n + 1}c{i % n + 1} {puzzle.alphabet[x - 1]}/{puzzle.alphabet[y - 1]}"
            for i, (x, y) in enumerate(zip(a, b)) if x != y]


def render(puzzle, result) -> str:
    """Human-readable report of one count."""
    what = result.describe()
    if not result.complete:
        what += " (time limit reached)"
    lines = [f"{puzzle.name or 'puzzle'}  {puzzle.kind}  {what}"]
    if not result.unique and result.solutions:
        for k, grid in enumerate(result.solutions, start=1):
            lines.append(f"solution {k}: {puzzle.format(grid)}")
        if len(result.solutions) == 2:
            diff = differences(puzzle, *result.solutions)
            lines.append(f"they differ in {len(diff)} cells: " + ", ".join(diff[:12])
                         + (" ..." if len(diff) > 12 else ""))
            lines.append(format_grid(puzzle, result.solutions[1]))
    if puzzle.solution is not None and result.solutions and result.unique \
            and list(result.solutions[0]) != list(puzzle.solution):
        lines.append("note: differs from the solution listed with the puzzle")
    return "\n".join(lines)
