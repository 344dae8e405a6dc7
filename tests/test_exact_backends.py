"""The exact backends as samplers: cross-checks on shared puzzles of every kind, errors, info."""

import random
import subprocess
import sys

import dimod
import pytest

from qsudoku.config import Config
from qsudoku.errors import ConfigError, ContradictionError
from qsudoku.exact.isolate import solve_isolated
from qsudoku.exact.problem import Problem
from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.solving import make_plan, solve
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.qubo import build_model
from qsudoku.samplers import get_sampler, get_spec

from _shared import DATA, EVERY_KIND, SEEDS, needs_data
from _puzzles import IMPOSSIBLE9, SEED004, THREE_GIVENS4
from _backend_cases import EASY, HARD
from _cli import one_error
from _cli import run

BACKENDS = ["sat", "cpsat", "ilp", "asp", "csp"]

#: (file, how many puzzles): every kind and size the data has, 4x4 to 16x16.
SAMPLE = [(rel, 2 if rel in ("sudoku9/forum_hardest_1106.txt", "generated/sudokux9/unique.txt")
                else 1) for rel in EVERY_KIND]


def _sample():
    out = []
    for rel, k in SAMPLE:
        ps = load_puzzles(str(DATA / rel))
        out += random.Random(rel).sample(ps, k)
    return out + load_puzzles(str(SEEDS))


@pytest.fixture(scope="module")
def puzzles():
    return _sample()


@pytest.mark.slow
@pytest.mark.parametrize("name", BACKENDS)
def test_every_backend_returns_the_listed_solution(name, puzzles):
    """Givens-only models (no singles), so every backend has real work on every puzzle."""
    sampler = get_sampler(name)
    for p in puzzles:
        m = build_model(propagate(p, rules=()))
        ss = sampler.sample(m.bqm, groups=m.groups(), time_limit=60)
        assert len(ss) == 1 and set(ss.variables) == set(m.variables)
        grid = list(m.fixed)
        for (r, c, d), x in ss.first.sample.items():
            if x:
                grid[r * p.size + c] = d
        assert grid == list(p.solution), (name, p.name)
        assert ss.first.energy == pytest.approx(0.0)
        assert ss.info["status"] == "solved" and ss.info["timing"]["total"] > 0


@pytest.mark.slow
@needs_data
@pytest.mark.parametrize("name", ["sat", "cpsat", "asp"])
def test_fast_backends_solve_a_25x25(name):
    p = load_puzzles(str(DATA / "sudoku25/gecode.txt"))[2]
    r = solve(p, Config().with_overrides(sampler=name, params={"time_limit": 60}))
    assert r.valid and list(r.grid) == list(p.solution)


def _conflicts(problem, options):
    """Conflicts of CaDiCaL given ``options`` on ``problem`` (a plain python-sat solve)."""
    from pysat.solvers import Solver

    from qsudoku.exact import cnf

    with Solver(name="cadical195") as s:
        s.configure(options)
        s.append_formula(cnf.clauses(problem))
        assert s.solve()
        return s.accum_stats()["conflicts"]


@pytest.mark.slow
@needs_data
def test_cadical_runs_with_the_options_of_its_table():
    """python-sat ignores an option it does not know, so the run itself is compared: the
    backend's conflicts are those of a solver given SOLVER_OPTIONS, not of a plain one."""
    from qsudoku.exact import cnf

    problem = Problem.from_candidates(propagate(load_puzzles(str(DATA / "sudoku25/gecode.txt"))[1]))
    out = cnf.solve_sat(problem, solver="cadical195")  # no time limit: in this process
    assert out.status == "solved" and problem.check(out.chosen)
    assert out.info["stats"]["conflicts"] == _conflicts(problem, cnf.SOLVER_OPTIONS["cadical195"])
    assert out.info["stats"]["conflicts"] != _conflicts(problem, {})


@pytest.mark.slow
@needs_data
def test_cadical_runs_without_its_arena_on_a_big_formula(monkeypatch):
    """A big formula takes BIG_OPTIONS as well (on this puzzle, 12,653 conflicts with the
    arena and 11,494 without: the clauses' order after a garbage collection differs)."""
    from qsudoku.exact import cnf

    problem = Problem.from_candidates(propagate(load_puzzles(str(DATA / "sudoku25/gecode.txt"))[8]))
    monkeypatch.setattr(cnf, "BIG_FROM_PAIRS", cnf.num_pairs(problem))
    out = cnf.solve_sat(problem)
    assert out.status == "solved" and problem.check(out.chosen)
    big = {**cnf.SOLVER_OPTIONS["cadical195"], **cnf.BIG_OPTIONS["cadical195"]}
    assert out.info["stats"]["conflicts"] == _conflicts(problem, big)
    assert out.info["stats"]["conflicts"] != _conflicts(problem, cnf.SOLVER_OPTIONS["cadical195"])
    monkeypatch.setattr(cnf, "BIG_FROM_PAIRS", cnf.num_pairs(problem) + 1)
    small = cnf.solve_sat(problem)
    assert small.info["stats"]["conflicts"] == _conflicts(problem, cnf.SOLVER_OPTIONS["cadical195"])


