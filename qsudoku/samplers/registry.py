"""The samplers' registry: one static table of name -> ``"module:Class"`` and its defaults.

:data:`SPECS` names every sampler's class (or factory) as a ``"module:attribute"`` string,
so :func:`names` and :func:`get_spec` import no backend module, and :func:`get_sampler`
imports only the module of the sampler it builds; a missing optional extra surfaces as
:class:`~qsudoku.errors.BackendUnavailableError` then, not at ``import qsudoku``.  A
class target (the dwave-samplers entries name the library's classes) also lets a sampler
object passed in be recognised as the registered one
(:func:`qsudoku.solving.plan.spec_of`); a factory's entry names the class it returns as
its ``product`` (:class:`~.entries.SamplerSpec`).

``defaults`` are the parameters every solve round passes to ``sample()`` (a
configuration's ``[sampler.params]`` override them).  For qsudoku's own samplers they are
read from the signature of the class's ``sample()`` (:class:`~.entries.ClassDefaults`),
their one home, so that calling the class with no arguments, as Ocean code does, runs
what the registry name runs; ``round`` adds what the solve path's rounds pass on top.
Every registered sampler is constructible with no arguments.

Structure-aware samplers (exact backends, ``aco``, ``swap``, ``swap-tabu``) list
``groups`` in their ``parameters``; a caller may pass the model's labelled one-hot groups
as ``groups=[(kind, [labels...]), ...]``, or leave them to be recognised from the BQM.

>>> spec = get_spec("aco")
>>> spec.target, spec.offline, spec.defaults["num_ants"], spec.round
('qsudoku.samplers.aco.sampler:AntColonySampler', True, 10, {'num_reads': 1000000})
>>> check_values({"num_reads": 10, "seed": 0})
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Mapping

from qsudoku.checks import describe, need_type
from qsudoku.errors import (BackendUnavailableError, ConfigError, ParameterError,
                            SamplerOutputError, install_hint)
from qsudoku.samplers.entries import (ClassDefaults, SamplerSpec, check_extra, check_factory,
                                      check_mapping, check_name, check_round_cost, check_target,
                                      check_weight_kinds, sample_defaults)
from qsudoku.samplers.params import accepted_params, check_values

__all__ = ["SamplerSpec", "SPECS", "register", "get_spec", "get_sampler", "names",
           "check_params", "check_values", "check_sampler_values", "default_params",
           "ClassDefaults", "sample_defaults", "BUILT_IN", "imported_spec", "accepted_params"]

_S = "qsudoku.samplers."
_DS = "dwave.samplers:"  # dwave-samplers' own classes, registered as they are
_CHECKS = _S + "classical:"
_SQA = _S + "sqa.sampler:"
_TEMPER = _S + "tempering.sampler:"
_DW = _S + "dwave."
_DWC = _DW + "checks:"  # the checks of what is passed on to dwave-system and dwave-hybrid
_QPU = _DW + "qpu:QPUSampler"  # qpu and mock-qpu: the object's name tells them apart
_ROUND = {"num_reads": 1_000_000}  # the solve path stops them at its time limit or a ground state
#: Every weight kind: what a sampler that reads only the one-hot groups ignores.
_ALL_WEIGHTS = ("cell", "row", "column", "box", "extra")
#: The swap samplers keep every cell one-hot; the unit weights rank their moves.
_CELL_WEIGHT = ("cell",)

#: Seconds of a ``decompose`` round: a run of QPU calls (each about 20 ms of QPU access plus
#: the network on a QPU, or simulated annealing of the same problem on the mock); see
#: ``docs/annealers.md``.
DECOMPOSE_ROUND = 120.0



def _own(name: str, target: str, summary: str, **fields) -> SamplerSpec:
    """The entry of a class of qsudoku's: its defaults are those of its ``sample()``."""
    return SamplerSpec(name, target, summary, ClassDefaults(target), **fields)


