"""Red-team round 5 (issue 44), the backend lines: a D-Wave config file that is a FIFO, an
endpoint that never answers, per-read work past ``--time-budget``, exact backends' parameter
checks, a worker memory too small to start, an absurd budget and NaN biases.  Each test shows
the exit code, the message and that nothing was lost."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from _cli import one_error, run
from _servers import mute_listener

ROOT = Path(__file__).resolve().parents[1]
FOUR = "1......2........"  # 4x4
TOKEN = "SENTINEL-" + "5eb7" * 12  # token-shaped: must never be shown
#: A hang guard for the commands that used to block: far above what they take now.
HANG_GUARD = 240


def qsudoku(*argv, env=None):
    """Run the CLI in a child process (so a regression hangs only until HANG_GUARD)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("DWAVE_")}
    full.update(PYTHONPATH=str(ROOT), **(env or {}))
    p = subprocess.run([sys.executable, "-m", "qsudoku", *map(str, argv)], capture_output=True,
                       text=True, env=full, timeout=HANG_GUARD, cwd=ROOT)
    assert "Traceback" not in p.stdout + p.stderr
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def dwave_env(tmp_path):
    """A D-Wave environment of the test's own: an empty config, no token, a private cache."""
    empty = tmp_path / "dwave.conf"
    empty.write_text("")
    return {"DWAVE_CONFIG_FILE": str(empty), "QSUDOKU_CACHE_DIR": str(tmp_path / "cache"),
            "HOME": str(tmp_path)}


# -- a D-Wave config file that is a FIFO ------------------------------------------------------

@pytest.mark.parametrize("sampler", ["qpu", "hybrid-nl"])
@pytest.mark.slow
def test_a_fifo_as_dwave_config_file_is_refused_not_waited_on(sampler, dwave_env, tmp_path):
    fifo = tmp_path / "dwave-fifo.conf"
    os.mkfifo(fifo)
    env = dict(dwave_env, DWAVE_CONFIG_FILE=str(fifo), DWAVE_API_TOKEN=TOKEN)
    code, out, err = qsudoku("solve", FOUR, "--sampler", sampler, "--time-budget", "60", env=env)
    assert code == 3 and out == ""
    line = one_error(err)
    assert str(fifo) in line and "DWAVE_CONFIG_FILE" in line and "is a FIFO" in line
    assert TOKEN not in out + err
    # with a fallback the solve goes on offline, as for a missing token: nothing lost
    code, out, err = qsudoku("solve", FOUR, "--sampler", sampler, "--fallback", "sa", "--seed", "1",
                             "--time-budget", "60", env=env)
    assert code == 0 and "VALID" in out and "solved by sa" in out
    assert "is a FIFO" in out + err and TOKEN not in out + err  # a note of the report
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # never opened, never replaced


def test_a_fifo_as_config_file_option_is_refused(dwave_env, tmp_path, capsys):
    from qsudoku.errors import BackendUnavailableError
    from qsudoku.samplers.dwave.cloud import check_config_files

    fifo = tmp_path / "cfg.fifo"
    os.mkfifo(fifo)
    with pytest.raises(BackendUnavailableError, match=r"\(from config_file\) is a FIFO"):
        check_config_files({"config_file": str(fifo)})
    with pytest.raises(BackendUnavailableError, match="is a directory"):
        check_config_files({"config_file": [str(tmp_path)]})
    check_config_files({"config_file": str(tmp_path / "missing.conf")})  # D-Wave's own error
    check_config_files({"config_file": False})


def test_secret_reading_skips_a_fifo(monkeypatch, tmp_path):
    from qsudoku.samplers.redact import known_secrets

    fifo = tmp_path / "x.fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("DWAVE_CONFIG_FILE", str(fifo))
    monkeypatch.setenv("DWAVE_API_TOKEN", TOKEN)
    assert TOKEN in known_secrets(str(fifo))  # returns: the FIFO was not opened


# -- an endpoint that accepts connections and never answers -------------------------------------

@pytest.fixture
def black_hole():
    """A TCP server on 127.0.0.1 that accepts every connection and never answers."""
    with mute_listener() as port:
        yield f"http://127.0.0.1:{port}/sapi"