@pytest.mark.slow
@pytest.mark.parametrize("name", BACKENDS)
def test_pipeline_result_shape(name):
    p = parse_puzzle(SEED004)
    # its own limit, not the 0.8 s budget, which a first import of the solver's library on a
    # busy host can use up (cpsat failed so beside the CaDiCaL tests under xdist)
    r = solve(p, Config().with_overrides(sampler=name, rules=[], params={"time_limit": 60}))
    assert r.valid and r.solved_by == f"{name} (exact, no QUBO)" and r.num_reads == 1
    assert r.success_rate == 1.0 and r.energy == pytest.approx(0.0)
    assert {"propagate", "sample", "total"} <= set(r.timings)
    assert "build" not in r.timings and r.model is None  # it reads the candidates directly
    assert r.info["solver"].split(":")[0] == name and r.info["status"] == "solved"
    assert set(r.info["timing"]) >= {"groups", "solve", "total"}
    assert r.to_dict()["valid"]


@pytest.mark.parametrize("name", BACKENDS)
def test_infeasible_puzzle_raises_contradiction_naming_the_solver(name):
    m = build_model(propagate(parse_puzzle(IMPOSSIBLE9)))
    sampler = get_sampler(name)
    with pytest.raises(ContradictionError, match=rf"no solution: {name}") as e:
        sampler.sample(m.bqm, groups=m.groups())
    assert e.value.exit_code == 1


@pytest.mark.parametrize("name", BACKENDS)
def test_sampler_api_and_parameters(name):
    sampler = get_sampler(name)
    dimod.testing.assert_sampler_api(sampler)
    assert "groups" in sampler.parameters and "time_limit" in sampler.parameters
    assert sampler.properties["exact"] is True
    assert get_spec(name).offline
    m = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=()))
    with pytest.raises(ConfigError, match="does not accept"):
        sampler.sample(m.bqm, groups=m.groups(), num_sweeps=3)
    assert len(sampler.sample(m.bqm, groups=m.groups(), num_reads=5)) == 1  # one exact answer
    with pytest.raises(ConfigError, match="time_limit"):
        sampler.sample(m.bqm, groups=m.groups(), time_limit=-1)
    assert float(sampler.sample(m.bqm).first.energy) == 0.0  # groups recognised
    foreign = dimod.BQM({"a": 1.0, "b": -1.0}, {"ab": 0.5}, 0.0, "BINARY")
    if sampler.properties["any_bqm"]:  # the ground state of any BQM
        assert float(sampler.sample(foreign).first.energy) == -1.0
    else:
        with pytest.raises(ConfigError, match="no one-hot structure"):
            sampler.sample(foreign)
    with pytest.raises(ConfigError, match="has no option"):
        get_sampler(name, colour="blue")


def test_spin_models_get_spin_samples():
    m = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=()))
    spin = m.bqm.change_vartype(dimod.SPIN, inplace=False)
    ss = get_sampler("csp").sample(spin, groups=m.groups())
    assert set(ss.first.sample.values()) == {-1, 1}
    assert ss.first.energy == pytest.approx(0.0)


@pytest.mark.slow
def test_csp_time_limit_gives_an_invalid_sample_not_an_error():
    p = load_puzzles(str(DATA / "sudoku25/gecode.txt"))[0]
    r = solve(p, Config().with_overrides(sampler="csp", params={"time_limit": 0.5,
                                                                 "restarts": False},
                                         route={"exact_fallback": ""}))
    assert not r.valid and r.info["status"] == "time_limit"
    assert r.timings["sample"] < 5


def test_options_and_params_reach_the_backends():
    m = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=()))
    ss = get_sampler("sat", solver="minisat22").sample(m.bqm, groups=m.groups())
    assert ss.info["solver"] == "sat:minisat22"
    with pytest.raises(ConfigError, match="unknown SAT solver"):
        get_sampler("sat").sample(m.bqm, groups=m.groups(), solver="nosuch")
    plan = make_plan(Config().with_overrides(sampler="cpsat", params={"num_workers": 2, "seed": 3}))
    rnd = plan.sample(m, seed=plan.seed)
    ss, params = rnd.sampleset, rnd.params
    assert params == {"num_workers": 2, "seed": 3} and ss.info["status"] == "solved"


