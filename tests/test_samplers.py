import dimod
import dimod.testing
import pytest

from qsudoku.errors import ConfigError
from qsudoku.io import parse_puzzle
from qsudoku import Config
from qsudoku.solving import make_plan
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import build_model
from qsudoku.samplers import check_params, get_sampler, get_spec, names
from _puzzles import THREE_GIVENS4
from _backend_cases import _model_with

OFFLINE = [n for n in names() if get_spec(n).offline]
CORE = ["sa", "neal", "tabu", "steepest", "random", "exact"]


def sample_model(model, config, sampler=None):
    """One round of ``config``'s plan on ``model``: ``(sampleset, params)``."""
    plan = make_plan(config, sampler)
    rnd = plan.sample(model, seed=plan.seed)
    return rnd.sampleset, rnd.params


def test_core_samplers_registered():
    assert set(CORE) <= set(names())


@pytest.mark.parametrize("name", OFFLINE)
def test_sampler_contract(name):
    """Every offline backend honours the dimod Sampler API."""
    sampler = get_sampler(name)
    dimod.testing.assert_sampler_api(sampler)
    assert isinstance(sampler, dimod.Sampler)


@pytest.mark.parametrize("name", OFFLINE)
def test_sampler_returns_model_variables_and_true_energies(name):
    """Each offline sampler answers on a tiny Sudoku model in its variables, with true energies."""
    m = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=[]))
    cfg = Config().with_overrides(sampler=name)
    spec_params = dict(get_spec(name).defaults)
    sampler = get_sampler(name)
    if "seed" in sampler.parameters:
        spec_params["seed"] = 5
    if "num_reads" in sampler.parameters:
        spec_params["num_reads"] = 4
    if name == "exact":
        m = build_model(propagate(parse_puzzle("...." "...." "2143" "4321"), rules=[]))
    ss, _ = sample_model(m, cfg.with_overrides(params=spec_params), sampler)
    assert set(ss.variables) == set(m.variables)
    # Every read's energy, recomputed from its sample (in one call: exact returns 65536 reads).
    assert list(ss.record.energy) == pytest.approx(list(m.bqm.energies(ss)))


@pytest.mark.slow
def test_exact_finds_ground_state_of_tiny_model_and_refuses_big_ones():
    p = parse_puzzle("...." "...." "2143" "4321")
    m = build_model(propagate(p, rules=[]))
    assert m.num_variables == 16  # two open rows, two candidates per cell
    ss, _ = sample_model(m, Config().with_overrides(sampler="exact"))
    assert ss.first.energy == pytest.approx(0.0)
    big = build_model(propagate(parse_puzzle("1" + "." * 15), rules=[]))
    with pytest.raises(ConfigError, match="exact solver enumerates"):
        sample_model(big, Config().with_overrides(sampler="exact"))


def test_unknown_parameters_are_errors_not_warnings():
    sa = get_sampler("sa")
    with pytest.raises(ConfigError, match="num_sweep.*accepts"):
        check_params(sa, {"num_sweep": 10}, "sa", "my.toml")
    with pytest.raises(ConfigError, match="num_reads = -1"):
        check_params(sa, {"num_reads": -1}, "sa")
    with pytest.raises(ConfigError, match="num_sweeps = 0"):
        check_params(sa, {"num_sweeps": 0}, "sa")
    assert check_params(sa, {"num_reads": 3, "seed": 0}, "sa") == {"num_reads": 3, "seed": 0}


def test_unknown_sampler_lists_choices():
    with pytest.raises(ConfigError, match="choose from .*sa"):
        get_sampler("annealer9000")


def test_seeded_sa_is_reproducible():
    m = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=[]))
    # sa explicitly: the default swap-tabu stops every read once one reaches the ground state,
    # so which reads finish depends on thread timing (documented in the README)
    cfg = Config().with_overrides(sampler="sa", seed=11, reads=5)
    a, _ = sample_model(m, cfg)
    b, _ = sample_model(m, cfg)
    assert (a.record.sample == b.record.sample).all()


# -- register: checked at the door ------------------------------------------------------------
@pytest.fixture
def registry(monkeypatch):
    """A copy of the registry for one test (registrations vanish after it)."""
    from qsudoku.samplers import registry as reg

    monkeypatch.setattr(reg, "SPECS", dict(reg.SPECS))
    return reg


def _sa(**options):
    return dimod.RandomSampler()