@pytest.mark.parametrize("sampler", ["qpu", "hybrid-nl"])
@pytest.mark.slow
def test_an_endpoint_that_never_answers_ends_in_exit_3(sampler, black_hole, dwave_env):
    env = dict(dwave_env, DWAVE_API_TOKEN=TOKEN, DWAVE_API_ENDPOINT=black_hole)
    code, out, err = qsudoku("solve", FOUR, "--sampler", sampler, "--option",
                             "request_timeout=0.5", "--time-budget", "60", env=env)
    assert code == 3 and out == ""
    line = one_error(err)
    assert f"no answer in time from the D-Wave endpoint {black_hole}" in line
    assert "request_timeout = 0.5 s" in line and TOKEN not in line
    code, out, err = qsudoku("solve", FOUR, "--sampler", sampler, "--option", "request_timeout=0.5",
                             "--fallback", "sa", "--seed", "1", "--time-budget", "60", env=env)
    assert code == 0 and "solved by sa" in out and TOKEN not in out + err


@pytest.mark.slow
def test_the_default_wait_is_bounded_and_reaches_the_client(black_hole, monkeypatch, tmp_path):
    """Without a request_timeout of the user's, qsudoku's CLIENT_DEFAULTS reach the client
    (here made short), where dwave-cloud-client's own would wait 60 s x 11 tries."""
    from qsudoku.errors import BackendUnavailableError
    from qsudoku.samplers import get_sampler
    from qsudoku.samplers.dwave import cloud

    t, tries = cloud.CLIENT_DEFAULTS["request_timeout"], 1 + cloud.CLIENT_DEFAULTS["http_retry_read"]
    assert t * tries <= 120 and cloud.CLIENT_DEFAULTS["http_retry_connect"] <= 1
    (tmp_path / "dwave.conf").write_text("")
    monkeypatch.setenv("DWAVE_CONFIG_FILE", str(tmp_path / "dwave.conf"))
    monkeypatch.setenv("DWAVE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DWAVE_API_ENDPOINT", black_hole)
    monkeypatch.setitem(cloud.CLIENT_DEFAULTS, "request_timeout", 0.3)
    with pytest.raises(BackendUnavailableError, match=r"request_timeout = 0\.3 s") as e:
        get_sampler("qpu", cache_dir=str(tmp_path / "emb"))
    assert black_hole in str(e.value) and TOKEN not in str(e.value)


@pytest.mark.parametrize("value", [0, -1, 1e308, "soon", float("inf")])
def test_a_timeout_option_out_of_range_is_bad_config(value, capsys):
    from qsudoku.errors import ConfigError
    from qsudoku.samplers.dwave.cloud import split_options

    with pytest.raises(ConfigError, match="request_timeout = .* must be a number of seconds > 0"):
        split_options("qpu", {"request_timeout": value})
    code, out, err = run(capsys, "solve", FOUR, "--sampler", "hybrid", "--option",
                         "polling_timeout=0")
    assert code == 2 and out == "" and "polling_timeout = 0 must be" in one_error(err)


# -- exact backends chosen as --sampler check their parameters on every path -------------------

HARD = "........2..8.1.9..5....3.4....1.93...6..3..8...37......4......53.1.7.8..2........"
EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


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


# -- an absurd --time-budget is refused by name, not by a sampler's time_limit ---------------------

@pytest.mark.parametrize("budget, message", [
    ("1e308", "--time-budget 1e308 must be at most 1e+07 seconds"),
    ("1e8", "--time-budget 1e8 must be at most 1e+07 seconds"),
    ("inf", "--time-budget inf must be a finite number of seconds > 0"),
    ("nan", "--time-budget nan must be a finite number of seconds > 0"),
    ("-1", "--time-budget -1 must be a finite number of seconds > 0"),
])
@pytest.mark.parametrize("command", ["solve", "bench"])
def test_a_time_budget_out_of_range_names_the_flag(command, budget, message, capsys, tmp_path):
    out_csv = tmp_path / "r.csv"
    out_csv.write_text("kept\n")
    extra = ["-o", out_csv] if command == "bench" else []
    code, out, err = run(capsys, command, HARD, "--sampler", "sa", f"--time-budget={budget}", *extra)
    line = one_error(err)
    assert code == 2 and out == "" and message in line and "rejected its parameters" not in line
    assert out_csv.read_text() == "kept\n"  # nothing lost


