"""The reduced puzzle as a ``dwave-optimization`` nonlinear model, for Leap's NL solver.

The model has one integer decision per open cell (a ``cell`` group): the position of its
digit among its candidates, so the cell's own constraint holds by construction.  Each BQM
variable ``(r, c, d)`` is the indicator ``choice[cell] == position of d``, and every other
group is the constraint "exactly one of its indicators is 1" (an AllDifferent per unit).
The objective, ``(count - 1)**2`` summed over those groups, is 0 exactly on a valid grid,
so the solver is guided while a state is infeasible.  A one-hot sample and a decision
state translate both ways (:meth:`NLModel.set_state`, :meth:`NLModel.samples`).
``dwave.optimization`` is imported only when a model is built.

>>> groups = [("cell", [(0, 0, 1), (0, 0, 2)]), ("cell", [(0, 1, 1), (0, 1, 2)]),
...           ("row", [(0, 0, 1), (0, 1, 1)]), ("row", [(0, 0, 2), (0, 1, 2)])]
>>> nl = build_nl_model(groups)
>>> nl.model.num_decisions(), len(nl.variables), nl.num_units
(1, 4, 2)
>>> nl.set_state(0, {(0, 0, 1): 1, (0, 0, 2): 0, (0, 1, 1): 0, (0, 1, 2): 1})
>>> nl.set_state(1, {(0, 0, 1): 1, (0, 0, 2): 0, (0, 1, 1): 1, (0, 1, 2): 0})
>>> [(bool(nl.model.feasible(i)), float(nl.model.objective.state(i))) for i in range(2)]
[(True, 0.0), (False, 2.0)]
>>> nl.samples().tolist()
[[1, 0, 0, 1], [1, 0, 1, 0]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from qsudoku.errors import ParameterError

__all__ = ["NLModel", "build_nl_model", "model_size"]


@dataclass(frozen=True)
class NLModel:
    """A built model and what decodes it.

    Attributes:
        model: The :class:`dwave.optimization.Model` (locked).
        choice: Its one decision: per open cell, the position of its digit among its candidates.
        variables: The BQM labels, in the order of ``cell_of`` and ``position``.
        cell_of: Per variable, the index of its cell in ``choice``.
        position: Per variable, its digit's position among the cell's candidates.
        num_units: How many unit groups are constraints.
    """

    model: Any
    choice: Any
    variables: list
    cell_of: np.ndarray
    position: np.ndarray
    num_units: int

    def set_state(self, index: int, sample: Mapping) -> None:
        """Set state ``index`` (growing the states if needed) from a one-hot ``sample``.

        Raises:
            ParameterError: A cell of ``sample`` is not exactly one-hot.
        """
        x = np.array([sample[v] for v in self.variables], dtype=np.int64)
        hot = np.bincount(self.cell_of, weights=x, minlength=len(self.choice_sizes))
        if not np.all(hot == 1):
            cell = int(np.flatnonzero(hot != 1)[0])
            raise ParameterError(f"hybrid-nl: cell {cell} of the sample is not one-hot "
                                 f"({int(hot[cell])} digits set)")
        state = np.zeros(len(hot))
        state[self.cell_of[x == 1]] = self.position[x == 1]
        if self.model.states.size() <= index:
            self.model.states.resize(index + 1)
        self.choice.set_state(index, state)

    @property
    def choice_sizes(self) -> np.ndarray:
        """Per open cell, its number of candidates."""
        return np.bincount(self.cell_of)

    def samples(self) -> np.ndarray:
        """One 0/1 row over :attr:`variables` per state that has a decision state."""
        rows = [np.rint(self.choice.state(i)).astype(np.int64)
                for i in range(self.model.states.size()) if self.choice.has_state(i)]
        if not rows:
            return np.zeros((0, len(self.variables)), np.int8)
        return np.array([(r[self.cell_of] == self.position) for r in rows], dtype=np.int8)


def build_nl_model(groups: Sequence[tuple[str, Sequence]]) -> NLModel:
    """The nonlinear model of one-hot ``groups`` (``cell`` groups partition the variables).

    Raises:
        ParameterError: No ``cell`` group, an empty one, or a variable in none or two.
    """
    from dwave.optimization import Model
    from dwave.optimization.mathematical import concatenate

    cells = [list(labels) for kind, labels in groups if kind == "cell"]
    if not cells:
        raise ParameterError("hybrid-nl: the groups have no cell group (kind 'cell')")
    units = [list(labels) for kind, labels in groups if kind != "cell"]
    variables, cell_of, position = [], [], []
    index: dict = {}
    for c, labels in enumerate(cells):
        if not labels:
            raise ParameterError(f"hybrid-nl: cell group {c} is empty")
        for j, v in enumerate(labels):
            if v in index:
                raise ParameterError(f"hybrid-nl: variable {v!r} is in two cell groups")
            index[v] = len(variables)
            variables.append(v)
            cell_of.append(c)
            position.append(j)
    width = max((len(u) for u in units), default=0)
    padded = np.full((len(units), width), len(variables), dtype=np.int64)
    for g, labels in enumerate(units):
        try:
            padded[g, :len(labels)] = [index[v] for v in labels]
        except KeyError as e:
            raise ParameterError(f"hybrid-nl: variable {e.args[0]!r} is in no cell group") from None
    cell_of, position = np.array(cell_of, np.int64), np.array(position, np.int64)

    model = Model()
    choice = model.integer(len(cells), lower_bound=0, upper_bound=np.bincount(cell_of) - 1)
    if units:
        hot = choice[model.constant(cell_of)] == model.constant(position)
        hot = concatenate((hot, model.constant(np.zeros(1))))  # the padding's slot
        counts = hot[model.constant(padded.ravel())].reshape(len(units), width).sum(axis=1)
        excess = counts - model.constant(np.ones(len(units)))
        model.add_constraint((excess == model.constant(np.zeros(len(units)))).all())
        model.minimize((excess * excess).sum())
    else:
        model.minimize(model.constant(0.0))
    model.lock()
    return NLModel(model, choice, variables, cell_of, position, len(units))


def model_size(model) -> dict:
    """The sizes Leap's NL solver bounds (see :mod:`.limits`), of a built model.

    >>> sorted(model_size(build_nl_model([("cell", ["a", "b"])]).model))
    ['decision_state_size', 'nodes', 'state_size']
    """
    return {"nodes": int(model.num_nodes()), "state_size": int(model.state_size()),
            "decision_state_size": int(model.decision_state_size())}