def _exact(name: str, cls: str, summary: str, extra: str | None = None) -> SamplerSpec:
    """The entry of an exact backend: it reads the one-hot groups, not their weights, and
    its parameters are checked where a solve skips its ``sample()`` too."""
    return SamplerSpec(name, _S + "exact:" + cls, "exact: " + summary, extra=extra,
                       ignores_weights=_ALL_WEIGHTS, checks=_S + "exact:check_exact")


#: Every sampler qsudoku ships, in the order ``qsudoku samplers`` lists them.
SPECS: dict[str, SamplerSpec] = {s.name: s for s in (
    _own("aco", _S + "aco.sampler:AntColonySampler",
         "the default: an ant colony that builds consistent partial assignments cell by "
         "cell, propagating over the one-hot groups (numba)",
         round=_ROUND, ignores_weights=_ALL_WEIGHTS),
    _own("swap-tabu", _S + "swap.tabu:SwapTabuSampler",
         "tabu search over digit swaps inside boxes/regions (keeps one-hot groups; numba)",
         round=_ROUND, ignores_weights=_CELL_WEIGHT),
    _own("swap", _S + "swap.anneal:SwapAnnealingSampler",
         "replica exchange with digit swaps inside boxes/regions (keeps one-hot groups; "
         "numba)", round=_ROUND, ignores_weights=_CELL_WEIGHT),
    SamplerSpec("sa", _DS + "SimulatedAnnealingSampler",
                "simulated annealing (dwave-samplers) on the reduced QUBO",
                {"num_reads": 50, "num_sweeps": 1000}, checks=_CHECKS + "check_sa"),
    SamplerSpec("neal", _S + "classical:neal_sampler",
                "simulated annealing through the legacy dwave-neal package",
                {"num_reads": 50, "num_sweeps": 1000}, extra="neal",
                checks=_CHECKS + "check_sa"),  # its product is sa's class: such an object is sa
    _own("sqa", _SQA + "PathIntegralSampler",
         "simulated quantum annealing: dwave-samplers' path-integral annealer with a "
         "transverse field falling to 0 while beta rises (units of the penalty weights)",
         checks=_SQA + "check_sqa"),
    _own("rotor", _SQA + "RotorSampler", "dwave-samplers' rotor-model (spin-vector) annealer, "
         "energies of the projected reads", checks=_SQA + "check_rotor"),
    _own("pt", _TEMPER + "ParallelTemperingSampler",
         "parallel tempering (dwave-hybrid's workflow), one run per read", extra="qpu",
         checks=_TEMPER + "check_pt"),
    _own("pa", _TEMPER + "PopulationAnnealingSampler",
         "population annealing (dwave-hybrid's workflow): the reads are one population",
         extra="qpu", checks=_TEMPER + "check_pa"),
    SamplerSpec("tabu", _DS + "TabuSampler", "tabu search (dwave-samplers)",
                {"num_reads": 10, "timeout": 100}, checks=_CHECKS + "check_tabu"),
    SamplerSpec("steepest", _DS + "SteepestDescentSolver",
                "steepest descent from random states (dwave-samplers)", {"num_reads": 100},
                checks=_CHECKS + "check_steepest"),
    SamplerSpec("random", _DS + "RandomSampler",
                "uniform random states: the floor any sampler must beat", {"num_reads": 100},
                checks=_CHECKS + "check_random"),
    _exact("sat", "SATSampler", "SAT over the candidates (python-sat, exactly-one clauses)"),
    _exact("cpsat", "CPSATSampler", "CP with AllDifferent per unit (OR-Tools CP-SAT); minimises "
           "any BQM without one-hot structure", "classical"),
    _exact("ilp", "ILPSampler", "0-1 integer programme, one row per group (HiGHS); minimises "
           "any BQM without one-hot structure", "classical"),
    _exact("asp", "ASPSampler", "answer-set programme, one cardinality rule (clingo)",
           "classical"),
    _exact("csp", "CSPSampler", "qsudoku's own exact-cover search (no dependencies)"),
    SamplerSpec("exact", _S + "exact:LimitedExactSolver",
                "brute-force enumeration (dimod.ExactSolver), at most 20 variables"),
    SamplerSpec("qpu", _S + "dwave.qpu:qpu_sampler",
                "D-Wave QPU (DWaveSampler) behind a cached minorminer embedding",
                {"num_reads": 100}, extra="qpu", offline=False, checks=_DWC + "check_qpu",
                product=_QPU),
    SamplerSpec("mock-qpu", _S + "dwave.qpu:mock_qpu_sampler",
                "offline QPU emulator: MockDWaveSampler (Pegasus P16) with SA physics, same "
                "embedding path as qpu", {"num_reads": 20, "num_sweeps": 1000}, extra="qpu",
                checks=_DWC + "check_qpu", product=_QPU),
    SamplerSpec("hybrid", _S + "dwave.hybrid:hybrid_sampler",
                "Leap hybrid BQM solver (LeapHybridSampler); time_limit defaults to the "
                "solver's minimum", extra="qpu", offline=False,
                product=_DW + "hybrid:HybridSampler"),
    SamplerSpec("hybrid-cqm", _S + "dwave.hybrid:hybrid_cqm_sampler",
                "Leap hybrid CQM solver: one-hot groups as constraints, not penalties",
                extra="qpu", offline=False, product=_DW + "hybrid:HybridCQMSampler",
                ignores_weights=_ALL_WEIGHTS),
    SamplerSpec("hybrid-nl", _S + "dwave.hybrid:hybrid_nl_sampler",
                "Leap nonlinear solver (LeapHybridNLSampler): an integer per open cell over its "
                "candidates, each digit once per unit", extra="qpu", offline=False,
                product=_DW + "hybrid:HybridNLSampler", ignores_weights=_ALL_WEIGHTS),
    SamplerSpec("decompose", _S + "dwave.decompose:decompose_sampler",
                "QPU-sized subproblems (<= subproblem_size variables, clique-embedded) of the "
                "reduced QUBO, composed classically (default: a consistent partial grid grown "
                "by the calls with singles propagation); option qpu_sampler = qpu | mock-qpu | "
                "hybrid", ClassDefaults(_DW + "decompose:DecomposeSampler"), extra="qpu",
                offline=False, checks=_DWC + "check_decompose",
                product=_DW + "decompose:DecomposeSampler", round_cost=DECOMPOSE_ROUND),
    SamplerSpec("kerberos", _S + "dwave.kerberos:kerberos_sampler",
                "dwave-hybrid KerberosSampler (tabu | SA | QPU subproblems); option "
                "qpu_sampler = qpu | mock-qpu",
                {"max_iter": 100, "convergence": 10, "energy_threshold": 0.0}, extra="qpu",
                offline=False, checks=_DWC + "check_kerberos",
                product=_DW + "kerberos:KerberosQPUSampler"),
)}


