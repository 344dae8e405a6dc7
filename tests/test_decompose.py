"""decompose and kerberos offline: QPU-sized subproblems through the mock QPU's clique
embedding, the induced subproblems' energies, the statistics in info, bad options."""

from __future__ import annotations

import dimod
import numpy as np
import pytest

pytest.importorskip("dwave.system")
pytest.importorskip("minorminer")

from qsudoku.samplers.dwave.cliques import clique_embedding  # noqa: E402
from qsudoku.samplers.dwave.embedding import is_valid_embedding  # noqa: E402
from qsudoku.errors import ConfigError  # noqa: E402
from qsudoku.io import parse_puzzle  # noqa: E402
from qsudoku.solving import build  # noqa: E402
from qsudoku.solving import sample_round  # noqa: E402
from qsudoku.samplers import get_sampler  # noqa: E402
from qsudoku.samplers.dwave.decompose import (STRATEGIES, DecomposeSampler, choose_cells, SubModel,  # noqa: E402
                                        SubStructure)
from qsudoku.samplers.dwave.qpu import mock_child  # noqa: E402
from _puzzles import SEED003, TWO_GIVENS4

FOUR = parse_puzzle(TWO_GIVENS4)        # 32 variables after singles
SIX = parse_puzzle("1.....2.....3.....4.....5.....6.....")


def _model(puzzle=FOUR):
    from qsudoku import Config

    _, model, _ = build(puzzle, Config().with_overrides(rules=["naked_single", "hidden_single"]))
    return model


def test_clique_embedding_holds_every_pair_and_is_reused():
    child = mock_child()
    first = clique_embedding(12, child)
    pairs = [(a, b) for a in range(12) for b in range(a + 1, 12)]
    assert first.found and is_valid_embedding(first.embedding, pairs, range(12), child.adjacency)
    again = clique_embedding(12, child)
    assert again.cache_hit and again.embedding == first.embedding


def test_subproblem_energy_equals_the_full_energy():
    model = _model(SIX)
    m, s = SubModel(model.bqm), SubStructure(SubModel(model.bqm), model.groups())
    rng = np.random.default_rng(0)
    for size in (8, 20, 40):
        x = rng.integers(0, 2, m.n).astype(float)
        free = choose_cells(s, m, x, size, rng)
        assert 0 < len(free) <= size
        sub = m.subproblem(free, x)
        assert np.isclose(sub.energy({i: x[f] for i, f in enumerate(free)}), m.energy(x))
        assert np.isclose(m.energy(x), model.bqm.energy(dict(zip(m.labels, x))))


def test_subproblem_is_the_induced_model_and_reads_only_the_adjacency():
    rng = np.random.default_rng(5)
    bqm = dimod.generators.gnp_random_bqm(60, 0.3, "BINARY", random_state=5)
    m = SubModel(bqm)
    m.adjacency()
    m.u = m.v = m.b = None  # a subproblem reads the free and set variables' interactions only
    for _ in range(5):
        x = rng.integers(0, 2, m.n).astype(float)
        free = np.sort(rng.choice(m.n, 12, replace=False))
        sub = m.subproblem(free, x)
        want = bqm.copy()
        want.fix_variables({m.labels[i]: x[i] for i in range(m.n) if i not in set(free)})
        want.relabel_variables({m.labels[f]: i for i, f in enumerate(free)})
        assert sub.num_interactions == want.num_interactions
        for i in range(len(free)):
            assert np.isclose(sub.get_linear(i), want.get_linear(i))
        for (a, b), bias in want.quadratic.items():
            assert np.isclose(sub.get_quadratic(a, b), bias)
        assert np.isclose(sub.offset, want.offset)


def test_a_plan_passes_decompose_the_time_left():
    from qsudoku import Config
    from qsudoku.solving import make_plan

    plan = make_plan(Config().with_overrides(sampler="decompose", options={"qpu_sampler": "mock-qpu"}))
    assert plan.online and plan.timed == ("time_limit",)
    assert plan.round_params(1, 7.5)["time_limit"] == 7.5


