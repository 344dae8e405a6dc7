"""D-Wave QPU backends: ``qpu`` and ``mock-qpu`` (the Leap hybrid ones are in :mod:`.hybrid`).

``qpu`` is :class:`dwave.system.DWaveSampler` behind :class:`QPUSampler`, a composite that
embeds each model with minorminer (cached on disk, :mod:`.embedding`), samples through
:class:`dwave.system.FixedEmbeddingComposite` and puts QPU timing, chain breaks and chain
lengths into ``sampleset.info``.  ``mock-qpu`` is the same composite over
:class:`dwave.system.testing.MockDWaveSampler` on a real topology (Pegasus P16 by default)
with simulated annealing as its physics, so the whole path runs offline.  Credentials and
cloud failures go through :mod:`.cloud`; D-Wave packages are imported only inside
factories and methods, so a missing ``[qpu]`` extra is a
:class:`~qsudoku.errors.BackendUnavailableError` too.

>>> scrub("token DEV-" + "0123456789abcdef" * 3 + " was rejected")
'token <token> was rejected'
"""

from __future__ import annotations

import functools
import importlib
import math
import numbers

import dimod
import numpy as np

from qsudoku.samplers.dwave.cliques import Packed, clique_embedding, copies_that_fit
from qsudoku.samplers.dwave.embedding import (EmbeddingCache, check_embedding_parameters, embed_bqm,
                                              estimate_qpu_access_time, graph_key, target_id)
from qsudoku.checks import need_finite_bqm
from qsudoku.errors import BackendUnavailableError, ConfigError, ParameterError
from qsudoku.samplers.dwave.checks import CHAIN_BREAK_METHODS, check_qpu
from qsudoku.samplers.dwave.cloud import (CLIENT_OPTIONS, DEFAULT_LABEL, cloud_errors, connect,
                                          plain, split_options)
from qsudoku.samplers.params import Bool, Name, validate
from qsudoku.samplers.redact import scrub

__all__ = ["QPUSampler", "clique_parts", "qpu_sampler", "mock_qpu_sampler", "mock_child",
           "subproblem_child", "resolve_chain_strength",
           "scrub", "TOPOLOGIES", "CHAIN_BREAK_METHODS"]

#: Mock topologies and their default shapes, Advantage (P16), Advantage2 (Z12), 2000Q (C16).
TOPOLOGIES = {"pegasus": (16,), "zephyr": (12, 4), "chimera": (16, 16, 4)}
#: The largest mock shapes (about twice a real QPU's): building a bigger graph takes minutes.
MAX_SHAPES = {"pegasus": (32,), "zephyr": (24, 8), "chimera": (32, 32, 8)}
_LOCAL_OPTIONS = ("cache", "cache_dir", "embedding_parameters")

def _cache_from(options: dict, sampler: str = "qpu") -> EmbeddingCache | None:
    options = validate(sampler, {"cache": Bool(), "cache_dir": Name("a path (a string)")}, options)
    if options.get("cache", True) is False:
        return None
    return EmbeddingCache(options["cache_dir"]) if options.get("cache_dir") else EmbeddingCache()


# -- QPU ----------------------------------------------------------------------------------------

def clique_parts(variables) -> dict:
    """The variables of a model for clique embedding, by part, in order: variables labelled
    :class:`~qsudoku.samplers.dwave.cliques.Packed` (a batch of subproblems, see
    :mod:`.decompose`) in one part per ``part``, any other labels in one part.

    >>> clique_parts([Packed(0, 0), Packed(0, 1), Packed(1, 0)])
    {0: [Packed(part=0, index=0), Packed(part=0, index=1)], 1: [Packed(part=1, index=0)]}
    >>> clique_parts([(0, 0), (1, 0)])
    {0: [(0, 0), (1, 0)]}
    """
    variables = list(variables)
    if not all(isinstance(v, Packed) for v in variables):
        return {0: variables}
    parts: dict = {}
    for v in variables:
        parts.setdefault(v.part, []).append(v)
    return parts


