"""Instances a study makes itself: seeded random-fraction puzzles, the ``[generate]`` table
of a study spec.

A spec that says how its instances are made needs no puzzle file::

    [generate]
    size = 9                                        # grid size (box: the most square)
    fractions = {from = 0.0, to = 1.0, step = 0.05} # or a list: [0.3, 0.35, 0.4]
    count = 20                                      # instances per fraction
    seed = 0

Instance ``k`` (from 1) of fraction ``F`` is puzzle ``k`` of ``qsudoku generate --size N
--fraction F --count C --seed S`` with ``S = seed * 10000 + round(F * 10000)``
(:func:`fraction_seed`), the same whatever ``count``; its
:class:`~qsudoku.experiments.tasks.Source` carries its fraction and a key made of these
numbers only (``generate:9:0.05:500:3``), so ``--resume`` matches it on any machine.

>>> gen = parse_generate({"size": 4, "fractions": {"from": 0.0, "to": 1.0, "step": 0.5},
...                       "count": 2, "seed": 1})
>>> gen.fractions
(0.0, 0.5, 1.0)
>>> [(s.set, s.fraction, s.ref) for s, _ in iter_generated(gen, limit=1)]
... # doctest: +NORMALIZE_WHITESPACE
[('generate/sudoku4', 0.0, 'generate:4:0.0:10000:1'),
 ('generate/sudoku4', 0.5, 'generate:4:0.5:15000:1'),
 ('generate/sudoku4', 1.0, 'generate:4:1.0:20000:1')]
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Iterator, Mapping

from qsudoku.errors import ConfigError
from qsudoku.experiments.tasks import Source
from qsudoku.model.puzzle import Puzzle
from qsudoku.model.symbols import MAX_SIZE

__all__ = ["Generate", "parse_generate", "fraction_seed", "iter_generated", "KEYS",
           "MAX_INSTANCES"]

#: The keys of a ``[generate]`` table.
KEYS = ("size", "box", "fractions", "count", "seed", "unique")
#: Most instances one ``[generate]`` table makes (fractions x count).
MAX_INSTANCES = 100_000


@dataclass(frozen=True)
class Generate:
    """How a study makes its instances (see the module doc)."""

    size: int
    fractions: tuple[float, ...]
    count: int
    seed: int = 0
    box: tuple[int, int] | None = None
    unique: bool = False


def fraction_seed(seed: int, fraction: float) -> int:
    """The ``qsudoku generate --seed`` of a fraction's instances.

    >>> fraction_seed(0, 0.05), fraction_seed(2, 1.0)
    (500, 30000)
    """
    return seed * 10000 + round(fraction * 10000)


def _int(table: Mapping, key: str, low: int, default=None) -> int:
    value = table.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ConfigError(f"[generate] {key} must be an integer >= {low}, not {value!r}")
    return value


def _fractions(value) -> tuple[float, ...]:
    """A list of fractions, or ``{from, to, step}`` (both ends included)."""
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - {"from", "to", "step"})
        if unknown or not all(isinstance(value.get(k), (int, float))
                              and not isinstance(value.get(k), bool)
                              for k in ("from", "to", "step")):
            raise ConfigError("[generate] fractions = {from = F, to = T, step = S} needs "
                              "three numbers, nothing else")
        lo, hi, step = (float(value[k]) for k in ("from", "to", "step"))
        if not (step > 0 and hi >= lo):
            raise ConfigError(f"[generate] fractions: step {step:g} must be > 0 and "
                              f"to {hi:g} >= from {lo:g}")
        steps = (hi - lo) / step
        if steps > MAX_INSTANCES:
            raise ConfigError(f"[generate] fractions: {steps:.0f} steps; at most "
                              f"{MAX_INSTANCES}")
        value = [round(lo + i * step, 10) for i in range(math.floor(steps + 1e-9) + 1)]
    if not (isinstance(value, list) and value and all(
            isinstance(f, (int, float)) and not isinstance(f, bool) for f in value)):
        raise ConfigError("[generate] fractions must be a list of numbers or "
                          "{from = F, to = T, step = S}")
    out = tuple(float(f) for f in value)
    bad = [f for f in out if not 0 <= f <= 1]
    if bad:
        raise ConfigError(f"[generate] fraction {bad[0]:g} must be between 0 and 1")
    seeds = [round(f * 10000) for f in out]
    if len(set(seeds)) < len(seeds):
        raise ConfigError("[generate] fractions repeat (to 4 decimals): each would make "
                          "the same instances")
    return out


def parse_generate(table) -> Generate:
    """The :class:`Generate` of a spec's ``[generate]`` table, checked.

    >>> parse_generate({"size": 9, "fractions": [0.4], "count": 3, "box": "3x3"}).box
    (3, 3)
    >>> parse_generate({"size": 9, "fractions": [1.5], "count": 3})
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: [generate] fraction 1.5 must be between 0 and 1

    Raises:
        ConfigError: An unknown key, or a value of the wrong type or range.
    """
    if not isinstance(table, Mapping):
        raise ConfigError("[generate] must be a table (size, fractions, count, seed)")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"[generate]: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    size = _int(table, "size", 2)
    if size > MAX_SIZE:
        raise ConfigError(f"[generate] size {size} must be at most {MAX_SIZE}")
    box = table.get("box")
    if box is not None:
        parts = str(box).lower().split("x")
        if len(parts) != 2 or not all(p.isdigit() for p in parts) or \
                int(parts[0]) * int(parts[1]) != size:
            raise ConfigError(f"[generate] box {box!r} must be RxC with R*C = size {size}")
        box = (int(parts[0]), int(parts[1]))
    unique = table.get("unique", False)
    if not isinstance(unique, bool):
        raise ConfigError(f"[generate] unique must be true or false, not {unique!r}")
    gen = Generate(size=size, fractions=_fractions(table.get("fractions")),
                   count=_int(table, "count", 1), seed=_int(table, "seed", 0, default=0),
                   box=box, unique=unique)
    if len(gen.fractions) * gen.count > MAX_INSTANCES:
        raise ConfigError(f"[generate] makes {len(gen.fractions) * gen.count} instances; "
                          f"at most {MAX_INSTANCES}")
    return gen


def iter_generated(gen: Generate, limit: int | None = None
                   ) -> Iterator[tuple[Source, Puzzle]]:
    """Each instance of ``gen`` (the first ``limit`` of each fraction), fraction by
    fraction, made as the run consumes them; named by the command that remakes it."""
    from qsudoku.exact.generate import make_puzzle, symmetries
    from qsudoku.io import Rules

    template = Rules(box=gen.box).make([0] * (gen.size * gen.size))
    moves = symmetries(template)
    count = gen.count if limit is None else min(limit, gen.count)
    box = "" if gen.box is None else f" --box {gen.box[0]}x{gen.box[1]}"
    unique = " --unique" if gen.unique else ""
    for fraction in gen.fractions:
        seed = fraction_seed(gen.seed, fraction)
        rng = random.Random(seed)
        for k in range(1, count + 1):
            puzzle = make_puzzle(template, fraction, rng, unique=gen.unique, moves=moves)
            name = (f"qsudoku generate --size {gen.size}{box} --fraction {fraction:g} "
                    f"--seed {seed}{unique} #{k}")
            ref = f"generate:{gen.size}{box.replace(' --box ', ':')}:{fraction!r}:{seed}" \
                  f"{':unique' if gen.unique else ''}:{k}"
            yield (Source(f"generate/sudoku{gen.size}", k - 1, ref, fraction=fraction),
                   replace(puzzle, name=name))
