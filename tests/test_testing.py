"""``qsudoku.testing.assert_sampler``: it passes the samplers that keep the solve path's
contract (ours and dimod's) and fails, saying how, each that breaks it."""

from __future__ import annotations

import dimod
import pytest

from qsudoku import Config
from qsudoku.samplers import get_sampler
from qsudoku.testing import PUZZLE, assert_sampler

SEEDED = Config().with_overrides(seed=3, reads=4)


class _Shifted(dimod.ExactSolver):
    """Every energy one too low: the samples do not have the energies it says."""

    def sample(self, bqm, **kw):
        ss = super().sample(bqm, **kw)
        return dimod.SampleSet.from_samples(ss, ss.vartype, ss.record.energy - 1)


class _Partial(dimod.ExactSolver):
    """Answers over all variables but the first."""

    def sample(self, bqm, **kw):
        bqm = bqm.copy()
        bqm.fix_variable(next(iter(bqm.variables)), 0)
        return super().sample(bqm, **kw)


class _NoProperties:
    """Has a ``sample`` method and nothing else of a dimod sampler."""

    def sample(self, bqm, **kw):
        return dimod.ExactSolver().sample(bqm)


def test_exact_and_tabu_samplers_keep_the_contract():
    from dwave.samplers import TabuSampler

    assert assert_sampler(dimod.ExactSolver()).valid
    result = assert_sampler(TabuSampler(), config=SEEDED)
    assert result.valid and result.sampler["name"] == "tabu"


@pytest.mark.parametrize("name", ["aco", "sa", "swap", "cpsat"])
def test_registered_samplers_keep_the_contract(name):
    result = assert_sampler(get_sampler(name), config=SEEDED)
    assert result.valid and result.energy == 0


def test_energies_that_are_not_the_models_fail():
    with pytest.raises(AssertionError, match="_Shifted: a read.s energy is not the model.s"):
        assert_sampler(_Shifted())


def test_a_sample_set_without_a_variable_fails():
    with pytest.raises(AssertionError, match="without 1 of the model's 15 variables"):
        assert_sampler(_Partial())


def test_an_object_without_the_sampler_api_fails():
    with pytest.raises(AssertionError):
        assert_sampler(_NoProperties())


def test_a_random_sampler_does_not_solve_but_may_be_checked_without_solving():
    with pytest.raises(AssertionError, match=r"RandomSampler: no valid grid in 4 reads"):
        assert_sampler(dimod.RandomSampler(), config=SEEDED)
    assert not assert_sampler(dimod.RandomSampler(), config=SEEDED, solves=False).valid


def test_a_puzzle_propagation_solves_is_refused():
    with pytest.raises(ValueError, match="solved by propagation"):
        assert_sampler(dimod.ExactSolver(), "1.....2..3.....4")
    assert PUZZLE.count(".") == 13
