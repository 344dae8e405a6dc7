"""What a solve produced: one :class:`Result` type for every route to an answer.

:func:`qsudoku.solving.solve` returns it, for every sampler; ``bench`` and ``sweep`` rows
are made from it.
It is built by keyword, and :func:`jsonable` and :func:`format_seconds` are the one
JSON converter and the one time formatter of results.

>>> from qsudoku.io import parse_puzzle
>>> p = parse_puzzle("1..." "..2." ".3.." "...4")
>>> r = Result(puzzle=p, grid=[0] * 16, valid=False)
>>> r.solution, r.to_dict()["valid"], r.solved_by
('................', False, 'none')
>>> str(Outcome(By.FALLBACK, "sa", rounds=3, fallback="sat"))
'sat fallback after sa (3 rounds)'
>>> format_seconds(0.0123), format_seconds(12.5), format_seconds(float("inf"))
('12.3 ms', '12.50 s', 'inf')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple

from qsudoku.model.puzzle import Puzzle

__all__ = ["Result", "Outcome", "By", "jsonable", "format_seconds", "count_noun"]


class By(str, Enum):
    """What decided a solve."""

    PROPAGATION = "propagation"  #: nothing was left to sample
    SAMPLING = "sampling"  #: a sampling round found a valid grid
    EXACT = "exact"  #: an exact sampler solved the candidates directly
    FALLBACK = "fallback"  #: the exact fallback finished the puzzle
    NONE = "none"  #: nothing did


class Outcome(NamedTuple):
    """Who found a solve's grid, as data; ``str()`` is its text form, ``solved_by``.

    Attributes:
        by: What decided it.
        sampler: The sampler that ran (its label).
        rounds: Its sampling rounds.
        fallback: The exact fallback that finished the puzzle.
        limit: The time limit an exact sampler stopped at without a solution.
    """

    by: By = By.NONE
    sampler: str = ""
    rounds: int = 0
    fallback: str = ""
    limit: float | None = None

    @property
    def solver(self) -> str:
        """What found the grid: the sampler, the exact fallback or ``propagation``.

        >>> Outcome(By.SAMPLING, "aco", 1).solver, Outcome(By.PROPAGATION).solver
        ('aco', 'propagation')
        """
        if self.by in (By.PROPAGATION, By.NONE):
            return self.by.value
        return self.fallback if self.by is By.FALLBACK else self.sampler

    def __str__(self) -> str:
        rounds = count_noun(self.rounds, "round")
        if self.by is By.SAMPLING:
            return f"{self.sampler} ({rounds})"
        if self.by is By.EXACT:
            return f"{self.sampler} (exact, no QUBO)"
        if self.by is By.FALLBACK:
            return f"{self.fallback} fallback after {self.sampler} ({rounds})"
        if self.by is By.NONE and self.limit is not None:
            return f"none: {self.sampler} stopped at its {self.limit:.3g} s time limit"
        return self.by.value


@dataclass
class Result:
    """What one solve produced.

    Attributes:
        puzzle: The input puzzle.
        grid: The best grid found (0 = cell left undecided by the best sample).
        valid: True iff ``grid`` is a full valid solution keeping the givens.
        outcome: Who found the grid (:class:`Outcome`); :attr:`solved_by` is its text.
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
    outcome: Outcome = Outcome()
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
    def solved_by(self) -> str:
        """``"propagation"``, ``"<sampler> (N rounds)"``, ``"<backend> (exact, no QUBO)"``,
        ``"sat fallback after <sampler> (N rounds)"``, ``"none"`` or ``"none: <backend>
        stopped at its S s time limit"``: the text of :attr:`outcome`."""
        return str(self.outcome)

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
