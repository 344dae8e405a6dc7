"""Leap hybrid backends: ``hybrid`` (the BQM), ``hybrid-cqm`` and ``hybrid-nl``.

``hybrid`` sends the BQM to :class:`dwave.system.LeapHybridSampler`; ``hybrid-cqm`` sends
:class:`dwave.system.LeapHybridCQMSampler` a constrained model whose one-hot groups are
constraints (:func:`cqm_from_groups`); ``hybrid-nl`` sends
:class:`dwave.system.LeapHybridNLSampler` a nonlinear model with one integer per open
cell (:func:`~qsudoku.samplers.dwave.nl_model.build_nl_model`).  All answer with a
:class:`dimod.SampleSet` over the BQM's variables.  The factories read D-Wave's
configuration but build no client: the Leap sampler is made on the first :meth:`sample`
call, after the model has passed Leap's published size limits (:mod:`.limits`), and the
model is checked again against that solver's own limits before it is sent; a model over a
limit is a :class:`~qsudoku.errors.ModelTooLargeError` and costs no network call.

>>> bqm = dimod.BQM({"a": -1, "b": -1}, {"ab": 2}, 1, "BINARY")
>>> sorted(cqm_from_groups(bqm, [("cell", ["a", "b"])]).discrete)
['cell_0']
"""

from __future__ import annotations

import dimod
import numpy as np

from qsudoku.errors import BackendUnavailableError, ConfigError, ParameterError
from qsudoku.samplers.dwave.checks import refuse_unknown
from qsudoku.samplers.dwave.cloud import (DEFAULT_LABEL, check_credentials, cloud_errors, connect,
                                          plain, split_options)
from qsudoku.samplers.dwave.limits import PARAMETERS, PUBLISHED, bqm_size, check_size, cqm_size
from qsudoku.samplers.dwave.nl_model import build_nl_model, model_size
from qsudoku.samplers.onehot import groups_of
from qsudoku.samplers.params import is_finite
from qsudoku.checks import need_time_limit
from qsudoku.samplers.reads import as_binary, empty_sampleset

__all__ = ["HybridSampler", "HybridCQMSampler", "HybridNLSampler", "cqm_from_groups",
           "hybrid_sampler", "hybrid_cqm_sampler", "hybrid_nl_sampler"]


def _time_limit(time_limit, minimum: float, properties) -> float:
    if time_limit is None:
        return minimum
    if not is_finite(time_limit):
        raise ConfigError(f"time_limit = {time_limit!r} must be a number of seconds")
    if time_limit < minimum:
        raise ConfigError(f"time_limit = {time_limit!r} s is below the solver's minimum of "
                          f"{minimum:g} s for this model")
    hours = properties.get("maximum_time_limit_hrs")
    if hours and time_limit > hours * 3600:
        raise ConfigError(f"time_limit = {time_limit!r} s is above the solver's maximum of {hours:g} h")
    return float(time_limit)


class _Hybrid(dimod.Sampler):
    """A Leap hybrid sampler: ``child`` (a connected Leap sampler), or ``connect`` (a
    function returning one, called once, when the first model has passed the published
    limits).  Until then ``parameters`` are the documented ones and ``properties`` hold
    the published limits."""

    parameters = None
    properties = None
    what = "hybrid"
    name = "hybrid"
    takes_groups = False
    leap = "LeapHybridSampler"  # the dwave.system class
    method, min_method = "sample", "min_time_limit"  # its call, and its minimum time limit

    def __init__(self, child=None, connect=None):
        if child is None and connect is None:
            raise TypeError(f"{type(self).__name__} needs a Leap sampler or a connect function")
        self._child, self._connect, self._failed = child, connect, None
        if child is not None:
            self.parameters = dict(child.parameters)
            self.properties = dict(child.properties)
        else:
            self.parameters = {k: [] for k in PARAMETERS[self.name]}
            self.properties = {"published_limits": dict(PUBLISHED[self.name])}
        self.parameters.setdefault("time_limit", [])
        if self.takes_groups:
            self.parameters["groups"] = []

    @property
    def child(self):
        """The Leap sampler (connected on first use)."""
        if self._child is None:
            if self._failed is not None:  # one failed connection per sampler, not per puzzle
                raise self._failed
            try:
                self._child = self._connect()
            except BackendUnavailableError as e:
                self._failed = e
                raise
            self.properties = dict(self._child.properties)
        return self._child

    def _send(self, model, size: dict, time_limit, params: dict, read=None):
        """Send ``model`` once ``size`` fits the published limits, then the solver's own;
        returns ``(answer, time limit, the solver's minimum)``.  The answer is read inside
        the cloud errors: ``read(answer)``, else resolved."""
        check_size(self.name, size, PUBLISHED[self.name], "published")
        child = self.child
        solver = getattr(getattr(child, "solver", None), "name", None) or "the solver"
        check_size(self.name, size, child.properties, f"{solver}'s limit")
        if "label" in (self.parameters or {}):
            params.setdefault("label", DEFAULT_LABEL)
        minimum = float(getattr(child, self.min_method)(model))
        limit = _time_limit(time_limit, minimum, child.properties)
        with cloud_errors(self.what, source=child):
            answer = getattr(child, self.method)(model, time_limit=limit, **params)
            if read is None:
                answer.resolve()
            else:
                answer = read(answer)
        return answer, limit, minimum

    def _finish(self, ss, time_limit, minimum, **extra):
        info = plain(dict(ss.info))
        info.update(time_limit=time_limit, min_time_limit=round(minimum, 4), **extra,
                    solver=str(getattr(getattr(self.child, "solver", None), "name", "") or ""))
        ss.info.clear()
        ss.info.update(info)
        return ss