def test_a_config_budget_out_of_range_is_refused(tmp_path, capsys):
    from qsudoku import Config, solve
    from qsudoku.io import parse_puzzle

    cfg = tmp_path / "c.toml"
    cfg.write_text("[route]\ntime_budget = 1e308\n")
    code, out, err = run(capsys, "solve", HARD, "--config", cfg)
    assert code == 2 and out == ""
    assert "route.time_budget = 1e+308 must be a positive number of seconds, at most 1e+07" in \
        one_error(err)
    cfg.write_text("[route]\nfallback_time_limit = 1e308\n")
    code, out, err = run(capsys, "solve", HARD, "--config", cfg)
    assert code == 2 and "route.fallback_time_limit = 1e+308" in one_error(err)
    with pytest.raises(ValueError, match=r"budget = 1e\+100 must be a finite number > 0 and <= 1e\+07"):
        solve(parse_puzzle(HARD), Config(), budget=1e100)
    assert Config.from_dict({"route": {"time_budget": 1e7}}).route.time_budget == 1e7


# -- a NaN or infinite bias is refused, not answered with NaN energies -------------------------

def _model_with(bias):
    from qsudoku.io import parse_puzzle
    from qsudoku.model.propagate import propagate
    from qsudoku.model.qubo import build_model

    model = build_model(propagate(parse_puzzle(FOUR), rules=()))
    model.bqm.set_linear((0, 1, 2), bias)
    return model


@pytest.mark.parametrize("name", ["sqa", "rotor", "pt", "pa", "csp", "mock-qpu"])
@pytest.mark.parametrize("bias", [float("nan"), float("inf"), -float("inf")])
def test_a_sampler_refuses_a_bqm_with_a_non_finite_bias(name, bias):
    from qsudoku.errors import ConfigError
    from qsudoku.samplers import get_sampler

    model = _model_with(bias)
    sampler = get_sampler(name)
    kw = {"groups": model.groups()} if "groups" in sampler.parameters else {}
    with pytest.raises(ConfigError, match=rf"{name}: the BQM's linear bias of \(0, 1, 2\) is "
                                          rf"{bias!r}; every bias must be a finite number"):
        sampler.sample(model.bqm, **kw)


def test_the_brute_force_exact_sampler_refuses_a_nan_bias():
    import dimod

    from qsudoku.errors import ConfigError
    from qsudoku.samplers import get_sampler

    bqm = dimod.BQM({"a": 1.0, "b": 0.5}, {("a", "b"): float("nan")}, 0.0, "BINARY")
    with pytest.raises(ConfigError, match=r"exact: the BQM's quadratic bias of .* is nan"):
        get_sampler("exact").sample(bqm)
    bqm = dimod.BQM({"a": 1e308, "b": 1e308}, {}, 0.0, "BINARY")  # each finite, the sum not
    with pytest.raises(ConfigError, match="exact: the BQM's biases add up past the float range"):
        get_sampler("exact").sample(bqm)


@pytest.mark.parametrize("sampler", ["sa", "tabu", "steepest", "random"])
def test_every_sampler_path_refuses_a_nan_model_even_foreign_samplers(sampler):
    """dwave-samplers' own classes check nothing: the one sampling path does, for a model
    given to Plan.sample or sample_round, whatever the sampler (passed in or by name)."""
    import dimod
    from dwave.samplers import SimulatedAnnealingSampler

    from qsudoku import Config
    from qsudoku.errors import ConfigError
    from qsudoku.solving.plan import make_plan
    from qsudoku.solving.rounds import sample_round

    model = _model_with(float("nan"))
    with pytest.raises(ConfigError, match=rf"{sampler}: the BQM's linear bias of \(0, 1, 2\) is nan"):
        make_plan(Config().with_overrides(sampler=sampler)).sample(model, seed=1)
    with pytest.raises(ConfigError, match=r"RandomSampler: the BQM's linear bias"):
        make_plan(Config(), dimod.RandomSampler()).sample(model, seed=1)  # not registered
    with pytest.raises(ConfigError, match=r"mine: the BQM's linear bias"):
        sample_round(model, SimulatedAnnealingSampler(), {"num_reads": 2}, "mine")
    model.bqm.set_linear((0, 1, 2), 1.0)
    assert sample_round(model, SimulatedAnnealingSampler(), {"num_reads": 2, "seed": 1}).num_reads == 2


