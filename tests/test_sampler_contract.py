"""The contract every registered sampler keeps, like dimod's own test kit.

Each sampler is built from its registry entry with no arguments (those that need a
D-Wave token are built offline on ``mock-qpu`` where they can be); each must be a
module-level :class:`dimod.Sampler` passing :func:`dimod.testing.assert_sampler_api`,
answer an empty BQM with a SampleSet over no variables, accept its registered defaults,
and refuse a boolean given as a string and an unknown parameter with a
:class:`~qsudoku.errors.ParameterError` (or the ``ConfigError`` of :func:`check_params`).
"""

from __future__ import annotations

import importlib
import unittest

import dimod
import dimod.testing
import pytest

from qsudoku.errors import ConfigError, ParameterError
from qsudoku.io import parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import build_model
from qsudoku.samplers import check_params, get_sampler, get_spec, names
from _puzzles import THREE_GIVENS4

#: Samplers that need a token: built offline on the mock QPU where the code allows.
OFFLINE_OPTIONS = {"decompose": {"qpu_sampler": "mock-qpu"}, "kerberos": {"qpu_sampler": "mock-qpu"}}
#: Leap's hybrid solvers have no offline stand-in.
NEEDS_TOKEN = {"qpu", "hybrid", "hybrid-cqm", "hybrid-nl"}
#: Samplers that take the one-hot groups (and recognise them when not given).
STRUCTURED = {"aco", "swap", "swap-tabu", "sat", "cpsat", "ilp", "asp", "csp"}
#: Wrapped dwave-samplers/neal samplers answer an empty BQM with one empty sample.
ONE_EMPTY_ROW = {"sa", "neal", "random", "steepest"}

BUILDABLE = sorted(n for n in names() if n not in NEEDS_TOKEN)


def build(name):
    try:
        return get_sampler(name, **OFFLINE_OPTIONS.get(name, {}))
    except Exception as e:  # noqa: BLE001 - a missing optional extra
        pytest.skip(f"{name}: {e}")


def small_model():
    return build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=()))


@pytest.mark.parametrize("name", BUILDABLE)
def test_is_a_module_level_dimod_sampler(name):
    sampler = build(name)
    dimod.testing.assert_sampler_api(sampler)
    assert isinstance(sampler, dimod.Sampler)
    cls = type(sampler)
    # the class is reachable by name from its module (not defined inside a function)
    assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls


@pytest.mark.parametrize("name", sorted(names()))
def test_registry_entry_names_an_importable_target(name):
    spec = get_spec(name)
    module, _, attr = spec.target.partition(":")
    assert callable(getattr(importlib.import_module(module), attr))
    assert spec.summary and isinstance(spec.offline, bool)


@pytest.mark.parametrize("name", BUILDABLE)
@pytest.mark.parametrize("vartype", ["BINARY", "SPIN"])
def test_empty_bqm_gives_a_sampleset_over_no_variables(name, vartype):
    ss = build(name).sample(dimod.BQM(vartype))
    assert isinstance(ss, dimod.SampleSet)
    assert len(ss.variables) == 0 and ss.vartype is dimod.Vartype[vartype]
    assert len(ss) == (1 if name in ONE_EMPTY_ROW else 0)


@pytest.mark.parametrize("name", BUILDABLE)
def test_registered_defaults_are_accepted_parameters(name):
    sampler = build(name)
    assert check_params(sampler, get_spec(name).defaults, name) == get_spec(name).defaults


@pytest.mark.parametrize("name", sorted(STRUCTURED))
def test_structured_samplers_recognise_the_groups_and_refuse_other_bqms(name):
    sampler = build(name)
    m = small_model()
    params = {"num_reads": 2, "seed": 1} if name in ("aco", "swap", "swap-tabu") else {}
    ss = sampler.sample(m.bqm, **params)  # no groups= given
    assert float(ss.first.energy) == 0.0
    assert ss.info["num_reads"] == len(ss) if "num_reads" in ss.info else len(ss) == 1
    foreign = dimod.BQM({0: 1.0, 1: -1.0}, {(0, 1): 0.5}, 0.0, "BINARY")
    if sampler.properties.get("any_bqm"):
        assert float(sampler.sample(foreign).first.energy) == -1.0
    else:
        with pytest.raises(ParameterError, match=f"{name}: the BQM has no one-hot structure"):
            sampler.sample(foreign)


