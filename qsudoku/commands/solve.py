"""``qsudoku solve``: solve puzzles and print grids, or one JSON object per puzzle."""

from __future__ import annotations

import json
import sys

from ..errors import BackendUnavailableError, ContradictionError, QSudokuError, exit_code_for
from ..io.text import format_grid
from ..pipeline import fallback_config, sampler_factory, solve
from .common import add_config_args, add_input_args, config_from_args, iter_inputs


def register(sub) -> None:
    p = sub.add_parser("solve", help="solve puzzles (propagate, build the QUBO, sample, validate)",
                       description="Solve each puzzle and report the grid, whether it is valid "
                                   "and what each stage did. Exit 0 if every puzzle got a valid "
                                   "grid, 1 if some did not, 2 on bad input or config, 3 if the "
                                   "backend is unavailable.")
    add_input_args(p)
    add_config_args(p)
    p.add_argument("--fallback", metavar="NAME",
                   help="offline sampler to run instead if --sampler is unavailable "
                        "(no token, no network, missing extra); the result says so")
    p.add_argument("--json", action="store_true", help="one JSON object per puzzle (JSON lines)")
    p.set_defaults(run=run)


def run(args) -> int:
    cfg = config_from_args(args)
    if args.fallback:
        cfg = cfg.with_overrides(fallback=args.fallback)
    worst = 0
    bad_input = []
    notes: list[str] = []

    def on_error(err):
        bad_input.append(err)
        print(f"qsudoku: error: {err}", file=sys.stderr)

    sampler = None
    for puzzle in iter_inputs(args, on_error):
        try:
            if sampler is None:
                try:
                    sampler = sampler_factory(cfg)
                except BackendUnavailableError as e:
                    cfg, note = fallback_config(cfg, e)
                    print(f"qsudoku: note: {note}", file=sys.stderr)
                    sampler = sampler_factory(cfg)
                    notes.append(note)
            result = solve(puzzle, cfg, sampler=sampler)
            result.notes[:0] = notes
        except ContradictionError as e:
            worst = max(worst, exit_code_for(e))
            _report_no_solution(args, puzzle, e)
            continue
        if not result.valid:
            worst = max(worst, 1)
        if args.json:
            print(json.dumps(result.to_dict()), flush=True)
        else:
            print(render(result), flush=True)
    if bad_input:
        worst = max(worst, 2)
    return worst


def _report_no_solution(args, puzzle, err: QSudokuError) -> None:
    if args.json:
        print(json.dumps({"name": puzzle.name, "puzzle": puzzle.format(), "size": puzzle.size,
                          "kind": puzzle.kind, "valid": False, "solution": None,
                          "solved_by": None, "error": str(err)}), flush=True)
    else:
        print(f"{puzzle.name or 'puzzle'}  {puzzle.kind}  NO SOLUTION: {err}\n", flush=True)


def _ms(x: float) -> str:
    return f"{x * 1000:.1f} ms" if x < 10 else f"{x:.1f} s"


def render(result) -> str:
    """The human-readable report of one result."""
    p = result.puzzle
    status = "VALID" if result.valid else "NOT VALID"
    lines = [f"{p.name or 'puzzle'}  {p.kind}  {status}  (solved by {result.solved_by})",
             format_grid(p, result.grid)]
    fired = ", ".join(f"{k} {v}" for k, v in result.fired.items()) or "givens only"
    lines.append(f"propagation: {fired} -> {result.num_variables} variables, "
                 f"{result.num_interactions} interactions")
    if result.success_rate is not None:
        lines.append(f"sampling: {result.num_reads} reads, {result.success_rate:.1%} valid, "
                     f"best energy {result.energy:g}")
    if result.broken:
        more = f" (+{len(result.broken) - 8} more)" if len(result.broken) > 8 else ""
        lines.append("broken: " + "; ".join(result.broken[:8]) + more)
    if p.solution is not None and result.valid and list(result.grid) != list(p.solution):
        lines.append("note: valid, but differs from the solution listed with the puzzle")
    lines.extend(f"note: {n}" for n in result.notes)
    lines.append("timings: " + ", ".join(f"{k} {_ms(v)}" for k, v in result.timings.items()))
    return "\n".join(lines) + "\n"
