"""``decompose``'s ``construct`` strategy: a consistent partial assignment grown by QPU calls.

Instead of repairing a complete assignment, the run keeps a *partial* one that never breaks
a one-hot group: every variable is *decided* (chosen, or ruled out) or *open*.  From the
root it repeatedly picks the open cells with fewest open candidates, grown through the
units they share, up to ``subproblem_size`` variables; sends the sub-QUBO over their open
candidates (chosen variables folded into linear biases, every other variable fixed to 0,
plus ``memory`` times each candidate's *blame*) to the QPU sampler, ``batch`` subproblems
a call, keeping the answer whose digits propagate without a contradiction and decide most
variables; and takes each freed cell's one-hot digit, propagating singles over the groups
after each choice.  A group left with no open member is a contradiction, answered three
ways:

- ``refute``: a digit whose propagation contradicts is undone and ruled out (a failed
  literal), and the call's other digits are still taken;
- ``backjump``: a contradiction left after that undoes the last call's digits (the state
  before it is kept on a stack) and asks again, at most ``backjump`` more times per state
  before undoing the call before it; an empty stack restarts from the root;
- ``memory``: every digit of a call that ended in a contradiction, and every refuted
  digit, gains one unit of blame, which evaporates by :data:`EVAPORATION` per call and
  persists across backjumps and restarts, so later subproblems lean away from it.

A run stops at a full assignment of energy at most ``energy_target`` or after
``max_calls`` calls.

>>> import dimod
>>> bqm = dimod.BQM({"a": -1.0, "b": -1.0}, {"ab": 2.0}, 1.0, "BINARY")
>>> p = Propagator(2, [np.array([0, 1])])
>>> p.choose(1), p.chosen.tolist(), p.alive.tolist()
(True, [False, True], [False, True])
"""

from __future__ import annotations

import time

import numpy as np

from qsudoku.samplers.dwave.subproblems import Run

__all__ = ["Propagator", "construct_run", "pick_cells", "take", "EVAPORATION"]

#: Share of each digit's blame that evaporates per QPU call.
EVAPORATION = 0.02


class Propagator:
    """Open / chosen variables of a partial assignment over one-hot groups, with singles.

    Args:
        n: Number of variables.
        groups: Index arrays, each group to hold exactly one chosen variable.
    """

    def __init__(self, n: int, groups):
        self.n, self.groups = n, [np.asarray(g, np.int64) for g in groups if len(g)]
        self.flat_group = np.concatenate([np.full(len(g), j) for j, g in enumerate(self.groups)]
                                         or [np.zeros(0, np.int64)]).astype(np.int64)
        self.flat_var = (np.concatenate(self.groups) if self.groups else np.zeros(0, np.int64))
        self.groups_of = [[] for _ in range(n)]
        for j, g in enumerate(self.groups):
            for v in g:
                self.groups_of[v].append(j)
        self.reset()

    def reset(self) -> bool:
        """Back to the root: every variable open; then singles.  False on a contradiction."""
        self.alive = np.ones(self.n, bool)
        self.chosen = np.zeros(self.n, bool)
        return self.propagate()

    def choose(self, v: int) -> bool:
        """Choose ``v`` (it must be open) and propagate.  False on a contradiction."""
        if not self.alive[v]:
            return False
        self.take(v)
        return self.propagate()

    def take(self, v: int) -> None:
        self.chosen[v] = True
        for j in self.groups_of[v]:
            self.alive[self.groups[j]] = False
        self.alive[v] = True

    def propagate(self) -> bool:
        """Singles to a fixpoint: a group with one open member chooses it."""
        while True:
            count = np.bincount(self.flat_group, self.alive[self.flat_var], len(self.groups))
            if np.any(count < 0.5):
                return False
            done = np.bincount(self.flat_group, self.chosen[self.flat_var], len(self.groups)) > 0
            single = np.flatnonzero((count < 1.5) & ~done)
            if not len(single):
                return True
            for j in single:
                g = self.groups[j]
                open_ = g[self.alive[g]]
                if len(open_) != 1:
                    return False
                if not self.chosen[open_[0]]:
                    self.take(int(open_[0]))

    def assignment(self) -> np.ndarray:
        return self.chosen.astype(float)


def pick_cells(prop: Propagator, cells, units_of_cell, cells_of_unit, size: int, rng,
               saving: int = 0):
    """Open cells with fewest open candidates, grown through shared units, within ``size``
    variables as sent: a cell of ``w`` open candidates costs ``w - saving`` (1: walls)."""
    width = np.array([int(prop.alive[c].sum()) if not prop.chosen[c].any() else 0 for c in cells])
    open_cells = np.flatnonzero(width > 0)
    if not len(open_cells):
        return []
    cost = np.where(width > 0, width - saving, 0)
    noise = rng.random(len(cells))
    start = open_cells[np.lexsort((noise[open_cells], width[open_cells]))[0]]
    picked, budget, seen = [int(start)], size - cost[start], {int(start)}
    frontier = set()
    while True:
        for j in units_of_cell[picked[-1]]:
            frontier.update(int(k) for k in cells_of_unit[j] if width[k] > 0 and k not in seen)
        fits = [k for k in frontier if cost[k] <= budget]
        if not fits:
            break
        k = min(fits, key=lambda c: (width[c], noise[c]))
        frontier.discard(k)
        seen.add(k)
        picked.append(k)
        budget -= cost[k]
    return picked


