"""An ant that refutes its failures: a choice whose propagation contradicts is undone.

This ant keeps a *trail* of what each choice changed (variables ruled out, groups hit,
variables chosen), so that it can undo its last choice, and answers a contradiction (an
open group left with no alive member) by refutation: the choice is undone and its
variable ruled out (a failed literal), and the removal propagated; a removal that
contradicts too is undone, and from there the ant goes on as the plain ant of
:mod:`.kernel`.  Every refuted variable gains one unit of ``blame``, which fades by
:data:`FADE` per colony iteration; a candidate weighs its pheromone divided by
``1 + weight * blame``.  Every choice is made in the open group with the fewest alive
members (the most constrained first).

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> from qsudoku.samplers.aco import AntColonySampler
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> ss = AntColonySampler().sample(m.bqm, groups=m.groups(), refute=True, seed=1)
>>> float(ss.first.energy)
0.0
"""

from __future__ import annotations

from qsudoku.samplers.kernels import ijit, njit, randint, uniform

__all__ = ["learn_ant", "FADE"]

#: Share of each variable's blame that fades per colony iteration.
FADE = 0.02

_KILL, _DONE, _CHOSEN = 0, 1, 2


@ijit
def _kill(u, cover, state, work, top, tr):
    """Rule ``u`` out; groups left with at most one alive member go on the stack."""
    v_ptr, v_grp = cover.v_ptr, cover.v_grp
    alive, cnt, done, _ = state
    stack, tr_kind, tr_val = work
    alive[u] = 0
    tr_kind[tr] = _KILL
    tr_val[tr] = u
    tr += 1
    for z in range(v_ptr[u], v_ptr[u + 1]):
        h = v_grp[z]
        cnt[h] -= 1
        if done[h] == 0 and cnt[h] <= 1:
            stack[top] = h
            top += 1
    return top, tr


@ijit
def _take(v, cover, state, work, top, tr):
    """Choose ``v`` (on the trail): its groups are hit, their other members ruled out."""
    v_ptr, v_grp, g_ptr, g_var = cover.v_ptr, cover.v_grp, cover.g_ptr, cover.g_var
    alive, done, chosen = state[0], state[2], state[3]
    tr_kind, tr_val = work[1], work[2]
    chosen[v] = 1
    tr_kind[tr] = _CHOSEN
    tr_val[tr] = v
    tr += 1
    for x in range(v_ptr[v], v_ptr[v + 1]):
        g = v_grp[x]
        if done[g] == 0:
            done[g] = 1
            tr_kind[tr] = _DONE
            tr_val[tr] = g
            tr += 1
    for x in range(v_ptr[v], v_ptr[v + 1]):
        g = v_grp[x]
        for y in range(g_ptr[g], g_ptr[g + 1]):
            u = g_var[y]
            if u != v and alive[u] != 0:
                top, tr = _kill(u, cover, state, work, top, tr)
    return top, tr


@ijit
def _settle(cover, state, work, top, tr, strict):
    """Unit propagation on the trail.  Returns ``(trail top, contradiction)``; a
    contradiction stops it when ``strict``, else the empty group is left open."""
    g_ptr, g_var = cover.g_ptr, cover.g_var
    alive, cnt, done, _ = state
    stack = work[0]
    while top > 0:
        top -= 1
        h = stack[top]
        if done[h] != 0 or cnt[h] > 1:
            continue
        if cnt[h] == 0:
            if strict != 0:
                return tr, True
            continue
        for y in range(g_ptr[h], g_ptr[h + 1]):
            u = g_var[y]
            if alive[u] != 0:
                top, tr = _take(u, cover, state, work, top, tr)
                break
    return tr, False


@ijit
def _undo(mark, cover, state, work, tr):
    """Undo the trail back to ``mark``; returns ``mark``."""
    v_ptr, v_grp = cover.v_ptr, cover.v_grp
    alive, cnt, done, chosen = state
    _, tr_kind, tr_val = work
    while tr > mark:
        tr -= 1
        k = tr_kind[tr]
        x = tr_val[tr]
        if k == _KILL:
            alive[x] = 1
            for z in range(v_ptr[x], v_ptr[x + 1]):
                cnt[v_grp[z]] += 1
        elif k == _DONE:
            done[x] = 0
        else:
            chosen[x] = 0
    return mark


@ijit
def fewest_group(rng, cnt, done):
    """An open group with the fewest alive members (at least one), ``-1`` if none.

    The scan starts at a random group and stops at the first one with two members or fewer
    (after propagation none has fewer), so ties go to the first met."""
    ng = cnt.shape[0]
    best = -1
    best_n = 1 << 62
    start = randint(rng, ng)
    for i in range(ng):
        g = start + i
        if g >= ng:
            g -= ng
        n = cnt[g]
        if done[g] == 0 and 0 < n < best_n:
            best, best_n = g, n
            if n <= 2:
                break
    return best


@ijit
def _weighed(rng, c, alive, tau, blame, weight, q0, g_ptr, g_var):
    """The variable an ant sets in group ``c``: pheromone over ``1 + weight * blame``."""
    total = 0.0
    best = -1
    best_t = -1.0
    for y in range(g_ptr[c], g_ptr[c + 1]):
        u = g_var[y]
        if alive[u] != 0:
            t = tau[u] / (1.0 + weight * blame[u])
            total += t
            if t > best_t:
                best_t = t
                best = u
    if best < 0 or uniform(rng) < q0:
        return best
    r = uniform(rng) * total
    for y in range(g_ptr[c], g_ptr[c + 1]):
        u = g_var[y]
        if alive[u] != 0:
            r -= tau[u] / (1.0 + weight * blame[u])
            if r <= 0.0:
                return u
    return best


@njit
def learn_ant(rng, cover, knobs, tau, tau0, blame, state, work):
    """Build one ant's assignment in place from the state given (see the module).

    Args:
        rng: The colony's generator.
        cover: The cover (:class:`.kernel.Cover`).
        knobs: The colony's parameters (:class:`.kernel.Colony`): ``q0`` (probability of
            the greedy choice), ``xi`` (local pheromone update) and ``weight`` (of the
            blame in a choice).
        tau, tau0: Pheromone per variable and its initial value.
        blame: Blame per variable (updated here).
        state: ``(alive, cnt, done, chosen)``, updated in place.
        work: Work arrays ``(stack, tr_kind, tr_val)``: the propagation stack, and a trail
            of ``2 * variables + groups`` entries.
    """
    g_ptr, g_var = cover.g_ptr, cover.g_var
    alive, cnt, done, _ = state
    q0, xi, weight = knobs.q0, knobs.xi, knobs.weight
    tr = 0
    strict = 1
    while True:
        c = fewest_group(rng, cnt, done)
        if c < 0:
            break
        u = _weighed(rng, c, alive, tau, blame, weight, q0, g_ptr, g_var)
        tau[u] = (1.0 - xi) * tau[u] + xi * tau0
        mark = tr
        top, tr = _take(u, cover, state, work, 0, tr)
        tr, bad = _settle(cover, state, work, top, tr, strict)
        if not bad:
            continue
        blame[u] += 1.0  # refute: undo the choice and rule it out
        tr = _undo(mark, cover, state, work, tr)
        top, tr = _kill(u, cover, state, work, 0, tr)
        tr, bad = _settle(cover, state, work, top, tr, strict)
        if not bad:
            continue
        tr = _undo(mark, cover, state, work, tr)
        strict = 0  # the removal contradicts too: from here on the ant is the plain one
        top, tr = _take(u, cover, state, work, 0, tr)
        tr, bad = _settle(cover, state, work, top, tr, strict)