def resolve_chain_strength(bqm, chain_strength=None, factor=None) -> float:
    """The chain strength (Ising units) for ``bqm``.

    ``chain_strength`` is a positive number, ``"uniform_torque_compensation"`` (the
    default; ``factor`` is its prefactor, default 1.414) or ``"max_j"`` (``factor``,
    default 2.0, times the largest ``|J|`` of the Ising form).

    >>> bqm = dimod.BQM({}, {"ab": 1.0, "bc": -3.0}, 0.0, "SPIN")
    >>> resolve_chain_strength(bqm, "max_j", 1.5), resolve_chain_strength(bqm, 2)
    (4.5, 2.0)
    """
    if factor is not None and (isinstance(factor, bool) or not isinstance(factor, numbers.Real)
                               or not 0 < factor < math.inf):
        raise ConfigError(f"chain_strength_factor = {factor!r} must be a finite number > 0")
    if chain_strength is None or chain_strength == "uniform_torque_compensation":
        from dwave.embedding.chain_strength import uniform_torque_compensation

        return float(uniform_torque_compensation(bqm.spin, prefactor=1.414 if factor is None else factor))
    if chain_strength == "max_j":
        biases = [abs(b) for b in bqm.spin.quadratic.values()]
        return float((2.0 if factor is None else factor) * (max(biases) if biases else 1.0))
    if isinstance(chain_strength, numbers.Real) and not isinstance(chain_strength, bool):
        if factor is not None:
            raise ConfigError("chain_strength_factor applies to 'uniform_torque_compensation' or "
                              f"'max_j', not to a fixed chain_strength = {chain_strength!r}")
        if not 0 < chain_strength < math.inf:
            raise ConfigError(f"chain_strength = {chain_strength!r} must be a finite number > 0")
        return float(chain_strength)
    raise ConfigError(f"chain_strength = {chain_strength!r} must be a number, "
                      "'uniform_torque_compensation' or 'max_j'")


def check_qpu_params(params: dict, parameters, properties, sampler: str = "qpu") -> None:
    """Check QPU sampling parameters against the solver's ``parameters`` and ``*_range``
    properties: what :func:`~qsudoku.samplers.dwave.checks.check_qpu` (run first, by
    :meth:`QPUSampler.sample`) cannot know."""
    for key, value in params.items():
        if key not in parameters:
            raise ParameterError(f"{sampler}: the QPU does not accept parameter {key!r}; it "
                                 f"accepts: {', '.join(sorted(parameters))}")
        lo_hi = properties.get(f"{key}_range")
        if lo_hi and isinstance(value, numbers.Real) and not isinstance(value, bool):
            lo, hi = lo_hi
            if not lo <= value <= hi:
                raise ParameterError(f"{sampler}: {key} = {value!r} is outside the solver's "
                                     f"range [{lo:g}, {hi:g}]")


