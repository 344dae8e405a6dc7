"""``qsudoku solve``: solve puzzles and print grids, or one JSON object per puzzle."""

from __future__ import annotations

import json
import sys
import time
from collections import Counter

from qsudoku.errors import ContradictionError, exit_code_for
from qsudoku.io.text import format_grid
from qsudoku.model.result import By, count_noun, format_seconds
from qsudoku.solving import make_plan, rounds_text, run_plan
from qsudoku.commands.common import (add_config_args, add_index_arg, add_input_args,
                                     add_options, add_route_args, config_from_args,
                                     error_reporter, iter_inputs, pick_puzzle, report)


def register(sub) -> None:
    p = sub.add_parser("solve", help="solve puzzles (propagate, build the QUBO, sample, validate)",
                       description="Solve each puzzle and report the grid, whether it is valid "
                                   "and what each stage did. Exit 0 if every puzzle got a valid "
                                   "grid, 1 if some did not, 2 on bad input or config, 3 if the "
                                   "backend is unavailable.")
    add_input_args(p)
    add_index_arg(p, default=None)
    add_config_args(p)
    add_route_args(p)
    p.add_argument("--fallback", metavar="NAME",
                   help="offline sampler to run instead if --sampler is unavailable "
                        "(no token, no network, missing extra); the result says so")
    p.add_argument("--check-unique", action="store_true",
                   help="also count solutions (exact, up to 2, within route."
                        "fallback_time_limit): a puzzle with several is flagged 'unique: false' "
                        "with a second solution, exit 1 (also when the count ran out of time)")
    add_options(p, "--json")
    p.set_defaults(run=run)


def run(args) -> int:
    cfg = config_from_args(args)
    if args.fallback:
        cfg = cfg.with_overrides(fallback=args.fallback)
    _solve_all(args, cfg)
    return args.exit_so_far


def _solve_all(args, cfg) -> None:
    """Solve and print every input puzzle; ``args.exit_so_far`` holds the exit code so far."""
    tally, said = Tally(), error_reporter(args, code=2)

    def on_error(err):
        said(err)
        tally.unreadable += 1

    plan = None
    puzzles = (iter_inputs(args, on_error) if args.index is None
               else [pick_puzzle(args, on_error)])
    for puzzle in puzzles:
        try:
            if plan is None:  # bad parameters fail before any puzzle is solved
                plan = make_plan(cfg)
                for note in plan.notes if args.json else ():  # the text report has them
                    print(f"qsudoku: note: {note}", file=sys.stderr)
            result = run_plan(plan, puzzle)
            count = _count(puzzle, cfg) if args.check_unique else None
        except ContradictionError as e:
            report(args, {"name": puzzle.name, "puzzle": puzzle.format(), "size": puzzle.size,
                          "kind": puzzle.kind, "valid": False, "solution": None,
                          "solved_by": None, "error": str(e)},
                   f"{puzzle.name or 'puzzle'}  {puzzle.kind}  NO SOLUTION: {e}\n",
                   exit_code_for(e))
            tally.no_solution += 1
            continue
        tally.add(result, count)
        if not result.valid or (count is not None and not count.unique):
            args.exit_so_far = max(args.exit_so_far, 1)
        if args.json:
            out = result.to_dict()
            if count is not None:
                out.update(_count_fields(puzzle, count))
            print(json.dumps(out), flush=True)
        else:
            text = render(result)
            if count is not None:
                text = text.rstrip("\n") + "\n" + _count_text(puzzle, count) + "\n"
            print(text, flush=True)
    if tally.puzzles > 1 and not args.json:
        print(tally.line(), flush=True)


class Tally:
    """The total line of a solve of many puzzles: how many got a valid grid, by what, and
    the time since the command started (as ``embed`` ends with its summary).

    >>> t = Tally(started=time.perf_counter())
    >>> t.solved_by.update(["aco", "aco", "propagation"]); t.valid, t.no_solution = 3, 1
    >>> t.line()[:47]
    '3/4 valid (aco 2, propagation 1), 1 no solution'
    """

    def __init__(self, started: float | None = None):
        self.started = time.perf_counter() if started is None else started
        self.valid = self.not_valid = self.no_solution = self.not_unique = self.unreadable = 0
        self.solved_by: Counter = Counter()

    @property
    def puzzles(self) -> int:
        """Puzzles met so far: solved or not, and those unreadable (``--keep-going``)."""
        return self.valid + self.not_valid + self.no_solution + self.unreadable

    def add(self, result, count=None) -> None:
        """Count one result (and its solution count, with ``--check-unique``)."""
        if result.valid:
            self.valid += 1
            self.solved_by[result.outcome.solver] += 1
        else:
            self.not_valid += 1
        if count is not None and not count.unique:
            self.not_unique += 1

    def line(self) -> str:
        """``12/12 valid (aco 11, sat 1), 3.20 s``."""
        by = ", ".join(f"{k} {v}" for k, v in self.solved_by.most_common())
        parts = [f"{self.valid}/{self.puzzles} valid" + (f" ({by})" if by else "")]
        for n, what in ((self.not_valid, "not valid"), (self.no_solution, "no solution"),
                        (self.unreadable, "unreadable"), (self.not_unique, "not unique")):
            if n:
                parts.append(f"{n} {what}")
        parts.append(format_seconds(time.perf_counter() - self.started))
        return ", ".join(parts)