@pytest.mark.slow
@needs_data
@pytest.mark.parametrize("backend", ["ilp", "cpsat"])
def test_isolated_child_process_gives_the_same_answer(backend):
    """The fallback for the ortools/highspy library clash solves in a fresh interpreter."""
    p = load_puzzles(str(SEEDS))[0]
    problem = Problem.from_candidates(propagate(p, rules=()))
    params = {"time_limit": 60, "threads": 1} if backend == "ilp" else \
        {"time_limit": 60, "num_workers": 1, "seed": 0}
    from qsudoku.exact.backends import BACKENDS as TABLE

    out = solve_isolated(TABLE[backend].solve.target, problem, params)
    assert out.status == "solved" and out.info["isolated"]
    assert problem.grid(out.chosen) == list(p.solution)


def test_cpsat_uses_alldifferent_for_units_and_exactly_one_elsewhere():
    from qsudoku.exact.cp import plan_constraints
    from qsudoku.model.puzzle import Puzzle, diagonal_units

    p = Puzzle.standard([0] * 81, extra=diagonal_units(9))
    m = build_model(propagate(p, rules=()))
    plan = plan_constraints(Problem.from_groups(m.groups()))
    assert len(plan.alldifferent) == 27  # rows, columns, boxes
    kinds = {Problem.from_groups(m.groups()).groups[g].kind for g in plan.exactly_one}
    assert kinds == {"extra"}  # the crossing diagonals keep their exactly-one groups


@pytest.mark.parametrize("name", ["ilp", "cpsat", "sat", "asp", "csp"])
def test_backends_write_nothing_to_stdout(name, capfd):
    """Solver libraries must not print on stdout (HiGHS 1.16 prints a banner there),
    or ``qsudoku solve --json`` output would not parse."""
    p = parse_puzzle(THREE_GIVENS4)
    result = solve(p, Config().with_overrides(sampler=name, params={"time_limit": 60}))
    out, _ = capfd.readouterr()
    assert result.valid
    assert out == ""


def test_one_table_drives_samplers_counting_and_exports():
    from qsudoku.commands.export import FORMATS
    from qsudoku.exact.backends import BACKENDS as TABLE, COUNT_METHODS
    from qsudoku.exact.exports import EXPORTS

    assert sorted(TABLE) == sorted(BACKENDS)
    for b in TABLE.values():
        spec = get_spec(b.name)
        assert (spec.summary, spec.extra) == (b.summary, b.extra)
        assert set(get_sampler(b.name).parameters) == {"groups", "num_reads", "seed", *b.params}
        assert all(EXPORTS[f].backend == b.name for f in b.exports)
    assert list(FORMATS)[:len(EXPORTS)] == list(EXPORTS)
    assert all(TABLE[name].count is not None for name in COUNT_METHODS.values())


@pytest.mark.slow
@pytest.mark.parametrize("module", ["qsudoku.exact.backends", "qsudoku.exact.isolate",
                                    "qsudoku.exact.cp", "qsudoku.exact.lp"])
def test_exact_modules_import_alone_without_a_cycle(module):
    """The table names its functions as strings: importing it (or the isolation that reads
    it) loads no solver module, and a solver module loads no other."""
    code = (f"import sys, {module}; print(sorted(m for m in sys.modules if m in "
            "('qsudoku.exact.cnf', 'qsudoku.exact.cp', 'qsudoku.exact.lp', "
            "'qsudoku.exact.asp', 'highspy', 'ortools', 'pysat', 'clingo')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")[0]
    assert out == str(sorted({module} & {"qsudoku.exact.cp", "qsudoku.exact.lp"}))


