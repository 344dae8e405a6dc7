"""Experiment tasks: where a puzzle comes from, a configuration point, and their keys.

A :class:`Task` is (puzzle, :class:`Point`, repeat).  Its :meth:`Task.key`, the key
``--resume`` matches, holds everything that decides the row's figures (where the puzzle
comes from and a hash of its content; the point's label, exact swept values, budget and a
hash of the whole configuration; the repeat), so a resume with other settings or an
edited input computes new rows instead of keeping old figures.

>>> from qsudoku.io import parse_puzzle
>>> t = Task(parse_puzzle("1..." "..2." "...." "...4"), Source.argument("1...", 0),
...          Point("sa", Config(), (("cell", 2.0),)), repeat=1)
>>> t.key().split("|")[1:5]
['sa', 'cell=2.0', '', '1']
>>> Point("sa", Config(), (("cell", 1.0000001),)).setting_text
'cell=1'
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field, fields, is_dataclass
from functools import cached_property
from typing import Iterable, Iterator, Mapping, Sequence

from qsudoku.config import Config
from qsudoku.errors import ContradictionError, MachineError
from qsudoku.model.puzzle import Puzzle

__all__ = ["Source", "Point", "Task", "ENCODING", "format_value", "fingerprint",
           "puzzle_digest", "iter_sources", "make_tasks", "iter_tasks"]

#: The QUBO encoding every task uses (one binary variable per cell and digit); part of
#: every key, so rows of another encoding never pass for these.
ENCODING = "one-hot"


@dataclass(frozen=True)
class Source:
    """Where a puzzle comes from: the ``set`` label of its rows, its ``index`` in its input,
    ``ref`` (the place part of its task keys) and, for a generated instance, the
    ``fraction`` of cells given it was made with."""

    set: str
    index: int
    ref: str
    fraction: float | None = None

    @classmethod
    def file(cls, path: str, index: int, label: str) -> "Source":
        """Puzzle ``index`` of the file ``path``, keyed by its path relative to the working
        directory (a results file names no absolute path of the machine)."""
        from qsudoku.experiments.provenance import relative_path

        return cls(label, index, f"{relative_path(path)}:{index}")

    @classmethod
    def argument(cls, text: str, index: int, label: str = "args") -> "Source":
        """Puzzle ``index`` of a command-line argument or stdin (keyed by a hash of the text)."""
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return cls(label, index, f"arg:{digest}:{index}")


@dataclass(frozen=True)
class Point:
    """A configuration point: a backend label, the config :func:`solve` runs with, the
    swept values (``setting``), a wall-time ``budget`` (``None``: the config's own) and
    whether a run is a fixed sample (one round of ``num_reads`` reads, no fallback)."""

    label: str
    config: Config
    setting: tuple = ()
    budget: float | None = None
    fixed_sample: bool = True

    @property
    def setting_text(self) -> str:
        """``"cell=1 num_sweeps=10"`` (``"default"`` when nothing is swept): readable,
        floats to 6 digits; the key's are exact (:func:`format_value`)."""
        return self._text(exact=False)

    def _text(self, exact: bool) -> str:
        return " ".join(f"{k}={format_value(v, exact)}" for k, v in self.setting) or "default"

    @cached_property
    def key_parts(self) -> tuple[str, str, str, str]:
        """``(label, exact setting, budget, configuration hash)`` (see :func:`fingerprint`)."""
        budget = "" if self.budget is None else repr(float(self.budget))
        return self.label, self._text(exact=True), budget, fingerprint(self.config)


@dataclass(frozen=True)
class Task:
    """One measurement: a puzzle, where it comes from, a point and a repeat."""

    puzzle: Puzzle = field(repr=False)
    source: Source
    point: Point
    repeat: int = 0

    @cached_property
    def _key(self) -> str:
        label, setting, budget, config = self.point.key_parts
        return (f"{self.source.ref}|{label}|{setting}|{budget}|{self.repeat}|"
                f"p{puzzle_digest(self.puzzle)}|c{config}")

    def key(self) -> str:
        """The identity of the task's row (the resume key):
        ``source|label|setting|budget|repeat|p<puzzle hash>|c<config hash>``."""
        return self._key


def format_value(v, exact: bool = False) -> str:
    """A swept value as text: readable (floats to 6 significant digits: the ``setting``
    column), or ``exact`` (floats by ``repr``, strings quoted: no two values share it);
    ``default`` for ``None``.

    >>> format_value(1.0000001), format_value((0.1, 5)), format_value(None)
    ('1', '(0.1,5)', 'default')
    >>> format_value(1.0000001, exact=True), format_value("a b", exact=True)
    ('1.0000001', "'a b'")
    """
    if isinstance(v, float):
        return repr(v) if exact else f"{v:.6g}"
    if isinstance(v, (tuple, list)):
        return "(" + ",".join(format_value(x, exact) for x in v) + ")"
    if v is None:
        return "default"
    return repr(v) if exact and isinstance(v, str) else str(v)


def _canon(x):
    """A JSON-able, order-independent and exact form of a configuration value."""
    if is_dataclass(x) and not isinstance(x, type):
        return {"": type(x).__name__, **{f.name: _canon(getattr(x, f.name)) for f in fields(x)
                                        if f.compare and f.name != "cluster"}}
    if isinstance(x, Mapping):
        return [[str(k), _canon(v)] for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))]
    if isinstance(x, (list, tuple)):
        return [_canon(v) for v in x]
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return repr(x) if math.isfinite(x) else str(x)
    return f"{type(x).__name__}:{x!r}"