#: The names qsudoku ships: :func:`register` replaces one only when asked (``replace=True``).
BUILT_IN = frozenset(SPECS)


def register(name: str, *, summary: str = "", defaults: Mapping | None = None,
             extra: str | None = None, offline: bool = True, checks: str | None = None,
             product: str | None = None, round: Mapping | None = None,
             ignores_weights: tuple[str, ...] = (),
             round_cost: float | None = None, replace: bool = False):
    """Decorator registering a factory (``factory(**options) -> dimod.Sampler``) under
    ``name``: for samplers of your own; qsudoku's are in :data:`SPECS`.  The keywords are
    the fields of :class:`~.entries.SamplerSpec` (with a ``product``, the factory's objects
    passed to ``solve(..., sampler=obj)`` are recognised as ``name``).

    Everything is checked here, not at the first solve (:mod:`.entries`): ``name`` must be
    one the command line can use, ``checks`` is imported and must be a callable,
    ``defaults`` and ``round`` are checked as sampling parameters.  A built-in name is
    replaced only with ``replace=True``.  What the factory returns is checked when it is
    first used (:func:`get_sampler`).

    >>> register("aco")(lambda **options: None)
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: sampler 'aco' is built in: pass replace=True to register(...) to replace it

    Raises:
        TypeError: A field of the wrong type (the factory not callable, a name not a str).
        ConfigError: A field of a wrong value, naming it (a ``ValueError``).
    """
    check_name(name)
    if name in BUILT_IN and replace is not True:
        raise ConfigError(f"sampler {name!r} is built in: pass replace=True to register(...) "
                          "to replace it")
    need_type("summary", summary, str)
    need_type("offline", offline, bool, "True or False")
    every, per_round = check_mapping("defaults", defaults), check_mapping("round", round)
    check_values({**every, **per_round}, f"register({name!r})")
    fields = dict(summary=summary, defaults=every, extra=check_extra(extra), offline=offline,
                  checks=check_target("checks", checks, resolve=True),
                  product=check_target("product", product), round=per_round,
                  ignores_weights=check_weight_kinds(ignores_weights, _ALL_WEIGHTS),
                  round_cost=check_round_cost(round_cost))

    def deco(factory):
        SPECS[name] = SamplerSpec(name, check_factory(name, factory), **fields)
        return factory
    return deco


