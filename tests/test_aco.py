"""The ``aco`` sampler: dimod contract, true energies, consistent partial assignments, endings."""

import time

import dimod
import dimod.testing
import numpy as np
import pytest

from qsudoku.errors import ParameterError
from qsudoku.model.decode import decode
from qsudoku.io import parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle, column_units, diagonal_units, row_units
from qsudoku.model.qubo import Weights, build_model
from _shared import route as anneal_route
from qsudoku.samplers import get_sampler, names
from qsudoku.samplers.kernels import HAVE_NUMBA
from qsudoku.samplers.aco import compile_cover

from test_swap import JIGSAW6_REGIONS, JIGSAW6_SOL, SOL9, SOLX9, blanked
from _puzzles import HARD9, HARD9_SOLUTION, THREE_GIVENS4

needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed (kernels run as Python)")


def model_of(puzzle, rules=(), weights=Weights()):
    return build_model(propagate(puzzle, rules), weights)


def broken_groups(model, sample) -> tuple[int, int]:
    """(groups holding two or more set variables, groups holding none) of a 0/1 sample."""
    over = under = 0
    for _, labels in model.groups():
        s = sum(sample[v] for v in labels)
        over += s > 1
        under += s == 0
    return over, under


def test_registered_and_honours_the_sampler_api():
    assert "aco" in names()
    s = get_sampler("aco")
    dimod.testing.assert_sampler_api(s)
    assert isinstance(s, dimod.Sampler) and {"groups", "num_ants", "stall"} <= set(s.parameters)


@pytest.mark.slow
def test_samples_are_consistent_partial_assignments_with_true_energies():
    # Few iterations on a hard grid: most colonies leave cells empty, none sets two
    # variables of one group, and the energy is the BQM's (each empty group costs its weight).
    m = model_of(parse_puzzle(HARD9), rules=("naked_single", "hidden_single"))
    ss = get_sampler("aco").sample(m.bqm, groups=m.groups(), num_reads=4, num_ants=2,
                                   max_iters=2, seed=3)
    assert set(ss.variables) == set(m.bqm.variables) and ss.vartype is dimod.BINARY
    dimod.testing.assert_sampleset_energies(ss, m.bqm)
    assert len(ss) == 4 and ss.info["cells"] == len([k for k, _ in m.groups() if k == "cell"])
    for row, energy, fixed in zip(ss.record.sample, ss.record.energy, ss.info["fixed"]):
        over, under = broken_groups(m, dict(zip(ss.variables, row)))
        assert over == 0 and energy == pytest.approx(under)
        assert (fixed == ss.info["cells"]) == (energy == 0)


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
    elif kind == "latin5":  # no boxes or regions: the groups are all the sampler reads
        sol = [(r + c) % 5 + 1 for r in range(5) for c in range(5)]
        p = Puzzle(5, tuple(blanked(sol, 0.3, 6)), tuple(row_units(5) + column_units(5)))
    else:
        p = parse_puzzle(HARD9)
    m = model_of(p, rules=("naked_single", "hidden_single") if kind == "hardest9" else ())
    assert m.num_variables > 0
    ss = get_sampler("aco").sample(m.bqm, groups=m.groups(), num_reads=1000, stall=50,
                                   time_limit=30, seed=7, stop_at_ground=True)
    best = min(decode(m, ss), key=lambda d: d.energy)
    assert best.valid and best.energy == 0.0 and p.is_solution(best.grid)
    if kind == "hardest9":
        assert "".join(map(str, best.grid)) == HARD9_SOLUTION


@needs_numba
def test_relative_weights_give_true_energies_and_a_ground_state():
    w = Weights(cell=2.0, row=0.5, column=0.75, box=3.0)
    m = model_of(Puzzle.standard(blanked(SOL9, 0.45, 8)), weights=w)
    ss = get_sampler("aco").sample(m.bqm, groups=m.groups(), num_reads=2, seed=2)
    dimod.testing.assert_sampleset_energies(ss, m.bqm)
    assert ss.first.energy == pytest.approx(0.0)


