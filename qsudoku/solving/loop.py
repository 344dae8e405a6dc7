"""The round loop of one puzzle (step 3 of :mod:`.policy`): sample the root model in rounds
until a read is valid or the budget is spent.

Round 0 takes the configured seed as it is; later rounds draw theirs from it.  A sampler
without a time parameter takes batches of reads that fit the time left at the time per
read measured so far, and its first round is measured first: a call of
:data:`PROBE_READS` read, then the rest of its reads that fit (on a blank 25x25, one
``sa`` read costs seconds, and 50 of them minutes); not a QPU's (its reads are checked
against its access-time limit) nor a population's (``properties["population"]``:
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

import numpy as np

from qsudoku.errors import TimeLimitError
from qsudoku.model.propagate import Candidates
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.qubo import QuboModel, build_model
from qsudoku.model.result import Result, count_noun
from qsudoku.solving.plan import Plan
from qsudoku.samplers import get_spec, names
from qsudoku.solving.rounds import Tally

__all__ = ["RoundLoop", "rounds_text", "SAMPLE_OVERHEAD", "PROBE_READS", "WORK_PARAMS"]

#: What a round's sampler call may cost beyond its time limit, in builds of the model: the
#: structured samplers check the BQM against the groups before their first read and score
#: their reads after the last (measured on blank 16x16 to 49x49 grids, aco and swap-tabu:
#: 1.2 to 2.8 builds).  A round is skipped when the budget left is below it, and a build's
#: worth of the budget is kept for the scoring, so that a big grid's budget holds.
SAMPLE_OVERHEAD = 2.5

#: The sampler parameters that end a round early, and how a note says so.
_STOPS = {"stop_at_ground": "its first ground state", "time_limit": "its time limit"}

#: Reads of the first call of a sampler without a time parameter, which measures the time
#: per read before the rest of the first round's reads are committed: a read's cost is
#: known only once one has run (``sa``: 2 ms on a 9x9, seconds on a blank 25x25; ``sqa``:
#: 20-80 ms on the README's 9x9), and no registered default of reads fits every model.
#: The rest of the first round's reads follow in a second call, as many as fit.
PROBE_READS = 1
#: Parameters a read's work grows with, for samplers without a time parameter (``rotor``,
#: ``sqa``, ``sa``: sweeps; ``pt``: sweeps, replicas, iterations; ``pa``: iterations).
#: When the user raises one above its registered default, the first round runs one read
#: at the registered values, and the later rounds scale the raised ones down to what
#: fits the time left (a note says so): the budget bounds the work.
WORK_PARAMS = ("num_sweeps", "num_replicas", "max_iter", "num_iter")


def rounds_text(n: int) -> str:
    """``"1 round"``, ``"3 rounds"``."""
    return f"{n} round" + ("" if n == 1 else "s")



class RoundLoop:
    """The round loop of one puzzle (see the module docstring).

    Args:
        plan: The sampler and its parameters.
        puzzle: The puzzle (a read counts only if it solves it).
        root: The propagated candidates whose model is built once.
        result: Filled in as rounds run: the root model, its size, notes, a valid grid.
        deadline: ``time.perf_counter()`` value the rounds end by.
        budget: The time budget in seconds, for the notes.
        fixed: A fixed sample: one round, no time limit.
    """

    def __init__(self, plan: Plan, puzzle: Puzzle, root: Candidates, result: Result,
                 deadline: float, budget: float, fixed: bool = False):
        self.plan, self.puzzle, self.root, self.result = plan, puzzle, root, result
        self.deadline, self.budget, self.fixed = deadline, budget, fixed
        self.one = fixed or not plan.config.route.enabled or not plan.takes_seed
        self.rng = np.random.default_rng(plan.seed)
        self.tally = Tally()
        self.timings = result.timings
        self.batched = not plan.timed and "num_reads" in plan.accepted and not self.one
        self.max_reads = max(1, int(plan.params.get("num_reads", 1) or 1))
        self.asked = plan.config.sampler.params.get("num_reads")
        self.root_model: QuboModel | None = None
        self.root_built = 0.0  # seconds the root model took to build
        self.noted_reads = False  # the fewer-reads note is given once
        self.unbuilt = False  # the root's build ran out of time (build_root)
        self.work = self._raised_work()  # {param: (asked, registered)}
        self.last_per_read = 0.0  # seconds per read of the last round (work scaled)

    def build_root(self) -> QuboModel | None:
        """Build the root model now, before :meth:`run` (which reuses it), so that a
        budget can be derived from it; ``None`` if the deadline ended the build (the notes
        say so, and :meth:`run` then samples nothing)."""
        model, _ = self._model()
        self.unbuilt = model is None
        return model

    def run(self) -> Tally:
        """Run the rounds; the statistics over them."""
        built = 0.0
        if self.unbuilt:
            return self.tally
        props = getattr(self.plan.sampler, "properties", None)
        population = isinstance(props, Mapping) and bool(props.get("population"))
        probe = (self.batched and self.max_reads > PROBE_READS and not population
                 and "annealing_time" not in self.plan.accepted and not self.work)
        n_next: int | None = PROBE_READS if probe else None
        tally, result = self.tally, self.result
        plan = self.plan
        if self.work:  # one read at the registered work first: it measures a read
            plan = replace(self.plan, params={**self.plan.params,
                                              **{k: d for k, (_, d) in self.work.items()}})
            n_next = 1 if "num_reads" in self.plan.accepted else None
        while not tally.rounds or not self.one:
            t = time.perf_counter()
            if tally.rounds and (t >= self.deadline or self.deadline - t < built):
                break
            model, built = self._model()
            if model is None:
                break
            t = time.perf_counter()
            if not self.one and self.deadline - t < SAMPLE_OVERHEAD * built:
                if not tally.rounds:  # the sampler's own work around its limit would overrun
                    result.notes.append(f"no sampling round: one costs about "
                                        f"{SAMPLE_OVERHEAD * built:.2g} s on this model, more "
                                        f"than the {max(0.0, self.deadline - t):.2g} s left of "
                                        "the budget")
                break
            left = self.deadline - t - built  # a build's worth kept for the reads' scoring
            rnd = plan.sample(model, seed=self._seed(), left=None if self.fixed else left,
                                   num_reads=n_next, fixed_sample=self.fixed,
                                   deadline=None if self.fixed else self.deadline,
                                   finite=True)  # built here from checked weights
            self.timings["sample"] += rnd.t_sample
            self.timings["decode"] += rnd.t_decode
            tally.add(rnd)
            self._note_reads(rnd, rnd.params)
            result.sampleset, result.decoded = rnd.sampleset, rnd.decoded
            solved = rnd.best.valid and self.puzzle.is_solution(rnd.best.grid)
            rest = self.max_reads
            if probe:  # the rest of the first round's reads follow, as many as fit
                rest = max(1, self.max_reads - rnd.num_reads)
                self._note_cut(rnd.num_reads, rest, solved)
                probe = False
            if solved:
                result.grid, result.valid = list(rnd.best.grid), True
                break
            if self.batched:
                self.last_per_read = (rnd.t_sample + rnd.t_decode) / max(1, rnd.num_reads)
                n_next = min(rest, self._reads_that_fit())
                if self.work and tally.rounds == 1:
                    plan, n_next = self._fit_work(built)
                if n_next < 1:
                    break
        if result.valid:
            result.solved_by = f"{self.plan.label} ({rounds_text(tally.rounds)})"
        return tally

    def _seed(self) -> int | None:
        """Round 0 takes the configured seed itself; later rounds draw theirs from it."""
        if not self.plan.takes_seed:
            return None
        drawn = int(self.rng.integers(2 ** 31))
        if self.tally.rounds == 0 and self.plan.seed is not None:
            return int(self.plan.seed)
        return drawn

    def _model(self) -> tuple[QuboModel | None, float]:
        """The root model (built once) and the seconds it took.  A fixed sample's build has
        no deadline (its reads are all run, whatever the budget); every other mode's stops
        at the budget."""
        if self.root_model is not None:
            return self.root_model, self.root_built
        t = time.perf_counter()
        try:
            model = build_model(self.root, self.plan.config.qubo.weights,
                                deadline=None if self.fixed else self.deadline,
                                encoding=self.plan.config.qubo.encoding)
        except TimeLimitError as err:  # the budget ended while building: not decided
            self.timings["build"] += time.perf_counter() - t
            if not self.tally.rounds:
                self.result.num_variables = err.num_variables or 0
            self.result.notes.append("building the QUBO stopped at the end of the "
                                     f"{self.budget:g} s time budget")
            return None, 0.0
        built = time.perf_counter() - t
        self.timings["build"] += built
        self.root_model, self.root_built = model, built
        self.result.model = model
        self.result.num_variables = model.num_variables
        self.result.num_interactions = model.num_interactions
        return model, built

    def _note_reads(self, rnd, call: dict) -> None:
        """Say once when the sampler returned fewer reads than the user asked for, and
        each time reads were left undecoded to keep the budget."""
        if rnd.returned > rnd.num_reads:
            self.result.notes.append(
                f"{self.plan.label} returned {rnd.returned} reads in a round, more than the "
                f"{self.budget:g} s budget can decode: the {rnd.num_reads} of lowest energy "
                "were kept")
        asked, got = call.get("num_reads"), max(rnd.returned, rnd.num_reads)
        if (self.asked is None and not self.fixed) or asked is None or got >= asked \
                or self.noted_reads:
            return
        why = [text for k, text in _STOPS.items() if call.get(k)]
        self.result.notes.append(
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
        self.result.notes.append(
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
                self.result.notes.append(f"{label}: a first call of {first} of the {asked} "
                                         "reads asked (measuring the time per read) found the "
                                         "grid")
            return
        if fits >= rest:
            return
        then = f"then as many as fit ({fits} in the next call)" if fits >= 1 else "no more fit"
        self.result.notes.append(f"{label}: {asked} reads per round cannot fit the "
                                 f"{self.budget:g} s budget ({per_read:.2g} s per read, measured "
                                 f"on a first call of {count_noun(first, 'read')}); reads were "
                                 f"cut to fit: {first} in the first call, {then}")
