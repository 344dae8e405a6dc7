"""``kerberos``: dwave-hybrid's Kerberos workflow, its QPU branch on our embedding path.

:class:`hybrid.KerberosSampler` races tabu search, simulated annealing and a QPU branch
(the highest energy-impact variables sampled on the QPU and spliced back) until
``max_iter``, ``convergence`` iterations without improvement, or ``energy_threshold``.
The QPU branch here is a :class:`~qsudoku.samplers.dwave.QPUSampler` in clique-embedding
mode, the real QPU or, offline, ``mock-qpu`` (``--option qpu_sampler=mock-qpu``).
``info`` counts the QPU calls and sums their estimated QPU access time.
"""

from __future__ import annotations

import dimod

from qsudoku.errors import ConfigError, ParameterError
from qsudoku.samplers.dwave.checks import KERBEROS_PARAMS, check_kerberos
from qsudoku.samplers.dwave.cloud import plain
from qsudoku.samplers.dwave.qpu import subproblem_child

__all__ = ["KerberosQPUSampler", "CountingSampler", "kerberos_sampler", "KERBEROS_PARAMS"]


class CountingSampler(dimod.Sampler):
    """Passes calls to ``child`` and keeps the QPU statistics of every call in ``stats``."""

    parameters = None
    properties = None

    def __init__(self, child):
        self.child = child
        self.parameters = dict(child.parameters)
        self.properties = dict(getattr(child, "properties", {}))
        self.reset()

    def reset(self) -> None:
        self.stats = {"qpu_calls": 0, "max_subproblem_variables": 0, "longest_chain": 0,
                      "estimated_qpu_access_time": 0.0}

    def sample(self, bqm, **params):
        ss = self.child.sample(bqm, **params)
        s, info = self.stats, ss.info
        s["qpu_calls"] += 1
        s["max_subproblem_variables"] = max(s["max_subproblem_variables"], bqm.num_variables)
        s["longest_chain"] = max(s["longest_chain"], int(info.get("longest_chain", 0) or 0))
        s["estimated_qpu_access_time"] += float(info.get("estimated_qpu_access_time", 0) or 0)
        return ss


class KerberosQPUSampler(dimod.Sampler):
    """:class:`hybrid.KerberosSampler` with ``qpu_sampler`` fixed to ``child`` (counted).

    ``seed`` seeds numpy's global generator, which dwave-hybrid's random initial
    states and decomposers use (the race between branches still depends on timing).
    Every parameter, ``qpu_params`` included, is checked before any work
    (:func:`~qsudoku.samplers.dwave.checks.check_kerberos`; the ``qpu_params`` names
    against the QPU sampler's parameters, since dwave-system would drop unknown ones).
    """

    parameters = None
    properties = None

    def __init__(self, child):
        from hybrid.reference import KerberosSampler

        self.counter = CountingSampler(child)
        self.kerberos = KerberosSampler()
        self.parameters = {k: [] for k in KERBEROS_PARAMS}
        self.properties = {"qpu_properties": self.counter.properties}

    def sample(self, bqm, seed=None, **params):
        if "qpu_sampler" in params:
            raise ConfigError("qpu_sampler is an option of the kerberos backend "
                              "(--option qpu_sampler=NAME), not a sampling parameter")
        check_kerberos("kerberos", {**params, "seed": seed})
        unknown = sorted(set(params.get("qpu_params") or ()) - set(self.counter.parameters))
        if unknown:  # dwave-system's AutoEmbeddingComposite would drop them silently
            takes = sorted(set(self.counter.parameters) - {"num_reads"})
            raise ParameterError(
                f"kerberos: qpu_params has unknown parameter(s) {', '.join(unknown)}; the QPU "
                f"sampler accepts: {', '.join(takes)}")
        if not bqm.num_variables:
            return dimod.SampleSet.from_samples(([], []), bqm.vartype, [], info={"qpu_calls": 0})
        if seed is not None:
            import numpy as np

            np.random.seed(int(seed) % 2 ** 32)
        self.counter.reset()
        ss = self.kerberos.sample(bqm, qpu_sampler=self.counter, **params)
        ss.info.update(plain(self.counter.stats))
        return ss


def kerberos_sampler(qpu_sampler: str = "qpu", **options):
    """``kerberos``: :class:`KerberosQPUSampler` over the registered ``qpu_sampler``."""
    return KerberosQPUSampler(subproblem_child(qpu_sampler, ("qpu", "mock-qpu"), options,
                                               requires=("hybrid",)))
