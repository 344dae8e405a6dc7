"""The round loop of one puzzle (step 4 of :mod:`.policy`): build the root model once, then
sample it in rounds until a read is valid or the budget is spent.

Round 0 takes the configured seed as it is; later rounds draw theirs from it.  A sampler
without a time parameter takes batches of reads that fit the time left at the time per
read measured so far, and its first round is measured first: a call of
:data:`PROBE_READS` read, then the rest of its reads that fit; not a QPU's (its reads are
checked against its access-time limit) nor a population's (``properties["population"]``:
``pa``'s reads are annealed together).  A round is skipped when the time left is below
:data:`SAMPLE_OVERHEAD` builds of the model.  One round only for a fixed sample, with
``route.enabled = false``, and for a sampler that takes no seed.

>>> rounds_text(1), rounds_text(3)
('1 round', '3 rounds')
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from qsudoku.errors import TimeLimitError
from qsudoku.model.propagate import Candidates
from qsudoku.model.qubo import QuboModel, Weights, build_model
from qsudoku.model.result import count_noun
from qsudoku.solving.plan import Plan
from qsudoku.samplers import get_spec, names
from qsudoku.solving.rounds import Round, Tally

__all__ = ["Built", "Sampling", "build_root", "sample_rounds", "rounds_text",
           "SAMPLE_OVERHEAD", "PROBE_READS", "WORK_PARAMS"]

#: What a round's sampler call may cost beyond its time limit, in builds of the model: the
#: structured samplers check the BQM against the groups before their first read and score
#: their reads after the last.  A round is skipped when the budget left is below it, and a
#: build's worth of the budget is kept for the scoring, so that a big grid's budget holds.
SAMPLE_OVERHEAD = 2.5

#: The sampler parameters that end a round early, and how a note says so.
_STOPS = {"stop_at_ground": "its first ground state", "time_limit": "its time limit"}

#: Reads of the first call of a sampler without a time parameter, which measures the time
#: per read before the rest of the first round's reads are committed: a read's cost is
#: known only once one has run, and no registered default of reads fits every model.
PROBE_READS = 1
#: Parameters a read's work grows with, for samplers without a time parameter (``rotor``,
#: ``sqa``, ``sa``: sweeps; ``pt``: sweeps, replicas, iterations; ``pa``: iterations).
#: When the user raises one above its registered default, the first round runs one read
#: at the registered values, and the later rounds scale the raised ones down to what
#: fits the time left (a note says so): the budget bounds the work.
WORK_PARAMS = ("num_sweeps", "num_replicas", "max_iter", "num_iter")


def rounds_text(n: int) -> str:
    """``"1 round"``, ``"3 rounds"``."""
    return count_noun(n, "round")


class Built(NamedTuple):
    """The root model, or ``None`` if the deadline ended its build; the seconds it took and
    its size (counted before the build stopped)."""

    model: QuboModel | None
    seconds: float
    num_variables: int


class Sampling(NamedTuple):
    """What the rounds found.

    Attributes:
        tally: The statistics over the rounds.
        grid: The valid grid a round found (``None``: none did).
        last: The last round (its sample set and reads are the result's).
        notes: What the user should know about the rounds.
    """

    tally: Tally
    grid: list[int] | None
    last: Round | None
    notes: list[str]


def build_root(root: Candidates, weights: Weights, encoding: str,
               deadline: float | None) -> Built:
    """Build the root model by ``deadline`` (``None``: no deadline, as a fixed sample's)."""
    t = time.perf_counter()
    try:
        model = build_model(root, weights, deadline=deadline, encoding=encoding)
    except TimeLimitError as err:  # the budget ended while building: not decided
        return Built(None, time.perf_counter() - t, err.num_variables or 0)
    return Built(model, time.perf_counter() - t, model.num_variables)


def sample_rounds(plan: Plan, built: Built, deadline: float, budget: float,
                  fixed: bool = False) -> Sampling:
    """Sample the built root model in rounds (see the module docstring).

    Args:
        plan: The sampler and its parameters.
        built: The root model (built) and the seconds its build took.
        deadline: ``time.perf_counter()`` value the rounds end by.
        budget: The time budget in seconds, for the notes.
        fixed: A fixed sample: one round, no time limit.
    """
    return _Rounds(plan, built, deadline, budget, fixed).run()


class _Rounds:
    """The state of one puzzle's round loop: its tally, seeds, reads and notes."""

    def __init__(self, plan: Plan, built: Built, deadline: float, budget: float, fixed: bool):
        assert built.model is not None
        self.plan, self.model, self.built = plan, built.model, built.seconds
        self.deadline, self.budget, self.fixed = deadline, budget, fixed
        self.one = fixed or not plan.config.route.enabled or not plan.takes_seed
        self.rng = np.random.default_rng(plan.seed)
        self.tally = Tally()
        self.notes: list[str] = []
        self.batched = not plan.timed and "num_reads" in plan.accepted and not self.one
        self.max_reads = max(1, int(plan.params.get("num_reads", 1) or 1))
        self.asked = plan.config.sampler.params.get("num_reads")
        self.noted_reads = False  # the fewer-reads note is given once
        self.work = self._raised_work()  # {param: (asked, registered)}
        self.last_per_read = 0.0  # seconds per read of the last round (work scaled)

    def run(self) -> Sampling:
        """Run the rounds."""
        props = getattr(self.plan.sampler, "properties", None)
        population = isinstance(props, Mapping) and bool(props.get("population"))
        probe = (self.batched and self.max_reads > PROBE_READS and not population
                 and "annealing_time" not in self.plan.accepted and not self.work)
        n_next: int | None = PROBE_READS if probe else None
        tally, model, built, plan = self.tally, self.model, self.built, self.plan
        grid, last = None, None
        if self.work:  # one read at the registered work first: it measures a read
            plan = replace(self.plan, params={**self.plan.params,
                                              **{k: d for k, (_, d) in self.work.items()}})
            n_next = 1 if "num_reads" in self.plan.accepted else None
        while not tally.rounds or not self.one:
            t = time.perf_counter()
            if tally.rounds and (t >= self.deadline or self.deadline - t < built):
                break
            if not self.one and self.deadline - t < SAMPLE_OVERHEAD * built:
                if not tally.rounds:  # the sampler's own work around its limit would overrun
                    self.notes.append(f"no sampling round: one costs about "
                                      f"{SAMPLE_OVERHEAD * built:.2g} s on this model, more "
                                      f"than the {max(0.0, self.deadline - t):.2g} s left of "
                                      "the budget")
                break
            left = self.deadline - t - built  # a build's worth kept for the reads' scoring
            last = plan.sample(model, seed=self._seed(), left=None if self.fixed else left,
                               num_reads=n_next, fixed_sample=self.fixed,
                               deadline=None if self.fixed else self.deadline,
                               finite=True)  # built here from checked weights
            tally.add(last)
            self._note_reads(last, last.params)
            solved = last.best.valid and model.puzzle.is_solution(last.best.grid)
            rest = self.max_reads
            if probe:  # the rest of the first round's reads follow, as many as fit
                rest = max(1, self.max_reads - last.num_reads)
                self._note_cut(last.num_reads, rest, solved)
                probe = False
            if solved:
                grid = list(last.best.grid)
                break
            if self.batched:
                self.last_per_read = (last.t_sample + last.t_decode) / max(1, last.num_reads)
                n_next = min(rest, self._reads_that_fit())
                if self.work and tally.rounds == 1:
                    plan, n_next = self._fit_work(built)
                if n_next < 1:
                    break
        return Sampling(tally, grid, last, self.notes)

    def _seed(self) -> int | None:
        """Round 0 takes the configured seed itself; later rounds draw theirs from it."""
        if not self.plan.takes_seed:
            return None
        drawn = int(self.rng.integers(2 ** 31))
        if self.tally.rounds == 0 and self.plan.seed is not None:
            return int(self.plan.seed)
        return drawn

    def _note_reads(self, rnd, call: dict) -> None:
        """Say once when the sampler returned fewer reads than the user asked for, and
        each time reads were left undecoded to keep the budget."""
        if rnd.returned > rnd.num_reads:
            self.notes.append(
                f"{self.plan.label} returned {rnd.returned} reads in a round, more than the "
                f"{self.budget:g} s budget can decode: the {rnd.num_reads} of lowest energy "
                "were kept")
        asked, got = call.get("num_reads"), max(rnd.returned, rnd.num_reads)
        if (self.asked is None and not self.fixed) or asked is None or got >= asked \
                or self.noted_reads:
            return
        why = [text for k, text in _STOPS.items() if call.get(k)]
        self.notes.append(
            f"{self.plan.label} returned {got} of the {asked} reads asked in a round"
            + (f" (it stops at {' or at '.join(why)})" if why else ""))
        self.noted_reads = True

    def _per_read(self) -> float:
        """Seconds per read so far: sampling and decoding (decoding many reads is not free);
        of the last round when the work per read was scaled."""
        if self.work:
            return self.last_per_read
        return (self.tally.t_sample + self.tally.t_decode) / max(1, self.tally.num_reads)

    def _raised_work(self) -> dict:
        """The :data:`WORK_PARAMS` the user set above the registered defaults, for a
        registered sampler without a time parameter, in a budgeted solve of several rounds
        that can take ``num_reads``: ``{param: (asked, registered)}``."""
        plan = self.plan
        if (self.fixed or self.one or plan.timed or not self.batched
                or plan.label not in names()):
            return {}
        defaults, asked = get_spec(plan.label).defaults, plan.config.sampler.params
        return {k: (int(asked[k]), int(defaults[k])) for k in WORK_PARAMS
                if k in asked and k in defaults and k in plan.params
                and isinstance(asked[k], int) and asked[k] > defaults[k] > 0}

    def _fit_work(self, built: float) -> tuple[Plan, int]:
        """After the first round (one read at the registered work): the plan of the later
        rounds, its raised work scaled to fit the time left, and their reads."""
        per_read = max(self.last_per_read, 1e-9)  # a read at the registered work
        left = self.deadline - time.perf_counter() - built
        need = math.prod(a / d for a, d in self.work.values())
        fit = left / (self.max_reads * per_read)  # work per read that fits, in registered units
        reads = self.max_reads
        if fit >= need:
            return self.plan, reads
        scaled, factor = {}, max(fit, 1.0) / need
        for k, (a, d) in self.work.items():
            scaled[k] = max(d, int(a * factor))
            factor /= scaled[k] / a
        if fit < 1:  # not even the registered work fits every read: fewer reads
            reads = max(0, int(left / per_read))
        asked = ", ".join(f"{k} = {a}" for k, (a, _) in self.work.items())
        ran = ", ".join(f"{k} = {v}" for k, v in scaled.items())
        then = (f"the later rounds ran {ran} with {reads} read(s) each" if reads >= 1 else
                "no further round fits")
        self.notes.append(
            f"{self.plan.label}: {asked} per read cannot fit the {self.budget:g} s budget (a "
            f"read at the registered work took {per_read:.2g} s); {then}")
        return replace(self.plan, params={**self.plan.params, **scaled}), reads

    def _reads_that_fit(self) -> int:
        """Reads of the next round: at most the asked ones, as many as the time left holds
        at the time per read measured so far."""
        left = self.deadline - time.perf_counter()
        per_read = self._per_read()
        return min(self.max_reads, int(left / per_read)) if per_read > 0 else self.max_reads

    def _note_cut(self, first: int, rest: int, found: bool) -> None:
        """Say how many reads ran when the first round's reads were measured first: when
        the user asked for them and the first call found the grid, and when the rest of
        them were cut to fit the budget (nothing when they all fit)."""
        label, asked, fits = self.plan.label, self.max_reads, self._reads_that_fit()
        per_read = self._per_read()
        if found:
            if self.asked is not None:
                self.notes.append(f"{label}: a first call of {first} of the {asked} "
                                         "reads asked (measuring the time per read) found the "
                                         "grid")
            return
        if fits >= rest:
            return
        then = f"then as many as fit ({fits} in the next call)" if fits >= 1 else "no more fit"
        self.notes.append(f"{label}: {asked} reads per round cannot fit the "
                                 f"{self.budget:g} s budget ({per_read:.2g} s per read, measured "
                                 f"on a first call of {count_noun(first, 'read')}); reads were "
                                 f"cut to fit: {first} in the first call, {then}")