# -- a worker memory too small to start is refused up front; a worker killed for memory is named ----

@pytest.mark.parametrize("value", ["1MiB", "0.5KiB", "100MB"])
def test_a_worker_memory_below_the_minimum_is_one_line(value, capsys, tmp_path):
    out_csv = tmp_path / "r.csv"
    out_csv.write_text("kept\n")
    code, out, err = run(capsys, "bench", FOUR, "--sampler", "sa", "--reads", "2", "--jobs", "2",
                         "--worker-memory", value, "-o", out_csv, "--no-progress")
    line = one_error(err)
    assert code == 2 and out == "" and "internal error" not in err
    assert f"--worker-memory = {value!r} is below the 256 MiB a Dask worker needs" in line
    assert "give at least 256MiB, or 0 for no limit" in line
    assert out_csv.read_text() == "kept\n"  # nothing lost


def test_the_config_and_the_engine_refuse_a_worker_memory_below_the_minimum(tmp_path):
    from qsudoku.config import load_config
    from qsudoku.errors import ConfigError
    from qsudoku.experiments.engine import run_batches

    import _engine_tasks as tasks

    cfg = tmp_path / "c.toml"
    cfg.write_text('[cluster]\nworker_memory = "1MiB"\n')
    with pytest.raises(ConfigError, match=r"cluster.worker_memory = '1MiB' is below the 256 MiB"):
        load_config(str(cfg))
    with pytest.raises(ConfigError, match=r"worker_memory = 1024 is below the 256 MiB"):
        next(iter(run_batches(tasks.where, [[1]], jobs=2, worker_memory=1024)))
    cfg.write_text('[cluster]\nworker_memory = "256MiB"\n')
    assert load_config(str(cfg)).cluster.worker_memory == "256MiB"


@pytest.mark.slow
def test_a_worker_killed_for_memory_is_a_clear_backend_error():
    """A batch that outgrows the limit kills each worker that runs it; Dask gives up on it
    and the error says what the limit was and which flag raises it (exit 3)."""
    from qsudoku.errors import BackendUnavailableError
    from qsudoku.experiments.engine import run_batches

    import _engine_tasks as tasks

    with pytest.raises(BackendUnavailableError) as e:
        for _ in run_batches(tasks.hog, [[600]], jobs=2, worker_memory="256MiB"):
            pass
    text = str(e.value)
    assert "batch 0" in text and "memory limit of 256.00 MiB: raise --worker-memory" in text


# -- --time-budget bounds the per-read work the user set (tabu, rotor, pt) -----------------------

def test_tabu_timeout_is_capped_by_the_time_left():
    from qsudoku import Config
    from qsudoku.solving.plan import make_plan

    plan = make_plan(Config().with_overrides(sampler="tabu", params={"timeout": 20000}))
    assert plan.round_params(1, 2.0)["timeout"] == 200  # 2 s over its 10 reads
    assert plan.round_params(1, 2.0, num_reads=1)["timeout"] == 2000
    assert plan.round_params(1, 100.0)["timeout"] == 10000  # what fits, at most the asked
    assert plan.round_params(1, None)["timeout"] == 20000  # no budget: as asked
    assert plan.round_params(1, 2.0, fixed_sample=True)["timeout"] == 20000


@pytest.mark.parametrize("sampler, param", [("tabu", "timeout=20000"),
                                            ("rotor", "num_sweeps=2000000"),
                                            ("pt", "num_sweeps=200000"),
                                            ("pt", "max_iter=100000")])
@pytest.mark.slow
def test_the_time_budget_bounds_work_per_read_the_user_set(sampler, param):
    """Each used to run past 130 s; now the rounds end near the 1 s budget (the guard is
    far above it: the first read at the registered work, on a busy host, is the rest)."""
    import json

    code, out, err = qsudoku("solve", HARD, "--sampler", sampler, "--param", param, "--seed", "1",
                             "--time-budget", "1", "--no-fallback", "--json")
    assert code in (0, 1) and "error" not in err
    result = json.loads(out)
    assert result["timings"]["sample"] < 30
    if sampler != "tabu" and not result["valid"]:
        assert any("per read cannot fit the 1 s budget" in n for n in result["notes"])