@pytest.mark.parametrize("name, error, piece", [
    (None, TypeError, "sampler name must be a str, not NoneType"),
    (123, TypeError, "sampler name must be a str, not int"),
    (b"x", TypeError, "sampler name must be a str, not bytes"),
    ("", ConfigError, "sampler name '' cannot be used on the command line"),
    ("a,b", ConfigError, "sampler name 'a,b' cannot be used on the command line"),
    ("a b", ConfigError, "cannot be used on the command line"),
    ("a\nb", ConfigError, "cannot be used on the command line"),
    ("tab\t", ConfigError, "cannot be used on the command line"),
    ("-x", ConfigError, "does not start with -"),
    ("solve", ConfigError, "'solve' is reserved"),
    ("aco", ConfigError, "sampler 'aco' is built in: pass replace=True"),
])
def test_register_refuses_a_name_the_command_line_cannot_use(registry, name, error, piece):
    with pytest.raises(error, match=piece.replace("(", r"\(")):
        registry.register(name)(_sa)
    assert registry.SPECS.keys() == registry.BUILT_IN  # nothing stored
    assert "aco" in names()  # names() and its messages still work
    with pytest.raises(ConfigError, match="unknown sampler 'no-such'; choose from aco, "):
        get_spec("no-such")


def test_solve_is_bench_s_name_of_the_default_path():
    from qsudoku.experiments.bench import SOLVE
    from qsudoku.samplers.entries import RESERVED

    assert SOLVE in RESERVED


@pytest.mark.parametrize("options, error, piece", [
    ({"round_cost": "x"}, TypeError, "round_cost must be a number, not str"),
    ({"round_cost": 1e308}, ConfigError, r"round_cost = 1e\+308 must be a finite number > 0"),
    ({"round_cost": 0}, ConfigError, "round_cost = 0 must be a finite number > 0"),
    ({"round_cost": float("nan")}, ConfigError, "round_cost = nan"),
    ({"round_cost": True}, TypeError, "round_cost must be a number, not bool"),
    ({"checks": "no.such:fn"}, ConfigError, "checks = 'no.such:fn': cannot import no.such"),
    ({"checks": "os:no_such_fn"}, ConfigError, "os has no callable no_such_fn"),
    ({"checks": "os.path"}, ConfigError, "checks = 'os.path' must be 'module:attribute'"),
    ({"checks": 5}, TypeError, "checks must be"),
    ({"product": "nocolon"}, ConfigError, "product = 'nocolon' must be 'module:attribute'"),
    ({"defaults": [1]}, TypeError, "defaults must be a mapping"),
    ({"defaults": {"num_reads": -1}}, ConfigError, r"num_reads = -1 \(in register\('mine'\)\)"),
    ({"defaults": {1: 2}}, TypeError, "defaults keys must be parameter names"),
    ({"round": {"num_sweeps": 0}}, ConfigError, "num_sweeps = 0"),
    ({"offline": "yes"}, TypeError, "offline must be True or False"),
    ({"extra": "a b"}, ConfigError, "extra = 'a b' is not the name of a pip extra"),
    ({"ignores_weights": ("colour",)}, ConfigError, "'colour' is not a weight kind"),
    ({"ignores_weights": "cell"}, TypeError, "ignores_weights must be a tuple"),
    ({"summary": None}, TypeError, "summary must be a str"),
])
def test_register_checks_every_option(registry, options, error, piece):
    with pytest.raises(error, match=piece):
        registry.register("mine", **options)(_sa)
    assert "mine" not in registry.SPECS


def test_register_refuses_a_factory_that_is_not_callable(registry):
    with pytest.raises(TypeError, match=r"register\('mine'\) needs a callable factory"):
        registry.register("mine")(42)
    assert "mine" not in registry.SPECS


@pytest.mark.parametrize("made", [None, 42, "sa"])
def test_a_factory_returning_no_sampler_is_one_clear_error_when_used(registry, capsys, made):
    from qsudoku import solve
    from qsudoku.errors import SamplerOutputError

    registry.register("mine")(lambda **options: made)
    with pytest.raises(SamplerOutputError, match=r"the factory registered as sampler 'mine' "
                                                 r"returned .*, not a dimod.Sampler"):
        get_sampler("mine")
    with pytest.raises(SamplerOutputError, match="'mine'"):
        solve(parse_puzzle(THREE_GIVENS4), Config().with_overrides(sampler="mine"))


def test_register_replaces_a_built_in_only_when_asked_and_takes_good_options(registry):
    registry.register("aco", replace=True, summary="mine")(_sa)
    assert get_spec("aco").summary == "mine"
    registry.register("my-sa", defaults={"num_reads": 3}, round_cost=2.5,
                      checks="qsudoku.samplers.classical:check_sa",
                      ignores_weights=["cell"])(_sa)
    spec = get_spec("my-sa")
    assert (spec.round_cost, spec.ignores_weights, dict(spec.defaults)) == \
        (2.5, ("cell",), {"num_reads": 3})
    registry.register("my-sa", summary="again")(_sa)  # one's own name: replaced silently
    assert get_spec("my-sa").summary == "again" and "my-sa" in names()


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