def names() -> list[str]:
    """Registered sampler names (no backend module is imported).

    >>> {"aco", "sa", "exact", "cpsat"} <= set(names())
    True
    """
    return sorted(map(str, SPECS))


def get_spec(name: str) -> SamplerSpec:
    """The :class:`SamplerSpec` of ``name``: a registered name, or ``"module:Class"`` for
    any importable :class:`dimod.Sampler` (:func:`imported_spec`).

    Raises:
        ConfigError: Unknown name, a module that is not there, or a class that is not a
            :class:`dimod.Sampler`.
    """
    try:
        return SPECS[name]
    except (KeyError, TypeError):
        if isinstance(name, str) and ":" in name:
            return imported_spec(name)
        raise ConfigError(f"unknown sampler {name!r}; choose from {', '.join(names())} "
                          "(or module:Class, any importable dimod.Sampler)") from None


_IMPORTED: dict[str, SamplerSpec] = {}


def _import(module: str, name: str):
    """Import ``module`` as ``python -m`` would (the current directory searched last, so
    that a lab module of the repository, ``benchmarks.peers:...``, is found from its root).

    Raises:
        ConfigError: ``module`` (or a package above it) is not there.
    """
    top = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if not e.name or not (module == e.name or module.startswith(e.name + ".")):
            raise BackendUnavailableError(f"sampler {name!r}: module {module!r} needs a "
                                          f"package that is not installed ({e.name})") from None
        here = os.getcwd()
        found = os.path.exists(os.path.join(here, top + ".py")) or os.path.isdir(
            os.path.join(here, top))
        if found and here not in sys.path:
            sys.path.append(here)
            return _import(module, name)
        raise ConfigError(f"sampler {name!r}: no module named {e.name!r}") from None