class HybridSampler(_Hybrid):
    """:class:`~dwave.system.LeapHybridSampler` on the BQM; ``time_limit`` defaults to the solver's
    minimum for the model.  ``info`` carries the solver's timing (``qpu_access_time``,
    ``run_time``, ``charge_time``, microseconds) and the time limit used."""

    def sample(self, bqm, time_limit=None, **params):
        return self._finish(*self._send(bqm, bqm_size(bqm), time_limit, params))


def _fit_kind_weights(bqm, groups) -> dict:
    """One weight per kind such that ``bqm ~ sum_g w_kind(g) (sum q - 1)**2`` (least squares).

    Each variable's linear bias is ``-sum w`` over its groups and each pair's quadratic
    bias ``2 sum w`` over the groups holding both, so both kinds of bias enter the fit
    (linear biases alone cannot tell rows from boxes when every cell is in one of each).
    """
    kinds = sorted({kind for kind, _ in groups})
    if not kinds:
        return {}
    col = {k: j for j, k in enumerate(kinds)}
    index = {v: i for i, v in enumerate(bqm.variables)}
    lin = np.zeros((len(index), len(kinds)))
    pairs: dict = {}
    for kind, labels in groups:
        ids = sorted(index[v] for v in labels)
        lin[ids, col[kind]] -= 1.0
        for a in range(len(ids)):
            for b in range(a + 1, len(ids)):
                pairs.setdefault((ids[a], ids[b]), np.zeros(len(kinds)))[col[kind]] += 2.0
    labels = list(bqm.variables)
    quad = np.array(list(pairs.values())) if pairs else np.zeros((0, len(kinds)))
    a = np.vstack([lin, quad])
    b = np.concatenate([[bqm.get_linear(v) for v in labels],
                        [bqm.get_quadratic(labels[i], labels[j], default=0.0) for i, j in pairs]])
    w = np.linalg.lstsq(a, b, rcond=None)[0]
    return {k: float(w[col[k]]) for k in kinds}


def cqm_from_groups(bqm, groups):
    """A CQM whose constraints are the one-hot ``groups`` and whose objective is what remains.

    Cell groups (disjoint) become discrete constraints; the unit groups become
    ``sum == 1`` constraints.  The objective is the BQM minus ``w (sum q - 1)**2`` for
    each group, with one weight per kind fitted to the BQM, so for a qsudoku model it
    is empty; whatever the fit, the objective equals the BQM on every feasible sample.

    >>> bqm = dimod.BQM({"a": -1, "b": -1}, {"ab": 2}, 1, "BINARY")
    >>> cqm = cqm_from_groups(bqm, [("cell", ["a", "b"])])
    >>> len(cqm.objective.quadratic), len(cqm.objective.linear), sorted(cqm.discrete)
    (0, 0, ['cell_0'])
    """
    objective = dimod.BinaryQuadraticModel(bqm)
    if objective.vartype is not dimod.BINARY:
        objective.change_vartype(dimod.BINARY, inplace=True)
    groups = [(kind, list(labels)) for kind, labels in groups]
    weights = _fit_kind_weights(objective, groups)
    for kind, labels in groups:
        if weights[kind] and labels:
            objective.add_linear_equality_constraint([(v, 1.0) for v in labels], -weights[kind], -1.0)
    scale = max([abs(x) for x in bqm.linear.values()] + [abs(x) for x in bqm.quadratic.values()] + [1.0])
    tol = 1e-9 * scale
    pruned = dimod.BinaryQuadraticModel(
        {v: b for v, b in objective.linear.items() if abs(b) > tol},
        {uv: b for uv, b in objective.quadratic.items() if abs(b) > tol},
        objective.offset if abs(objective.offset) > tol else 0.0, dimod.BINARY)
    cqm = dimod.ConstrainedQuadraticModel()
    cqm.add_variables(dimod.BINARY, list(bqm.variables))
    cqm.set_objective(pruned)
    discrete: set = set()
    for i, (kind, labels) in enumerate(groups):
        if kind == "cell" and labels and discrete.isdisjoint(labels):
            cqm.add_discrete(labels, label=f"cell_{i}")
            discrete.update(labels)
        else:
            cqm.add_constraint_from_iterable([(v, 1) for v in labels], "==", rhs=1, label=f"{kind}_{i}")
    return cqm


