"""The ``swap-tabu`` sampler: dimod contract, true energies, one-hot moves, read endings."""

import time

import dimod
import dimod.testing
import numpy as np
import pytest

from qsudoku.model.decode import decode
from qsudoku.io import parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle, column_units, diagonal_units, row_units
from qsudoku.model.qubo import Weights, build_model
from qsudoku.samplers import get_sampler, names
from qsudoku.samplers.kernels import HAVE_NUMBA
from qsudoku.samplers.swap.structure import compile_structure, kernel_args

from test_swap import JIGSAW6_REGIONS, JIGSAW6_SOL, SOL9, SOLX9, blanked
from _puzzles import HARD9, HARD9_SOLUTION, THREE_GIVENS4

#: The swap samplers' kernels are not the default solve's (see conftest.py).
pytestmark = pytest.mark.slow

needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed (kernels run as Python)")


def model_of(puzzle, rules=(), weights=Weights()):
    return build_model(propagate(puzzle, rules), weights)


def test_registered_and_honours_the_sampler_api():
    assert "swap-tabu" in names()
    s = get_sampler("swap-tabu")
    dimod.testing.assert_sampler_api(s)
    assert isinstance(s, dimod.Sampler) and {"groups", "tenure", "stall"} <= set(s.parameters)


def test_samples_have_true_energies_and_keep_cells_and_boxes_one_hot():
    m = model_of(Puzzle.standard(blanked(SOL9, 0.35, 1)))
    ss = get_sampler("swap-tabu").sample(m.bqm, groups=m.groups(), num_reads=6, max_iters=20,
                                         seed=3)
    assert set(ss.variables) == set(m.bqm.variables) and ss.vartype is dimod.BINARY
    dimod.testing.assert_sampleset_energies(ss, m.bqm)
    assert len(ss) == 6 and all(0 <= it <= 20 for it in ss.info["iterations"])
    for d in decode(m, ss):
        assert set(d.broken_by_kind) <= {"row", "column"}  # a swap never breaks a cell or box
        assert 0 not in d.grid


@needs_numba
@pytest.mark.parametrize("kind", ["sudoku6", "jigsaw6", "sudokux9", "latin5", "hardest9"])
def test_finds_valid_grids_of_every_variant(kind):
    if kind == "sudoku6":
        p = Puzzle.standard(blanked([int(c) for c in "123456456123231564564231312645645312"], .3, 2),
                            box=(2, 3))
    elif kind == "jigsaw6":
        p = Puzzle.jigsaw(blanked(JIGSAW6_SOL, 0.3, 4), JIGSAW6_REGIONS)
    elif kind == "sudokux9":
        p = Puzzle.standard(blanked(SOLX9, 0.45, 5), extra=diagonal_units(9))
    elif kind == "latin5":  # rows are the family when there are no boxes or regions
        sol = [(r + c) % 5 + 1 for r in range(5) for c in range(5)]
        p = Puzzle(5, tuple(blanked(sol, 0.3, 6)), tuple(row_units(5) + column_units(5)))
    else:
        p = parse_puzzle(HARD9)
    m = model_of(p, rules=("naked_single", "hidden_single") if kind == "hardest9" else ())
    assert m.num_variables > 0
    ss = get_sampler("swap-tabu").sample(m.bqm, groups=m.groups(), num_reads=10_000,
                                         time_limit=30, seed=7, stop_at_ground=True)
    assert ss.info["family"] == {"jigsaw6": "region", "latin5": "row"}.get(kind, "box")
    best = min(decode(m, ss), key=lambda d: d.energy)
    assert best.valid and best.energy == 0.0 and p.is_solution(best.grid)
    if kind == "hardest9":
        assert "".join(map(str, best.grid)) == HARD9_SOLUTION


@needs_numba
def test_relative_weights_give_true_energies():
    w = Weights(cell=2.0, row=0.5, column=0.75, box=3.0)
    m = model_of(Puzzle.standard(blanked(SOL9, 0.45, 8)), weights=w)
    ss = get_sampler("swap-tabu").sample(m.bqm, groups=m.groups(), num_reads=4, tenure=2,
                                         stall=500, seed=2)
    dimod.testing.assert_sampleset_energies(ss, m.bqm)
    assert ss.first.energy == pytest.approx(0.0)


