"""Turn samples back into grids and say which constraints they break.

An invalid sample is data: :class:`Decoded` records its grid (0 where a cell has no
single digit), energy, broken constraints and ``valid``, which checks both that every
group sums to one and that the grid solves the puzzle's units.

>>> import dimod
>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> m = build_model(propagate(parse_puzzle("12.." "34.." "...." "...."), rules=()))
>>> ss = dimod.SampleSet.from_samples((m.sample_of_grid([1,2,3,4,3,4,1,2,2,1,4,3,4,3,2,1]),
...                                    m.variables), "BINARY", energy=[0.0])
>>> d = decode(m, ss)[0]
>>> d.valid, d.broken
(True, [])
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from qsudoku.checks import need_type
from qsudoku.errors import SampleValueError
from qsudoku.model.qubo import QuboModel

__all__ = ["Decoded", "decode", "decode_array", "success_rate"]


@dataclass
class Decoded:
    """One decoded sample.

    Attributes:
        grid: Row-major values; 0 where the sample puts no or several digits in a cell.
        energy: BQM energy of the sample.
        valid: True iff the grid is a full valid solution keeping the givens.
        broken: Labels of the one-hot groups whose sum is not one.
        num_occurrences: How many reads gave this sample.
        broken_by_kind: Count of broken groups per constraint kind.
    """

    grid: list[int]
    energy: float
    valid: bool
    broken: list[tuple] = field(default_factory=list)
    num_occurrences: int = 1
    broken_by_kind: dict[str, int] = field(default_factory=dict)


def _aligned(model: QuboModel, sampleset) -> np.ndarray:
    """The sampleset's samples as an ``(S, V)`` int array in model-variable order."""
    if model.num_variables == 0:
        return np.zeros((len(sampleset), 0), dtype=np.int8)
    if list(sampleset.variables) == model.variables:  # the usual case: already in order
        return np.asarray(sampleset.record.sample)
    pos = {v: k for k, v in enumerate(sampleset.variables)}
    missing = [v for v in model.variables if v not in pos]
    if missing:
        raise ValueError(f"sample set lacks {len(missing)} model variables, e.g. {missing[0]}")
    order = np.fromiter((pos[v] for v in model.variables), dtype=np.int64, count=model.num_variables)
    return np.asarray(sampleset.record.sample)[:, order]


def decode_array(model: QuboModel, samples: np.ndarray, energies=None, occurrences=None) -> list[Decoded]:
    """Decode an ``(S, V)`` 0/1 array whose columns follow ``model.variables``."""
    samples = np.atleast_2d(np.asarray(samples))
    S = samples.shape[0]
    x = model.indicators(samples)  # (S, slots): the samples themselves in one-hot
    packed = model.packed
    if packed.labels and len(packed.members):
        sums = np.add.reduceat(x[:, packed.members], packed.starts, axis=1)
        bad = sums != 1
        if not model.one_hot:  # a broken chain: an indicator of -1 (or 1s that cancel)
            odd = ((x < 0) | (x > 1))[:, packed.members].astype(np.int64)
            bad |= np.add.reduceat(odd, packed.starts, axis=1) > 0
    else:
        bad = np.zeros((S, len(packed.labels)), bool)
    if energies is None:
        energies = [float(model.bqm.energy((row, model.variables))) if model.num_variables
                    else model.bqm.offset for row in samples]
    occurrences = np.ones(S, int) if occurrences is None else occurrences
    grids = _grids(model, x, (x == 1) * model.slot_digit[None, :]).tolist()
    energies = np.asarray(energies, dtype=float).tolist()
    # Sample s breaks the constraints columns[ends[s - 1]:ends[s]].
    columns = np.nonzero(bad)[1].tolist()
    ends = np.cumsum(np.count_nonzero(bad, axis=1)).tolist()
    labels, kinds = packed.labels, packed.kinds
    solves = functools.cache(model.puzzle.is_solution)  # once per distinct grid
    out, start = [], 0
    for s, end in enumerate(ends):
        idx, start = columns[start:end], end
        counts: dict[str, int] = {}
        for k in idx:
            counts[kinds[k]] = counts.get(kinds[k], 0) + 1
        valid = not idx and solves(tuple(grids[s]))
        out.append(Decoded(grids[s], energies[s], valid, [labels[k] for k in idx],
                           int(occurrences[s]), counts))
    return out


def _grids(model: QuboModel, on: np.ndarray, digits: np.ndarray) -> np.ndarray:
    """``(S, n*n)`` grids: a cell's digit if exactly one of its indicators is on, else 0
    (fixed cells keep their value); ``digits`` is ``on`` times each slot's digit."""
    fixed = np.asarray(model.fixed)
    S, cells = len(on), len(fixed)
    # Per-cell sums of all samples at once (bin s * cells + c: sample s, cell c).
    bins = (np.arange(S)[:, None] * cells + model.slot_cell[None, :]).ravel()
    on_count = np.bincount(bins, weights=(on == 1).ravel(), minlength=S * cells).reshape(S, cells)
    digit_sum = np.bincount(bins, weights=digits.ravel(), minlength=S * cells).reshape(S, cells)
    grids = np.where(on_count == 1, digit_sum.astype(np.int64), 0)
    return np.where(fixed[None, :] != 0, fixed[None, :], grids)


def decode(model: QuboModel, sampleset) -> list[Decoded]:
    """Decode every sample of a :class:`dimod.SampleSet` (in its record order).

    A ``SPIN`` sample set is read as the same states in ``BINARY``; any other value (a
    fractional relaxation, a 2) is refused.

    Raises:
        TypeError: Not a model and a :class:`dimod.SampleSet`.
        ValueError: The sample set lacks a model variable.
        SampleValueError: A value that is not 0/1 (``BINARY``) or -1/+1 (``SPIN``).
    """
    import dimod

    need_type("model", model, QuboModel)
    need_type("sampleset", sampleset, dimod.SampleSet)
    sampleset = _binary(sampleset)
    rec = sampleset.record
    occ = rec.num_occurrences if "num_occurrences" in rec.dtype.names else None
    return decode_array(model, _aligned(model, sampleset), rec.energy, occ)


def _binary(sampleset):
    """``sampleset`` in ``BINARY``, checked to hold only its vartype's two values."""
    import dimod

    spin = sampleset.vartype is dimod.SPIN
    values = np.asarray(sampleset.record.sample)
    low = -1 if spin else 0
    if not values.size or (not spin and values.dtype.kind in "iub"
                           and values.min() >= 0 and values.max() <= 1):
        return sampleset  # the usual case, checked without a copy
    bad = (values != low) & (values != 1)
    if bad.any():
        s, v = (int(k) for k in np.argwhere(bad)[0])
        raise SampleValueError(
            f"sample {s} holds {values[s, v].item()!r} for variable "
            f"{sampleset.variables[v]!r}: a "
            f"{sampleset.vartype.name} sample set holds only {low} and 1 (decode reads BINARY "
            "0/1 or SPIN -1/+1 samples, not fractional or other values)")
    return sampleset.change_vartype(dimod.BINARY, inplace=False) if spin else sampleset


def success_rate(decoded: list[Decoded]) -> float:
    """Fraction of reads (weighted by occurrences) that are valid solutions.

    >>> success_rate([Decoded([], 0.0, True, num_occurrences=3), Decoded([], 2.0, False)])
    0.75
    """
    total = sum(d.num_occurrences for d in decoded)
    return sum(d.num_occurrences for d in decoded if d.valid) / total if total else 0.0