@pytest.mark.slow
@pytest.mark.parametrize("n, box, given", [(36, 6, 0.6), (49, 7, 0.62)])
def test_the_solve_path_runs_decompose_on_big_grids_with_the_mock_qpu(n, box, given):
    from qsudoku import Config, solve
    from qsudoku.model.puzzle import Puzzle

    full = [(box * (r % box) + r // box + c) % n + 1 for r in range(n) for c in range(n)]
    rng = np.random.default_rng(3)
    puzzle = Puzzle.standard([v if rng.random() < given else 0 for v in full])
    assert puzzle.is_solution(full) and puzzle.size == n
    cfg = Config().with_overrides(sampler="decompose", seed=1, route={"exact_fallback": ""},
                                  options={"qpu_sampler": "mock-qpu"})
    r = solve(puzzle, cfg, budget=120)
    assert r.valid and r.solved_by == "decompose (1 round)" and r.num_variables > 50
    assert 1 <= r.info["qpu_calls"] <= 100 and 0 < r.info["max_subproblem_variables"] <= 64


def test_frees_whole_cells_with_their_current_values():
    model = _model(SIX)
    m = SubModel(model.bqm)
    s = SubStructure(m, model.groups())
    rng = np.random.default_rng(1)
    x = s.initial(m.n, rng)
    free = choose_cells(s, m, x, 16, rng)
    assert 0 < len(free) <= 16
    for k in set(s.cell_of[free].tolist()):
        current = s.cells[k][x[s.cells[k]] > 0.5]
        assert set(current.tolist()) <= set(free.tolist())


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_exact_subproblems_solve_a_small_puzzle(strategy):
    model = _model()
    rnd = sample_round(model, DecomposeSampler(dimod.ExactSolver()),
                       {"subproblem_size": 12, "strategy": strategy, "seed": 3, "max_calls": 200,
                        "batch": 1})
    info = rnd.sampleset.info
    assert rnd.best.valid and FOUR.is_solution(rnd.best.grid)
    assert info["max_subproblem_variables"] <= 12 < model.num_variables
    assert info["qpu_calls"] >= 2


@pytest.mark.slow
def test_mock_qpu_decompose_end_to_end_and_reproducible():
    sampler = get_sampler("decompose", qpu_sampler="mock-qpu")
    params = {"subproblem_size": 24, "seed": 5, "qpu_reads": 5, "num_sweeps": 200}
    runs = [sample_round(_model(), sampler, params) for _ in range(2)]
    info = runs[0].sampleset.info
    assert runs[0].best.valid
    assert info["max_subproblem_variables"] <= 24 and 1 <= info["longest_chain"] <= 8
    assert info["qpu_calls"] >= 1 and info["estimated_qpu_access_time"] > 0
    assert runs[0].best.grid == runs[1].best.grid
    assert info["qpu_calls"] == runs[1].sampleset.info["qpu_calls"]


@pytest.mark.parametrize("options, params, match", [
    ({"qpu_sampler": "bogus"}, {}, "qpu_sampler"),
    ({"qpu_sampler": "mock-qpu"}, {"strategy": "bogus"}, "strategy"),
    ({"qpu_sampler": "mock-qpu"}, {"subproblem_size": 0}, "subproblem_size"),
    ({"qpu_sampler": "mock-qpu"}, {"max_calls": 1.5}, "max_calls"),
])
def test_bad_options_are_config_errors(options, params, match):
    with pytest.raises(ConfigError, match=match):
        sample_round(_model(), get_sampler("decompose", **options), params)


def test_a_clique_too_large_for_the_chip_is_reported():
    sampler = get_sampler("decompose", qpu_sampler="mock-qpu", topology="chimera", shape=[2, 2, 4])
    from qsudoku.errors import BackendUnavailableError

    with pytest.raises(BackendUnavailableError, match="subproblem_size"):
        sample_round(_model(), sampler, {"subproblem_size": 30, "seed": 1})


def test_kerberos_with_the_mock_qpu():
    pytest.importorskip("hybrid")
    sampler = get_sampler("kerberos", qpu_sampler="mock-qpu")
    rnd = sample_round(_model(), sampler, {"max_iter": 5, "convergence": 3, "energy_threshold": 0.0,
                                           "seed": 2, "qpu_params": {"num_sweeps": 200},
                                           "max_subproblem_size": 20, "tabu_timeout": 50})
    info = rnd.sampleset.info
    assert rnd.best.valid
    assert info["max_subproblem_variables"] <= 20 and info["longest_chain"] <= 8


def test_kerberos_options():
    pytest.importorskip("hybrid")
    with pytest.raises(ConfigError, match="qpu_sampler"):
        get_sampler("kerberos", qpu_sampler="hybrid")
    with pytest.raises(ConfigError, match="option of the kerberos backend"):
        get_sampler("kerberos", qpu_sampler="mock-qpu").sample(_model().bqm, qpu_sampler=None)


def test_propagator_singles_and_contradictions():
    from qsudoku.samplers.dwave.construct import Propagator

    # cell groups {0,1}, {2,3}; column groups {0,2}, {1,3}: choosing 0 forces 3
    prop = Propagator(4, [np.array([0, 1]), np.array([2, 3]), np.array([0, 2]), np.array([1, 3])])
    assert not prop.chosen.any() and prop.alive.all()
    assert prop.choose(0)
    assert prop.chosen.tolist() == [True, False, False, True]
    assert not prop.choose(1)  # ruled out by 0
    # a group whose members are all ruled out is a contradiction
    bad = Propagator(3, [np.array([0, 1]), np.array([0, 2]), np.array([1, 2])])
    assert bad.reset() and not bad.choose(0)


@pytest.mark.slow
def test_construct_with_the_mock_qpu_solves_a_six_by_six_in_small_subproblems():
    sampler = get_sampler("decompose", qpu_sampler="mock-qpu")
    model = _model(SIX)
    rnd = sample_round(model, sampler, {"strategy": "construct", "subproblem_size": 20, "seed": 4,
                                        "qpu_reads": 5, "num_sweeps": 200, "max_calls": 100})
    info = rnd.sampleset.info
    assert rnd.best.valid and SIX.is_solution(rnd.best.grid)
    assert info["max_subproblem_variables"] <= 20 < model.num_variables
    assert info["qpu_calls"] >= 2 and 1 <= info["longest_chain"] <= 8


TOP95 = parse_puzzle("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......")


@pytest.mark.slow
def test_a_refuted_digit_is_undone_ruled_out_and_blamed():
    from qsudoku.samplers.dwave.construct import Propagator, take

    model = _model(TOP95)
    m = SubModel(model.bqm)
    s = SubStructure(m, model.groups())
    root = Propagator(m.n, list(s.cells) + list(s.units))
    failing = []
    for v in range(m.n):  # open digits whose singles propagation contradicts the root
        trial = Propagator(m.n, list(s.cells) + list(s.units))
        if not trial.chosen[v] and not trial.choose(v):
            failing.append(v)
    assert failing and root.alive[failing[0]]
    v = failing[0]
    cell = int(s.cell_of[v])
    y = np.zeros(m.n)
    y[v] = 1.0
    blame = np.zeros(m.n)
    ok, taken = take(root, s.cells, [cell], y, np.random.default_rng(0), True, blame)
    assert ok and taken == [] and not root.alive[v] and blame[v] == 1.0
    again = Propagator(m.n, list(s.cells) + list(s.units))
    ok, taken = take(again, s.cells, [cell], y, np.random.default_rng(0), False, np.zeros(m.n))
    assert not ok and taken == [v]


class _Recording(dimod.Sampler):
    """Simulated annealing that records the linear biases of every subproblem it is sent."""

    parameters = {"num_reads": [], "num_sweeps": [], "seed": []}
    properties: dict = {}

    def __init__(self):
        from dwave.samplers import SimulatedAnnealingSampler

        self.sa, self.linear = SimulatedAnnealingSampler(), []

    def sample(self, bqm, **params):
        self.linear.extend(bqm.linear.values())
        return self.sa.sample(bqm, **params)


@pytest.mark.slow
@pytest.mark.parametrize("backjump, memory, calls", [(3, 1.0, 400), (0, 0.0, 40)])
def test_construct_backjumps_and_blames_contradicted_digits(backjump, memory, calls):
    child = _Recording()
    params = {"subproblem_size": 30, "seed": 2, "qpu_reads": 4, "num_sweeps": 50,
              "max_calls": calls, "backjump": backjump, "memory": memory}
    rnd = sample_round(_model(TOP95), DecomposeSampler(child), params)
    info = rnd.sampleset.info
    assert info["max_subproblem_variables"] <= 30 and info["qpu_calls"] <= calls
    # the model's biases are even integers; blame (decaying by EVAPORATION) is not
    blamed = [b for b in child.linear if not float(b).is_integer()]
    if backjump:
        assert rnd.best.valid and TOP95.is_solution(rnd.best.grid)
        assert info["backjumps"] > 0 and blamed
    else:
        assert info["backjumps"] == 0 and info["restarts"] > 0 and not blamed


@pytest.mark.parametrize("params, match", [({"backjump": -1}, "backjump"),
                                           ({"memory": -0.5}, "memory"),
                                           ({"backjump": 1.5}, "backjump")])
def test_bad_construct_options_are_config_errors(params, match):
    with pytest.raises(ConfigError, match=match):
        sample_round(_model(), get_sampler("decompose", qpu_sampler="mock-qpu"), params)


def test_packed_cliques_are_disjoint_cliques_and_reused():
    child = mock_child()
    packed = clique_embedding(10, child, copies=3)  # packed at 16 variables per copy
    assert packed.found and len(packed.embedding) == 3 * 16
    qubits = [q for chain in packed.embedding.values() for q in chain]
    assert len(qubits) == len(set(qubits))
    for j in range(3):
        part = {i: packed.embedding[(j, i)] for i in range(16)}
        pairs = [(a, b) for a in range(16) for b in range(a + 1, 16)]
        assert is_valid_embedding(part, pairs, range(16), child.adjacency)
    assert clique_embedding(16, child, copies=3).embedding == packed.embedding


@pytest.mark.slow
def test_a_batch_is_one_model_on_disjoint_cliques_split_per_subproblem():
    from qsudoku.samplers.dwave.subproblems import sample_batch

    sampler = get_sampler("mock-qpu")
    sampler.clique = True
    subs = [dimod.BQM({0: -1.0, 1: 1.0}, {(0, 1): 2.0}, 0.0, "BINARY"),
            dimod.BQM({0: 1.0, 1: -1.0, 2: -1.0}, {(1, 2): 3.0}, 0.0, "BINARY")]
    answers, info = sample_batch(sampler, subs, {"num_reads": 5, "seed": 3, "num_sweeps": 100})
    assert [dict(a.lowest().first.sample) for a in answers] == [{0: 1, 1: 0}, {0: 0, 1: 1, 2: 0}]
    assert [a.lowest().first.energy for a in answers] == [-1.0, -1.0]
    one = sampler.sample(subs[1], num_reads=5, seed=3, num_sweeps=100).info
    assert info["num_variables"] == 5 and info["num_qubits"] > one["num_qubits"]
    # one call's access time, not one per subproblem
    assert info["estimated_qpu_access_time"] < 2 * one["estimated_qpu_access_time"]


@pytest.mark.slow
def test_batched_calls_answer_several_subproblems_and_need_fewer_calls():
    sampler = get_sampler("decompose", qpu_sampler="mock-qpu")
    model = _model(SIX)
    params = {"subproblem_size": 12, "seed": 2, "qpu_reads": 5, "num_sweeps": 200, "max_calls": 300}
    one = sample_round(model, sampler, dict(params, batch=1))
    four = sample_round(model, sampler, dict(params, batch=4))
    assert one.best.valid and four.best.valid and SIX.is_solution(four.best.grid)
    single, batched = one.sampleset.info, four.sampleset.info
    assert batched["qpu_calls"] < single["qpu_calls"]
    assert single["subproblems_per_call"] == 1.0 and batched["batch"] == 4
    assert batched["subproblems_per_call"] == 4.0
    assert batched["subproblems"] == 4 * batched["qpu_calls"]
    assert batched["max_subproblem_variables"] <= 12


def test_batched_energy_strategy_solves_a_four_by_four():
    sampler = get_sampler("decompose", qpu_sampler="mock-qpu")
    rnd = sample_round(_model(), sampler, {"strategy": "energy", "subproblem_size": 12, "seed": 1,
                                           "qpu_reads": 5, "num_sweeps": 200, "batch": 3,
                                           "max_calls": 200})
    assert rnd.best.valid and rnd.sampleset.info["subproblems_per_call"] > 1


@pytest.mark.parametrize("batch", [0, 1.5, 10**6])
def test_a_bad_batch_is_a_config_error(batch):
    with pytest.raises(ConfigError, match="decompose: batch"):
        sample_round(_model(), get_sampler("decompose", qpu_sampler="mock-qpu"), {"batch": batch})


def test_a_subproblem_whose_clique_does_not_fit_is_reported():
    sampler = get_sampler("decompose", qpu_sampler="mock-qpu", topology="chimera", shape=[4, 4, 4])
    from qsudoku.errors import BackendUnavailableError

    with pytest.raises(BackendUnavailableError, match="clique of 24 variables does not fit on "
                       r"chimera\[4, 4, 4\]; lower subproblem_size"):
        sample_round(_model(), sampler, {"subproblem_size": 24, "seed": 1, "batch": 8})


@pytest.mark.parametrize("topology, shape, size, batch, used", [
    ("chimera", [4, 4, 4], 8, 8, 4),   # 4 cliques of 8 variables fit
    ("chimera", [4, 4, 4], 12, 40, 1),  # one clique of 16 and no second
    ("zephyr", [4, 4], 12, 12, 8)])
def test_a_batch_larger_than_the_graph_holds_is_lowered_and_solves(topology, shape, size,
                                                                   batch, used):
    sampler = get_sampler("decompose", qpu_sampler="mock-qpu", topology=topology, shape=shape)
    rnd = sample_round(_model(), sampler, {"subproblem_size": size, "seed": 1, "batch": batch,
                                           "qpu_reads": 5, "num_sweeps": 200})
    info = rnd.sampleset.info
    assert rnd.best.valid and FOUR.is_solution(rnd.best.grid)
    assert info["batch"] == used and info["batch_requested"] == batch
    assert 1 <= info["subproblems_per_call"] <= used


def test_a_batch_that_fits_is_not_reported_as_lowered():
    sampler = get_sampler("decompose", qpu_sampler="mock-qpu", topology="zephyr", shape=[4, 4])
    info = sample_round(_model(), sampler, {"subproblem_size": 12, "seed": 1, "batch": 8,
                                            "qpu_reads": 5, "num_sweeps": 200}).sampleset.info
    assert info["batch"] == 8 and "batch_requested" not in info


def test_solve_reports_subproblems_per_call_in_the_qpu_line(capsys, tmp_path, monkeypatch):
    from qsudoku.cli import main

    monkeypatch.setenv("QSUDOKU_CACHE_DIR", str(tmp_path))
    argv = ["solve", TWO_GIVENS4, "--sampler", "decompose", "--option",
            "qpu_sampler=mock-qpu", "--param", "batch=3", "--param", "subproblem_size=12",
            "--param", "num_sweeps=200", "--seed", "1", "--no-fallback"]
    assert main(argv) == 0
    qpu = [line for line in capsys.readouterr().out.splitlines() if line.startswith("qpu:")]
    assert len(qpu) == 1 and "3 subproblems per call" in qpu[0]
    assert "QPU call" in qpu[0] and "(estimated, D-Wave's timing model)" in qpu[0]


class _Silent(dimod.Sampler):
    """Answers every subproblem with all variables 0: no cell gets a digit."""

    parameters: dict = {"num_reads": []}
    properties: dict = {}

    def sample(self, bqm, **params):
        return dimod.SampleSet.from_samples_bqm([{v: 0 for v in bqm.variables}], bqm)


@pytest.mark.parametrize("batch", [1, 3])
def test_a_call_that_chooses_nothing_is_a_retry_of_its_state(batch):
    rnd = sample_round(_model(SIX), DecomposeSampler(_Silent()),
                       {"subproblem_size": 12, "seed": 1, "max_calls": 20, "backjump": 3,
                        "batch": batch, "polish": False})
    info = rnd.sampleset.info
    # 4 calls per state (the first and 3 retries), then back to the root: after calls 4, 8,
    # 12 and 16 (the same state pushed again and again would never restart)
    assert info["qpu_calls"] == 20 and info["restarts"] == 4 and not rnd.best.valid


def test_a_domain_wall_start_keeps_every_cell_a_single_wall():
    """The energy strategy starts from a state whose cells all keep their own constraint:
    on a domain wall, the first j variables of a cell set (their chain penalties are 0), so
    the QPU calls are spent on the units."""
    from qsudoku.config import Config
    from qsudoku.model.propagate import propagate
    from qsudoku.model.qubo import build_model

    puzzle = parse_puzzle(
        SEED003)
    dw = build_model(propagate(puzzle, Config().propagate.rules), encoding="domain-wall")
    model = SubModel(dw.bqm)
    structure = SubStructure(model, dw.groups())
    assert not structure.one_hot
    rng = np.random.default_rng(0)
    for _ in range(5):
        x = structure.initial(model.n, rng)
        walls = [x[c] for c in structure.cells]
        assert all(np.all(np.diff(w) <= 0) for w in walls)  # ones, then zeros
        assert len({int(w.sum()) for w in walls}) > 1  # the walls are drawn, not fixed


def test_wall_code_keeps_every_energy_of_a_single_wall_subproblem():
    """A random subproblem over the open slots of three cells, rewritten in walls, has the
    same energy for every choice of one slot per cell, and decoding a single-wall read
    gives that choice back."""
    from qsudoku.samplers.dwave.walls import WallCode
    import itertools

    sizes = [3, 1, 4]
    cells = [[(0, k, d) for d in range(1, m + 1)] for k, m in enumerate(sizes)]
    walls = [[(0, k, ">=", d) for d in range(2, m + 1)] for k, m in enumerate(sizes)]
    bqm = dimod.BQM({v: 0.0 for w in walls for v in w}, {}, 0.0, "BINARY")
    code = WallCode(bqm, [("wall", w) for w in walls] + [("cell", c) for c in cells])
    rng = np.random.default_rng(5)
    free = np.arange(sum(sizes))
    sub = dimod.BQM({i: rng.normal() for i in free},
                    {(i, j): rng.normal() for i in free for j in free if i < j}, 0.3, "BINARY")
    enc = code.encode(sub, free)
    assert enc.num_variables == sum(sizes) - len(sizes)
    starts = np.cumsum([0] + sizes[:-1])
    for choice in itertools.product(*(range(m) for m in sizes)):
        q = np.zeros(len(free), int)
        q[starts + np.array(choice)] = 1
        w = {}
        for k, d in enumerate(choice):  # the walls of cell k, in enc's order
            base = sum(m - 1 for m in sizes[:k])
            w.update({base + j: int(j < d) for j in range(sizes[k] - 1)})
        assert enc.energy(w) == pytest.approx(sub.energy(dict(enumerate(q))))
        assert code.decode(w, free).tolist() == q.tolist()
    broken = {0: 0, 1: 1, 2: 1, 3: 1, 4: 1}  # cell 0's walls read 0 then 1: no digit
    assert code.decode(broken, free).tolist()[:3] == [0, 0, 0]


def test_construct_counts_a_domain_wall_subproblem_in_walls():
    """From the same state, cells picked for walls (a cell of w open digits costs w - 1)
    fill ``size`` walls and free more cells than cells picked for one-hot variables."""
    from qsudoku import Config
    from qsudoku.samplers.dwave.construct import Propagator, pick_cells
    from qsudoku.samplers.dwave.walls import WallCode

    seed003 = SEED003
    _, dw, _ = build(parse_puzzle(seed003), Config().with_overrides(encoding="domain-wall"))
    code = WallCode(dw.bqm, dw.groups())
    st = code.structure
    prop = Propagator(code.model.n, list(st.cells) + list(st.units))
    assert prop.reset()
    picked = {}
    for saving in (0, 1):
        cells = pick_cells(prop, st.cells, st.units_of_cell, st.cells_of_unit, 64,
                           np.random.default_rng(3), saving)
        free = np.concatenate([st.cells[k][prop.alive[st.cells[k]]] for k in cells])
        sent = code.encode(code.model.subproblem(free, prop.assignment()), free) if saving \
            else code.model.subproblem(free, prop.assignment())
        assert sent.num_variables <= 64
        picked[saving] = len(cells)
    assert picked[1] > picked[0]