@pytest.mark.parametrize("name", ["aco", "swap", "swap-tabu"])
@pytest.mark.parametrize("bad", ["false", "nonsense", 1])
def test_booleans_must_be_booleans(name, bad):
    m = small_model()
    with pytest.raises(ParameterError, match=f"{name}: stop_at_ground = {bad!r}"):
        build(name).sample(m.bqm, groups=m.groups(), stop_at_ground=bad)


@pytest.mark.parametrize("name", BUILDABLE)
def test_unknown_parameters_are_refused(name):
    with pytest.raises(ConfigError, match="colour"):
        check_params(build(name), {"colour": 1}, name)


def _cpsat():
    return build("cpsat")


@dimod.testing.load_sampler_bqm_tests(_cpsat)
class TestCPSATOnDimodsKit(unittest.TestCase):
    """dimod's own sampler test kit, on any BQM (no one-hot structure)."""


@dimod.testing.load_sampler_bqm_tests(lambda: build("ilp"))
class TestILPOnDimodsKit(unittest.TestCase):
    """The same kit for the HiGHS backend."""


@pytest.mark.parametrize("name", ["cpsat", "ilp"])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("vartype", ["SPIN", "BINARY"])
def test_any_bqm_backends_find_the_ground_state(name, seed, vartype):
    bqm = dimod.generators.uniform(7, vartype, low=-2, high=2, seed=seed)
    best = dimod.ExactSolver().sample(bqm).first.energy
    ss = build(name).sample(bqm)
    assert ss.info["status"] == "solved"
    assert ss.first.energy == pytest.approx(best, abs=1e-6)


#: Classes of ours whose ``sample()`` passes its parameters on to another library
#: (dwave-samplers, dwave-system, dwave-hybrid): the registry lists the values it passes.
PASSES_ON = {"pt", "pa", "qpu", "mock-qpu", "kerberos"}
#: ``sample()`` parameters the solve path sets per round, and the model's groups.
PER_CALL = {"groups", "seed", "time_limit", "stop_at_ground"}


def _ours():
    out = []
    for name in names():
        module, _, attr = get_spec(name).made.partition(":")
        if module.startswith("qsudoku."):
            out.append(name)
    return out


@pytest.mark.parametrize("name", _ours())
def test_qsudoku_samplers_lists_the_defaults_of_the_class_sample(name, capsys):
    """Issue 42: a default lives in the ``sample()`` signature of its class, and
    ``qsudoku samplers`` lists exactly those, so that calling the class with no arguments
    (as Ocean code does) runs what the registry name runs."""
    import inspect
    import json

    from qsudoku.cli import main
    from qsudoku.model.result import jsonable

    module, _, attr = get_spec(name).made.partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except ImportError as e:
        pytest.skip(f"{name}: {e}")
    if not isinstance(cls, type):
        pytest.skip(f"{name}: built by a factory whose class is not ours")
    signature = {k: p.default for k, p in inspect.signature(cls.sample).parameters.items()
                 if p.default is not p.empty and p.default is not None and k not in PER_CALL}
    assert main(["samplers"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.split()[0] == name)
    listed = line.split("; defaults: ", 1)[1].split("; each solve round: ")[0]
    text = {k: f"{k}={json.dumps(jsonable(v))}" for k, v in signature.items()}
    if name in PASSES_ON:  # a default both name agrees (pt's and pa's are a class table)
        text.update({k: f"{k}={json.dumps(jsonable(v))}"
                     for k, v in (getattr(cls, "defaults", None) or {}).items() if v is not None})
        given = {t.split("=", 1)[0]: t for t in listed.split(", ") if "=" in t}
        assert all(given[k] == t for k, t in text.items() if k in given), (listed, text)
    else:
        assert listed == (", ".join(text.values()) or "-")


def test_the_structured_samplers_called_bare_run_what_their_names_run():
    """``SwapAnnealingSampler().sample(bqm)`` is replica exchange over 16 temperatures of
    300 sweeps, as ``--sampler swap``; decompose's batch is 8 either way."""
    from qsudoku.samplers import default_params
    from qsudoku.samplers.dwave.decompose import DecomposeSampler
    from qsudoku.samplers.swap.anneal import SwapAnnealingSampler
    import inspect

    swap = inspect.signature(SwapAnnealingSampler.sample).parameters
    assert (swap["num_replicas"].default, swap["num_sweeps"].default) == (16, 300)
    assert {k: default_params("swap")[k] for k in ("num_replicas", "num_sweeps", "focus")} \
        == {"num_replicas": 16, "num_sweeps": 300, "focus": 3}
    assert inspect.signature(DecomposeSampler.sample).parameters["batch"].default == 8 \
        == default_params("decompose")["batch"]