class QPUSampler(dimod.ComposedSampler):
    """A structured QPU sampler (real or mock) behind a cached minor-embedding.

    Args:
        child: A structured sampler: :class:`~dwave.system.DWaveSampler` or a mock.
        cache: Embedding cache (``None`` disables caching).
        embedding_parameters: minorminer keywords (``timeout``, ``tries``, ``random_seed``, ...).
        clique: Embed every model in a clique embedding of its size (no search per model:
            for a stream of small subproblems, see :mod:`.decompose`); its variables are
            mapped to the clique's chains in the model's variable order.  A model whose
            variables are ``(part, i)`` pairs (:func:`clique_parts`: a batch of subproblems
            that share no interaction) gets one clique per part, the cliques disjoint, so
            one call answers every part.

    Sampling parameters are the child's (``num_reads``, ``annealing_time``, ``label``, ...)
    plus ``chain_strength``, ``chain_strength_factor``, ``chain_break_method``,
    ``return_embedding`` and ``seed``.  ``seed`` seeds the embedding search (minorminer's
    ``random_seed``, unless ``embedding_parameters`` sets one; later rounds of the same
    model keep the first round's embedding) and, if the child takes a seed (the mock), the
    child too: offline, the same seed gives the same samples.
    """

    children = None
    parameters = None
    properties = None

    def __init__(self, child, cache: EmbeddingCache | None = None, embedding_parameters=None,
                 clique: bool = False):
        self.children = [child]
        self.cache = cache
        self.clique = bool(clique)
        self._recent = ("", None)  # (graph key, Embedded) of the last model embedded
        self.name = "mock-qpu" if "Mock" in type(child).__name__ else "qpu"
        self.embedding_parameters = check_embedding_parameters(embedding_parameters, self.name)
        self.parameters = dict(child.parameters)
        self.parameters.update(chain_strength=[], chain_strength_factor=[], chain_break_method=[],
                               return_embedding=[], seed=[])
        self.properties = {"child_properties": child.properties,
                           "embedding_parameters": dict(self.embedding_parameters),
                           "cache_dir": str(cache.directory) if cache else None}

    @property
    def target(self) -> str:
        """:func:`~qsudoku.samplers.dwave.embedding.target_id` of the child's working graph."""
        return target_id(self.child)

    def fit_batch(self, size: int, batch: int) -> int:
        """The subproblems of at most ``size`` variables one call carries, at most ``batch``:
        in clique mode the most disjoint cliques that fit
        (:func:`~qsudoku.samplers.dwave.cliques.copies_that_fit`, found once per graph, size
        and batch), else ``batch``; raises if not even one clique of ``size`` fits."""
        if not self.clique:
            return batch
        fits = copies_that_fit(size, self.child, self.target, batch)
        if not fits:
            raise BackendUnavailableError(
                f"a clique of {size} variables does not fit on {self.target.split(':')[0]}; "
                "lower subproblem_size")
        return fits

    def embed(self, bqm, seed: int | None = None):
        """The (cached) :class:`~qsudoku.samplers.dwave.embedding.Embedded` of ``bqm``; raises if it does not fit.

        ``seed`` is minorminer's ``random_seed`` unless ``embedding_parameters`` has one;
        the same model again (the next round of a solve) keeps the embedding it got."""
        if self.clique:
            parts = clique_parts(bqm.variables)
            size = max(len(p) for p in parts.values())
            emb = clique_embedding(size, self.child, self.target, len(parts))
            if emb.found:
                chains = emb.embedding
                emb.embedding = {v: chains[(j, i) if len(parts) > 1 else i]
                                 for j, part in enumerate(parts.values()) for i, v in enumerate(part)}
                emb.num_variables = bqm.num_variables
                return emb
            raise BackendUnavailableError(
                f"{len(parts)} disjoint clique(s) of {size} variables do not fit on "
                f"{self.target.split(':')[0]}; lower subproblem_size or batch")
        graph = graph_key(list(bqm.quadratic), self.target, list(bqm.variables))
        if self._recent[0] == graph:  # the rounds of one solve keep their first embedding
            return self._recent[1]
        parameters = dict(self.embedding_parameters)
        if seed is not None:
            parameters.setdefault("random_seed", seed)
        emb = embed_bqm(bqm, self.child, self.cache, parameters=parameters, target=self.target)
        if not emb.found:
            raise BackendUnavailableError(
                f"the model ({bqm.num_variables} variables, {bqm.num_interactions} interactions) did "
                f"not fit on {self.target.split(':')[0]}: minorminer found no embedding in "
                f"{emb.seconds:.0f} s; shrink it with more --rules, raise embedding_parameters."
                "timeout, or use --sampler hybrid")
        self._recent = (graph, emb)
        return emb

    def sample(self, bqm, chain_strength=None, chain_strength_factor=None, chain_break_method=None,
               return_embedding=False, **params):
        """Embed (or reuse the cached embedding), sample on the child, unembed; see class doc."""
        from dwave.embedding import chain_breaks
        from dwave.system import FixedEmbeddingComposite

        child = self.child
        check_qpu(self.name, dict(params, chain_strength=chain_strength,
                                  chain_strength_factor=chain_strength_factor,
                                  chain_break_method=chain_break_method,
                                  return_embedding=return_embedding))
        seed = params.get("seed")
        if "seed" in params and "seed" not in child.parameters:  # a real QPU: the embedding's
            del params["seed"]
        check_qpu_params(params, child.parameters, child.properties, self.name)
        need_finite_bqm(bqm, sampler=self.name)
        if "label" in child.parameters:
            params.setdefault("label", DEFAULT_LABEL)
        strength = resolve_chain_strength(bqm, chain_strength, chain_strength_factor)
        missing = set(bqm.variables) - set(params.get("initial_state") or bqm.variables)
        if missing:
            raise ParameterError(f"{self.name}: initial_state has no value for {len(missing)} "
                                 f"of the model's variables (e.g. {sorted(map(repr, missing))[0]})")
        if not bqm.num_variables:
            return dimod.ExactSolver().sample(bqm)
        emb = self.embed(bqm, seed)
        stats = emb.stats()
        estimate = estimate_qpu_access_time(child.properties, stats["num_qubits"], **params)
        limit = (child.properties.get("problem_run_duration_range") or [0, math.inf])[1]
        if estimate is not None and estimate > limit:
            raise ConfigError(f"this call would take about {estimate / 1e3:.0f} ms of QPU time, above "
                              f"the solver's limit of {limit / 1e3:.0f} ms; lower num_reads or "
                              "annealing_time")
        method = (chain_breaks.MinimizeEnergy(bqm, emb.embedding)
                  if chain_break_method == "minimize_energy"
                  else getattr(chain_breaks, chain_break_method or "majority_vote"))
        with cloud_errors("QPU", source=child):
            ss = FixedEmbeddingComposite(child, emb.embedding).sample(
                bqm, chain_strength=strength, chain_break_method=method,
                return_embedding=bool(return_embedding), **params)
            ss.resolve()
        rec = ss.record
        cbf = float(np.average(rec.chain_break_fraction, weights=rec.num_occurrences)) \
            if len(rec) and "chain_break_fraction" in rec.dtype.names else 0.0
        info = plain(dict(ss.info))
        info.update(stats, chain_strength=round(strength, 6), chain_break_fraction=round(cbf, 6),
                    solver=str(child.properties.get("chip_id", "")))
        if estimate is not None:
            info["estimated_qpu_access_time"] = round(estimate, 2)
        if getattr(child, "canned_timing", False):  # the emulator's timing is not measured
            info["mock_timing"] = True
        ss.info.clear()
        ss.info.update(info)
        return ss


