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


@pytest.mark.slow
def test_groups_of_a_blank_25x25_read_back_without_groups_are_the_models():
    """The partition check (one pass over the couplers) finds the model's own groups."""
    m = build_model(propagate(Puzzle.standard([0] * 625), rules=()), Weights(box=3.0))
    bqm = dimod.BQM.from_serializable(m.bqm.to_serializable())  # as read back: no groups
    bqm.relabel_variables({v: tuple(v) for v in bqm.variables})  # lists -> tuples
    assert as_set(find_groups(bqm, "test")) == as_set(m.groups())
    spin = bqm.change_vartype(dimod.SPIN, inplace=False)
    assert as_set(find_groups(spin, "test")) == as_set(m.groups())
    broken = bqm.copy()  # one row pair weighted as the others' box pairs: no fit
    broken.set_quadratic((0, 0, 1), (0, 24, 1), broken.get_quadratic((0, 0, 1), (0, 1, 1)))
    with pytest.raises(ParameterError, match="not a sum of one-hot penalties"):
        find_groups(broken, "test")


def test_recognising_groups_stops_at_a_deadline_with_a_clear_note():
    import time

    from qsudoku.errors import TimeLimitError

    m = build_model(propagate(Puzzle.standard([0] * 256), rules=()))
    with pytest.raises(TimeLimitError, match="recognising the BQM's one-hot groups stopped"):
        find_groups(m.bqm, "csp", deadline=time.perf_counter() - 1)
    ss = get_sampler("csp").sample(m.bqm, time_limit=1e-6)  # no groups given
    assert ss.info["status"] == "time_limit" and "pass groups=" in ss.info["note"]
    assert float(ss.first.energy) == m.bqm.offset > 0


def test_a_bqm_too_large_for_the_time_left_is_not_started(monkeypatch):
    import time

    import qsudoku.samplers.onehot as onehot
    from qsudoku.errors import TimeLimitError

    m = build_model(propagate(Puzzle.standard([0] * 81), rules=()))
    monkeypatch.setattr(onehot, "COUPLERS_PER_SECOND", 1.0)  # seconds per coupler
    with pytest.raises(TimeLimitError, match="too large to read in the time left"):
        find_groups(m.bqm, "sat", deadline=time.perf_counter() + 60)
    assert as_set(find_groups(m.bqm, "sat")) == as_set(m.groups())  # no deadline: read


@pytest.mark.parametrize("name", ["aco", "swap", "swap-tabu"])
def test_structured_samplers_recognise_groups_within_their_time_limit(name, monkeypatch):
    """Without groups, the heuristic samplers' recognition runs under their own
    ``time_limit``: a model too large for it stops with the clear error, not later."""
    import qsudoku.samplers.onehot as onehot
    from qsudoku.errors import TimeLimitError

    m = build_model(propagate(Puzzle.standard([0] * 81), rules=()))
    monkeypatch.setattr(onehot, "COUPLERS_PER_SECOND", 1.0)  # seconds per coupler
    with pytest.raises(TimeLimitError, match="too large to read in the time left"):
        get_sampler(name).sample(m.bqm, num_reads=1, time_limit=5.0)
    monkeypatch.undo()
    ss = get_sampler(name).sample(m.bqm, num_reads=1, time_limit=5.0, seed=1)
    assert len(ss) == 1  # with time enough, the same call recognises them and samples
