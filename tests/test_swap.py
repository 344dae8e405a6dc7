"""The ``swap`` sampler: dimod contract, true energies, moves that keep one-hot groups."""

import random
import time

import dimod
import dimod.testing
import numpy as np
import pytest

from qsudoku.model.decode import decode
from qsudoku.io import parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle, diagonal_units
from qsudoku.model.qubo import Weights, build_model
from qsudoku.samplers import get_sampler, names
from qsudoku.samplers.kernels import HAVE_NUMBA
from qsudoku.samplers.swap.structure import compile_structure
from _puzzles import THREE_GIVENS4

#: The swap samplers' kernels are not the default solve's (see conftest.py).
pytestmark = pytest.mark.slow

# Without numba the kernels run as plain Python: correct, but too slow for the longer runs.
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed (kernels run as Python)")

# A 9x9 solution, and boxes / jigsaw regions to blank it into test puzzles.
SOL9 = [int(c) for c in "534678912672195348198342567859761423426853791713924856961537284287419635345286179"]
JIGSAW6_SOL = [int(c) for c in "462135156243341526635412213654524361"]  # shared jigsaw6 #1
JIGSAW6_REGIONS = ["abcdef".index(c) for c in "aaabbbaabbbcadddccddcccedfffeefffeee"]
SOLX9 = [int(c) for c in  # shared sudokux9 #1
         "365789214178423965492651387726538491849217536513946728637194852951872643284365179"]


def blanked(sol, keep, seed):
    rnd = random.Random(seed)
    return [d if rnd.random() < keep else 0 for d in sol]


def model_of(puzzle, rules=(), weights=Weights()):
    return build_model(propagate(puzzle, rules), weights)


def test_registered_and_honours_the_sampler_api():
    assert "swap" in names()
    s = get_sampler("swap")
    dimod.testing.assert_sampler_api(s)
    assert isinstance(s, dimod.Sampler) and "groups" in s.parameters


def test_samples_are_bqm_variables_with_true_energies_and_keep_cells_and_boxes_one_hot():
    m = model_of(Puzzle.standard(blanked(SOL9, 0.35, 1)))
    assert m.num_variables > 150
    ss = get_sampler("swap").sample(m.bqm, groups=m.groups(), num_reads=6, num_sweeps=20, seed=3)
    assert set(ss.variables) == set(m.bqm.variables) and ss.vartype is dimod.BINARY
    dimod.testing.assert_sampleset_energies(ss, m.bqm)
    for d in decode(m, ss):
        # moves never break a cell or a box: only rows and columns can conflict
        assert set(d.broken_by_kind) <= {"row", "column"}
        assert 0 not in d.grid


@needs_numba
@pytest.mark.parametrize("kind", ["sudoku4", "sudoku6", "jigsaw6", "sudokux9", "latin5"])
def test_finds_valid_grids_of_every_variant(kind):
    if kind == "sudoku4":
        p = parse_puzzle(THREE_GIVENS4)
    elif kind == "sudoku6":
        p = Puzzle.standard(blanked([int(c) for c in "123456456123231564564231312645645312"], .3, 2),
                            box=(2, 3))
    elif kind == "jigsaw6":
        p = Puzzle.jigsaw(blanked(JIGSAW6_SOL, 0.3, 4), JIGSAW6_REGIONS)
    elif kind == "sudokux9":
        p = Puzzle.standard(blanked(SOLX9, 0.45, 5), extra=diagonal_units(9))
    else:  # rows are the family when there are no boxes or regions
        from qsudoku.model.puzzle import column_units, row_units

        sol = [(r + c) % 5 + 1 for r in range(5) for c in range(5)]
        p = Puzzle(5, tuple(blanked(sol, 0.3, 6)), tuple(row_units(5) + column_units(5)))
    m = model_of(p)
    assert m.num_variables > 0
    ss = get_sampler("swap").sample(m.bqm, groups=m.groups(), num_reads=50, num_sweeps=2000,
                                    seed=7, stop_at_ground=True)
    assert ss.info["family"] == {"jigsaw6": "region", "latin5": "row"}.get(kind, "box")
    best = min(decode(m, ss), key=lambda d: d.energy)
    assert best.valid and best.energy == 0.0 and p.is_solution(best.grid)


@needs_numba
def test_replica_exchange_and_relative_weights_give_true_energies():
    w = Weights(cell=2.0, row=0.5, column=0.75, box=3.0)
    m = model_of(Puzzle.standard(blanked(SOL9, 0.45, 8)), weights=w)
    ss = get_sampler("swap").sample(m.bqm, groups=m.groups(), num_reads=4, num_sweeps=200,
                                    num_replicas=8, beta_range=(0.5, 4.0), focus=3, seed=2)
    dimod.testing.assert_sampleset_energies(ss, m.bqm)
    assert ss.first.energy == pytest.approx(0.0)