@functools.lru_cache(maxsize=8)
def _mock_child(topology: str, shape: tuple):
    from dwave.cloud.testing.mocks import qpu_problem_timing_data
    from dwave.samplers import SimulatedAnnealingSampler
    from dwave.system.testing import MockDWaveSampler

    class _Substitute(dimod.Sampler):
        """Simulated annealing that ignores the QPU-only keywords the mock forwards to it."""

        parameters = None
        properties = None

        def __init__(self):
            self.child = SimulatedAnnealingSampler()
            self.parameters = dict(self.child.parameters)
            self.properties = {}

        def sample(self, bqm, **kwargs):
            return self.child.sample(bqm, **{k: v for k, v in kwargs.items() if k in self.parameters})

    # D-Wave's published Advantage timing model; the mock's ``timing`` is canned (the same
    # figures whatever the problem): ``canned_timing``
    child = MockDWaveSampler(topology_type=topology, topology_shape=list(shape),
                             substitute_sampler=_Substitute(), parameter_warnings=False,
                             exact_solver_cutoff=0)
    child.parameters.update(seed=[], num_sweeps=[])  # they reach the simulated annealing
    child.properties["problem_timing_data"] = qpu_problem_timing_data("advantage")
    child.canned_timing = True
    return child


def mock_child(topology: str = "pegasus", shape=None):
    """The offline QPU emulator on ``topology`` (pegasus, zephyr, chimera); one per process and shape."""
    if not isinstance(topology, str) or topology not in TOPOLOGIES:
        raise ParameterError(f"mock-qpu: topology = {topology!r}; choose from {', '.join(TOPOLOGIES)}")
    shape = TOPOLOGIES[topology] if shape is None else shape
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,) + TOPOLOGIES[topology][1:]
    given = shape
    try:
        if isinstance(shape, (str, bytes)) or any(isinstance(x, bool) or not
                                                  isinstance(x, numbers.Integral) for x in shape):
            raise ValueError("not a list of integers")
        shape = tuple(int(x) for x in shape)
        if len(shape) != len(TOPOLOGIES[topology]):
            raise ValueError(f"{len(TOPOLOGIES[topology])} values expected")
        if any(not 1 <= x <= m for x, m in zip(shape, MAX_SHAPES[topology])):
            raise ValueError(f"each value must be in 1..(at most) {list(MAX_SHAPES[topology])}")
    except (TypeError, ValueError) as e:
        raise ParameterError(f"mock-qpu: shape = {given!r} is not a valid {topology} shape "
                             f"(e.g. {list(TOPOLOGIES[topology])}): {e}") from None
    return _mock_child(topology, shape)


def subproblem_child(qpu_sampler, choices: tuple, options: dict, requires: tuple = ()):
    """The registered ``qpu_sampler`` (one of ``choices``, built from ``options``) that
    samples a composite's subproblems: a :class:`QPUSampler` in clique mode, a Leap one as
    it is.  ``requires``: modules imported first (a missing extra fails before any client)."""
    from qsudoku.samplers.registry import get_sampler

    if not isinstance(qpu_sampler, str) or qpu_sampler not in choices:
        raise ConfigError(f"qpu_sampler = {qpu_sampler!r}; choose from {', '.join(choices)}")
    for module in requires:
        importlib.import_module(module)
    child = get_sampler(qpu_sampler, **options)
    if qpu_sampler != "hybrid":
        child.clique = True
    return child


def qpu_sampler(**options):
    """``qpu``: the D-Wave QPU (:class:`~dwave.system.DWaveSampler`) behind a cached embedding."""
    local, client = split_options("qpu", options, CLIENT_OPTIONS + ("failover", "retry_interval"),
                                  _LOCAL_OPTIONS)
    import minorminer  # noqa: F401 - fail early (with the extra's name) if it is missing
    from dwave.system import DWaveSampler

    cache = _cache_from(local)
    return QPUSampler(connect("QPU", DWaveSampler, client), cache, local.get("embedding_parameters"))


def mock_qpu_sampler(topology: str = "pegasus", shape=None, **options):
    """``mock-qpu``: the offline emulator (:func:`mock_child`) behind the same embedding path."""
    local, _ = split_options("mock-qpu", options, (), _LOCAL_OPTIONS)
    import minorminer  # noqa: F401

    return QPUSampler(mock_child(topology, shape), _cache_from(local, "mock-qpu"),
                      local.get("embedding_parameters"))