@pytest.mark.slow
def test_seeded_runs_are_reproducible_and_the_python_kernel_matches_numba():
    from qsudoku.samplers.aco import kernel as K

    m = model_of(parse_puzzle(HARD9), rules=("naked_single", "hidden_single"))
    s = get_sampler("aco")
    kw = dict(groups=m.groups(), num_reads=3, num_ants=3, max_iters=5, seed=11)
    a, b = s.sample(m.bqm, **kw), s.sample(m.bqm, **kw)
    assert (a.record.sample == b.record.sample).all()
    assert a.info["iterations"] == b.info["iterations"]
    if HAVE_NUMBA:
        cv = compile_cover(m.bqm, m.groups())
        cover = K.Cover(cv.v_ptr, cv.v_grp, cv.g_ptr, cv.g_var, cv.cells)
        root = K.root_state(cover)
        for learn in ((), (1.0,), (0.5,)):  # the plain ant, then refuting ants
            blame = np.zeros(root[0].shape[0]) if learn else None
            knobs = K.Colony(5, 4, 6, 100, 0.9, 0.9, 0.005, 0.1, learn[0] if learn else 0.0)
            args = (cover, root, knobs, 1, np.zeros(1, np.int64), np.zeros(1, np.int64), blame)
            fast = K.colony(*args)
            args[5][0] = 0
            if blame is not None:
                blame[:] = 0
            slow = K.colony.py_func(*args)
            assert all((np.asarray(x) == np.asarray(y)).all() for x, y in zip(fast, slow))


@pytest.mark.slow  # a kernel the default solve does not compile (conftest.py)
@needs_numba
def test_refuting_ants_reach_ground_states():
    m = model_of(parse_puzzle(HARD9), rules=("naked_single", "hidden_single"))
    s = get_sampler("aco")
    for learn in (dict(refute=True), dict(refute=True, blame=2.0)):
        ss = s.sample(m.bqm, groups=m.groups(), num_reads=100, stall=50, time_limit=30, seed=4,
                      stop_at_ground=True, **learn)
        dimod.testing.assert_sampleset_energies(ss, m.bqm)
        assert "".join(map(str, min(decode(m, ss), key=lambda d: d.energy).grid)) == HARD9_SOLUTION
    with pytest.raises(ValueError, match="blame"):
        s.sample(m.bqm, groups=m.groups(), blame=-1.0)
    for gone in ("repair", "spread", "order", "backjump", "jumps"):  # experiments removed
        with pytest.raises(ValueError, match=gone):
            s.sample(m.bqm, groups=m.groups(), **{gone: 1})


@pytest.mark.slow
@needs_numba
def test_auto_refute_makes_every_colony_refute_from_the_threshold_only():
    from qsudoku.samplers.aco import AUTO_REFUTE_VARIABLES

    s = get_sampler("aco")
    small = model_of(parse_puzzle(HARD9), rules=("naked_single", "hidden_single"))
    big = model_of(Puzzle.standard([0] * 16 * 16))  # blank 16x16: 4,096 variables
    assert len(small.bqm.variables) < AUTO_REFUTE_VARIABLES <= len(big.bqm.variables)
    kw = dict(num_reads=4, num_ants=3, max_iters=3, seed=11)
    for m, same in ((small, False), (big, True)):
        auto, plain, refuting = (s.sample(m.bqm, groups=m.groups(), refute=r, **kw)
                                 for r in ("auto", False, True))
        # every read (colony) of "auto" is the colony of the mode it resolves to
        expect, other = (refuting, plain) if same else (plain, refuting)
        assert (auto.record.sample == expect.record.sample).all()
        assert (auto.record.sample != other.record.sample).any()


def test_a_colony_ends_after_stall_iterations_without_a_new_record():
    m = model_of(parse_puzzle(HARD9), rules=("naked_single", "hidden_single"))
    ss = get_sampler("aco").sample(m.bqm, groups=m.groups(), num_reads=6, num_ants=1, q0=1.0,
                                   stall=3, max_iters=10_000, seed=4)
    its = ss.info["iterations"]
    # a greedy single ant repeats itself: 3 iterations without a new record end the colony
    # long before max_iters (unless it completes the grid first)
    assert len(its) == 6 and all(1 <= i < 10_000 for i in its)
    assert all(i >= 3 for i, e in zip(its, ss.record.energy) if e > 0)


