"""Tabu search over consistent partial assignments: the polish of a colony's record.

The search moves between consistent partial assignments of the exact cover (see
:mod:`.kernel`), as PartialCol does for graph colouring (Blöchliger and Zufferey, Computers
& Operations Research, 2008): a move puts an alive candidate ``u`` into an empty cell and
empties every cell whose chosen variable shares a group with ``u``; its score is the change
in empty cells.  Each iteration makes the best move (ties at random) that is not tabu; an
ejected variable is tabu for ``alpha * empty cells + randint(spread)`` iterations unless
putting it back gives fewer empty cells than ever (aspiration).  It stops with no empty
cell, after ``max_iters`` moves or when ``late`` or ``stop`` is set, and returns the
assignment with the fewest empty cells.  Candidates are the root state's alive variables,
so no move breaks what propagation proved.

>>> import numpy as np
>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> from qsudoku.samplers.aco.sampler import compile_cover
>>> from qsudoku.samplers.aco.kernel import Cover, root_state
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> cv = compile_cover(m.bqm, m.groups())
>>> cover = Cover(cv.v_ptr, cv.v_grp, cv.g_ptr, cv.g_var, cv.cells)
>>> alive, _, _, chosen = root_state(cover)
>>> flags = np.zeros(1, np.int64)
>>> best, empty, its = partial_tabu(cover, 1, 0, chosen, alive, 10**5, flags, flags)
>>> int(empty), int(best.sum()) == len(cv.cells)
(0, True)
"""

from __future__ import annotations

import numpy as np

from qsudoku.samplers.aco.kernel import cell_index
from qsudoku.samplers.kernels import copy, njit, randint, seed_state

__all__ = ["partial_tabu", "ALPHA", "SPREAD"]

#: Tabu tenure per empty cell (PartialCol's is 0.6).
ALPHA = 0.45
#: Random part of the tabu tenure, ``randint(SPREAD)`` iterations.
SPREAD = 10
#: The salt that gives the search a generator of its own, apart from the colony's.
_SALT = 0x5DEECE66D


@njit
def partial_tabu(cover, seed, read, chosen, alive0, max_iters, late, stop):
    """Tabu search from the partial assignment ``chosen`` (see the module).

    Args:
        cover: The cover (:class:`.kernel.Cover`; its ``cells`` are the cell groups).
        seed, read: The search's generator is ``(seed ^ salt, read)``.
        chosen: 0/1 per variable: a consistent partial assignment (root choices included).
        alive0: 1 for the variables the root state leaves (the only ones moved in).
        max_iters: Moves at most.
        late, stop: One-element arrays; the search stops when either is non-zero, and
            sets ``stop[0] = 1`` when no cell is left empty (as a colony does).

    Returns:
        ``(assignment, empty cells, iterations)``: the assignment with the fewest empty
        cells met (0/1 per variable), their number, and the moves made.
    """
    v_ptr, v_grp, g_ptr, g_var, cells = cover
    rng = seed_state(seed ^ _SALT, read)
    nv = alive0.shape[0]
    nc = cells.shape[0]
    occ = np.full(g_ptr.shape[0] - 1, -1, np.int64)  # each group's chosen variable
    for v in range(nv):
        if chosen[v] != 0:
            for z in range(v_ptr[v], v_ptr[v + 1]):
                occ[v_grp[z]] = v
    cell_of = cell_index(nv, g_ptr, g_var, cells)
    holes = np.empty(nc, np.int64)  # the empty cells, and each one's place in that list
    place = np.full(nc, -1, np.int64)
    nh = 0
    for k in range(nc):
        if occ[cells[k]] < 0:
            holes[nh] = k
            place[k] = nh
            nh += 1
    cur = chosen.copy()
    best = chosen.copy()
    best_nh = nh
    tabu = np.zeros(nv, np.int64)  # the iteration until which a variable stays out
    it = 0
    while nh > 0 and it < max_iters:
        if (it & 1023) == 0 and (late[0] != 0 or stop[0] != 0):
            break
        it += 1
        bd = 1 << 30
        bu = -1
        ties = 0
        for i in range(nh):
            c = cells[holes[i]]
            for y in range(g_ptr[c], g_ptr[c + 1]):
                u = g_var[y]
                if alive0[u] == 0:
                    continue
                d = -1  # empty cells gained: one per distinct variable ejected, less one
                for z in range(v_ptr[u], v_ptr[u + 1]):
                    w = occ[v_grp[z]]
                    if w < 0:
                        continue
                    if cell_of[w] < 0:  # a choice outside the cells is never ejected
                        d = nc
                        break
                    seen = False
                    for z2 in range(v_ptr[u], z):
                        if occ[v_grp[z2]] == w:
                            seen = True
                            break
                    if not seen:
                        d += 1
                if d >= nc or (tabu[u] > it and nh + d >= best_nh):
                    continue
                if d < bd:
                    bd, bu, ties = d, u, 1
                elif d == bd:
                    ties += 1
                    if randint(rng, ties) == 0:
                        bu = u
        if bu < 0:  # every move is tabu: a random candidate of a random empty cell
            c = cells[holes[randint(rng, nh)]]
            n = 0
            for y in range(g_ptr[c], g_ptr[c + 1]):
                if alive0[g_var[y]] != 0:
                    n += 1
                    if randint(rng, n) == 0:
                        bu = g_var[y]
            if bu < 0:
                continue
        for z in range(v_ptr[bu], v_ptr[bu + 1]):  # eject what clashes with bu
            w = occ[v_grp[z]]
            if w < 0:
                continue
            for z2 in range(v_ptr[w], v_ptr[w + 1]):
                occ[v_grp[z2]] = -1
            cur[w] = 0
            k = cell_of[w]
            holes[nh] = k
            place[k] = nh
            nh += 1
            tabu[w] = it + int(ALPHA * nh) + randint(rng, SPREAD)
        for z in range(v_ptr[bu], v_ptr[bu + 1]):
            occ[v_grp[z]] = bu
        cur[bu] = 1
        k = cell_of[bu]  # its cell leaves the list of empty ones
        nh -= 1
        last = holes[nh]
        holes[place[k]] = last
        place[last] = place[k]
        place[k] = -1
        if nh < best_nh:
            best_nh = nh
            copy(best, cur)
    if best_nh == 0:
        stop[0] = 1
    return best, best_nh, it
