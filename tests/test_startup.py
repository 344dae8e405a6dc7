"""A one-puzzle run imports only what it uses, so that a short ``qsudoku solve`` starts fast.

Each check runs in a fresh interpreter (``sys.modules`` of the test process is full of
everything other tests imported) and lists the modules a run must leave unimported.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from qsudoku.samplers.kernels import HAVE_NUMBA
from _puzzles import EASY9, HARD9


#: Never needed by the default route: plotting, tables, clusters, the QPU stack.
HEAVY = ["pandas", "dask", "distributed", "matplotlib", "dwave.system", "dwave.cloud",
         "dwave.optimization", "minorminer"]
#: Backend modules other than the default sampler's (imported only when asked for).
OTHER_BACKENDS = ["qsudoku.samplers.classical", "qsudoku.samplers.swap",
                  "qsudoku.samplers.swap.tabu", "qsudoku.samplers.dwave",
                  "qsudoku.samplers.dwave.hybrid", "qsudoku.samplers.dwave.nl_model",
                  "qsudoku.samplers.dwave.decompose",
                  "qsudoku.samplers.dwave.kerberos", "qsudoku.samplers.exact",
                  "qsudoku.samplers.swap.tabu_kernel", "qsudoku.samplers.sqa",
                  "qsudoku.samplers.tempering"]
#: The kernels' compiler: a puzzle that propagation solves runs no kernel.
KERNELS = ["numba", "llvmlite", "scipy", "qsudoku.samplers.kernels", "qsudoku.samplers.aco.kernel"]
#: What only the other subcommands use: ``solve`` registers its own subcommand alone.
OTHER_COMMANDS = ["qsudoku.commands.count", "qsudoku.commands.export", "qsudoku.commands.bench",
                  "qsudoku.commands.sweep", "qsudoku.commands.show", "qsudoku.commands.embed",
                  "qsudoku.commands.generate",
                  "qsudoku.exact", "qsudoku.experiments.bench", "qsudoku.experiments.sweep", "qsudoku.experiments.runner",
                  "qsudoku.commands.fairness", "qsudoku.experiments.fairness"]


def _imported(code: str, watch: list[str]) -> dict:
    """Run ``code`` in a fresh interpreter; its output and which of ``watch`` it imported."""
    script = (code + "\nimport json, sys\n"
              f"print(json.dumps(sorted(m for m in {watch!r} if m in sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    *lines, last = out.stdout.strip().splitlines()
    return {"out": "\n".join(lines), "imported": json.loads(last)}


def test_watch_list_detects_an_import():
    """The check itself can fail: a module the code imports is reported."""
    got = _imported("import statistics", ["statistics", "pandas"])
    assert got["imported"] == ["statistics"]


@pytest.mark.slow
def test_library_solve_by_propagation_imports_no_kernel_or_backend():
    got = _imported(f"import qsudoku\nr = qsudoku.solve(qsudoku.parse_puzzle({EASY9!r}))\n"
                    "print(r.valid, r.solved_by)", HEAVY + OTHER_BACKENDS + KERNELS)
    assert got["out"] == "True propagation"
    assert got["imported"] == []


@pytest.mark.slow
def test_cli_solve_by_propagation_imports_no_kernel_or_backend():
    got = _imported(f"from qsudoku.cli import main\nprint('exit', main(['solve', {EASY9!r}]))",
                    HEAVY + OTHER_BACKENDS + KERNELS + OTHER_COMMANDS)
    assert "VALID" in got["out"] and got["out"].endswith("exit 0")
    assert got["imported"] == []


@pytest.mark.slow
@pytest.mark.parametrize("how", ["library", "cli"])
def test_default_route_imports_only_its_own_backend(how):
    """A hard puzzle runs the default sampler's kernels and nothing of the other backends."""
    code = (f"import qsudoku\nr = qsudoku.solve(qsudoku.parse_puzzle({HARD9!r}))\nprint(r.valid)"
            if how == "library" else
            f"from qsudoku.cli import main\nprint('exit', main(['solve', {HARD9!r}]))")
    got = _imported(code, HEAVY + OTHER_BACKENDS + OTHER_COMMANDS)
    assert got["out"].endswith("True" if how == "library" else "exit 0")
    assert got["imported"] == []


