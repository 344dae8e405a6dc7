"""Fair sampling: how evenly a sampler's valid reads cover a puzzle's solutions.

A fair sampler hits each ground state equally often; transverse-field annealers are known
not to (Mandrà, Zhu and Katzgraber, PRL 118:070502, 2017).  :func:`fairness` enumerates the
solutions exactly, takes ONE fixed sample of ``reads`` reads of the reduced QUBO, counts
the valid reads per solution and tests them against uniform (Pearson's chi-square).  The
backend ``"solve"`` is ``reads`` independent default solves instead.  Seeds come from one
:class:`numpy.random.SeedSequence` of ``seed`` (drawn when not given, and reported).

>>> from qsudoku import Config, parse_puzzle
>>> p = parse_puzzle("..34" "3412" "..43" "4321")  # two solutions
>>> f = fairness(p, Config().with_overrides(sampler="sa"), reads=40, seed=1)
>>> f.num_solutions, sum(f.counts) == f.num_valid, 0.0 <= f.p_value <= 1.0
(2, True, True)
>>> fairness(p, Config(), reads=10, max_solutions=1)
Traceback (most recent call last):
...
qsudoku.experiments.fairness.SolutionsError: puzzle has more than 1 solution (--max-solutions 1): raise the limit or give more cells
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from qsudoku.checks import MAX_READS, MAX_SECONDS, need_real, need_type
from qsudoku.config import Config
from qsudoku.errors import ConfigError
from qsudoku.exact.count import count_solutions
from qsudoku.model.puzzle import Puzzle
from qsudoku.solving import build, make_plan, run_plan
from qsudoku.solving.plan import draw_seed

__all__ = ["Fairness", "fairness", "check_counts", "MAX_SOLUTIONS", "SOLUTIONS_CAP", "TIME_LIMIT",
           "SolutionsError"]

#: Default most solutions enumerated (``--max-solutions``).
MAX_SOLUTIONS = 100
#: The largest ``max_solutions`` accepted: every solution is kept in memory (a 9x9 grid
#: is about 1 KB as a list), and a chi-square over more cells than reads means little.
SOLUTIONS_CAP = 100_000
#: Default seconds the enumeration of the solutions may take (``--time-budget``).
TIME_LIMIT = 60.0


class SolutionsError(ConfigError):
    """This puzzle cannot be measured: more solutions than ``max_solutions``, none, or an
    enumeration stopped by its time limit (exit 2)."""


@dataclass
class Fairness:
    """One fairness measurement.

    Attributes:
        sampler: The backend (a registry name or ``"solve"``).
        solutions: Every solution, row-major grids, in the exact search's order.
        counts: Valid reads per solution (same order).
        num_reads: Reads taken (all counted).
        num_valid: Reads that are valid grids (``sum(counts)``).
        chi2: Pearson's statistic against uniform (``None`` below 2 solutions or
            without a valid read).
        p_value: Its p-value, in ``[0, 1]`` (``None`` as for ``chi2``).
        seed: The seed the run used (drawn if none was given).
        params: The sampler's parameters (empty for ``"solve"``).
        seconds: Wall time of the sampling.
        note: Why nothing was sampled (propagation alone fills the grid), else ``""``.
    """

    sampler: str
    solutions: list[list[int]]
    counts: list[int]
    num_reads: int
    num_valid: int
    chi2: float | None
    p_value: float | None
    seed: int
    params: dict = field(default_factory=dict)
    seconds: float = 0.0
    note: str = ""

    @property
    def num_solutions(self) -> int:
        return len(self.solutions)

    def to_dict(self, puzzle: Puzzle | None = None) -> dict:
        """JSON-ready record; solutions as strings when the ``puzzle`` is given."""
        sols = [puzzle.format(g) if puzzle is not None else g for g in self.solutions]
        return {"sampler": self.sampler, "num_solutions": self.num_solutions,
                "num_reads": self.num_reads, "num_valid": self.num_valid,
                "counts": list(self.counts), "solutions": sols, "chi2": self.chi2,
                "p_value": self.p_value, "seed": self.seed, "params": self.params,
                "seconds": round(self.seconds, 6), "note": self.note}


def _chi_square(counts: list[int]) -> tuple[float | None, float | None]:
    """Pearson's chi-square of ``counts`` against uniform (``None`` when undefined)."""
    if len(counts) < 2 or sum(counts) == 0:
        return None, None
    from scipy.stats import chisquare

    stat, p = chisquare(counts)
    return float(stat), float(min(1.0, max(0.0, p)))