def _count(puzzle, cfg):
    from qsudoku.exact.count import count_solutions

    return count_solutions(puzzle, limit=2, method="auto",
                           time_limit=cfg.route.fallback_time_limit or None)


def _count_fields(puzzle, count) -> dict:
    out = {"unique": count.unique if count.decided else None, "solutions_found": count.describe()}
    if not count.unique and len(count.solutions) > 1:
        out["second_solution"] = puzzle.format(count.solutions[1])
    return out


def _count_text(puzzle, count) -> str:
    if count.unique:
        return "unique: yes (exact count)"
    if not count.decided:
        return (f"unique: not decided - the count stopped at its time limit "
                f"(route.fallback_time_limit) after {count.describe()}")
    text = f"unique: NO - {count.describe()}; this grid is one answer, not the answer"
    if len(count.solutions) > 1:
        text += "\nanother solution:\n" + format_grid(puzzle, count.solutions[1])
    return text


def _qpu_line(info: dict) -> str:
    """The QPU cost of a QPU-backed result ("" for other samplers): QPU calls, qubits,
    longest chain, embedding, and the QPU access time, estimated with D-Wave's timing
    model; a time the QPU reported is shown as measured, the mock's canned one is not."""
    emb = info.get("embedding_context") or {}
    timing = info.get("timing") or {}
    if not any(k in info or k in emb for k in ("num_qubits", "qpu_calls", "longest_chain")):
        return ""
    calls = info.get("qpu_calls", info.get("rounds"))
    parts = [count_noun(int(calls), "QPU call")] if calls is not None else []
    if info.get("subproblems_per_call") is not None:
        parts.append(f"{float(info['subproblems_per_call']):.3g} subproblems per call")
    for key, label in (("num_qubits", "qubits"), ("longest_chain", "longest chain"),
                       ("chain_break_fraction", "chain breaks"), ("chain_strength", "chain strength"),
                       ("embedding_time", "embedding"), ("embedding_cache_hit", "cache hit")):
        value = info.get(key, emb.get(key))
        if value is None:
            continue
        if key == "chain_break_fraction":
            value = f"{float(value):.1%}"
        elif key == "embedding_time":
            value = format_seconds(float(value))
        elif isinstance(value, float):
            value = f"{value:.3g}"
        parts.append(f"{label} {value}")
    estimate = info.get("estimated_qpu_access_time", timing.get("estimated_qpu_access_time"))
    if estimate is not None:
        parts.append(f"QPU access ~{float(estimate) / 1000:.1f} ms (estimated, D-Wave's "
                     "timing model)")
    measured = timing.get("qpu_access_time", info.get("qpu_access_time"))
    if measured is not None and not info.get("mock_timing"):
        parts.append(f"QPU access {float(measured) / 1000:.1f} ms (reported by the QPU)")
    return "qpu: " + ", ".join(parts)


def _run_lines(result) -> list[str]:
    """The budget that ran and why, and the seed (drawn or given), of a result that did more
    than propagate."""
    if result.outcome.by is By.PROPAGATION:
        return []
    sampler = result.sampler or {}
    route, seed = sampler.get("route") or {}, sampler.get("seed")
    lines = []
    if route.get("time_budget") is not None and not route.get("fixed_sample"):
        seconds = float(route["time_budget"])
        shown = f"{seconds:.3g}" if seconds < 1000 else f"{seconds:.0f}"
        lines.append(f"budget: {shown} s ({route.get('budget', 'set')})")
    if seed is not None:
        lines.append(f"seed: {seed}" + (f" (drawn; --seed {seed} repeats it)"
                                        if sampler.get("seed_drawn") else ""))
    return lines


def render(result) -> str:
    """The human-readable report of one result."""
    p = result.puzzle
    status = "VALID" if result.valid else "NOT VALID"
    lines = [f"{p.name or 'puzzle'}  {p.kind}  {status}  (solved by {result.solved_by})",
             format_grid(p, result.grid)]
    fired = ", ".join(f"{k} {v}" for k, v in result.fired.items()) or "givens only"
    size = (f"{result.num_interactions} interactions" if result.model is not None
            or not result.num_variables else "no QUBO: the exact sampler reads the candidates"
            if result.info.get("qubo") else "the QUBO not built within the time budget")
    enc = "" if result.encoding == "one-hot" else f" ({result.encoding})"
    lines.append(f"propagation: {fired} -> {result.num_variables} variables{enc}, {size}")
    if result.success_rate is not None:
        where = f" over {rounds_text(result.rounds)}" if result.rounds else ""
        lines.append(f"sampling: {count_noun(result.num_reads, 'read')}{where}, {result.success_rate:.1%} "
                     f"valid, best energy {result.energy:g}")
    qpu = _qpu_line(result.info)
    if qpu:
        lines.append(qpu)
    lines.extend(_run_lines(result))
    if result.broken:
        more = f" (+{len(result.broken) - 8} more)" if len(result.broken) > 8 else ""
        lines.append("broken: " + "; ".join(result.broken[:8]) + more)
    if p.solution is not None and result.valid and list(result.grid) != list(p.solution):
        lines.append("note: valid, but differs from the solution listed with the puzzle")
    lines.extend(f"note: {n}" for n in result.notes)
    lines.append("timings: " + ", ".join(f"{k} {format_seconds(v)}" for k, v in result.timings.items()))
    return "\n".join(lines) + "\n"
