import re

import dimod
import numpy as np
import pytest

from qsudoku.model.decode import decode, decode_array, success_rate
from qsudoku.io import parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import build_model
from _puzzles import BOX_GIVEN4

SOL = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]


def _model():
    return build_model(propagate(parse_puzzle(BOX_GIVEN4), rules=()))


def test_valid_sample_decodes_to_grid():
    m = _model()
    d = decode_array(m, m.sample_of_grid(SOL))[0]
    assert d.valid and d.grid == SOL and d.broken == [] and d.energy == 0.0


def test_invalid_sample_names_broken_constraints():
    m = _model()
    x = m.sample_of_grid(SOL)
    on = [i for i, v in enumerate(m.variables) if v == (3, 3, 1)][0]
    x[on] = 0  # r4c4 now has no digit: its cell group and the 1s of row 4, column 4, box 4 break
    d = decode_array(m, x)[0]
    assert not d.valid and d.grid[15] == 0
    assert ("cell", (3, 3)) in d.broken
    assert d.broken_by_kind == {"cell": 1, "row": 1, "column": 1, "box": 1}
    assert d.energy == float(m.bqm.energy((x, m.variables))) == 4.0


def test_two_digits_in_a_cell_is_undecided():
    m = _model()
    x = m.sample_of_grid(SOL)
    x[[i for i, v in enumerate(m.variables) if v == (3, 3, 2)][0]] = 1
    d = decode_array(m, x)[0]
    assert d.grid[15] == 0 and not d.valid


def test_decode_sampleset_respects_variable_order_and_occurrences():
    m = _model()
    good = dict(zip(m.variables, m.sample_of_grid(SOL)))
    bad = dict(good)
    bad[m.variables[0]] ^= 1
    order = list(reversed(m.variables))
    ss = dimod.SampleSet.from_samples(([[s[v] for v in order] for s in (good, bad)], order),
                                      "BINARY", energy=[0.0, 1.0], num_occurrences=[3, 1])
    out = decode(m, ss)
    assert [d.valid for d in out] == [True, False]
    assert success_rate(out) == 0.75
    assert np.isclose(out[1].energy, 1.0)


def test_a_spin_sample_set_decodes_as_the_same_states():
    """-1/+1 are 0/1: the solution sampled as an Ising model decodes to the same grid and
    energy, and a broken read stays broken."""
    m = _model()
    good, bad = m.sample_of_grid(SOL), m.sample_of_grid(SOL)
    bad[[i for i, v in enumerate(m.variables) if v == (3, 3, 1)][0]] = 0
    spins = [[2 * int(x) - 1 for x in s] for s in (good, bad)]
    energies = [m.bqm.spin.energy((s, m.variables)) for s in spins]
    ss = dimod.SampleSet.from_samples((spins, m.variables), "SPIN", energy=energies)
    as_spin, as_binary = decode(m, ss), decode_array(m, np.array([good, bad]))
    assert [(d.grid, d.valid, d.broken) for d in as_spin] == \
        [(d.grid, d.valid, d.broken) for d in as_binary]
    assert [d.energy for d in as_spin] == pytest.approx([0.0, 4.0])


@pytest.mark.parametrize("vartype, value", [("BINARY", 0.5), ("BINARY", 2), ("BINARY", -1),
                                            ("SPIN", 0), ("SPIN", 0.5)])
def test_a_value_outside_the_vartype_is_refused(vartype, value):
    from qsudoku.errors import SampleValueError

    m = _model()
    x = [int(v) if vartype == "BINARY" else 2 * int(v) - 1 for v in m.sample_of_grid(SOL)]
    x[3] = value
    ss = dimod.SampleSet.from_samples(([x], m.variables), vartype, energy=[0.0])
    low = -1 if vartype == "SPIN" else 0
    shown = float(value) if isinstance(value, float) else value  # as the record stores it
    expected = (f"sample 0 holds {shown!r} for variable {m.variables[3]!r}: a {vartype} sample "
                f"set holds only {low} and 1")
    with pytest.raises(SampleValueError, match=re.escape(expected)):
        decode(m, ss)
    with pytest.raises(ValueError):  # a ValueError, as the API's other wrong values
        decode(m, ss)
