"""One-hot groups recognised from a BQM alone (no groups= given)."""

from __future__ import annotations

import dimod
import pytest

from qsudoku.errors import ParameterError
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle, diagonal_units
from qsudoku.model.qubo import Weights, build_model
from qsudoku.samplers import get_sampler
from qsudoku.samplers.onehot import find_groups

from test_swap import JIGSAW6_REGIONS, JIGSAW6_SOL, SOL9, SOLX9, blanked


def as_set(groups):
    return sorted((kind, tuple(sorted(labels))) for kind, labels in groups)


def puzzles(seed):
    yield Puzzle.standard(blanked(SOL9, 0.4, seed))
    yield Puzzle.jigsaw(blanked(JIGSAW6_SOL, 0.5, seed), JIGSAW6_REGIONS)
    yield Puzzle.standard(blanked(SOLX9, 0.5, seed), extra=diagonal_units(9))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("rules", [(), ("naked_single",)])
def test_groups_found_give_the_solution(seed, rules):
    for puzzle in puzzles(seed):
        m = build_model(propagate(puzzle, rules=rules), Weights(row=2.0))
        groups = find_groups(m.bqm, "test")
        if not m.num_variables:
            assert groups == []
            continue
        # the kinds that fix the geometry are found as the model has them
        for kind in ("cell", "row", "column"):
            assert [g for g in as_set(groups) if g[0] == kind] == \
                [g for g in as_set(m.groups()) if g[0] == kind]
        ss = get_sampler("csp").sample(m.bqm)  # recognises the groups itself
        assert float(ss.first.energy) == 0.0  # energy 0 <=> a valid completion


def test_labels_read_back_as_lists_of_a_json_model_are_not_labels():
    bqm = dimod.BQM({"x_1_1_1": -1.0}, {}, 1.0, "BINARY")
    with pytest.raises(ParameterError, match="not \\(row, col, digit\\) labels"):
        find_groups(bqm, "aco")


def test_a_bqm_that_is_not_a_sum_of_penalties_is_refused():
    m = build_model(propagate(Puzzle.standard(blanked(SOL9, 0.4, 1)), rules=()))
    bqm = m.bqm.copy()
    bqm.add_linear(next(iter(bqm.variables)), 0.25)
    with pytest.raises(ParameterError, match="aco: the BQM is not a sum of one-hot penalties"):
        find_groups(bqm, "aco")