def test_rejects_bad_parameters_missing_groups_and_other_bqms():
    m = model_of(parse_puzzle(THREE_GIVENS4))
    s = get_sampler("aco")
    assert float(s.sample(m.bqm, seed=1).first.energy) == 0.0  # groups recognised
    with pytest.raises(ParameterError, match="aco: the BQM has no one-hot structure"):
        s.sample(dimod.BQM({"a": 1.0}, {}, 0.0, "BINARY"))
    with pytest.raises(ValueError, match="stall"):
        s.sample(m.bqm, groups=m.groups(), stall=0)
    with pytest.raises(ValueError, match="q0"):
        s.sample(m.bqm, groups=m.groups(), q0=1.5)
    with pytest.raises(ValueError, match="time_limit"):
        s.sample(m.bqm, groups=m.groups(), time_limit=0)
    with pytest.raises(ValueError, match="unknown parameter"):
        s.sample(m.bqm, groups=m.groups(), num_sweeps=10)
    with pytest.raises(ValueError, match="'cell' groups"):
        s.sample(m.bqm, groups=[(k, g) for k, g in m.groups() if k != "cell"])
    other = m.bqm.copy()
    other.add_linear(next(iter(other.variables)), 0.5)
    with pytest.raises(ValueError, match="not a sum of one-hot penalties"):
        s.sample(other, groups=m.groups())


@pytest.mark.slow
def test_time_limit_stops_long_runs():
    m = model_of(Puzzle.standard(blanked(SOL9, 0.25, 10)), rules=("naked_single",))
    t = time.perf_counter()
    ss = get_sampler("aco").sample(m.bqm, groups=m.groups(), num_reads=10**6, num_ants=1,
                                   q0=1.0, stall=10**9, max_iters=10**9, time_limit=0.3, seed=1)
    assert time.perf_counter() - t < 3.0
    assert len(ss) >= 1 and max(ss.info["iterations"]) < 10**9
    # a limit that is over before the first colony still answers: read 0 runs one
    # iteration, and the colonies cut off before they began are not reads
    ss = get_sampler("aco").sample(m.bqm, groups=m.groups(), num_reads=10, time_limit=1e-9)
    assert len(ss) == 1 and ss.info["iterations"] == [1] and ss.info["num_reads"] == 1
    dimod.testing.assert_sampleset_energies(ss, m.bqm)


@needs_numba
def test_the_route_runs_with_the_aco_sampler():
    p = parse_puzzle(HARD9)
    r = anneal_route(p, sampler="aco", seed=1, time_budget=20.0)
    assert r.valid and p.is_solution(r.grid) and r.solved_by.startswith("aco (")


@pytest.mark.slow
def test_runs_without_numba():
    """numba is optional: without it the kernel runs as plain Python (slow, but correct)."""
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
ss = get_sampler("aco").sample(m.bqm, groups=m.groups(), num_reads=2, max_iters=50, seed=1)
print(float(ss.first.energy), len(ss))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0.0", "2"]


def test_solves_the_seed004_model_read_back_from_its_bqm_file(tmp_path):
    """``qsudoku qubo -o m.bqm`` then plain dimod: no groups passed, they are recognised."""
    from qsudoku.cli import main

    puzzle = ("2.513...4....48........7.2..385...92....9.7........45.86.97....95....."
              "31..4......")
    path = tmp_path / "m.bqm"
    assert main(["qubo", puzzle, "-o", str(path)]) == 0
    with open(path, "rb") as f:
        bqm = dimod.BinaryQuadraticModel.from_file(f)
    assert all(isinstance(v, tuple) and len(v) == 3 for v in bqm.variables)
    ss = get_sampler("aco").sample(bqm, num_reads=1000, seed=4, stop_at_ground=True,
                                   time_limit=60)
    assert float(ss.first.energy) == 0.0
    solution = ("285139674673248519419657328738564192542391786196782453861973245957426831"
                "324815967")
    chosen = [v for v, x in ss.first.sample.items() if x]
    assert all(int(solution[9 * r + c]) == d for r, c, d in chosen)


@pytest.mark.parametrize("seed", range(3))
def test_colonies_cut_short_by_a_ground_state_are_not_reads(seed):
    """With ``stop_at_ground``, the colonies another thread's complete ant stopped are
    counted in ``info["cancelled"]``, never returned: every read returned ended by itself."""
    m = model_of(parse_puzzle(
        HARD9))
    ss = get_sampler("aco").sample(m.bqm, groups=m.groups(), num_reads=8, seed=seed,
                                   stop_at_ground=True)
    assert (ss.record.energy == 0).any()
    assert ss.info["interrupted"] == 0 and len(ss) + ss.info["cancelled"] <= 8


