"""A check for a sampler of your own: the contract :func:`qsudoku.solve` relies on, as
:mod:`dimod.testing` checks dimod's.

:func:`assert_sampler` runs a sampler on a puzzle's reduced QUBO the way the solve path
does and asserts what the path needs: a :class:`dimod.Sampler` whose sample set has the
model's variables and the energies the model gives them, and, unless ``solves=False``,
a valid grid from one fixed sample (no rounds, no fallback, so the answer is the
sampler's own).

>>> import dimod
>>> from qsudoku.testing import assert_sampler
>>> assert_sampler(dimod.ExactSolver()).valid  # 15 variables: every state enumerated
True
>>> from qsudoku import Config
>>> seeded = Config().with_overrides(seed=1, reads=5)
>>> assert_sampler(dimod.RandomSampler(), config=seeded, solves=False).valid
False
>>> assert_sampler(dimod.RandomSampler(), config=seeded)
Traceback (most recent call last):
...
AssertionError: RandomSampler: no valid grid in 5 reads of 15 variables; best energy 14 (0 is a valid grid)
"""

from __future__ import annotations

import dimod
import dimod.testing
import numpy as np

from qsudoku.config import Config
from qsudoku.errors import SamplerOutputError
from qsudoku.io import parse_puzzle
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.result import Result
from qsudoku.solving.plan import make_plan
from qsudoku.solving.policy import build, run_plan

__all__ = ["assert_sampler", "PUZZLE"]

#: The default puzzle, a 4x4 with three givens; propagation leaves a reduced QUBO of 15
#: variables, which even an exhaustive solver enumerates.
PUZZLE = "1.....2........4"


def assert_sampler(sampler: dimod.Sampler, puzzle: Puzzle | str = PUZZLE,
                   config: Config = Config(), *, solves: bool = True) -> Result:
    """Assert that ``sampler`` keeps the contract of the solve path on ``puzzle``.

    Args:
        sampler: Any object to check, such as the sampler a factory of
            :func:`qsudoku.register` returns.
        puzzle: A puzzle (or its text) that propagation does not solve.
        config: Rules, weights, encoding and the sampler's parameters (``sampler.params``
            are passed as the solve path passes them: only those ``sample()`` accepts).
        solves: Also assert that one fixed sample gives a valid grid.

    Returns:
        The :class:`~qsudoku.model.result.Result` of the fixed sample.

    Raises:
        AssertionError: The sampler breaks the contract; the message says how.
        ValueError: ``puzzle`` is solved by propagation, so nothing would be sampled.
    """
    if isinstance(puzzle, str):
        puzzle = parse_puzzle(puzzle)
    dimod.testing.assert_sampler_api(sampler)
    model = build(puzzle, config)[1]
    if model is None:
        raise ValueError(f"{puzzle.format()}: solved by propagation, nothing to sample")
    plan = make_plan(config, sampler)
    name = type(sampler).__name__
    try:
        sampleset = plan.sample(model, seed=plan.seed, fixed_sample=True).sampleset
    except SamplerOutputError as err:  # no sample set, no reads, or variables missing
        raise AssertionError(str(err)) from err
    given, true = sampleset.record.energy, model.bqm.energies(sampleset)
    wrong = np.flatnonzero(np.round(given - true, 7))  # dimod.testing's precision, at once
    if wrong.size:
        raise AssertionError(f"{name}: a read's energy is not the model's energy of its "
                             f"sample (read {wrong[0]}: {given[wrong[0]]:g} given, "
                             f"{true[wrong[0]]:g} by the model)")
    result = run_plan(plan, puzzle, fixed_sample=True)
    if solves and not result.valid:
        reads = result.num_reads
        raise AssertionError(f"{name}: no valid grid in {reads} read{'s' * (reads != 1)} of "
                             f"{model.num_variables} variables; best energy "
                             f"{result.energy:g} (0 is a valid grid)")
    return result