@pytest.mark.slow
def test_cli_help_still_lists_every_subcommand():
    """Registering one subcommand is only for running it: ``--help`` shows them all."""
    got = _imported("import contextlib, io\nfrom qsudoku.cli import main\nout = io.StringIO()\n"
                    "with contextlib.redirect_stdout(out):\n    main(['--help'])\n"
                    "print(' '.join(line.split()[0] for line in out.getvalue().splitlines()\n"
                    "               if line.startswith('    ') and line[4] != ' '))",
                    ["qsudoku.commands.bench"])
    assert set(got["out"].split()) >= {"solve", "count", "export", "bench", "sweep", "show"}
    assert got["imported"] == ["qsudoku.commands.bench"]


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
def test_a_warm_route_runs_no_compiler_pass():
    """With the kernels in numba's cache, a hard puzzle only loads them: no compiler pass
    runs (an object-mode block in a kernel, such as a clock read, compiles in every
    process).  The first interpreter fills the cache if it is empty."""
    code = ("from numba.core import event\nimport qsudoku\nfrom qsudoku.samplers.jit import "
            "cache_mode\nwith event.install_recorder('numba:run_pass') as rec:\n"
            f"    r = qsudoku.solve(qsudoku.parse_puzzle({HARD9!r}))\n"
            "print(r.valid, cache_mode(), sorted({e.data['name'] for _, e in rec.buffer}))")
    _imported(code, [])
    valid, mode, passes = _imported(code, [])["out"].split(" ", 2)
    if mode not in ("numba", "temp"):
        pytest.skip(f"no kernel cache here ({mode})")
    assert valid == "True"
    assert passes == "[]"


@pytest.mark.slow
def test_names_lists_every_backend_after_one_was_loaded():
    """Loading the backend of one name first still lists every sampler afterwards, and
    listing them imports no backend module (the registry is a static table)."""
    got = _imported("from qsudoku.samplers import get_sampler, names\nget_sampler('aco')\n"
                    "print(' '.join(names()))", OTHER_BACKENDS)
    assert {"aco", "swap-tabu", "exact", "sa", "cpsat"} <= set(got["out"].split())
    assert got["imported"] == []


@pytest.mark.slow
def test_only_the_program_freezes_the_heap_for_a_quick_exit():
    """``qsudoku`` / ``python -m qsudoku`` (:func:`qsudoku.cli.run`) freeze the collector's
    objects before exit, so that the interpreter skips its last full collections;
    :func:`qsudoku.cli.main` called from Python leaves the caller's collector alone."""
    got = _imported("import contextlib, gc, io, sys\nfrom qsudoku.cli import main, run\n"
                    "with contextlib.redirect_stdout(io.StringIO()):\n"
                    f"    code = main(['solve', {EASY9!r}])\n"
                    "print('main', code, gc.get_freeze_count())\n"
                    f"sys.argv = ['qsudoku', 'solve', {EASY9!r}]\n"
                    "with contextlib.redirect_stdout(io.StringIO()):\n"
                    "    code = run()\n"
                    "print('run', code, gc.get_freeze_count() > 0)", [])
    assert got["out"].splitlines() == ["main 0 0", "run 0 True"]


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
def test_warm_up_loads_the_kernels_that_the_parameters_choose():
    """``refute`` makes the colonies run the learning ant, another compiled kernel: warming
    up for those parameters loads it too (else the first round would compile it inside
    the time budget), once per process."""
    code = ("import inspect\nfrom numba.core import types\nfrom qsudoku.samplers import get_sampler\n"
            "from qsudoku.samplers.aco import kernel as K\n"
            "at = list(inspect.signature(K.colony.py_func).parameters).index('blame')\n"
            "def learning():\n"
            "    return any(isinstance(sig[at], types.Array) for sig in K.colony.signatures)\n"
            "s = get_sampler('aco')\ns.warm_up({'num_ants': 3})\nplain = learning()\n"
            "first = s.warm_up({'refute': True, 'num_ants': 3})\n"
            "print(plain, learning(), first > 0, s.warm_up({'refute': True}))")
    got = _imported(code, [])
    assert got["out"] == "False True True 0.0"
