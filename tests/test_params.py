"""qsudoku.samplers.params: one table per sampler, checked on every call, ``parameters``
derived from the signature."""

from __future__ import annotations

import inspect

import pytest

from qsudoku.errors import ParameterError
from qsudoku.samplers.aco.sampler import AntColonySampler
from qsudoku.samplers.params import Bool, Int, Name, OrAuto, checked, parameters_of
from qsudoku.samplers.registry import sample_defaults
from qsudoku.samplers.swap.anneal import SwapAnnealingSampler
from qsudoku.samplers.swap.tabu import SwapTabuSampler
from qsudoku.samplers.tempering.sampler import (ParallelTemperingSampler,
                                                PopulationAnnealingSampler, check_pt)
from _cli import one_error, run
from _puzzles import EASY4_SET

OURS = (AntColonySampler, SwapAnnealingSampler, SwapTabuSampler, ParallelTemperingSampler,
        PopulationAnnealingSampler)


class _Echo:
    _constraints = {"num_reads": Int(1, 9),
                    "flag": OrAuto(Bool(), "must be true, false or 'auto'"),
                    "family": Name("a unit kind (a string)")}

    @checked("echo")
    def sample(self, bqm, num_reads=1, flag="auto", family=None, free=object, **kwargs):
        return dict(bqm=bqm, num_reads=num_reads, flag=flag, family=family, free=free,
                    kwargs=kwargs)

    parameters = parameters_of(sample)


def test_a_call_is_checked_against_the_table_and_converted():
    import numpy as np

    out = _Echo().sample("m", num_reads=np.int64(3), flag=True, free=5)
    assert out == dict(bqm="m", num_reads=3, flag=True, family=None, free=5, kwargs={})
    assert type(out["num_reads"]) is int
    assert _Echo().sample("m")["flag"] == "auto"  # defaults are the signature's


@pytest.mark.parametrize("kwargs,message", [
    ({"num_reads": 0}, "echo: num_reads = 0 must be an integer in 1..9"),
    ({"flag": "yes"}, "echo: flag = 'yes' must be true, false or 'auto'"),
    ({"family": 3}, "echo: family = 3 must be a unit kind (a string)"),
    ({"reads": 1, "b": 2}, "echo: unknown parameter(s) b, reads"),
    ({"num_reads": 0, "reads": 1}, "echo: unknown parameter(s) reads"),  # unknown ones first
])
def test_a_bad_call_is_one_parameter_error(kwargs, message):
    with pytest.raises(ParameterError) as e:
        _Echo().sample("m", **kwargs)
    assert str(e.value) == message


@pytest.mark.parametrize("cls", OURS)
def test_parameters_are_the_signature_and_the_table_names_only_them(cls):
    names = [p for p in inspect.signature(cls.sample).parameters][2:-1]  # self, bqm ... kwargs
    assert list(cls.parameters) == names
    assert set(cls._constraints) <= set(names) and "groups" not in cls._constraints
    assert set(sample_defaults(cls)) <= set(names)


def test_the_registry_checks_a_config_against_the_same_table():
    """``pt``'s table is what the registry runs before any model is built, so a config's
    value fails with the message the sampler gives."""
    import dimod

    check_pt("pt", {"convergence": None, "num_replicas": 2})
    for bad, message in (({"num_replicas": 1}, "pt: num_replicas = 1 must be an integer in "
                          "2..1000"), ({"convergence": 0}, "pt: convergence = 0 must be an "
                                        "integer in 1..1000000")):
        with pytest.raises(ParameterError) as e:
            check_pt("pt", bad)
        assert str(e.value) == message
        with pytest.raises(ParameterError) as e:
            ParallelTemperingSampler().sample(dimod.BQM("BINARY"), **bad)
        assert str(e.value) == message


def test_parameter_values_are_toml_values():
    from qsudoku.commands.common import parse_key_values

    got = parse_key_values(["stop_at_ground=false", "t=1e-3", 's="text"', "b=[0.5, 4.0]",
                            "order=fewest", "sa.num_sweeps=50", "n=10**9", "x=1\nk=2"],
                           "--param")
    assert got == {"stop_at_ground": False, "t": 0.001, "s": "text", "b": [0.5, 4.0],
                   "order": "fewest", "sa.num_sweeps": 50, "n": "10**9", "x": "1\nk=2"}


def test_parameter_a_bad_boolean_names_the_parameter(capsys):
    code, out, err = run(capsys, "solve", EASY4_SET[0], "--sampler", "swap", "--no-route",
                         "--param", "stop_at_ground=nonsense")
    assert code == 2 and "stop_at_ground" in one_error(err)