@pytest.mark.slow
def test_seeded_runs_are_reproducible_and_the_python_kernel_matches_numba():
    from qsudoku.samplers.swap import tabu_kernel as K

    m = model_of(Puzzle.standard(blanked(SOL9, 0.3, 9)))
    s = get_sampler("swap-tabu")
    a = s.sample(m.bqm, groups=m.groups(), num_reads=3, max_iters=40, seed=11)
    b = s.sample(m.bqm, groups=m.groups(), num_reads=3, max_iters=40, seed=11)
    assert (a.record.sample == b.record.sample).all()
    if HAVE_NUMBA:
        st = compile_structure(m.bqm, m.groups())
        for pure in (True, False):
            args = (kernel_args(st), K.Tabu(25, 3, 10, 1.0, 4, -1.0, pure, False), 2, 0,
                    np.zeros(2, np.int64))
            fast = K.tabu_reads(*args)
            args[4][:] = 0
            slow = K.tabu_reads.py_func(*args)
            assert all((np.asarray(x) == np.asarray(y)).all() for x, y in zip(fast, slow))


def test_breakout_weights_steer_the_walk_but_energies_stay_the_bqms():
    # Non-uniform weights: the search weights start at them and grow, the energies do not.
    m = model_of(parse_puzzle(HARD9), rules=("naked_single", "hidden_single"),
                 weights=Weights(row=1.5, column=0.75))
    s = get_sampler("swap-tabu")
    kw = dict(groups=m.groups(), num_reads=4, max_iters=400, stall=10**6, seed=5)
    plain, weighted = s.sample(m.bqm, bump=0.0, **kw), s.sample(m.bqm, bump=1.0, **kw)
    for ss in (plain, weighted):
        dimod.testing.assert_sampleset_energies(ss, m.bqm)
    assert plain.info["bump"] == 0.0 and weighted.info["bump"] == 1.0
    # The same seeds and starts, but the bumps change which moves are made.
    assert (plain.record.sample != weighted.record.sample).any()


def test_a_read_ends_after_stall_iterations_without_a_new_best():
    m = model_of(parse_puzzle(HARD9), rules=("naked_single", "hidden_single"))
    ss = get_sampler("swap-tabu").sample(m.bqm, groups=m.groups(), num_reads=8, stall=5,
                                         max_iters=10_000, seed=4)
    its = ss.info["iterations"]
    # 5 iterations without a new best end a read long before max_iters (a read improving at
    # every step could last longer, but never 10,000 steps on an 80-cell grid)
    assert len(its) == 8 and all(5 <= i < 10_000 for i in its)


def test_rejects_bad_parameters_and_missing_groups():
    m = model_of(parse_puzzle(THREE_GIVENS4))
    s = get_sampler("swap-tabu")
    with pytest.raises(ValueError, match="swap-tabu: the BQM has no one-hot structure"):
        s.sample(dimod.BQM({"a": 1.0}, {}, 0.0, "BINARY"))
    with pytest.raises(ValueError, match="tenure = -1 must be an integer in 0"):
        s.sample(m.bqm, groups=m.groups(), tenure=-1)
    with pytest.raises(ValueError, match="stall"):
        s.sample(m.bqm, groups=m.groups(), stall=0)
    with pytest.raises(ValueError, match="time_limit"):
        s.sample(m.bqm, groups=m.groups(), time_limit=0)
    for bad in (-0.5, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="bump"):
            s.sample(m.bqm, groups=m.groups(), bump=bad)
    with pytest.raises(ValueError, match="unknown parameter"):
        s.sample(m.bqm, groups=m.groups(), num_sweeps=10)


@pytest.mark.slow
def test_time_limit_stops_long_runs():
    m = model_of(Puzzle.standard(blanked(SOL9, 0.25, 10)), rules=("naked_single",))
    # compile or load the kernel first: only the sampling is timed. Without the limit the
    # call would run for hours, so the generous bound still tells a loaded machine apart.
    get_sampler("swap-tabu").sample(m.bqm, groups=m.groups(), num_reads=1, max_iters=10, seed=1)
    t = time.perf_counter()
    ss = get_sampler("swap-tabu").sample(m.bqm, groups=m.groups(), num_reads=10_000,
                                         stall=10**9, max_iters=10**9, time_limit=0.3, seed=1)
    assert time.perf_counter() - t < 30.0
    assert len(ss) >= 1 and max(ss.info["iterations"]) < 10**9


@needs_numba
def test_reads_cut_short_by_another_reads_ground_state_are_dropped():
    m = model_of(parse_puzzle(THREE_GIVENS4))
    ss = get_sampler("swap-tabu").sample(m.bqm, groups=m.groups(), num_reads=200, stall=50,
                                         stop_at_ground=True, seed=5)
    assert len(ss) + ss.info["interrupted"] == 200 and len(ss.info["iterations"]) == len(ss)
    assert (ss.record.energy == 0).any()