def take(prop: Propagator, cells, picked, y, rng, refute: bool, blame) -> tuple[bool, list]:
    """Choose the one-hot digit of ``y`` in each picked open cell; ``(consistent, taken)``."""
    taken = []
    for k in rng.permutation(picked):
        on = cells[k][y[cells[k]] > 0.5]
        if len(on) != 1 or not prop.alive[on[0]] or prop.chosen[cells[k]].any():
            continue
        v = int(on[0])
        saved = prop.alive.copy(), prop.chosen.copy()
        if prop.choose(v):
            taken.append(v)
            continue
        if not refute:
            return False, taken + [v]
        prop.alive, prop.chosen = saved
        prop.alive[v] = False
        blame[v] += 1.0
        if not prop.propagate():
            return False, taken
    return True, taken


def construct_run(run: Run, model, structure, rng, backjump: int = 3, memory: float = 1.0,
                  refute: bool = True, code=None):
    """One construction run of :class:`~qsudoku.samplers.dwave.decompose.DecomposeSampler`.

    ``model`` and ``structure`` are one-hot; with ``code`` (a
    :class:`~qsudoku.samplers.dwave.walls.WallCode`), they are a domain-wall model's slots,
    and every subproblem is sent in walls (:meth:`~.walls.WallCode.encode`) and read back.

    Returns ``(x, calls)``: the best complete assignment seen (or the last partial one, its
    open cells set to their first open candidate) and the QPU calls used.
    """
    prop = Propagator(model.n, list(structure.cells) + list(structure.units))
    saving = 0 if code is None else 1  # a cell sent in walls takes one variable less
    cells, stats = structure.cells, run.stats
    t0, used, best, best_energy = time.perf_counter(), 0, None, np.inf
    blame = np.zeros(model.n)  # decayed count of contradictions per digit
    stack: list = []           # per QPU call on the branch: (alive, chosen, retries) before it
    last: list[int] = []       # the digits the last call took
    retries = 0                # calls already made from the current state
    ok = prop.reset()

    def pick():
        return pick_cells(prop, cells, structure.units_of_cell, structure.cells_of_unit,
                          run.size, rng, saving)

    while used < run.max_calls and not run.late(t0):
        if not ok:
            blame[last] += 1.0
            while stack and stack[-1][2] >= backjump:
                stack.pop()
            if stack:
                stats["backjumps"] += 1
                prop.alive, prop.chosen, retries = stack.pop()
                retries, ok = retries + 1, True
            else:
                stats["restarts"] += 1
                ok, retries = prop.reset(), 0
                if not ok:
                    break  # the root itself is contradictory
            last = []
            continue
        picked = pick()
        if not picked:  # complete
            x = prop.assignment()
            energy = model.energy(x)
            if energy < best_energy:
                best, best_energy = x, energy
            if energy <= run.target + 1e-9:
                break
            ok, last = False, []
            continue
        stack.append((prop.alive.copy(), prop.chosen.copy(), retries))
        retries = 0
        picks = [picked] + [pick() for _ in range(run.batch - 1)]
        frees = [np.concatenate([c[prop.alive[c]] for c in (cells[k] for k in p)]) for p in picks]
        x = prop.assignment()
        subs = [model.subproblem(free, x) for free in frees]
        if memory:
            for sub, free in zip(subs, frees):
                sub.add_linear_from(zip(range(len(free)), memory * blame[free]))
        sent = subs if code is None else [code.encode(s, f) for s, f in zip(subs, frees)]
        answers = run.call(sent, rng)
        used += 1
        blame *= 1.0 - EVAPORATION
        ok, last, root = False, [], (prop.alive.copy(), prop.chosen.copy())
        best_branch = idle = None  # the consistent branch that chose most; one that chose none
        failed = False
        for free, pick_, answer in zip(frees, picks, answers):
            if not len(answer):
                continue
            y = np.zeros(model.n)
            first = answer.lowest().first.sample
            y[free] = ([first[i] for i in range(len(free))] if code is None
                       else code.decode(first, free))
            prop.alive, prop.chosen = root[0].copy(), root[1].copy()
            fine, taken = take(prop, cells, pick_, y, rng, refute, blame)
            progress = int(prop.chosen.sum())
            if fine and taken and (best_branch is None or progress > best_branch[0]):
                best_branch = (progress, prop.alive, prop.chosen, taken)
            elif fine and not taken and idle is None:
                idle = (progress, prop.alive, prop.chosen, taken)
            elif not fine:
                failed, last = True, last + taken
        if best_branch is None and idle is None and not any(len(a) for a in answers):
            prop.alive, prop.chosen = root
            ok = True
            continue
        stats["accepted"] += 1
        if best_branch is not None:  # the branch that decided most variables
            ok, (_, prop.alive, prop.chosen, last) = True, best_branch
        elif idle is not None and not failed:  # nothing chosen, nothing contradicted: a retry
            _, prop.alive, prop.chosen, _ = idle
            retries = stack.pop()[2] + 1
            ok = retries <= backjump
    if best is None or best_energy > run.target + 1e-9:
        x = prop.assignment()
        for c in cells:
            if not prop.chosen[c].any():
                x[c[np.argmax(prop.alive[c])]] = 1.0
        if best is None or model.energy(x) < best_energy:
            best = x
    return best, used
