"""Compiled kernel of the ant-colony sampler (numba when installed, plain Python otherwise).

The problem is an exact cover: *groups* (a BQM's one-hot groups), each to be hit by exactly
one chosen variable.  A state is a *consistent partial assignment*: ``chosen`` variables
(no two in one group), ``alive`` ones (compatible with every chosen one), and per group
its count of alive members ``cnt`` and whether it is ``done``.

An ant visits the *cell* groups from a random start.  At an open cell with alive
candidates it chooses one (the highest pheromone with probability ``q0``, else in
proportion to pheromone) and propagates units: a group left with one alive member takes
it.  A cell whose candidates run out is skipped (plain ants never backtrack; refuting
ants, :mod:`.learn`, do).  An ant's score is the number of cells it fixed.  After each
iteration the best-so-far ant lays pheromone ``bestPher``, which decays every iteration
(best-value evaporation; Lloyd and Amos, "Solving Sudoku with Ant Colony Optimisation",
IEEE Trans. Games, 2020).  A colony whose record stalls ends, so that the sampler starts a
fresh one.  Each colony has its own generator seeded from ``(seed, read)``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from qsudoku.samplers.aco.learn import FADE, learn_ant
from qsudoku.samplers.kernels import copy, ijit, njit, randint, seed_state, uniform

__all__ = ["Cover", "Colony", "root_state", "colony", "cell_index"]


class Cover(NamedTuple):
    """The exact cover as the kernels read it (CSR index arrays, ``int64``).

    Attributes:
        v_ptr, v_grp: Each variable's groups.
        g_ptr, g_var: Each group's variables.
        cells: The cell groups, in the order the plain ants visit them (from a random start).
    """

    v_ptr: np.ndarray
    v_grp: np.ndarray
    g_ptr: np.ndarray
    g_var: np.ndarray
    cells: np.ndarray


class Colony(NamedTuple):
    """The knobs of :func:`colony`: the parameters of the same names of
    :class:`~qsudoku.samplers.aco.AntColonySampler` (colony ``read`` has the generator
    ``(seed, read)``), and ``weight``, its ``blame``."""

    seed: int
    num_ants: int
    max_iters: int
    stall: int
    q0: float
    rho: float
    evap: float
    xi: float
    weight: float


@ijit
def _choose(v, cover, state, stack, top):
    """Choose variable ``v``: every group it is in is done and every variable sharing one
    of them dies; groups left with at most one alive member go on ``stack``.  Returns the
    new stack top.  ``state`` is ``(alive, cnt, done, chosen)``, updated in place."""
    v_ptr, v_grp, g_ptr, g_var, _ = cover
    alive, cnt, done, chosen = state
    chosen[v] = 1
    for x in range(v_ptr[v], v_ptr[v + 1]):
        done[v_grp[x]] = 1
    for x in range(v_ptr[v], v_ptr[v + 1]):
        g = v_grp[x]
        for y in range(g_ptr[g], g_ptr[g + 1]):
            u = g_var[y]
            if u == v or alive[u] == 0:
                continue
            alive[u] = 0
            for z in range(v_ptr[u], v_ptr[u + 1]):
                h = v_grp[z]
                cnt[h] -= 1
                if done[h] == 0 and cnt[h] <= 1:
                    stack[top] = h
                    top += 1
    return top


@ijit
def _propagate(cover, state, stack, top):
    """Unit propagation: every open group with one alive member chooses it."""
    g_ptr, g_var = cover.g_ptr, cover.g_var
    alive, cnt, done, _ = state
    while top > 0:
        top -= 1
        h = stack[top]
        if done[h] != 0 or cnt[h] != 1:
            continue  # already hit, or dead (no member left: the ant will skip it)
        for y in range(g_ptr[h], g_ptr[h + 1]):
            u = g_var[y]
            if alive[u] != 0:
                top = _choose(u, cover, state, stack, top)
                break
    return top


@njit
def root_state(cover):
    """The propagated state of a :class:`Cover` before any choice: ``(alive, cnt, done,
    chosen)``."""
    v_ptr, v_grp, g_ptr, _, _ = cover
    nv = v_ptr.shape[0] - 1
    ng = g_ptr.shape[0] - 1
    alive = np.ones(nv, np.int8)
    chosen = np.zeros(nv, np.int8)
    done = np.zeros(ng, np.int8)
    cnt = np.empty(ng, np.int64)
    stack = np.empty(v_grp.shape[0] + ng + 1, np.int64)
    top = 0
    for g in range(ng):
        cnt[g] = g_ptr[g + 1] - g_ptr[g]
        if cnt[g] <= 1:
            stack[top] = g
            top += 1
    _propagate(cover, (alive, cnt, done, chosen), stack, top)
    return alive, cnt, done, chosen


@ijit
def cell_index(nv, g_ptr, g_var, cells):
    """The cell of each of ``nv`` variables, as an index into ``cells`` (``-1``: none)."""
    cell_of = np.full(nv, -1, np.int64)
    for k in range(cells.shape[0]):
        for y in range(g_ptr[cells[k]], g_ptr[cells[k] + 1]):
            cell_of[g_var[y]] = k
    return cell_of


@ijit
def _pick(rng, c, alive, tau, q0, g_ptr, g_var):
    """The variable an ant sets in cell group ``c`` (``-1`` if none is alive)."""
    total = 0.0
    best = -1
    best_t = -1.0
    for y in range(g_ptr[c], g_ptr[c + 1]):
        u = g_var[y]
        if alive[u] != 0:
            total += tau[u]
            if tau[u] > best_t:
                best_t = tau[u]
                best = u
    if best < 0 or uniform(rng) < q0:
        return best
    r = uniform(rng) * total
    for y in range(g_ptr[c], g_ptr[c + 1]):
        u = g_var[y]
        if alive[u] != 0:
            r -= tau[u]
            if r <= 0.0:
                return u
    return best


@njit
def colony(cover, root, knobs, read, late, stop, blame):
    """One ant colony, from the root state until a complete ant, ``max_iters`` or the deadline.

    Args:
        cover: The exact cover (:class:`Cover`).
        root: The root state (:func:`root_state`), ``(alive0, cnt0, done0, chosen0)``.
        knobs: The colony's parameters (:class:`Colony`).
        read: The colony's number: its generator is ``(knobs.seed, read)``.
        late: One-element array the caller sets non-zero when time is up; the colony then
            stops at its next iteration (a compiled kernel reads no clock).
        stop: One-element array; the colony stops when it is non-zero and sets it to 1 when
            it finds a complete assignment (so that colonies in other threads stop).
        blame: With an array (zeros, one per variable) the ants refute
            (:func:`.learn.learn_ant`), ``knobs.weight`` scaling the blame in their choices.
            With ``None`` numba prunes the refuting branch before typing it, so the plain
            colony compiles without the refuting ant (numba prunes on arguments, not on a
            tuple's fields).

    Returns:
        ``(chosen, cells fixed, iterations, complete)``: the assignment of the ant that
        fixed most cells (0/1 per variable), its score, the iterations run, and 1 if the
        colony ended by itself (a complete ant, ``stall`` or ``max_iters``) rather than by
        the deadline or another colony.
    """
    v_ptr, v_grp, g_ptr, g_var, cells = cover
    alive0, cnt0, done0, chosen0 = root
    seed, num_ants, max_iters, stall, q0, rho, evap, xi, weight = knobs
    rng = seed_state(seed, read)
    nv = alive0.shape[0]
    nc = cells.shape[0]
    stack = np.empty(v_grp.shape[0] + g_ptr.shape[0], np.int64)
    tau0 = 1.0 / max(1, nc)
    tau = np.full(nv, tau0)
    alive = alive0.copy()
    cnt = cnt0.copy()
    done = done0.copy()
    chosen = chosen0.copy()
    state = (alive, cnt, done, chosen)
    it_best = chosen0.copy()
    best = chosen0.copy()  # the best-so-far ant, which lays pheromone
    record = chosen0.copy()  # the ant that fixed the most cells, which is returned
    record_fixed = 0
    for k in range(nc):
        record_fixed += done0[cells[k]]
    tr_kind = np.empty(2 * nv + g_ptr.shape[0], np.int8)
    tr_val = np.empty(2 * nv + g_ptr.shape[0], np.int64)
    work = (stack, tr_kind, tr_val)  # (the refuting ant's)
    best_pher = 0.0
    it = 0
    ended = 1
    if record_fixed == nc:
        return record, record_fixed, it, ended
    since = 0
    while it < max_iters and since < stall:
        if (it > 0 or read > 0) and (stop[0] != 0 or late[0] != 0):  # read 0 runs at least once
            ended = 0
            break
        it += 1
        since += 1
        it_fixed = -1
        for ant in range(num_ants):
            copy(alive, alive0)
            copy(cnt, cnt0)
            copy(done, done0)
            copy(chosen, chosen0)
            if blame is not None:
                learn_ant(rng, cover, knobs, tau, tau0, blame, state, work)
                randint(rng, nc)  # (the plain ant's start: each seed's ants stay as measured)
            else:
                start = randint(rng, nc)
                for k in range(nc):
                    c = cells[(start + k) % nc]
                    if done[c] != 0:
                        continue
                    u = _pick(rng, c, alive, tau, q0, g_ptr, g_var)
                    if u < 0:
                        continue  # no candidate left: the ant leaves this cell empty
                    tau[u] = (1.0 - xi) * tau[u] + xi * tau0
                    top = _choose(u, cover, state, stack, 0)
                    _propagate(cover, state, stack, top)
            fixed = 0
            for k in range(nc):
                fixed += done[cells[k]]
            if fixed > it_fixed:
                it_fixed = fixed
                copy(it_best, chosen)
            if fixed == nc:
                break
        if it_fixed > record_fixed:
            since = 0
            record_fixed = it_fixed
            copy(record, it_best)
        if it_fixed == nc:
            stop[0] = 1
            break
        pher = nc / (nc - it_fixed)
        if pher > best_pher:
            best_pher = pher
            copy(best, it_best)
        for v in range(nv):
            if best[v] != 0 and chosen0[v] == 0:
                tau[v] = (1.0 - rho) * tau[v] + rho * best_pher
        best_pher *= 1.0 - evap
        if blame is not None:  # (in place by item: rebinding the name would stop the pruning)
            for v in range(nv):
                blame[v] *= 1.0 - FADE
    return record, record_fixed, it, ended
