"""Leap's published size limits, checked before a model goes to (or near) a Leap solver.

Leap refuses a problem over its solver's size limits only after the upload, and a big
grid's model is large (a blank 49x49 one-hot model has 117,649 variables and 10.6 M
interactions).  So ``hybrid``, ``hybrid-cqm`` and ``hybrid-nl`` check the model twice
before anything is sent: against :data:`PUBLISHED`, the limits D-Wave documents, before
a client is built (no network, no token); then against the solver's own ``maximum_*``
properties, once a solver is known (they may differ and change between versions).

A model over a limit is a :class:`~qsudoku.errors.ModelTooLargeError` (exit 2): one line
naming the model's size, the limit and where the limit comes from.  :data:`SOURCES` names
the documentation of each solver's published figures.

>>> import dimod
>>> bqm_size(dimod.BQM({"a": 1, "b": 1}, {"ab": 2}, 0, "BINARY"))
{'variables': 2, 'biases': 3}
>>> check_size("hybrid", {"variables": 1_200_000, "biases": 5}, PUBLISHED["hybrid"], "published")
Traceback (most recent call last):
...
qsudoku.errors.ModelTooLargeError: the model is too large for Leap's hybrid solver: 1,200,000 variables > maximum_number_of_variables 1,000,000 (published limit); solve a smaller puzzle or propagate more (--rules)
"""

from __future__ import annotations

from typing import Mapping

from qsudoku.errors import ModelTooLargeError

__all__ = ["PUBLISHED", "SOURCES", "MEASURES", "PARAMETERS", "bqm_size", "cqm_size",
           "check_size"]

#: Per sampler, the limits D-Wave publishes for its solver (property name -> value).
PUBLISHED: dict[str, dict[str, int]] = {
    "hybrid": {"maximum_number_of_variables": 1_000_000,
               "maximum_number_of_biases": 200_000_000},
    "hybrid-cqm": {"maximum_number_of_biases": 750_000_000,
                   "maximum_number_of_constraints": 100_000,
                   "maximum_number_of_quadratic_variables": 15_000_000},
    "hybrid-nl": {"maximum_number_of_nodes": 2_000_000,
                  "maximum_state_size": 786_432_000,
                  "maximum_decision_state_size": 52_428_800},
}

#: Where each sampler's published limits are documented (the solver they describe).
SOURCES: dict[str, str] = {
    "hybrid": "hybrid_binary_quadratic_model_version2, docs.dwavequantum.com/en/latest/"
              "industrial_optimization/solver_bqm_properties.html",
    "hybrid-cqm": "hybrid_constrained_quadratic_model_version1, docs.dwavequantum.com/en/"
                  "latest/industrial_optimization/solver_cqm_properties.html",
    "hybrid-nl": "hybrid_nonlinear_program_version1, docs.dwavequantum.com/en/latest/"
                 "industrial_optimization/solver_nl_properties.html",
}

#: The size of a model each limit bounds (the keys of :func:`bqm_size`, :func:`cqm_size`
#: and :func:`~qsudoku.samplers.dwave.nl_model.model_size`): the property's name without
#: ``maximum_`` and ``number_of_``.
MEASURES: dict[str, str] = {prop: prop.removeprefix("maximum_").removeprefix("number_of_")
                            for limits in PUBLISHED.values() for prop in limits}

#: The sampling parameters each solver documents (before a solver is known, the ones
#: a plan accepts; the solver's own list replaces them once it is).
PARAMETERS: dict[str, tuple[str, ...]] = {name: ("time_limit", "label") for name in PUBLISHED}


def bqm_size(bqm) -> dict:
    """The sizes of a BQM that Leap's BQM solver bounds: variables, and biases (linear
    plus quadratic, as ``maximum_number_of_biases`` counts them)."""
    n = int(bqm.num_variables)
    return {"variables": n, "biases": n + int(bqm.num_interactions)}


def cqm_size(cqm) -> dict:
    """The sizes of a CQM that Leap's CQM solver bounds.

    >>> import dimod
    >>> cqm = dimod.ConstrainedQuadraticModel()
    >>> cqm.add_variables("BINARY", ["a", "b"])
    >>> _ = cqm.add_constraint_from_iterable([("a", 1), ("b", 1)], "==", rhs=1)
    >>> cqm_size(cqm)
    {'variables': 2, 'constraints': 1, 'biases': 2, 'quadratic_variables': 0}
    """
    return {"variables": len(cqm.variables), "constraints": len(cqm.constraints),
            "biases": int(cqm.num_biases()),
            "quadratic_variables": int(cqm.num_quadratic_variables(include_objective=True))}


def check_size(sampler: str, size: Mapping, limits: Mapping, where: str) -> None:
    """Raise :class:`~qsudoku.errors.ModelTooLargeError` if ``size`` is over one of
    ``limits`` (solver property -> most; others ignored) from ``where`` (``"published"``
    or the solver's name).

    >>> check_size("hybrid-nl", {"nodes": 70_000}, {"maximum_number_of_nodes": 65_536}, "solver x")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ModelTooLargeError: the model is too large for Leap's hybrid-nl solver: 70,000 nodes > maximum_number_of_nodes 65,536 (solver x); solve a smaller puzzle or propagate more (--rules)
    """
    for prop, key in MEASURES.items():
        most = limits.get(prop) if isinstance(limits, Mapping) else None
        if most is not None and key in size and not isinstance(most, bool) and size[key] > most:
            raise ModelTooLargeError(
                f"the model is too large for Leap's {sampler} solver: {size[key]:,} "
                f"{key.replace('_', ' ')} > "
                f"{prop} {most:,} ({where}{' limit' if where == 'published' else ''}); "
                "solve a smaller puzzle or propagate more (--rules)")