@pytest.mark.slow  # a kernel the default solve does not compile (conftest.py)
@needs_numba
def test_the_tabu_search_completes_partial_assignments_and_matches_python():
    from qsudoku.samplers.aco import kernel as K
    from qsudoku.samplers.aco.partial import partial_tabu

    m = model_of(parse_puzzle(HARD9), rules=("naked_single", "hidden_single"))
    cv = compile_cover(m.bqm, m.groups())
    cover = K.Cover(cv.v_ptr, cv.v_grp, cv.g_ptr, cv.g_var, cv.cells)
    alive, _, _, chosen = K.root_state(cover)
    # from the root (every cell empty), seeded: the search ends at a ground state
    best, empty, moves = partial_tabu(cover, 2, 0, chosen, alive, 10**6,
                                      np.zeros(1, np.int64), np.zeros(1, np.int64))
    sample = dict(zip(cv.variables, best))
    assert empty == 0 and 0 < moves < 10**6 and m.bqm.energy(sample) == 0.0
    ss = dimod.SampleSet.from_samples_bqm(sample, m.bqm)
    assert "".join(map(str, decode(m, ss)[0].grid)) == HARD9_SOLUTION
    # a short run: the assignment returned is consistent, and python and numba agree
    flags = [np.zeros(1, np.int64) for _ in range(4)]
    fast = partial_tabu(cover, 5, 1, chosen, alive, 50, flags[0], flags[1])
    slow = partial_tabu.py_func(cover, 5, 1, chosen, alive, 50, flags[2], flags[3])
    assert all((np.asarray(x) == np.asarray(y)).all() for x, y in zip(fast, slow))
    over, under = broken_groups(m, dict(zip(cv.variables, fast[0])))
    assert over == 0 and fast[1] > 0 and fast[2] == 50
    # a set flag stops it before its first move
    assert partial_tabu(cover, 5, 1, chosen, alive, 50, np.ones(1, np.int64),
                        np.zeros(1, np.int64))[2] == 0


@pytest.mark.slow
@needs_numba
def test_tabu_moves_continue_colonies_records_to_ground_states():
    m = model_of(parse_puzzle(HARD9), rules=("naked_single", "hidden_single"))
    s = get_sampler("aco")
    # one greedy ant for one iteration leaves cells empty; the tabu search fills them
    kw = dict(groups=m.groups(), num_reads=4, num_ants=1, max_iters=1, seed=7, refute=False)
    plain = s.sample(m.bqm, tabu_moves=0, **kw)
    polished = s.sample(m.bqm, tabu_moves=10**6, **kw)
    dimod.testing.assert_sampleset_energies(polished, m.bqm)
    assert min(plain.record.energy) > 0 and plain.info["tabu_moves"] == [0] * 4
    assert (polished.record.energy == 0).all() and all(polished.info["tabu_moves"])
    # the default on a small model is no tabu search; a complete colony needs none
    assert s.sample(m.bqm, **kw).info["tabu_moves"] == [0] * 4
    done = s.sample(m.bqm, tabu_moves=10**6, **{**kw, "max_iters": 1000, "num_ants": 10})
    assert done.first.energy == 0 and 0 in done.info["tabu_moves"]
    with pytest.raises(ValueError, match="tabu_moves"):
        s.sample(m.bqm, groups=m.groups(), tabu_moves=-1)


@needs_numba
@pytest.mark.slow
def test_auto_tabu_moves_turn_reads_on_loose_big_models_into_greedy_plus_tabu():
    from qsudoku.samplers.aco import AUTO_TABU_VARIABLES, TABU_MOVES_PER_CELL

    m = model_of(Puzzle.standard([0] * 36 * 36))  # blank 36x36: 46,656 variables
    assert len(m.bqm.variables) >= AUTO_TABU_VARIABLES
    ss = get_sampler("aco").sample(m.bqm, groups=m.groups(), num_reads=1, seed=2,
                                   time_limit=120)
    # one iteration of ants, then the tabu search, which completes the grid
    assert ss.info["iterations"] == [1] and 0 < ss.info["tabu_moves"][0]
    assert ss.info["tabu_moves"][0] <= TABU_MOVES_PER_CELL * ss.info["cells"]
    assert ss.first.energy == 0.0 and decode(m, ss)[0].valid
