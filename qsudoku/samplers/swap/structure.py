"""What the structured samplers (``swap``, ``swap-tabu``) share: the compiled structure and reads.

:func:`compile_structure` turns a BQM and its labelled one-hot groups into the kernels'
arrays: a *family* of unit groups that partitions the open cells (``box`` or ``region``
when present, else ``row``), cells, candidate digits and the *conflict groups* (every other
group), with weights read off the BQM and checked against it.  :func:`run_batches` runs a
kernel's reads batch after batch until a ground state or a time limit, and
:func:`finish_sampleset` turns them into a :class:`dimod.SampleSet` with the BQM's energies.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> m = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), rules=()))
>>> st = compile_structure(m.bqm, m.groups())
>>> st.family, st.feasible, len(st.variables) == m.num_variables
('box', True, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from qsudoku.errors import ParameterError
from qsudoku.samplers.penalty_fit import infer_weights

__all__ = ["SwapStructure", "compile_structure", "FAMILY_KINDS", "run_batches", "finish_sampleset",
           "kernel_args"]

#: Unit kinds tried, in order, as the family whose units the moves keep as permutations.
FAMILY_KINDS = ("box", "region", "row")


@dataclass
class SwapStructure:
    """A BQM compiled for the swap kernels (see :mod:`.kernel` for the layout).

    Attributes:
        variables: BQM labels in index order.
        family: The unit kind whose groups the moves keep satisfied.
        feasible: False if some family unit has no perfect matching (then no valid sample exists).
        arrays: Keyword arrays of the kernels.
        weight_scale: Smallest group weight (the energy of the lightest broken group).
        digit_pure: True if no conflict group holds two variables of one cell or two
            values of one component (true of every Sudoku model); the tabu kernel then
            computes a swap's energy change without touching the counts.
    """

    variables: list
    family: str
    feasible: bool
    arrays: dict
    weight_scale: float
    digit_pure: bool = True

    def to_samples(self, best_val: np.ndarray) -> np.ndarray:
        """0/1 samples (reads x variables) from per-read value slots."""
        a = self.arrays
        R = best_val.shape[0]
        out = np.zeros((R, len(self.variables)), np.int8)
        if best_val.shape[1] == 0:
            return out
        k = a["slot_comp"]
        s = np.arange(best_val.shape[1])
        cs, m = a["comp_start"][k], a["comp_size"][k]
        idx = a["tab_off"][k][None, :] + (s - cs)[None, :] * m[None, :] + (best_val - cs[None, :])
        var = a["tab"][idx]
        rows = np.repeat(np.arange(R), best_val.shape[1])
        ok = var.ravel() >= 0
        out[rows[ok], var.ravel()[ok]] = 1
        return out


def compile_structure(bqm, groups, family: str | None = None) -> SwapStructure:
    """Turn ``bqm`` and its labelled one-hot groups into the kernels' arrays.

    Raises:
        ParameterError: If ``groups`` is missing, has no cell groups, or the BQM is not the
            sum of one-hot penalties over them.
    """
    if not groups:
        raise ParameterError("the swap sampler needs the model's one-hot groups: "
                         "sample(bqm, groups=[(kind, [labels...]), ...])")
    variables = list(bqm.variables)
    pos = {v: i for i, v in enumerate(variables)}
    kinds, sizes, labels = [], [], []
    for kind, group_labels in groups:
        kinds.append(kind)
        sizes.append(len(group_labels))
        labels.extend(group_labels)
    try:  # all labels in one pass, then each group as a view of its stretch
        members = np.fromiter(map(pos.__getitem__, labels), np.int64, len(labels))
    except KeyError as e:
        i = next(i for i, v in enumerate(labels) if v not in pos)
        kind = kinds[int(np.searchsorted(np.cumsum(sizes), i, side="right"))]
        raise ParameterError(f"group of kind {kind!r} names variable {e.args[0]!r}, "
                         "which is not in the BQM") from None
    ends = np.cumsum(sizes).tolist()
    gidx = [members[e - n:e] for e, n in zip(ends, sizes)]
    V = len(variables)
    gw = infer_weights(bqm, variables, gidx, kinds, members, sizes) if V else np.ones(len(kinds))
    if gw is None:
        raise ParameterError("the BQM is not a sum of one-hot penalties over the given groups")
    if family is None:
        family = next((k for k in FAMILY_KINDS if k in kinds), None)
    elif family not in kinds:
        raise ParameterError(f"family = {family!r}: the model has no groups of that kind")
    if "cell" not in kinds or family is None:
        raise ParameterError("the swap sampler needs 'cell' groups and 'box', 'region' or 'row' groups")

    def member_of(kind):  # each variable's group of ``kind`` (-1: none), and those groups
        of, chosen = np.full(V, -1, np.int64), [g for g, k in zip(gidx, kinds) if k == kind]
        for i, g in enumerate(chosen):
            of[g] = i
        return of, chosen

    (cell_of, cells), (value_of, fam_groups) = member_of("cell"), member_of(family)
    if (cell_of < 0).any() or (value_of < 0).any():
        raise ParameterError(f"every variable must lie in one 'cell' group and one {family!r} group")
    # Components: cells linked by shared family groups (a unit, or an independent part of it).
    parent = list(range(len(cells)))  # (a list: faster than onehot.components' dict)

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for g in fam_groups:
        cs = cell_of[g].tolist()
        r0 = find(cs[0])
        for c in cs[1:]:
            r = find(c)
            if r != r0:
                parent[r] = r0
    comp_cells: dict[int, list[int]] = {}
    for c in range(len(cells)):
        comp_cells.setdefault(find(c), []).append(c)
    comp_vals: dict[int, list[int]] = {}
    for v, g in enumerate(fam_groups):
        comp_vals.setdefault(find(int(cell_of[g[0]])), []).append(v)
    feasible = True
    comp_start, comp_size, tab_off = [0], [], [0]
    slot_of_cell = np.empty(len(cells), np.int64)
    slot_of_val = np.empty(len(fam_groups), np.int64)
    for root, cl in comp_cells.items():
        vl = comp_vals.get(root, [])
        m = max(len(cl), len(vl))
        if len(cl) != len(vl):
            feasible = False
        s0 = comp_start[-1]
        slot_of_cell[cl] = s0 + np.arange(len(cl))
        slot_of_val[vl] = s0 + np.arange(len(vl))
        comp_size.append(m)
        comp_start.append(s0 + m)
        tab_off.append(tab_off[-1] + m * m)
    tab = np.full(tab_off[-1], -1, np.int64)  # each component's m x m table, row by row
    comp_start, comp_size, tab_off = (np.asarray(a, np.int64)
                                      for a in (comp_start, comp_size, tab_off))
    ns = int(comp_start[-1])
    slot_comp = np.repeat(np.arange(len(comp_size)), comp_size).astype(np.int64)
    sc = slot_of_cell[cell_of]
    sv = slot_of_val[value_of]
    k = slot_comp[sc]
    tab[tab_off[k] + (sc - comp_start[k]) * comp_size[k] + (sv - comp_start[k])] = np.arange(V)
    order = np.lexsort((sv, sc))
    cand_ptr = np.searchsorted(sc[order], np.arange(ns + 1)).astype(np.int64)
    cand_val = sv[order].astype(np.int64)
    counts = np.diff(cand_ptr)
    movable = np.flatnonzero((counts >= 2) & (comp_size[slot_comp] >= 2)).astype(np.int64)
    # Conflict groups: every group the moves can change (not cell, not family).
    conf = [i for i, k_ in enumerate(kinds) if k_ not in ("cell", family)]
    is_conf = np.zeros(len(kinds), bool)
    is_conf[conf] = True
    mv = members[np.repeat(is_conf, sizes)]  # their variables, group after group
    mg = np.repeat(np.arange(len(conf)), np.asarray(sizes, np.int64)[is_conf])
    o = np.argsort(mv, kind="stable")
    vg_ptr = np.searchsorted(mv[o], np.arange(V + 1)).astype(np.int64)
    vg_idx = mg[o].astype(np.int64)
    # The same lists as a table, a row per variable padded with -1 (for the tabu kernel).
    per_var = np.diff(vg_ptr)
    vgw = np.full((V, max(1, int(per_var.max(initial=0)))), -1, np.int64)
    vgw[np.repeat(np.arange(V), per_var), np.arange(len(vg_idx)) - np.repeat(vg_ptr[:-1], per_var)] \
        = vg_idx
    arrays = dict(movable=movable, slot_comp=slot_comp, comp_start=comp_start[:-1].copy(),
                  comp_size=comp_size, tab_off=tab_off[:-1].copy(), tab=tab,
                  cand_ptr=cand_ptr, cand_val=cand_val, vg_ptr=vg_ptr, vg_idx=vg_idx,
                  gw=np.asarray(gw, float)[conf] if conf else np.zeros(0), vgw=vgw)
    scale = float(np.min(gw)) if len(gw) else 1.0
    pure = _digit_pure(mg, sc[mv], slot_comp[sc[mv]], sv[mv], ns)
    return SwapStructure(variables, family, feasible, arrays, scale, pure)


def _digit_pure(group, cell, comp, value, ns: int) -> bool:
    """True if no conflict group holds two variables of one cell, nor two values of one
    component: then a swap's energy change is a sum over its two digits (see the tabu kernel).

    Args:
        group, cell, comp, value: Per membership of a conflict group: the group, and its
            variable's cell slot, component and value slot.
        ns: Number of cell (and value) slots.
    """
    if not len(group):
        return True
    one_per_cell = len(np.unique(group * ns + cell)) == len(group)
    by_comp = group * ns + comp
    one_value = len(np.unique(by_comp)) == len(np.unique(by_comp * ns + value))
    return bool(one_per_cell and one_value)


def kernel_args(st: SwapStructure):
    """The kernels' view of ``st``: its arrays as a :class:`~qsudoku.samplers.swap.kernel.Swaps`
    (imported here, not above: the kernel module loads numba)."""
    from qsudoku.samplers.swap.kernel import Swaps

    return Swaps(**st.arrays)


def greedy_samples(st: SwapStructure, num_reads: int) -> np.ndarray:
    """Samples for an infeasible structure: each cell takes its first candidate."""
    a = st.arrays
    val = np.empty(len(a["slot_comp"]), np.int64)
    for s in range(len(val)):
        lo, hi = a["cand_ptr"][s], a["cand_ptr"][s + 1]
        val[s] = a["cand_val"][lo] if hi > lo else a["comp_start"][a["slot_comp"][s]]
    return st.to_samples(np.repeat(val[None, :], num_reads, axis=0))


def run_batches(st: SwapStructure, run, num_reads: int, batch: int, time_limit, t0: float,
                stop_at_ground: bool):
    """Run reads batch after batch until ``num_reads``, a ground state or ``time_limit``.

    ``run(n, first_read, deadline)`` runs ``n`` reads and returns per read ``(value slots,
    energy, work done, complete)``.  A read cut short (another read reached the ground
    state, or the time limit) is not a finished read: it is dropped, so that the valid
    share of the reads is a per-read success probability, unless no read finished at all.

    Returns:
        ``(value slots per read, work per read, number of reads dropped)``.
    """
    if not st.feasible:
        return None, np.zeros(num_reads, np.int64), 0
    deadline = np.inf if time_limit is None else t0 + float(time_limit)
    vals, energies, work, complete = [], [], [], []
    done = 0
    while done < num_reads:
        n = min(batch, num_reads - done)
        with np.errstate(over="ignore"):  # uint64 hashing wraps (Python fallback)
            bv, be, w, c = run(n, done, deadline)
        vals.append(bv)
        energies.append(be)
        work.append(w)
        complete.append(np.asarray(c, bool))
        done += n
        if stop_at_ground and be.min() <= 1e-9:
            break
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            break
    vals, work, complete = np.concatenate(vals), np.concatenate(work), np.concatenate(complete)
    # Without a finished read, keep the ones that ran (a skipped read has energy inf).
    keep = complete if complete.any() else np.isfinite(np.concatenate(energies))
    interrupted = int((~keep).sum())
    if interrupted:
        vals, work = vals[keep], work[keep]
    return vals, work, interrupted


def finish_sampleset(bqm, st: SwapStructure, vals, interrupted: int, t0: float, t1: float,
                     num_reads: int = 0, **info):
    """The :class:`dimod.SampleSet` of per-read value slots (``None``: infeasible structure,
    ``num_reads`` greedy samples), with energies computed by ``bqm`` and timing info."""
    import dimod

    samples = greedy_samples(st, max(1, num_reads)) if vals is None else st.to_samples(vals)
    t2 = time.perf_counter()
    ss = dimod.SampleSet.from_samples_bqm((samples, st.variables), bqm)
    ss.info.update(interrupted=interrupted, family=st.family, feasible=st.feasible,
                   num_reads=len(samples), **info,
                   timing={"compile_structure": t1 - t0, "search": t2 - t1,
                           "total": time.perf_counter() - t0})
    return ss