def imported_spec(name: str) -> SamplerSpec:
    """The spec of ``"module:Class"``, any importable :class:`dimod.Sampler` that is not
    registered (``openjij:SASampler``): built with no arguments, run at its own defaults
    (the configuration's parameters on top), offline.  Imports the module.

    >>> imported_spec("dwave.samplers:SimulatedAnnealingSampler").defaults
    {}
    >>> imported_spec("nosuch_mod:Foo")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: sampler 'nosuch_mod:Foo': no module named 'nosuch_mod'
    >>> imported_spec("dimod:BinaryQuadraticModel")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: sampler 'dimod:BinaryQuadraticModel': dimod.BinaryQuadraticModel is not a dimod.Sampler

    Raises:
        ConfigError: Not ``module:Class``, a module that is not there, no such attribute,
            or not a :class:`dimod.Sampler` class.
        BackendUnavailableError: The module needs a package that is not installed.
    """
    if name in _IMPORTED:
        return _IMPORTED[name]
    import dimod

    module, _, attr = name.partition(":")
    if not module or not attr.isidentifier():
        raise ConfigError(f"sampler {name!r}: give a registered name or module:Class")
    cls = getattr(_import(module, name), attr, None)
    if cls is None:
        raise ConfigError(f"sampler {name!r}: module {module!r} has no attribute {attr!r}")
    if not (isinstance(cls, type) and issubclass(cls, dimod.Sampler)):
        raise ConfigError(f"sampler {name!r}: {module}.{attr} is not a dimod.Sampler")
    spec = SamplerSpec(name, name, f"{module}.{attr} (imported), at its own defaults")
    _IMPORTED[name] = spec
    return spec


def get_sampler(name: str, **options):
    """Instantiate the sampler registered as ``name`` (imports only its module).

    Raises:
        ConfigError: Unknown name or bad option (:class:`ParameterError`).
        BackendUnavailableError: Its package is not installed.
        SamplerOutputError: Its (registered) factory returned no sampler (nothing with a
            ``sample`` method).
    """
    spec = get_spec(name)
    try:
        sampler = spec.factory(**options)
    except ImportError as e:
        hint = install_hint(spec.extra)
        raise BackendUnavailableError(
            f"sampler {name!r} needs a package that is not installed ({e.name or e}); run: {hint}"
        ) from None
    except TypeError as e:
        raise ParameterError(f"sampler {name!r}: bad option: {e}") from None
    if not callable(getattr(sampler, "sample", None)):  # a registered factory's mistake
        raise SamplerOutputError(f"the factory registered as sampler {name!r} returned "
                                 f"{describe(sampler)}, not a dimod.Sampler (no sample method)")
    return sampler


def default_params(name: str) -> dict:
    """The sampling parameters a solve round of ``name`` passes: its defaults and
    :attr:`~.entries.SamplerSpec.round`.

    >>> default_params("swap-tabu")["tenure"], default_params("swap-tabu")["num_reads"]
    (4, 1000000)
    """
    spec = get_spec(name)
    return {**spec.defaults, **spec.round}


def check_params(sampler, params: Mapping, name: str = "", source: str = "") -> dict:
    """``params`` if ``sampler`` accepts each (:func:`~.params.accepted_params`) and
    :func:`check_sampler_values` passes them.

    Raises:
        ParameterError: An unknown parameter or a bad value, naming it (and the file).
    """
    where = f" (in {source})" if source else ""
    accepted = accepted_params(sampler)
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise ParameterError(
            f"sampler {name or type(sampler).__name__!r} does not accept parameter(s) "
            f"{', '.join(unknown)}{where}; it accepts: {', '.join(sorted(accepted)) or 'none'}")
    check_sampler_values(name, params, source)
    return dict(params)


def check_sampler_values(name: str, params: Mapping, source: str = "") -> None:
    """Check ``params`` with the :attr:`~.entries.SamplerSpec.checks` of the sampler
    registered as ``name`` (importing no backend), then :func:`~.params.check_values`.

    >>> check_sampler_values("sa", {"beta_range": [2, 1]}, "my.toml")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ParameterError: sa: beta_range = [2, 1] must be two finite numbers 0 < low <= high (in my.toml)
    """
    spec = SPECS.get(name) if isinstance(name, str) else None
    if spec is not None and spec.checks:
        module, _, attr = spec.checks.partition(":")
        try:
            getattr(importlib.import_module(module), attr)(name, params)
        except ParameterError as e:
            raise (ParameterError(f"{e} (in {source})") if source else e) from None
    check_values(params, source)