@pytest.mark.slow
def test_seeded_runs_are_reproducible_and_the_python_kernel_matches_numba():
    from qsudoku.samplers.swap import kernel as K
    from qsudoku.samplers.swap.structure import kernel_args

    m = model_of(Puzzle.standard(blanked(SOL9, 0.3, 9)))
    s = get_sampler("swap")
    a = s.sample(m.bqm, groups=m.groups(), num_reads=3, num_sweeps=30, seed=11)
    b = s.sample(m.bqm, groups=m.groups(), num_reads=3, num_sweeps=30, seed=11)
    assert (a.record.sample == b.record.sample).all()
    if K.HAVE_NUMBA:
        st = compile_structure(m.bqm, m.groups())
        knobs = K.Schedule(np.full(5, 3.0), 5, 4, -1.0, False, 1)
        for kernel in (K.anneal_reads, K.temper_reads):
            fast = kernel(kernel_args(st), knobs, 2, 0, np.zeros(2, np.int64))
            slow = kernel.py_func(kernel_args(st), knobs, 2, 0, np.zeros(2, np.int64))
            assert all((x == y).all() for x, y in zip(fast, slow))


def test_infeasible_box_returns_true_energies_and_says_so():
    # Two cells of one box whose only candidates are the same digit: no perfect matching.
    p = Puzzle.standard([0] * 16, box=(2, 2))
    m = model_of(p)
    groups = m.groups()
    keep = {(0, 0, 1), (0, 1, 1)} | {v for v in m.variables if v[0] > 1 or v[1] > 1}
    bqm = m.bqm.copy()
    bqm.fix_variables([(v, 0) for v in m.variables if v not in keep])
    groups = [(k, [v for v in labels if v in keep]) for k, labels in groups]
    groups = [(k, labels) for k, labels in groups if labels]
    # The fixed-out variables change the penalty: rebuild a consistent BQM over the groups.
    from qsudoku.model.qubo import one_hot

    var = sorted(keep)
    pos = {v: i for i, v in enumerate(var)}
    lin, quad, off = one_hot([np.array([pos[v] for v in g]) for _, g in groups],
                             [1.0] * len(groups), len(var))
    bqm = dimod.BinaryQuadraticModel.from_numpy_vectors(lin, quad, off, "BINARY",
                                                        variable_order=var)
    ss = get_sampler("swap").sample(bqm, groups=groups, num_reads=2, seed=1)
    assert ss.info["feasible"] is False
    assert min(ss.record.energy) > 0
    dimod.testing.assert_sampleset_energies(ss, bqm)


def test_rejects_missing_groups_and_foreign_bqms():
    m = model_of(parse_puzzle(THREE_GIVENS4))
    s = get_sampler("swap")
    assert float(s.sample(m.bqm, num_reads=4, seed=1).first.energy) == 0.0  # groups recognised
    with pytest.raises(ValueError, match="swap: the BQM has no one-hot structure"):
        s.sample(dimod.BQM({"a": 1.0}, {}, 0.0, "BINARY"))
    other = m.bqm.copy()
    other.add_linear(m.variables[0], 0.5)
    with pytest.raises(ValueError, match="not a sum of one-hot penalties"):
        s.sample(other, groups=m.groups())
    with pytest.raises(ValueError, match="beta_range"):
        s.sample(m.bqm, groups=m.groups(), beta_range=(2.0, 1.0))


def test_time_limit_stops_long_runs():
    m = model_of(Puzzle.standard(blanked(SOL9, 0.25, 10)), rules=("naked_single",))
    # compile or load the kernel first: only the sampling is timed. Without the limit the
    # call would run for hours, so the generous bound still tells a loaded machine apart.
    get_sampler("swap").sample(m.bqm, groups=m.groups(), num_reads=1, num_sweeps=10, seed=1)
    t = time.perf_counter()
    ss = get_sampler("swap").sample(m.bqm, groups=m.groups(), num_reads=10_000,
                                    num_sweeps=10_000_000, time_limit=0.3, seed=1)
    assert time.perf_counter() - t < 30.0
    assert len(ss) >= 1 and max(ss.info["sweeps"]) < 10_000_000


@needs_numba
def test_reads_cut_short_by_another_reads_ground_state_are_dropped():
    """With stop_at_ground the unfinished reads are not samples: the valid share stays a
    per-read success probability."""
    m = model_of(parse_puzzle(THREE_GIVENS4))
    ss = get_sampler("swap").sample(m.bqm, groups=m.groups(), num_reads=200, num_sweeps=50,
                                    stop_at_ground=True, seed=5)
    sweeps = ss.info["sweeps"]
    assert len(ss) + ss.info["interrupted"] == 200 and len(sweeps) == len(ss)
    for s, e in zip(sweeps, ss.record.energy):
        assert s >= 50 or e == 0
    assert (ss.record.energy == 0).any()
