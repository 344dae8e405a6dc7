"""Compiled kernels of the swap annealer (numba when installed, plain Python otherwise).

The state of one read is a perfect matching per *family component*: ``val[s]`` is the
value slot held by cell slot ``s`` and ``holder[v]`` the cell slot holding value slot
``v`` (global indices; a component's cells and values share one offset range).
``tab[tab_off[k] + a * m + v]`` is the BQM variable meaning "local cell ``a`` of
component ``k`` holds local value ``v``" (``-1`` if that digit is not a candidate).

A move swaps the values of two cells of one component: every cell group and family group
stays at exactly one, so only the *conflict groups* (the other units) change, and their
energy ``sum_g w_g (count_g - 1)**2`` is updated exactly, one count at a time.

The kernels are serial ``nogil`` functions over a range of reads (they compile several
times faster than ``parallel=True`` ones); the caller spreads reads over threads
(:func:`qsudoku.samplers.reads.parallel_reads`).  Reads watch a shared ``flags`` array:
``flags[0]`` is set by a read that reaches its target (the others stop if ``stop_all``),
``flags[1]`` by the caller at the deadline.  Each read has its own generator seeded from
``(seed, read)``, so results do not depend on how reads are spread over threads.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from qsudoku.samplers.kernels import HAVE_NUMBA, copy, ijit, njit, randint, seed_state, uniform

__all__ = ["HAVE_NUMBA", "Swaps", "Schedule", "anneal_reads", "temper_reads", "STOP_TARGET",
           "STOP_DEADLINE"]

#: ``flags[STOP_TARGET]``: a read reached its target; ``flags[STOP_DEADLINE]``: time is up.
STOP_TARGET, STOP_DEADLINE = 0, 1


class Swaps(NamedTuple):
    """The swap structure as the kernels read it (:attr:`SwapStructure.arrays
    <qsudoku.samplers.swap.structure.SwapStructure>`, same names; the layout is the module's).

    Attributes:
        movable: The cell slots with two candidates or more, in a component of two cells
            or more.
        slot_comp: The component of each cell slot.
        comp_start, comp_size, tab_off: Per component: its first slot, its number of
            slots and the offset of its table in ``tab``.
        tab: The variable of each (local cell, local value) pair of each component.
        cand_ptr, cand_val: Each cell slot's candidate value slots (CSR).
        vg_ptr, vg_idx: Each variable's conflict groups (CSR).
        gw: Each conflict group's weight.
        vgw: Each variable's conflict groups as a row padded with ``-1`` (the tabu kernel).
    """

    movable: np.ndarray
    slot_comp: np.ndarray
    comp_start: np.ndarray
    comp_size: np.ndarray
    tab_off: np.ndarray
    tab: np.ndarray
    cand_ptr: np.ndarray
    cand_val: np.ndarray
    vg_ptr: np.ndarray
    vg_idx: np.ndarray
    gw: np.ndarray
    vgw: np.ndarray


class Schedule(NamedTuple):
    """The knobs of :func:`anneal_reads` and :func:`temper_reads`: ``betas`` of each sweep
    (annealing) or replica (replica exchange, for ``num_sweeps`` sweeps), the base ``seed``
    (read ``r`` uses generator ``(seed, first_read + r)``), the ``target`` energy at which a
    read stops, ``stop_all`` (every read stops once one reached it) and ``focus`` (see
    :func:`_sweep`)."""

    betas: np.ndarray
    num_sweeps: int
    seed: int
    target: float
    stop_all: bool
    focus: int


@njit
def _match(rng, swaps, val, holder):
    """A random perfect matching per component (augmenting paths in random order).

    Returns the number of cells left unmatched (0 when every component has one).
    """
    comp_start, comp_size = swaps.comp_start, swaps.comp_size
    cand_ptr, cand_val = swaps.cand_ptr, swaps.cand_val
    ns = val.shape[0]
    for i in range(ns):
        val[i] = -1
        holder[i] = -1
    parent = np.empty(ns, np.int64)
    seen = np.zeros(ns, np.int64)
    queue = np.empty(ns, np.int64)
    stamp = 0
    unmatched = 0
    for k in range(comp_size.shape[0]):
        s0 = comp_start[k]
        m = comp_size[k]
        order = np.arange(m)
        for a in range(m - 1, 0, -1):  # Fisher-Yates
            b = randint(rng, a + 1)
            t = order[a]
            order[a] = order[b]
            order[b] = t
        for oi in range(m):
            u = s0 + order[oi]
            stamp += 1
            head = 0
            tail = 0
            queue[tail] = u
            tail += 1
            found = -1
            while head < tail and found < 0:
                x = queue[head]
                head += 1
                lo = cand_ptr[x]
                L = cand_ptr[x + 1] - lo
                if L == 0:
                    continue
                off = randint(rng, L)
                for t in range(L):
                    v = cand_val[lo + (off + t) % L]
                    if seen[v] == stamp:
                        continue
                    seen[v] = stamp
                    parent[v] = x
                    if holder[v] < 0:
                        found = v
                        break
                    queue[tail] = holder[v]
                    tail += 1
            if found < 0:
                unmatched += 1
                continue
            v = found
            while True:  # flip the augmenting path back to u
                x = parent[v]
                prev = val[x]
                val[x] = v
                holder[v] = x
                if x == u:
                    break
                v = prev
    return unmatched


@ijit
def var_of(s, v, swaps):
    """The variable meaning "cell slot ``s`` holds value slot ``v``"."""
    k = swaps.slot_comp[s]
    m = swaps.comp_size[k]
    c0 = swaps.comp_start[k]
    return swaps.tab[swaps.tab_off[k] + (s - c0) * m + (v - c0)]


@njit
def _counts(val, swaps, cnt):
    vg_ptr, vg_idx, gw = swaps.vg_ptr, swaps.vg_idx, swaps.gw
    for g in range(cnt.shape[0]):
        cnt[g] = 0
    for s in range(val.shape[0]):
        var = var_of(s, val[s], swaps)
        for t in range(vg_ptr[var], vg_ptr[var + 1]):
            cnt[vg_idx[t]] += 1
    e = 0.0
    for g in range(cnt.shape[0]):
        e += gw[g] * (cnt[g] - 1) * (cnt[g] - 1)
    return e


@ijit
def _shift(var, step, vg_ptr, vg_idx, gw, cnt):
    """Add ``step`` (+1/-1) to the counts of ``var``'s groups; return the energy change."""
    d = 0.0
    for t in range(vg_ptr[var], vg_ptr[var + 1]):
        g = vg_idx[t]
        c = cnt[g]
        if step > 0:
            d += gw[g] * (2 * c - 1)
        else:
            d += gw[g] * (3 - 2 * c)
        cnt[g] = c + step
    return d


@ijit
def move(off1, off2, on1, on2, vg_ptr, vg_idx, gw, cnt):
    """Unset ``off1``, ``off2`` and set ``on1``, ``on2`` in the group counts (a swap: undo
    it with the arguments exchanged); returns the energy change."""
    d = _shift(off1, -1, vg_ptr, vg_idx, gw, cnt)
    d += _shift(off2, -1, vg_ptr, vg_idx, gw, cnt)
    d += _shift(on1, 1, vg_ptr, vg_idx, gw, cnt)
    d += _shift(on2, 1, vg_ptr, vg_idx, gw, cnt)
    return d


@njit
def start_read(swaps, seed, read):
    """A read's generator and fresh state: a random matching, its counts and energy."""
    rng = seed_state(seed, read)
    val = np.empty(swaps.slot_comp.shape[0], np.int64)
    holder = np.empty(swaps.slot_comp.shape[0], np.int64)
    cnt = np.zeros(swaps.gw.shape[0], np.int64)
    _match(rng, swaps, val, holder)
    e = _counts(val, swaps, cnt)
    return rng, val, holder, cnt, e


@ijit
def _conflicted(var, vg_ptr, vg_idx, cnt):
    """True if variable ``var`` is in a conflict group holding more than one variable."""
    for t in range(vg_ptr[var], vg_ptr[var + 1]):
        if cnt[vg_idx[t]] > 1:
            return True
    return False


@ijit
def _sweep(rng, swaps, state, out, beta, e, best, target, focus):
    """One sweep at inverse temperature ``beta``: one swap proposal per movable cell,
    from ``state = (val, holder, cnt)`` at energy ``e`` (updated in place).  A state
    below ``best`` is copied to ``out``; the sweep stops once ``best <= target``.
    Returns the new ``(e, best)``.

    With ``focus > 0`` the first cell of a proposal is redrawn up to ``focus`` times until
    it is in a conflict (min-conflicts bias).  The arrays are taken out of ``swaps`` once
    per sweep: each take counts a reference, which costs more than a proposal.
    """
    movable, slot_comp, comp_start = swaps.movable, swaps.slot_comp, swaps.comp_start
    comp_size, tab_off, tab = swaps.comp_size, swaps.tab_off, swaps.tab
    cand_ptr, cand_val = swaps.cand_ptr, swaps.cand_val
    vg_ptr, vg_idx, gw = swaps.vg_ptr, swaps.vg_idx, swaps.gw
    val, holder, cnt = state
    nmov = movable.shape[0]
    for _ in range(nmov):
        i = movable[randint(rng, nmov)]
        for _f in range(focus):
            if e <= 0.0:
                break
            k = slot_comp[i]
            c0 = comp_start[k]
            var = tab[tab_off[k] + (i - c0) * comp_size[k] + (val[i] - c0)]
            if _conflicted(var, vg_ptr, vg_idx, cnt):
                break
            i = movable[randint(rng, nmov)]
        lo = cand_ptr[i]
        L = cand_ptr[i + 1] - lo
        a = val[i]
        pick = randint(rng, L - 1)
        b = cand_val[lo + pick]
        if b == a:
            b = cand_val[lo + L - 1]
        j = holder[b]
        k = slot_comp[i]
        m = comp_size[k]
        base = tab_off[k]
        c0 = comp_start[k]
        vj_on = tab[base + (j - c0) * m + (a - c0)]
        if vj_on >= 0:
            vi_off = tab[base + (i - c0) * m + (a - c0)]
            vi_on = tab[base + (i - c0) * m + (b - c0)]
            vj_off = tab[base + (j - c0) * m + (b - c0)]
            d = move(vi_off, vj_off, vi_on, vj_on, vg_ptr, vg_idx, gw, cnt)
            if d <= 0.0 or uniform(rng) < math.exp(-beta * d):
                val[i] = b
                val[j] = a
                holder[a] = j
                holder[b] = i
                e = e + d
            else:
                move(vi_on, vj_on, vi_off, vj_off, vg_ptr, vg_idx, gw, cnt)
        if e < best - 1e-9:
            best = e
            copy(out, val)
            if best <= target:
                break
    return e, best


@njit
def anneal_reads(swaps, knobs, num_reads, first_read, flags):
    """Independent annealing reads, each from its own random matching.

    Args:
        swaps: The structure (:class:`Swaps`).
        knobs: The schedule (:class:`Schedule`): a sweep (one proposal per movable cell)
            per beta of ``knobs.betas``.
        num_reads: Reads to run, one after the other.
        first_read: Offset of these reads' generators (for batched or threaded calls).
        flags: Shared stop flags (:data:`STOP_TARGET`, :data:`STOP_DEADLINE`), read
            before every sweep.

    Returns:
        ``(best_val, best_energy, sweeps)``: per read, the lowest-energy state seen (value
        slot per cell slot), its conflict energy and the sweeps it ran.
    """
    movable, slot_comp = swaps.movable, swaps.slot_comp
    betas, seed, target = knobs.betas, knobs.seed, knobs.target
    stop_all, focus = knobs.stop_all, knobs.focus
    ns = slot_comp.shape[0]
    best_val = np.empty((num_reads, ns), np.int64)
    best_e = np.empty(num_reads)
    sweeps = np.zeros(num_reads, np.int64)
    nmov = movable.shape[0]
    for r in range(num_reads):
        rng, val, holder, cnt, e = start_read(swaps, seed, first_read + r)
        best = e
        copy(best_val[r], val)
        s = 0
        while s < betas.shape[0] and best > target and nmov > 0:
            if (stop_all and flags[0] > 0) or flags[1] > 0:
                break
            e, best = _sweep(rng, swaps, (val, holder, cnt), best_val[r], betas[s], e, best,
                             target, focus)
            s += 1
        if best <= target:
            flags[0] = 1
        best_e[r] = best
        sweeps[r] = s
    return best_val, best_e, sweeps


@njit
def temper_reads(swaps, knobs, num_reads, first_read, flags):
    """Replica exchange: per read, ``len(knobs.betas)`` replicas at fixed temperatures
    for ``knobs.num_sweeps`` sweeps.

    After each sweep of every replica, neighbouring temperatures try to exchange their
    states (Metropolis on ``(beta_i - beta_j) * (E_i - E_j)``).

    Returns:
        ``(best_val, best_energy, sweeps)`` as :func:`anneal_reads`.
    """
    movable, slot_comp, gw = swaps.movable, swaps.slot_comp, swaps.gw
    betas, num_sweeps, seed, target, stop_all, focus = knobs
    ns = slot_comp.shape[0]
    ng = gw.shape[0]
    nrep = betas.shape[0]
    best_val = np.empty((num_reads, ns), np.int64)
    best_e = np.empty(num_reads)
    sweeps = np.zeros(num_reads, np.int64)
    nmov = movable.shape[0]
    for r in range(num_reads):
        rng = seed_state(seed, first_read + r)
        vals = np.empty((nrep, ns), np.int64)
        holders = np.empty((nrep, ns), np.int64)
        cnts = np.zeros((nrep, ng), np.int64)
        es = np.empty(nrep)
        slot = np.arange(nrep)  # slot[t] = replica at temperature t
        best = 1e300
        for q in range(nrep):
            _match(rng, swaps, vals[q], holders[q])
            es[q] = _counts(vals[q], swaps, cnts[q])
            if es[q] < best:
                best = es[q]
                copy(best_val[r], vals[q])
        s = 0
        while s < num_sweeps and best > target and nmov > 0:
            if (stop_all and flags[0] > 0) or flags[1] > 0:
                break
            for t in range(nrep):
                q = slot[t]
                beta = betas[t]
                es[q], best = _sweep(rng, swaps, (vals[q], holders[q], cnts[q]), best_val[r],
                                     beta, es[q], best, target, focus)
                if best <= target:
                    break
            for t in range(nrep - 1):
                qa = slot[t]
                qb = slot[t + 1]
                x = (betas[t] - betas[t + 1]) * (es[qa] - es[qb])
                if x >= 0.0 or uniform(rng) < math.exp(x):
                    slot[t] = qb
                    slot[t + 1] = qa
            s += 1
        if best <= target:
            flags[0] = 1
        best_e[r] = best
        sweeps[r] = s
    return best_val, best_e, sweeps