@pytest.mark.slow
def test_both_swap_samplers_run_without_numba():
    """numba is optional: without it the kernels run as plain Python (slow, but correct)."""
    import subprocess
    import sys

    code = """
import sys
sys.modules["numba"] = None  # import numba -> ImportError
from qsudoku.io import parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import build_model
from qsudoku.samplers import get_sampler
from qsudoku.samplers.swap import kernel as _swap_kernel
assert not _swap_kernel.HAVE_NUMBA
m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), ()))
a = get_sampler("swap-tabu").sample(m.bqm, groups=m.groups(), num_reads=3, max_iters=50, seed=1)
b = get_sampler("swap").sample(m.bqm, groups=m.groups(), num_reads=3, num_sweeps=50, seed=1)
print(float(a.first.energy), float(b.first.energy))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0.0", "0.0"]


@needs_numba
def test_read_only_swap_deltas_follow_the_same_walk_as_shifting_the_counts():
    from qsudoku.samplers.swap import tabu_kernel as K

    m = model_of(parse_puzzle(HARD9), rules=("naked_single", "hidden_single"),
                 weights=Weights(row=2.0, column=3.0))
    st = compile_structure(m.bqm, m.groups())
    assert st.digit_pure
    runs = [K.tabu_reads(kernel_args(st), K.Tabu(3000, 4, 2000, 1.0, 8, 1e-9, pure, False), 4,
                         0, np.zeros(2, np.int64))
            for pure in (True, False)]
    assert all((np.asarray(x) == np.asarray(y)).all() for x, y in zip(*runs))
    assert runs[0][2].sum() > 1000  # the walks were long enough to mean something


def _swap_deltas(st, seed):
    """Per possible swap of a random state: (read-only delta, delta by shifting counts)."""
    from qsudoku.samplers.swap import kernel as S
    from qsudoku.samplers.swap import tabu_kernel as K

    a = st.arrays
    swaps = kernel_args(st)
    ns = len(a["slot_comp"])
    _, val, holder, cnt, _ = S.start_read(swaps, seed, 0)
    var = [S.var_of(x, val[x], swaps) for x in range(ns)]
    out = []
    for i in a["movable"]:
        for b in a["cand_val"][a["cand_ptr"][i]:a["cand_ptr"][i + 1]]:
            j = holder[b]
            vj_on = S.var_of(j, val[i], swaps)
            vi_on = S.var_of(i, b, swaps)
            if b == val[i] or vj_on < 0:
                continue
            vi_off, vj_off = var[i], var[j]
            half = (K._half(vi_off, vj_on, a["vgw"], a["gw"], cnt)
                    + K._half(vj_off, vi_on, a["vgw"], a["gw"], cnt))
            moved = S.move(vi_off, vj_off, vi_on, vj_on, a["vg_ptr"], a["vg_idx"], a["gw"], cnt)
            S.move(vi_on, vj_on, vi_off, vj_off, a["vg_ptr"], a["vg_idx"], a["gw"], cnt)
            out.append((half, moved))
    return np.array(out)


def test_read_only_deltas_equal_shifted_counts_on_pure_models():
    for puzzle, w in ((parse_puzzle(HARD9), Weights(row=2.0, column=0.75)),
                      (Puzzle.standard(blanked(SOLX9, 0.5, 6), extra=diagonal_units(9)),
                       Weights(extra=1.5))):
        m = model_of(puzzle, weights=w)
        st = compile_structure(m.bqm, m.groups())
        assert st.digit_pure
        d = np.concatenate([_swap_deltas(st, seed) for seed in range(8)])
        assert len(d) > 100 and np.allclose(d[:, 0], d[:, 1])


def test_a_conflict_group_mixing_digits_of_a_box_is_not_pure():
    # A 4x4 model plus an odd extra group: r3c3 holding 1 or r4c3 holding 3 (two digits of
    # one box): the read-only deltas would be wrong, so the kernel shifts the counts.
    m = model_of(parse_puzzle(THREE_GIVENS4))
    groups = m.groups()
    odd = [v for v in m.variables if v in ((2, 2, 1), (3, 2, 3))]
    assert len(odd) == 2
    groups.append(("extra", odd))
    bqm = m.bqm.copy()
    for v in odd:
        bqm.add_linear(v, -1.0)
    bqm.add_quadratic(odd[0], odd[1], 2.0)
    bqm.offset += 1.0
    st = compile_structure(bqm, groups)
    assert not st.digit_pure and compile_structure(m.bqm, m.groups()).digit_pure
    d = np.concatenate([_swap_deltas(st, seed) for seed in range(10)])
    assert not np.allclose(d[:, 0], d[:, 1])  # why the flag exists
    ss = get_sampler("swap-tabu").sample(bqm, groups=groups, num_reads=20, max_iters=50, seed=3)
    dimod.testing.assert_sampleset_energies(ss, bqm)
