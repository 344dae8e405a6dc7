"""Minor-embeddings of a model onto a QPU graph, found with minorminer and cached on disk.

An embedding maps each logical variable to a *chain* of physical qubits.  Finding one is
the slow part of a QPU run, so it is cached under a key of what decides it: a hash of the
model's graph (sorted variables and edges, labels as JSON) and of the target graph
(:func:`target_id`).  Search settings (``timeout``, ``tries``, ``random_seed``, ...) only
decide how a *new* one is searched and are stored in the file: one model on one graph is
embedded once, and every later run on it uses that embedding (so ``qsudoku embed P`` pins
it).  ``--no-cache`` (or deleting the file, named by the key) searches anew.

Cache files are JSON, written atomically; a file that cannot be read, belongs to another
key or does not embed the model in the target graph is ignored and later overwritten.

>>> key = graph_key([("a", "b"), ("b", "c")], "target-1")
>>> key == graph_key([("c", "b"), ("b", "a")], "target-1"), key == graph_key([("a", "b")], "target-1")
(True, False)
>>> chain_stats({"a": [1, 2, 3], "b": [4]})
{'num_qubits': 4, 'longest_chain': 3, 'mean_chain_length': 2.0}
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Mapping

from qsudoku.errors import ParameterError, QSudokuError
from qsudoku.io.reading import read_regular, skip
from qsudoku.samplers.dwave.search import cannot_fit, search

__all__ = ["Embedded", "EmbeddingCache", "default_cache_dir", "graph_key", "target_id",
           "chain_stats", "is_valid_embedding", "embed_bqm", "check_embedding_parameters",
           "estimate_qpu_access_time", "MINORMINER_PARAMETERS"]

#: minorminer.find_embedding keywords accepted in ``embedding_parameters`` (with their types).
MINORMINER_PARAMETERS = {
    "timeout": (int, float), "tries": int, "random_seed": int, "chainlength_patience": int,
    "max_no_improvement": int, "threads": int, "inner_rounds": int, "max_fill": int,
    "max_beta": (int, float),
}
#: Largest embedding-cache entry read (an embedding onto the largest QPU graphs is a few MB).
MAX_ENTRY_BYTES = 64 * 1024 * 1024
_FORMAT, _VERSION = "qsudoku-embedding", 1
#: Largest value of each minorminer keyword: beyond it a search would not end in a session.
MINORMINER_MAXIMA = {"timeout": 86400, "tries": 10**4, "random_seed": 2**32 - 1,
                     "chainlength_patience": 10**6, "max_no_improvement": 10**6, "threads": 1024,
                     "inner_rounds": 10**6, "max_fill": 10**6, "max_beta": 1e6}


def check_embedding_parameters(params: Mapping | None, sampler: str = "qpu") -> dict:
    """Validate minorminer keywords (known, numbers, finite, within :data:`MINORMINER_MAXIMA`);
    returns a plain dict.

    >>> check_embedding_parameters({"tries": 10**9}, "mock-qpu")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ParameterError: mock-qpu: embedding parameter tries = 1000000000 must be a number in 1..10000
    """
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise ParameterError(f"{sampler}: embedding_parameters = {params!r} must be a table of "
                             "minorminer keywords")
    out = dict(params)
    for key, value in out.items():
        if key not in MINORMINER_PARAMETERS:
            raise ParameterError(f"{sampler}: unknown embedding parameter {key!r}; known: "
                                 f"{', '.join(sorted(MINORMINER_PARAMETERS))}")
        low, high = int(key in ("tries", "threads")), MINORMINER_MAXIMA[key]
        if (isinstance(value, bool) or not isinstance(value, MINORMINER_PARAMETERS[key])
                or not math.isfinite(value) or not low <= value <= high
                or (key == "timeout" and not value > 0)):
            bound = f"> 0 and <= {high}" if key == "timeout" else f"in {low}..{high}"
            raise ParameterError(f"{sampler}: embedding parameter {key} = {value!r} must be a "
                                 f"number {bound}")
    return out


def default_cache_dir() -> Path:
    """``$QSUDOKU_CACHE_DIR/embeddings``, else ``$XDG_CACHE_HOME`` or ``~/.cache``, ``/qsudoku/embeddings``."""
    root = os.environ.get("QSUDOKU_CACHE_DIR")
    if root:
        return Path(root).expanduser() / "embeddings"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "qsudoku" / "embeddings"


def _jsonable_label(v):
    if isinstance(v, (tuple, list)):
        return [_jsonable_label(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        return v.item()  # numpy scalars
    return v


def _canon(v: Hashable) -> str:
    """A label as canonical JSON text (tuples and lists alike), the unit of hashing and storage."""
    return json.dumps(_jsonable_label(v), sort_keys=True, separators=(",", ":"))


def _sha(parts: Iterable[str]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\n")
    return h.hexdigest()


def graph_key(edges: Iterable[tuple], target: str, nodes: Iterable[Hashable] = ()) -> str:
    """Cache key of a logical graph (``edges`` plus isolated ``nodes``) on ``target``.

    Independent of edge direction and order; a 64-hex-digit SHA-256.
    """
    node_set = {_canon(v) for v in nodes}
    edge_set = set()
    for u, v in edges:
        a, b = sorted((_canon(u), _canon(v)))
        node_set.update((a, b))
        if a != b:
            edge_set.add(f"{a}|{b}")
    return _sha(["v1", target, "nodes", *sorted(node_set), "edges", *sorted(edge_set)])


def target_id(sampler) -> str:
    """Identity of a structured sampler's working graph: topology, shape, chip and a graph hash.

    Two solvers with the same topology but different broken qubits get different ids.
    The id is remembered on the sampler object (it hashes tens of thousands of couplers).
    """
    cached = getattr(sampler, "_qsudoku_target_id", None)
    if cached:
        return cached
    import numpy as np

    props = getattr(sampler, "properties", {}) or {}
    topo = props.get("topology", {}) or {}
    chip = props.get("chip_id") or getattr(getattr(sampler, "solver", None), "name", "") or ""
    try:  # D-Wave qubits are integers: hash sorted arrays
        nodes = np.sort(np.asarray(list(sampler.nodelist), dtype=np.int64))
        edges = np.sort(np.asarray(list(sampler.edgelist), dtype=np.int64).reshape(-1, 2), axis=1)
        edges = edges[np.lexsort((edges[:, 1], edges[:, 0]))] if len(edges) else edges
        h = hashlib.sha256(nodes.tobytes())
        h.update(b"|")
        h.update(np.ascontiguousarray(edges).tobytes())
    except (TypeError, ValueError):  # any other labels: canonical JSON text
        h = hashlib.sha256(_sha(sorted(map(_canon, sampler.nodelist))).encode())
        h.update(_sha(sorted("|".join(sorted(map(_canon, e))) for e in sampler.edgelist)).encode())
    ident = f"{topo.get('type', 'unknown')}{list(topo.get('shape', []))}:{chip}:{h.hexdigest()[:16]}"
    with contextlib.suppress(AttributeError):
        sampler._qsudoku_target_id = ident
    return ident


def chain_stats(embedding: Mapping) -> dict:
    """Qubits used, longest chain and mean chain length of an embedding."""
    lengths = [len(c) for c in embedding.values()]
    if not lengths:
        return {"num_qubits": 0, "longest_chain": 0, "mean_chain_length": 0.0}
    return {"num_qubits": sum(lengths), "longest_chain": max(lengths),
            "mean_chain_length": round(sum(lengths) / len(lengths), 4)}


def is_valid_embedding(embedding: Mapping, source_edges: Iterable[tuple], variables: Iterable,
                       target_adjacency: Mapping) -> bool:
    """True iff every variable has a non-empty connected chain of target qubits, the chains are
    disjoint, and every source edge has a coupler between its two chains.

    >>> adj = {0: {1}, 1: {0, 2}, 2: {1}}
    >>> is_valid_embedding({"a": [0, 1], "b": [2]}, [("a", "b")], "ab", adj)
    True
    >>> is_valid_embedding({"a": [0], "b": [2]}, [("a", "b")], "ab", adj)
    False
    """
    owner = {}
    for v in variables:
        chain = embedding.get(v)
        if not chain:
            return False
        for q in chain:
            if q not in target_adjacency or q in owner:
                return False
            owner[q] = v
        seen, todo = {chain[0]}, [chain[0]]
        members = set(chain)
        while todo:
            for n in target_adjacency[todo.pop()]:
                if n in members and n not in seen:
                    seen.add(n)
                    todo.append(n)
        if len(seen) != len(members):
            return False
    for u, v in source_edges:
        if u == v:
            continue
        if u not in embedding or v not in embedding:
            return False
        cv = set(embedding[v])
        if not any(n in cv for q in embedding[u] for n in target_adjacency[q]):
            return False
    return True


@dataclass
class EmbeddingCache:
    """A directory of embedding files, one JSON file per key.

    Attributes:
        directory: Where the files live (created on first write).
    """

    directory: Path = field(default_factory=default_cache_dir)

    def __post_init__(self):
        self.directory = Path(self.directory).expanduser()

    def path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def load(self, key: str) -> dict | None:
        """The stored record of ``key``, or ``None`` if absent or unreadable (never raises).

        An entry that is not a regular file or is larger than :data:`MAX_ENTRY_BYTES` is a
        miss, said in one :class:`~qsudoku.io.reading.SkippedFileWarning`.
        """
        try:
            raw = read_regular(self.path(key), MAX_ENTRY_BYTES, "embedding cache entry")
        except QSudokuError as e:
            skip(e, "the embedding is found anew")
            return None
        if raw is None:
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            return None
        if not (isinstance(data, dict) and data.get("format") == _FORMAT
                and data.get("version") == _VERSION and data.get("key") == key
                and isinstance(data.get("chains"), list)):
            return None
        return data

    def store(self, key: str, record: Mapping) -> Path | None:
        """Write ``record`` atomically; returns the path, or ``None`` if the directory is not writable."""
        data = {"format": _FORMAT, "version": _VERSION, "key": key, **record}
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=self.directory)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(data, f, separators=(",", ":"))
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path(key))
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            return None  # a read-only cache must not stop a run
        return self.path(key)


@dataclass
class Embedded:
    """An embedding of one model and how it was obtained.

    Attributes:
        embedding: ``{variable: [qubits]}`` (empty if none was found).
        key: The cache key.
        target: :func:`target_id` of the target graph.
        seconds: Time minorminer took to find it (the stored time on a cache hit).
        cache_hit: True if it came from the cache.
        num_variables: Logical variables of the model.
        why: Why none was found, when known (the model cannot fit, minorminer refused,
            a bounded search ran out of time); else ``""``.
    """

    embedding: dict
    key: str
    target: str
    seconds: float
    cache_hit: bool
    num_variables: int
    why: str = ""

    @property
    def found(self) -> bool:
        return bool(self.embedding) or self.num_variables == 0

    def stats(self) -> dict[str, Any]:
        """JSON-ready summary (what ``sampleset.info`` and ``qsudoku embed`` report)."""
        return {"num_variables": self.num_variables, **chain_stats(self.embedding),
                "embedding_time": round(self.seconds, 4), "embedding_cache_hit": self.cache_hit,
                "embedding_key": self.key[:16], "target": self.target}


def embed_bqm(bqm, sampler, cache: EmbeddingCache | None = None, *,
              parameters: Mapping | None = None, target: str | None = None,
              adjacency: Mapping | None = None, bounded: bool = False,
              on_search: Callable[[], object] | None = None) -> Embedded:
    """Embed ``bqm``'s graph into structured ``sampler`` (cached when ``cache`` is given).

    Args:
        bqm: The logical model (any vartype).
        sampler: A structured sampler (``nodelist``, ``edgelist``, ``properties``).
        cache: Where to look first and store new embeddings (``None`` = no cache).
        parameters: minorminer keywords (see :data:`MINORMINER_PARAMETERS`).
        target: Precomputed :func:`target_id` of ``sampler`` (computed if ``None``).
        adjacency: ``{qubit: set(neighbours)}`` of ``sampler`` (default its ``adjacency``).
        bounded: Hold the search to its ``timeout`` (minorminer's counts only after its
            initialization): see :func:`~qsudoku.samplers.dwave.search.search`.
        on_search: Called once just before minorminer searches (the cache did not hold
            the embedding), e.g. to say that a long search starts.

    Returns:
        An :class:`Embedded`; ``embedded.found`` is False if minorminer failed, refused,
        or the model cannot fit the graph (``embedded.why`` says which, when known).
    """
    params = check_embedding_parameters(parameters)
    target = target or target_id(sampler)
    variables = list(bqm.variables)
    adjacency = sampler.adjacency if adjacency is None else adjacency
    why = cannot_fit(len(variables), bqm.num_interactions, len(adjacency),
                     sum(map(len, adjacency.values())) // 2)
    if why:  # no search, nothing to cache (and no key: hashing a big graph takes seconds)
        return Embedded({}, "", target, 0.0, False, len(variables), why)
    edges = list(bqm.quadratic)
    key = graph_key(edges, target, variables)  # not the search settings: see the module
    if not variables:
        return Embedded({}, key, target, 0.0, False, 0)
    n = len(variables)

    def valid(emb) -> bool:
        return emb is not None and len(emb) == n and is_valid_embedding(emb, edges, variables,
                                                                         adjacency)

    record = cache.load(key) if cache is not None else None
    if record is not None:
        by_canon = {_canon(v): v for v in variables}
        try:
            emb = {by_canon[_canon(lbl)]: list(chain) for lbl, chain in record["chains"]}
        except (KeyError, TypeError, ValueError):
            emb = None
        if valid(emb):
            return Embedded(emb, key, target, float(record.get("embedding_time", 0.0)), True, n)
    if on_search is not None:
        on_search()
    emb, seconds, why = search(edges + [(v, v) for v in variables], list(sampler.edgelist),
                               params, bounded=bounded)
    if emb is None or not valid(emb):
        return Embedded({}, key, target, seconds, False, n, why)  # never cached
    if cache is not None:
        cache.store(key, {
            "target": target, "num_variables": n, "embedding_time": round(seconds, 4),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "parameters": params,
            **chain_stats(emb), "chains": [[_jsonable_label(v), emb[v]] for v in variables]})
    return Embedded(emb, key, target, seconds, False, n)


def estimate_qpu_access_time(properties: Mapping, num_qubits: int, **params) -> float | None:
    """Estimated QPU access time (microseconds) of one call, from the solver's
    ``problem_timing_data`` (``None`` if the solver does not publish it).

    Uses dwave-cloud-client's own estimator; only timing-related ``params``
    (``num_reads``, ``annealing_time``, ``anneal_schedule``, thermalization times, ...) matter.
    """
    if not properties.get("problem_timing_data") or num_qubits <= 0:
        return None
    from types import SimpleNamespace

    from dwave.cloud.solver import StructuredSolver

    keys = ("num_reads", "annealing_time", "anneal_schedule", "initial_state", "reinitialize_state",
            "programming_thermalization", "readout_thermalization",
            "reduce_intersample_correlation")
    kwargs = {k: params[k] for k in keys if params.get(k) is not None}
    try:
        return float(StructuredSolver.estimate_qpu_access_time(
            SimpleNamespace(properties=properties), num_qubits, **kwargs))
    except (KeyError, ValueError, TypeError):
        return None