def _digest(obj) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha1(text.encode("ascii")).hexdigest()[:16]


def fingerprint(config: Config) -> str:
    """A hash of everything in ``config`` that decides a row's figures (all but where it
    runs, ``[cluster]``), and of the QUBO encoding.

    >>> fingerprint(Config()) == fingerprint(Config())
    True
    >>> fingerprint(Config()) == fingerprint(Config().with_overrides(weights={"cell": 1.0000001}))
    False
    """
    return _digest([ENCODING, _canon(config)])


def puzzle_digest(puzzle: Puzzle) -> str:
    """A hash of a puzzle's content: size, givens, units and known solution (not its
    name or how it is written).

    >>> from qsudoku.io import parse_puzzle
    >>> puzzle_digest(parse_puzzle("1..." "..2." "...." "...4")) == puzzle_digest(
    ...     parse_puzzle("1..." "..2." "...." "...3"))
    False
    """
    units = sorted((u.kind, u.index, list(u.cells)) for u in puzzle.units)
    return _digest([puzzle.size, list(puzzle.givens), units,
                    None if puzzle.solution is None else list(puzzle.solution)])


def iter_sources(specs: Sequence[str], rules, *, limit: int | None = None, on_error=None,
                 label=None) -> Iterator[tuple[Source, Puzzle]]:
    """Yield the puzzles of every input with their :class:`Source`, read as they are
    needed (``limit``: first N of each); ``label(spec)`` names a file's ``set``;
    unreadable puzzles go to ``on_error`` (raised when it is ``None``); a
    :class:`~qsudoku.errors.MachineError` is always raised."""
    from qsudoku.io.datasets import expand_inputs
    from qsudoku.io.files import iter_puzzles

    for spec in expand_inputs(specs):  # a directory: each of its puzzle files
        is_file = spec != "-" and os.path.isfile(spec)
        name = label(spec) if label else ("args" if not is_file else spec)
        count = 0
        items = iter_puzzles(spec, rules)
        try:
            for index, item in enumerate(items):
                if limit is not None and count >= limit:
                    break
                if not isinstance(item, Exception):
                    try:
                        item.check_givens()
                    except ContradictionError as e:
                        item = e
                if isinstance(item, Exception):
                    if on_error is None or isinstance(item, MachineError):
                        raise item  # the machine's failure ends the run, --keep-going or not
                    on_error(item)
                    continue
                count += 1
                src = (Source.file(spec, index, name) if is_file
                       else Source.argument(spec if spec != "-" else item.format(), index, name))
                yield src, item
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()


def iter_tasks(sources: Iterable[tuple[Source, Puzzle]], points: Sequence[Point],
               repeat: int = 1) -> Iterator[Task]:
    """Every source x repeat x point, in that order, without duplicate keys, made as
    they are consumed (``sources`` is read one puzzle at a time)."""
    seen: set[str] = set()
    points = list(points)
    for src, puzzle in sources:
        for r in range(repeat):
            for point in points:
                t = Task(puzzle, src, point, r)
                if t.key() not in seen:
                    seen.add(t.key())
                    yield t


def make_tasks(sources: Iterable[tuple[Source, Puzzle]], points: Sequence[Point],
               repeat: int = 1) -> list[Task]:
    """The list of :func:`iter_tasks`."""
    return list(iter_tasks(sources, points, repeat))