class HybridCQMSampler(_Hybrid):
    """:class:`~dwave.system.LeapHybridCQMSampler` on :func:`cqm_from_groups` of the BQM.

    Takes the model's one-hot ``groups`` (the pipeline passes them); returns a
    :class:`dimod.SampleSet` over the BQM's ``(r, c, d)`` variables with BQM energies
    (so it decodes like any other sampler) and an ``is_feasible`` field.
    """

    what = "hybrid CQM"
    name = "hybrid-cqm"
    takes_groups = True
    leap, method = "LeapHybridCQMSampler", "sample_cqm"

    def sample(self, bqm, groups=None, time_limit=None, **params):
        cqm = cqm_from_groups(bqm, groups or [])
        res, limit, minimum = self._send(cqm, cqm_size(cqm), time_limit, params)
        pos = {v: i for i, v in enumerate(res.variables)}
        rec = res.record
        samples = rec.sample[:, [pos[v] for v in bqm.variables]] if len(bqm.variables) else \
            np.zeros((len(rec), 0), np.int8)
        vectors = {"is_feasible": rec.is_feasible} if "is_feasible" in rec.dtype.names else {}
        ss = dimod.SampleSet.from_samples_bqm((samples, list(bqm.variables)), bqm,
                                              num_occurrences=rec.num_occurrences, **vectors,
                                              info=dict(res.info))
        feasible = float(np.mean(rec.is_feasible)) if vectors and len(rec) else None
        return self._finish(ss, limit, minimum, num_constraints=len(cqm.constraints),
                            num_discrete=len(cqm.discrete), feasible_fraction=feasible)


class HybridNLSampler(_Hybrid):
    """:class:`~dwave.system.LeapHybridNLSampler` on the nonlinear model of the one-hot ``groups``.

    Parameters, checked before any network call: ``groups`` (recognised from the BQM if not
    given), ``time_limit`` (default: the solver's estimated minimum for the model),
    ``label`` (default ``"qsudoku"``) and whatever else the solver lists.  Returns one row
    per state the solver returned, with BQM energies and an ``is_feasible`` field.
    """

    what = "hybrid NL"
    name = "hybrid-nl"
    takes_groups = True
    leap, min_method = "LeapHybridNLSampler", "estimated_min_time_limit"

    def sample(self, bqm, groups=None, time_limit=None, **params):
        refuse_unknown("hybrid-nl", params, self.parameters)
        need_time_limit(time_limit, sampler="hybrid-nl")
        if not len(bqm.variables):
            return empty_sampleset(bqm)
        nl = build_nl_model(groups_of(as_binary(bqm), groups, "hybrid-nl"))
        if set(nl.variables) != set(bqm.variables):
            raise ParameterError("hybrid-nl: the cell groups do not cover exactly the BQM's "
                                 "variables")
        size = model_size(nl.model)

        def read(future):  # the states are read from the answer when first used
            return (future.result(), nl.samples(),
                    [i for i in range(nl.model.states.size()) if nl.choice.has_state(i)])

        (result, rows, states), limit, minimum = self._send(nl.model, size, time_limit, params,
                                                            read)
        feasible = np.array([bool(nl.model.feasible(i)) for i in states], dtype=bool)
        pos = {v: i for i, v in enumerate(nl.variables)}
        rows = rows[:, [pos[v] for v in bqm.variables]]
        if bqm.vartype is dimod.SPIN:
            rows = 2 * rows - 1
        ss = dimod.SampleSet.from_samples_bqm((rows, list(bqm.variables)), bqm,
                                              is_feasible=feasible, info=dict(result.info))
        return self._finish(ss, limit, minimum, num_units=nl.num_units, model_size=size,
                            feasible_fraction=float(feasible.mean()) if len(feasible) else None)


def _factory(cls, options: dict):
    """``cls`` over the Leap sampler ``dwave.system.<cls.leap>``, connected on first use."""
    _, client = split_options(cls.name, options)
    import dwave.system

    check_credentials(cls.what, client)
    return cls(connect=lambda: connect(cls.what, getattr(dwave.system, cls.leap), client))


def hybrid_sampler(**options):
    """``hybrid``: Leap's hybrid BQM solver (needs a token)."""
    return _factory(HybridSampler, options)


def hybrid_cqm_sampler(**options):
    """``hybrid-cqm``: Leap's hybrid CQM solver on the one-hot groups (needs a token)."""
    return _factory(HybridCQMSampler, options)


def hybrid_nl_sampler(**options):
    """``hybrid-nl``: Leap's nonlinear solver, an integer per open cell (needs a token)."""
    return _factory(HybridNLSampler, options)
