"""What a solve produced: one :class:`Result` type for every route to an answer.

:func:`qsudoku.solving.solve` returns it, for every sampler; ``bench`` and ``sweep`` rows
are made from it.
It is built by keyword, and :func:`jsonable` and :func:`format_seconds` are the one
JSON converter and the one time formatter of results.

>>> from qsudoku.io import parse_puzzle
>>> p = parse_puzzle("1..." "..2." ".3.." "...4")
>>> r = Result(puzzle=p, grid=[0] * 16, valid=False, solved_by="none")
>>> r.solution, r.to_dict()["valid"]
('................', False)
>>> format_seconds(0.0123), format_seconds(12.5), format_seconds(float("inf"))
('12.3 ms', '12.50 s', 'inf')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from qsudoku.model.puzzle import Puzzle

__all__ = ["Result", "jsonable", "format_seconds", "count_noun"]


@dataclass
class Result:
    """What one solve produced.

    Attributes:
        puzzle: The input puzzle.
        grid: The best grid found (0 = cell left undecided by the best sample).
        valid: True iff ``grid`` is a full valid solution keeping the givens.
        solved_by: ``"propagation"`` if nothing was left to sample; ``"<sampler> (N rounds)"``
            when a sampling round found a valid grid; ``"<backend> (exact, no QUBO)"``
            when an exact sampler solved the candidates directly; ``"sat fallback after
            <sampler> (N rounds)"`` when the exact fallback finished; ``"none"`` when
            nothing did (``"none: <backend> stopped at its S s time limit"`` for an exact
            sampler that ran out of time).
        energy: Energy of the best read (``0.0`` for propagation-only solves).
        success_rate: Fraction of reads that were valid (``None`` without sampling).
        num_reads: Reads taken over all rounds.
        num_valid: Valid reads among them.
        mean_energy: Mean energy per read (NaN without sampling).
        broken_per_read: Mean broken one-hot groups per read, by constraint kind and
            ``total`` (empty without sampling).
        chain_break_fraction: Mean chain-break fraction per read (NaN unless a QPU sampler
            reports it).
        rounds: Sampler calls.
        num_variables: Variables of the reduced QUBO.
        encoding: How its cells' candidates became variables (``one-hot``, ``domain-wall``).
        num_interactions: Its quadratic terms.
        fired: How often each propagation rule acted.
        timings: Seconds per stage (``propagate``, ``build``, ``sample``, ``decode``,
            ``fallback``, ``compile``, ``total``).
        broken: Readable names of the constraints the best read breaks.
        sampler: Sampler name, the parameters of the first round's call (a time limit
            shown as the whole budget: each round gets the time left of it), the
            configured ``seed`` and the round policy (``route``).
        info: The rounds' ``sampleset.info`` (timings and numbers summed over rounds, the
            last ``status``), with ``rounds``.
        model: The :class:`~qsudoku.model.qubo.QuboModel` (``None`` if propagation solved it).
        sampleset: The raw :class:`dimod.SampleSet` (``None`` if propagation solved it).
        decoded: Every decoded read of ``sampleset``.
        notes: Things the user should know (e.g. a fallback ran).
    """

    puzzle: Puzzle
    grid: list[int]
    valid: bool
    solved_by: str
    energy: float | None = 0.0
    success_rate: float | None = None
    num_reads: int = 0
    num_valid: int = 0
    mean_energy: float = math.nan
    broken_per_read: dict[str, float] = field(default_factory=dict)
    chain_break_fraction: float = math.nan
    rounds: int = 0
    num_variables: int = 0
    encoding: str = "one-hot"
    num_interactions: int = 0
    fired: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)
    sampler: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    model: Any = field(default=None, repr=False)
    sampleset: Any = field(default=None, repr=False)
    decoded: list = field(default_factory=list, repr=False)
    notes: list[str] = field(default_factory=list)

    @property
    def solution(self) -> str:
        """Row-major string of ``grid`` in the puzzle's digit convention (``.`` = undecided)."""
        return self.puzzle.format(self.grid)

    @property
    def matches_solution(self) -> bool | None:
        """Whether ``grid`` is the solution listed with the puzzle (``None`` if none is)."""
        sol = self.puzzle.solution
        return None if sol is None else list(self.grid) == list(sol)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no raw samples, no credentials)."""
        p = self.puzzle
        out = {
            "name": p.name,
            "puzzle": p.format(),
            "size": p.size,
            "kind": p.kind,
            "valid": self.valid,
            "solution": self.solution,
            "energy": self.energy,
            "num_variables": self.num_variables,
            "encoding": self.encoding,
            "num_interactions": self.num_interactions,
            "solved_by": self.solved_by,
            "success_rate": self.success_rate,
            "num_reads": self.num_reads,
            "rounds": self.rounds,
            "propagation": dict(self.fired),
            "broken": list(self.broken),
            "sampler": jsonable(self.sampler),
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "info": jsonable({k: v for k, v in self.info.items() if not _is_timing(k)}),
            "backend_timing": jsonable({k: v for k, v in self.info.items() if _is_timing(k)}),
            "notes": list(self.notes),
        }
        if p.solution is not None:
            out["matches_known_solution"] = self.matches_solution
        return out


def _is_timing(key) -> bool:
    """Sample-set info keys that hold wall or QPU times (they differ between runs)."""
    key = str(key)
    return key in ("timing", "timings") or key.endswith(("_time", "_seconds"))


def jsonable(x):
    """``x`` with numpy scalars and arrays, tuples, sets and odd keys made JSON-ready:
    plain Python numbers and lists, so that no ``np.float64(...)`` reaches an output
    (other objects become their ``str``).

    >>> import numpy as np
    >>> jsonable({1: (np.int64(2), np.float32(0.5)), "s": {None}, "a": np.arange(2)})
    {'1': [2, 0.5], 's': [None], 'a': [0, 1]}
    >>> type(jsonable(np.float64(108.0)))
    <class 'float'>
    """
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (set, frozenset)):
        return [jsonable(v) for v in sorted(x, key=str)]
    if x is None:
        return x
    if hasattr(x, "tolist"):  # numpy scalars and arrays
        return jsonable(x.tolist())
    for kind in (bool, int, float, str):  # subclasses (np.float64, enums): the plain value
        if isinstance(x, kind):
            return kind(x)
    return str(x)


def count_noun(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1.

    >>> count_noun(1, "read"), count_noun(20, "read")
    ('1 read', '20 reads')
    """
    return f"{n} {noun}" + ("" if n == 1 else "s")


def format_seconds(x: float) -> str:
    """Seconds for people: ``12.3 ms`` below one second, ``1.23 s`` above; ``-`` for NaN."""
    if x != x:
        return "-"
    if x == math.inf:
        return "inf"
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s"
