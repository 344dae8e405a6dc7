"""The one sampling path: a model and a sampler in, one decoded round out.

Every place that samples a QUBO (each round of :func:`qsudoku.solving.solve`, its
exact fallback, ``bench`` and ``sweep``) calls
:func:`sample_round`, and every place that picks "the best read" calls
:func:`best_read`; a :class:`Tally` adds rounds up.  A new metric, or a parameter that
every sampler call needs (such as the labelled one-hot ``groups`` that structured
samplers read), is therefore added here once.

>>> from qsudoku.io import parse_puzzle
>>> from qsudoku.model.propagate import propagate
>>> from qsudoku.model.qubo import build_model
>>> from qsudoku.samplers import get_sampler
>>> model = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4")))
>>> rnd = sample_round(model, get_sampler("sa"), {"num_reads": 20, "seed": 5})
>>> rnd.num_reads, rnd.best.valid, rnd.best.energy
(20, True, 0.0)
>>> tally = Tally()
>>> tally.add(rnd)
>>> tally.rounds, tally.num_reads, tally.success_rate == rnd.success_rate
(1, 20, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

from qsudoku.errors import SamplerOutputError
from qsudoku.model.decode import Decoded, decode
from qsudoku.model.qubo import QuboModel
from qsudoku.checks import need_finite_bqm

__all__ = ["Round", "Tally", "sample_round", "checked_sampleset", "DECODE_SAMPLE", "best_read", "call_params", "INFO_KEYS"]

#: The ``sampleset.info`` fields kept in results (summed over rounds when numeric).
INFO_KEYS = ("timing", "status", "problem_id")


def best_read(decoded: list[Decoded]) -> Decoded:
    """The best read: a valid one if any, else the lowest energy (first of equals).

    >>> a, b = Decoded([1], 2.0, False), Decoded([2], 0.0, True)
    >>> best_read([a, b]) is b
    True
    """
    return min(decoded, key=lambda d: (not d.valid, d.energy))


def call_params(sampler, model: QuboModel, params: Mapping) -> dict:
    """``params`` plus what the model gives samplers that ask for it: ``groups`` (the
    labelled one-hot groups), ``puzzle`` (the puzzle itself, for a peer that builds a
    formulation of its own and answers in the model's variables, as
    ``benchmarks/dwave_examples.py`` does)."""
    call = dict(params)
    listed = getattr(sampler, "parameters", None) or {}
    if "groups" in listed:
        call["groups"] = model.groups()
    if "puzzle" in listed:
        call["puzzle"] = model.puzzle
    return call


@dataclass
class Round:
    """One sampler call on one model, decoded.

    Attributes:
        model: The :class:`~qsudoku.model.qubo.QuboModel` sampled.
        sampleset: The resolved :class:`dimod.SampleSet`.
        decoded: Every read, decoded (in the sample set's record order).
        best: :func:`best_read` of ``decoded``.
        params: The parameters the sampler was called with (without ``groups``).
        t_sample: Seconds in ``sampler.sample`` (resolving the sample set included).
        t_decode: Seconds decoding.
        returned: Reads the sampler returned; more than ``num_reads`` when the reads of
            highest energy were left undecoded to keep a deadline (see :func:`sample_round`).
    """

    model: QuboModel
    sampleset: Any
    decoded: list[Decoded]
    best: Decoded
    params: dict
    t_sample: float
    t_decode: float
    returned: int = 0

    @property
    def num_reads(self) -> int:
        """Reads taken (occurrences counted)."""
        return sum(d.num_occurrences for d in self.decoded)

    @property
    def num_valid(self) -> int:
        """Reads that are valid grids."""
        return sum(d.num_occurrences for d in self.decoded if d.valid)

    @property
    def success_rate(self) -> float:
        """``num_valid / num_reads`` (0 without reads)."""
        return self.num_valid / self.num_reads if self.num_reads else 0.0

    def broken_names(self) -> list[str]:
        """Readable names of the constraints the best read breaks."""
        labels = set(self.best.broken)
        return [c.describe(self.model.puzzle) for c in self.model.constraints
                if c.label in labels]


def checked_sampleset(name: str, sampleset, model: QuboModel):
    """``sampleset``, resolved, if it is a usable answer of sampler ``name`` for ``model``:
    a :class:`dimod.SampleSet` with at least one read and every model variable.

    Raises:
        SamplerOutputError: Anything else, naming the sampler and what it returned.

    >>> import dimod
    >>> checked_sampleset("Mine", None, None)
    Traceback (most recent call last):
    ...
    qsudoku.errors.SamplerOutputError: sampler 'Mine' returned None, not a dimod.SampleSet
    """
    import dimod  # not at import time: ``import qsudoku`` stays light

    if not isinstance(sampleset, dimod.SampleSet):
        what = "None" if sampleset is None else f"a {type(sampleset).__name__}"
        raise SamplerOutputError(f"sampler {name!r} returned {what}, not a dimod.SampleSet")
    sampleset.resolve()
    if not len(sampleset):
        raise SamplerOutputError(f"sampler {name!r} returned an empty SampleSet (no reads)")
    missing = set(model.variables).difference(sampleset.variables)
    if missing:
        raise SamplerOutputError(f"sampler {name!r} returned a SampleSet without {len(missing)} "
                                 f"of the model's {model.num_variables} variables, e.g. "
                                 f"{min(missing, key=str)!r}")
    return sampleset


#: Reads decoded first to measure decoding, when a deadline may not hold them all.
DECODE_SAMPLE = 256


def _decode_within(model: QuboModel, sampleset, deadline: float | None):
    """``(sampleset, decoded)``: every read decoded, or, when decoding them all would pass
    ``deadline`` (measured on the first :data:`DECODE_SAMPLE` reads), only the reads of
    lowest energy that fit: a sampler bounded by time may return more reads than a budget
    can decode."""
    n = len(sampleset)
    if deadline is None or n <= DECODE_SAMPLE:
        return sampleset, decode(model, sampleset)
    t = time.perf_counter()
    head = decode(model, sampleset.slice(DECODE_SAMPLE, sorted_by=None))
    now = time.perf_counter()
    fit = DECODE_SAMPLE + max(0, int((deadline - now) / max((now - t) / DECODE_SAMPLE, 1e-9)))
    if fit >= n:
        return sampleset, head + decode(model, sampleset.slice(DECODE_SAMPLE, None,
                                                               sorted_by=None))
    kept = sampleset.truncate(fit)
    return kept, decode(model, kept)


def sample_round(model: QuboModel, sampler, params: Mapping, name: str | None = None,
                 deadline: float | None = None, *, finite: bool = False) -> Round:
    """Sample ``model.bqm`` once with ``sampler`` and decode every read.

    Args:
        model: The model to sample.
        sampler: Any :class:`dimod.Sampler`; one that lists ``groups`` in its
            ``parameters`` also gets the model's labelled one-hot groups.
        params: Keyword arguments of ``sampler.sample`` (already checked).
        name: The sampler's name in errors (default: its ``name`` or class name).
        deadline: ``time.perf_counter()`` value by which decoding should end: when the
            sampler returned more reads than fit, only those of lowest energy are decoded
            (:attr:`Round.returned` keeps the count returned).
        finite: The model's biases are known to be finite (built by
            :func:`~qsudoku.model.qubo.build_model` from checked weights, as every round of
            a solve is), so the check of every bias (one pass in C) is skipped.

    Returns:
        The :class:`Round`.

    Raises:
        ConfigError: A bias of ``model.bqm`` is NaN or infinite (any sampler, before it
            runs: :func:`~qsudoku.checks.need_finite_bqm`).
        SamplerOutputError: The sampler's answer is not usable (:func:`checked_sampleset`).
    """
    call = call_params(sampler, model, params)
    name = name or getattr(sampler, "name", None) or type(sampler).__name__
    if not finite:
        need_finite_bqm(model.bqm, sampler=str(name))
    t = time.perf_counter()
    sampleset = checked_sampleset(str(name), sampler.sample(model.bqm, **call), model)
    t_sample = time.perf_counter() - t
    returned = int(sampleset.record.num_occurrences.sum())
    t = time.perf_counter()
    sampleset, decoded = _decode_within(model, sampleset, deadline)
    t_decode = time.perf_counter() - t
    return Round(model, sampleset, decoded, best_read(decoded), dict(params), t_sample, t_decode,
                 returned)


@dataclass
class Tally:
    """Reads of several rounds added up: the statistics every result and row reports.

    Attributes:
        rounds: Rounds added.
        num_reads, num_valid: Reads and valid reads over all rounds.
        t_sample, t_decode: Seconds over all rounds.
        best: The best :class:`Round`'s best read over all rounds (:func:`best_read` order).
        best_round: The round it came from.
        info: The :data:`INFO_KEYS` of the rounds' ``sampleset.info`` (numbers summed).
    """

    rounds: int = 0
    num_reads: int = 0
    num_valid: int = 0
    t_sample: float = 0.0
    t_decode: float = 0.0
    best: Decoded | None = None
    best_round: Round | None = field(default=None, repr=False)
    info: dict = field(default_factory=dict)
    _energy: float = 0.0
    _broken: dict = field(default_factory=dict)
    _broken_total: float = 0.0
    _cbf: float = 0.0
    _cbf_reads: int = 0

    def add(self, rnd: Round) -> None:
        """Add one round's reads."""
        self.rounds += 1
        self.t_sample += rnd.t_sample
        self.t_decode += rnd.t_decode
        for d in rnd.decoded:
            k = d.num_occurrences
            self.num_reads += k
            self.num_valid += k if d.valid else 0
            self._energy += k * d.energy
            self._broken_total += k * len(d.broken)
            for kind, c in d.broken_by_kind.items():
                self._broken[kind] = self._broken.get(kind, 0.0) + k * c
        if self.best is None or (not rnd.best.valid, rnd.best.energy) < (not self.best.valid,
                                                                          self.best.energy):
            self.best, self.best_round = rnd.best, rnd
        rec = rnd.sampleset.record
        if "chain_break_fraction" in rec.dtype.names:
            occ = rec.num_occurrences if "num_occurrences" in rec.dtype.names else 1
            self._cbf += float((rec.chain_break_fraction * occ).sum())
            self._cbf_reads += int(rec.num_occurrences.sum()) if "num_occurrences" in \
                rec.dtype.names else len(rec)
        _add_info(self.info, rnd.sampleset.info)

    @property
    def success_rate(self) -> float | None:
        """Fraction of valid reads (``None`` before any read)."""
        return self.num_valid / self.num_reads if self.num_reads else None

    @property
    def mean_energy(self) -> float:
        """Mean energy per read (NaN before any read)."""
        return self._energy / self.num_reads if self.num_reads else math.nan

    def broken_per_read(self, kinds) -> dict[str, float]:
        """Mean broken one-hot groups per read for each kind in ``kinds``, and ``total``."""
        n = self.num_reads
        out = {k: (self._broken.get(k, 0.0) / n if n else math.nan) for k in kinds}
        out["total"] = self._broken_total / n if n else math.nan
        return out

    @property
    def chain_break_fraction(self) -> float:
        """Mean chain-break fraction per read (NaN unless the sampler reports it)."""
        return self._cbf / self._cbf_reads if self._cbf_reads else math.nan


def _add_info(acc: dict, info: Mapping) -> None:
    """Accumulate the :data:`INFO_KEYS` of ``info`` (numbers summed over rounds)."""
    for key in INFO_KEYS:
        v = info.get(key)
        if isinstance(v, Mapping):
            sub = acc.setdefault(key, {})
            for k, x in v.items():
                if isinstance(x, (int, float)) and not isinstance(x, bool):
                    sub[str(k)] = sub.get(str(k), 0) + float(x)
        elif isinstance(v, (int, float, str, bool)):
            acc[key] = v if isinstance(v, (str, bool)) else float(v)
