"""ASP: clingo facts for the candidates and groups, and one cardinality rule.

The program (rows, columns and digits 1-based)::

    cand(R,C,D).  fixed(R,C,D).  group(G,Kind).  member(G,R,C,D).
    1 { x(R,C,D) : member(G,R,C,D) } 1 :- group(G,_).
    value(R,C,D) :- fixed(R,C,D).
    value(R,C,D) :- x(R,C,D).
    #show value/3.

The bounded choice rule gives each group exactly one of its variables.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> p = Problem.from_candidates(propagate(parse_puzzle("12.." "34.." "...." "...."), rules=()))
>>> text = program(p)
>>> "member(1,1,4,3)." in text, text.count("group(")
(True, 49)
"""

from __future__ import annotations

import time

from qsudoku.errors import ConfigError
from qsudoku.exact.problem import Outcome, Problem

#: Facts clingo grounds per second, at least: a programme with more facts than this times
#: the time limit is not started (grounding cannot be interrupted).
GROUND_RATE = 40_000

__all__ = ["GROUND_RATE", "RULES", "facts", "program", "to_asp", "solve_asp", "parse_values"]

#: The rules shared by the sampler and the export.
RULES = """\
% each group (open cell, or unit x missing digit) gets exactly one of its candidates
1 { x(R,C,D) : member(G,R,C,D) } 1 :- group(G,_).
% the full grid: the cells propagation fixed, then the chosen candidates
value(R,C,D) :- fixed(R,C,D).
value(R,C,D) :- x(R,C,D).
#show value/3.
"""


def facts(problem: Problem) -> str:
    """The problem as facts: ``cand/3``, ``fixed/3``, ``group/2`` and ``member/4``."""
    lines = [f"cand({r + 1},{c + 1},{d})." for r, c, d in problem.labels]
    cands = problem.candidates
    if cands is not None:
        n = cands.puzzle.size
        lines += [f"fixed({i // n + 1},{i % n + 1},{d})."
                  for i, d in enumerate(cands.grid) if d]
    labels = problem.labels
    for k, g in enumerate(problem.groups):
        lines.append(f"group({k},{g.kind}).")
        lines.extend(f"member({k},{labels[v][0] + 1},{labels[v][1] + 1},{labels[v][2]})."
                     for v in g.members)
    return "\n".join(lines) + "\n"


def program(problem: Problem, comment: str = "") -> str:
    """A complete clingo program: a comment header, the facts and :data:`RULES`."""
    head = "".join(f"% {line}\n" for line in comment.splitlines())
    return head + facts(problem) + RULES


def to_asp(problem: Problem) -> str:
    """The export: :func:`program` under a header naming the puzzle (a propagated one)."""
    if problem.candidates is None:
        raise ValueError("to_asp needs a problem made by Problem.from_candidates")
    return program(problem, "\n".join([f"qsudoku: {problem.candidates.puzzle.kind}",
                                       *problem.about(), "solve with: clingo FILE"]))


def parse_values(symbols) -> dict[tuple[int, int], int]:
    """``{(row, col): digit}`` (0-based cells) from ``value/3`` or ``x/3`` clingo symbols."""
    out = {}
    for s in symbols:
        if s.name in ("value", "x") and len(s.arguments) == 3:
            r, c, d = (a.number for a in s.arguments)
            out[r - 1, c - 1] = d
    return out


def solve_asp(problem: Problem, time_limit: float | None = None, seed: int = 0) -> Outcome:
    """Ground and solve :func:`program` with the clingo Python package."""
    t0 = time.perf_counter()  # importing clingo (first call) counts against the limit
    import clingo

    facts_count = len(problem.labels) + sum(1 + len(g.members) for g in problem.groups)
    if time_limit is not None and facts_count > GROUND_RATE * time_limit:
        return Outcome(None, "time_limit", {"solver": "asp:clingo", "facts": facts_count,
                                            "reason": "grounding would exceed the time limit",
                                            "timing": {"model": time.perf_counter() - t0}})
    ctl = clingo.Control(["1", f"--seed={int(seed)}", "--warn=none"])
    ctl.add("base", [], program(problem))
    ctl.ground([("base", [])])
    t1 = time.perf_counter()
    found: list = []

    def on_model(m):
        found.append(m.symbols(shown=True))

    with ctl.solve(on_model=on_model, async_=True) as handle:
        # grounding counts against the limit
        finished = (handle.wait(max(0.0, time_limit - (t1 - t0))) if time_limit is not None
                    else handle.wait())
        if not finished:
            handle.cancel()
        result = handle.get()
    t2 = time.perf_counter()
    summary = ctl.statistics.get("summary", {})
    info = {"solver": "asp:clingo", "asp_status": str(result),
            "choices": int(ctl.statistics.get("solving", {}).get("solvers", {}).get("choices", 0)),
            "timing": {"model": t1 - t0, "solve": t2 - t1, "clingo": dict(summary.get("times", {}))}}
    if found:
        index = {(r, c, d): i for i, (r, c, d) in enumerate(problem.labels)}
        chosen = [index[r, c, d] for (r, c), d in parse_values(found[-1]).items()
                  if (r, c, d) in index]
        return Outcome(tuple(sorted(chosen)), "solved", info)
    if result.unsatisfiable:
        return Outcome(None, "infeasible", info)
    if not finished or result.interrupted:
        return Outcome(None, "time_limit", info)
    raise ConfigError(f"clingo ended without a model or a proof: {result}")
