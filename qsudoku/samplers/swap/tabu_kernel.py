"""Compiled kernel of the swap tabu search (numba when installed, plain Python otherwise).

The state, moves and energy bookkeeping are those of :mod:`.kernel`.  Each iteration looks
at every swap that moves a cell in conflict and takes the best one whose new digits are
not *tabu* (a cell may not take back a digit it gave up during the last ``tenure`` to
``2 * tenure`` iterations, unless that reaches a new best weighted energy since the
weights last grew), ties broken at random.  A read ends at energy 0, after ``stall``
iterations without a new best, after ``max_iters`` iterations, or at the deadline.

Moves are ranked on *search weights* that start at the BQM's group weights: whenever no
move lowers the weighted energy, every broken conflict group's search weight grows by
``bump`` times its weight (the breakout method).  The energy that decides a read's best
state, its end and its samples stays the BQM's own.  When no conflict group mixes two
values of a family unit (every Sudoku model), a swap's energy change is read off the
counts without changing them (:func:`_half`); otherwise they are shifted and restored.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from qsudoku.samplers.kernels import copy, ijit, njit, randint
from qsudoku.samplers.swap.kernel import move, start_read, var_of


__all__ = ["Tabu", "tabu_reads"]


class Tabu(NamedTuple):
    """The knobs of :func:`tabu_reads`: the parameters of the same names of
    :class:`~qsudoku.samplers.swap.SwapTabuSampler`, ``seed``, ``target`` and ``stop_all``
    as in :class:`~qsudoku.samplers.swap.kernel.Schedule`, and ``pure``
    (:attr:`SwapStructure.digit_pure`: a swap's energy change is read off the counts)."""

    max_iters: int
    tenure: int
    stall: int
    bump: float
    seed: int
    target: float
    pure: bool
    stop_all: bool


@ijit
def _holds(vgw, v, g):
    """True if group ``g`` is one of variable ``v``'s conflict groups."""
    for y in range(vgw.shape[1]):
        if vgw[v, y] == g:
            return True
    return False


@ijit
def _half(off, on, vgw, sw, cnt):
    """Energy change (weights ``sw``) of unsetting variable ``off`` and setting ``on``, two
    variables of one value: a group holding both keeps its count; read-only."""
    d = 0.0
    for x in range(vgw.shape[1]):
        g = vgw[off, x]
        if g < 0:
            break
        if not _holds(vgw, on, g):
            d += sw[g] * (3 - 2 * cnt[g])  # (c - 2)**2 - (c - 1)**2
    for x in range(vgw.shape[1]):
        g = vgw[on, x]
        if g < 0:
            break
        if not _holds(vgw, off, g):
            d += sw[g] * (2 * cnt[g] - 1)  # c**2 - (c - 1)**2
    return d

@njit
def _tabu_walk(swaps, knobs, read, out, flags):
    """One tabu walk (read ``read``): writes its best state to ``out``; returns ``(best
    energy, iterations, ended by itself)``.  Not inlined: the loop compiles to faster code
    on its own."""
    movable, slot_comp, comp_start, comp_size, tab_off, tab, cand_ptr, cand_val, vg_ptr, \
        vg_idx, gw, vgw = swaps
    max_iters, tenure, stall, bump, seed, target, pure, stop_all = knobs
    ns = slot_comp.shape[0]
    ng = gw.shape[0]
    nv = vg_ptr.shape[0] - 1
    nmov = movable.shape[0]
    rng, val, holder, cnt, e = start_read(swaps, seed, read)
    sw = gw.copy()  # search weights
    ew = e  # the energy under the search weights
    until = np.zeros(nv, np.int64)  # iteration until which setting this variable is tabu
    cur = np.empty(ns, np.int64)  # the variable each cell slot sets now
    for x in range(ns):
        cur[x] = var_of(x, val[x], swaps)
    best = e
    best_w = ew  # aspiration level: the best weighted energy since the last bump
    copy(out, val)
    it = 0
    since = 0
    ended = True
    while best > target and it < max_iters and since < stall and nmov > 0:
        if (stop_all and flags[0] > 0) or flags[1] > 0:
            ended = False
            break
        bd = 1e300
        move_d = 0.0
        bi = -1
        bj = -1
        ties = 0
        for mi in range(nmov):
            i = movable[mi]
            v = cur[i]
            conflicted = False
            for x in range(vgw.shape[1]):
                g = vgw[v, x]
                if g < 0:
                    break
                if cnt[g] > 1:
                    conflicted = True
                    break
            if not conflicted:
                continue
            k = slot_comp[i]
            m = comp_size[k]
            base = tab_off[k]
            c0 = comp_start[k]
            a = val[i]
            for t in range(cand_ptr[i], cand_ptr[i + 1]):
                b = cand_val[t]
                if b == a:
                    continue
                j = holder[b]
                vj_on = tab[base + (j - c0) * m + (a - c0)]
                if vj_on < 0:
                    continue
                vi_on = tab[base + (i - c0) * m + (b - c0)]
                vj_off = tab[base + (j - c0) * m + (b - c0)]
                if pure:
                    d = _half(v, vj_on, vgw, sw, cnt) + _half(vj_off, vi_on, vgw, sw, cnt)
                else:
                    d = move(v, vj_off, vi_on, vj_on, vg_ptr, vg_idx, sw, cnt)
                    move(vi_on, vj_on, v, vj_off, vg_ptr, vg_idx, sw, cnt)
                if (until[vi_on] > it or until[vj_on] > it) and ew + d >= best_w - 1e-9:
                    continue  # tabu, and no new best
                if d < bd - 1e-9:
                    bd = d
                    move_d = d
                    bi = i
                    bj = j
                    ties = 1
                elif d < bd + 1e-9:
                    ties += 1
                    if randint(rng, ties) == 0:
                        move_d = d
                        bi = i
                        bj = j
        it += 1
        since += 1
        bumped = bump > 0.0 and bd >= -1e-9
        if bumped:  # no move improves: raise the broken groups' weights
            for g in range(ng):
                c = cnt[g]
                if c != 1:
                    sw[g] += bump * gw[g]
                    ew += bump * gw[g] * (c - 1) * (c - 1)
            best_w = ew
        if bi < 0:
            continue  # every move is tabu: wait
        a = val[bi]
        b = val[bj]
        vi_off = cur[bi]
        vj_off = cur[bj]
        vi_on = var_of(bi, b, swaps)
        vj_on = var_of(bj, a, swaps)
        if bumped:  # the move was ranked before the weights grew: its change under the new
            if pure:
                move_d = (_half(vi_off, vj_on, vgw, sw, cnt)
                          + _half(vj_off, vi_on, vgw, sw, cnt))
            else:
                move_d = move(vi_off, vj_off, vi_on, vj_on, vg_ptr, vg_idx, sw, cnt)
                move(vi_on, vj_on, vi_off, vj_off, vg_ptr, vg_idx, sw, cnt)
        e += move(vi_off, vj_off, vi_on, vj_on, vg_ptr, vg_idx, gw, cnt)
        ew += move_d  # so ew stays sum(sw * (cnt - 1)**2)
        val[bi] = b
        val[bj] = a
        holder[a] = bj
        holder[b] = bi
        cur[bi] = vi_on
        cur[bj] = vj_on
        until[vi_off] = it + tenure + randint(rng, tenure + 1)
        until[vj_off] = it + tenure + randint(rng, tenure + 1)
        if ew < best_w - 1e-9:
            best_w = ew
        if e < best - 1e-9:
            best = e
            copy(out, val)
            since = 0
    return best, it, ended


@njit
def tabu_reads(swaps, knobs, num_reads, first_read, flags):
    """Independent tabu walks, each from its own random matching.

    Args:
        swaps: The structure (:class:`~qsudoku.samplers.swap.kernel.Swaps`).
        knobs: The walks' parameters (:class:`Tabu`).
        num_reads: Reads to run, one after the other.
        first_read: Offset of these reads' generators (for batched or threaded calls).
        flags: Shared stop flags (see :mod:`.kernel`), read before every iteration.

    Returns:
        ``(best_val, best_energy, iters, complete)``: per read, the lowest-energy state
        seen, its energy, the iterations run, and 1 if the read ended by itself (ground
        state, stall or ``max_iters``) rather than by the deadline or another read.  A
        read skipped because another had reached ``target`` or the deadline had passed
        has an all-zero state, energy ``inf``, 0 iterations and ``complete`` 0.
    """
    target, stop_all = knobs.target, knobs.stop_all
    best_val = np.empty((num_reads, swaps.slot_comp.shape[0]), np.int64)
    best_e = np.empty(num_reads)
    iters = np.zeros(num_reads, np.int64)
    complete = np.zeros(num_reads, np.int64)
    for r in range(num_reads):
        if (stop_all and flags[0] > 0) or (flags[1] > 0 and r > 0):
            # Another read is done, or time is up (a call's first read always starts, so
            # that it returns a state): skip the fresh start (~30 us on a 9x9).
            best_val[r, :] = 0
            best_e[r] = np.inf
            continue  # (not complete; iters 0)
        best_e[r], iters[r], ended = _tabu_walk(swaps, knobs, first_read + r, best_val[r], flags)
        if best_e[r] <= target:
            flags[0] = 1
        complete[r] = 1 if ended else 0
    return best_val, best_e, iters, complete