def test_a_64x64_grid_builds_and_solves():
    """Candidate masks of 64 digits do not fit in an int64 (an OverflowError once)."""
    n, b = 64, 8
    solution = [(b * (r % b) + r // b + c) % n + 1 for r in range(n) for c in range(n)]
    givens = list(solution)
    for cell in (0, 65, 4095):
        givens[cell] = 0
    p = Puzzle.standard(givens, alphabet="".join(chr(0x100 + i) for i in range(n)))
    m = build_model(propagate(p, rules=()))
    ss = get_sampler("sat").sample(m.bqm, groups=m.groups(), time_limit=60)
    assert float(ss.first.energy) == 0.0
    assert sorted(v for v, x in ss.first.sample.items() if x) == \
        sorted((c // n, c % n, solution[c]) for c in (0, 65, 4095))


@pytest.mark.parametrize("name", BACKENDS)
def test_time_limit_counts_building_the_problem(name):
    """A limit too short to build the problem ends with status time_limit, not a late answer."""
    m = build_model(propagate(Puzzle.standard([0] * 256), rules=()))
    ss = get_sampler(name).sample(m.bqm, groups=m.groups(), time_limit=1e-6)
    assert ss.info["status"] == "time_limit"
    assert float(ss.first.energy) > 0


def _units_by_hand(problem):
    """The units of bare groups, as the module docstring defines them (plain Python)."""
    out = []
    kinds = list(dict.fromkeys(g.kind for g in problem.groups if g.kind != "cell"))
    for kind in kinds:
        ids = [i for i, g in enumerate(problem.groups) if g.kind == kind and g.members]
        comp = {i: {i} for i in ids}
        for i in ids:
            for j in ids:
                cells_i = {problem.labels[v][:2] for v in problem.groups[i].members}
                if j > i and cells_i & {problem.labels[v][:2] for v in problem.groups[j].members}:
                    merged = comp[i] | comp[j]
                    for k in merged:
                        comp[k] = merged
        for c in sorted({min(c): sorted(c) for c in comp.values()}.values()):
            digits = [{problem.labels[v][2] for v in problem.groups[g].members} for g in c]
            if all(len(d) == 1 for d in digits) and len({min(d) for d in digits}) == len(c):
                out.append(tuple(c))
    return tuple(out)


@pytest.mark.parametrize("text,variant", [(THREE_GIVENS4, "standard"),
                                          ("." * 36, "standard"), ("1" + "." * 80, "x")])
def test_units_recovered_from_bare_groups_are_the_linked_distinct_digit_ones(text, variant):
    rng = random.Random(5)
    from qsudoku.io import Rules

    m = build_model(propagate(parse_puzzle(text, Rules(variant=variant)), rules=()))
    groups = m.groups()
    for keep in (groups, [g for g in groups if rng.random() < 0.7], groups[::-1]):
        problem = Problem.from_groups(keep, labels=list(m.bqm.variables))
        assert problem.units == _units_by_hand(problem)
        assert [(g.kind, [problem.labels[v] for v in g.members]) for g in problem.groups] == \
            sorted(keep, key=lambda g: g[0] != "cell")


def test_reading_groups_stops_at_its_deadline():
    import time

    from qsudoku.errors import TimeLimitError

    m = build_model(propagate(Puzzle.standard([0] * 256), rules=()))
    with pytest.raises(TimeLimitError, match="deadline"):
        Problem.from_groups(m.groups(), deadline=time.perf_counter() - 1)
    assert Problem.from_groups(m.groups(), deadline=time.perf_counter() + 600).units


@pytest.mark.parametrize("puzzle", [HARD, EASY], ids=["sampled", "propagation-solves-it"])
@pytest.mark.parametrize("argv, message", [
    (["--sampler", "csp", "--param", "hall=nonsense"], "csp: hall = 'nonsense' must be true or false"),
    (["--sampler", "csp", "--param", "hall=2"], "csp: hall = 2 must be true or false"),
    (["--sampler", "csp", "--param", 'restarts="x"'], "csp: restarts = 'x' must be true or false"),
    (["--sampler", "csp", "--param", 'time_limit="x"'], "csp: time_limit = 'x' must be a finite"),
    (["--sampler", "sat", "--param", "solver=3"], "sat: solver = 3 must be a solver's name"),
    (["--sampler", "asp", "--seed", str(2**70)], f"asp: seed = {2**70} must be an integer in 0.."),
    (["--sampler", "asp", "--param", f"seed={2**70}"], f"asp: seed = {2**70} must be an integer"),
])
def test_exact_sampler_parameters_are_checked_before_any_work(puzzle, argv, message, capsys):
    if "asp" in argv:
        pytest.importorskip("clingo")
    code, out, err = run(capsys, "solve", puzzle, *argv, "--json")
    assert code == 2 and out == ""  # no answer printed with a wrong parameter
    assert message in one_error(err)


def test_exact_sampler_checks_hold_for_objects_passed_in():
    from qsudoku import Config, solve
    from qsudoku.errors import ParameterError
    from qsudoku.io import parse_puzzle
    from qsudoku.samplers.exact import CSPSampler, ExactSampler

    class MyCSP(ExactSampler):  # not registered: only the direct path's own check sees it
        backend_name = "csp"

    cfg = Config().with_overrides(params={"hall": 2})
    for sampler in (CSPSampler(), MyCSP()):
        with pytest.raises(ParameterError, match="csp: hall = 2 must be true or false"):
            solve(parse_puzzle(HARD), cfg, sampler=sampler)
    r = solve(parse_puzzle(HARD), Config().with_overrides(params={"hall": True}), sampler=MyCSP())
    assert r.valid and r.solved_by == "MyCSP (exact, no QUBO)"