def _grids(puzzle: Puzzle, config: Config, backend: str, reads: int, seed: int
           ) -> tuple[list[list[int] | None], dict, str]:
    """``reads`` answers of ``backend`` (a valid grid, or ``None``), its parameters and a
    note; one sampler call for a registry name, ``reads`` solves for ``"solve"``."""
    if backend == "solve":
        plan = make_plan(config)
        seeds = np.random.SeedSequence(seed).generate_state(reads) >> 1
        out = []
        for s in seeds:
            result = run_plan(replace(plan, seed=int(s)), puzzle)
            out.append(list(result.grid) if result.valid else None)
        return out, {}, ""
    config = config.with_overrides(sampler=backend)
    cands, model, _ = build(puzzle, config)
    if model is None:
        return [list(cands.grid) for _ in range(reads)], {}, "solved by propagation"
    plan = make_plan(config)  # num_reads only to a sampler that takes it (not ``exact``)
    rnd = plan.sample(model, seed=seed,
                      num_reads=reads if "num_reads" in plan.accepted else None)
    out = []
    for d in rnd.decoded:
        out.extend([list(d.grid) if d.valid else None] * d.num_occurrences)
    return out, dict(rnd.params), ""


def check_counts(reads, max_solutions, *, flags: bool = False) -> None:
    """Refuse counts of :func:`fairness` below 1 or above their caps, before any work;
    ``flags``: as ``qsudoku fairness`` words its options (``--reads``'s cap: the config's)."""
    if flags:
        if reads < 1:
            raise ConfigError(f"--reads {reads} must be >= 1")
        if not 1 <= max_solutions <= SOLUTIONS_CAP:
            raise ConfigError(f"--max-solutions {max_solutions} must be between 1 and "
                              f"{SOLUTIONS_CAP:,}")
        return
    for name, value, cap, why in (("reads", reads, MAX_READS, "one sampler call"),
                                  ("max_solutions", max_solutions, SOLUTIONS_CAP,
                                   "each solution is kept in memory")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{name} = {value!r} must be an integer >= 1")
        if value > cap:
            raise ConfigError(f"{name} = {value:,} is above the most accepted, {cap:,} ({why})")


def fairness(puzzle: Puzzle, config: Config = Config(), *, reads: int,
             max_solutions: int = MAX_SOLUTIONS, seed: int | None = None,
             sampler: str | None = None, time_limit: float = TIME_LIMIT) -> Fairness:
    """Measure how evenly ``sampler`` (default: ``config``'s) hits ``puzzle``'s solutions.

    Args:
        puzzle: A puzzle with at most ``max_solutions`` solutions.
        config: Rules, weights and the sampler's parameters (its ``num_reads`` is
            replaced by ``reads``).
        reads: Reads of the one fixed sample (at most :data:`~qsudoku.checks.MAX_READS`;
            a sampler that takes no ``num_reads`` is called once).
        max_solutions: Most solutions enumerated (at most :data:`SOLUTIONS_CAP`); a
            puzzle with more is refused.
        seed: The run's seed (``None``: drawn, and reported).
        sampler: A registry name or ``"solve"`` (default: ``config.sampler.name``).
        time_limit: Seconds the enumeration of the solutions may take.

    Raises:
        ConfigError: ``reads`` or ``max_solutions`` not a positive integer or above its
            cap, before any work.
        SolutionsError: The puzzle has more than ``max_solutions`` solutions (or none),
            or their enumeration reached ``time_limit``.
    """
    need_type("puzzle", puzzle, Puzzle)
    need_type("config", config, Config)
    check_counts(reads, max_solutions)
    need_real("time_limit", time_limit, low=0, low_open=True, high=MAX_SECONDS)
    count = count_solutions(puzzle, max_solutions + 1, keep=max_solutions + 1,
                            time_limit=time_limit)
    if count.count > max_solutions:
        s = "s" if max_solutions != 1 else ""
        raise SolutionsError(f"puzzle has more than {max_solutions} solution{s} (--max-solutions "
                             f"{max_solutions}): raise the limit or give more cells")
    if not count.complete:
        raise SolutionsError(f"the enumeration of the solutions stopped at its time limit "
                             f"({time_limit:g} s, --time-budget) after {count.count} "
                             "solutions: give more cells or raise the limit")
    if count.count == 0:
        raise SolutionsError("puzzle has no solution: nothing to sample fairly")
    if seed is None:
        seed = draw_seed()
    t = time.perf_counter()
    grids, params, note = _grids(puzzle, config, sampler or config.sampler.name, reads, seed)
    seconds = time.perf_counter() - t
    index = {tuple(g): i for i, g in enumerate(count.solutions)}
    counts = [0] * len(count.solutions)
    for g in grids:
        if g is not None:
            counts[index[tuple(g)]] += 1
    chi2, p = _chi_square(counts)
    return Fairness(sampler or config.sampler.name, count.solutions, counts, len(grids),
                    sum(counts), chi2, p, seed, params, seconds, note)
