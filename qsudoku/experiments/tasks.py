"""Experiment tasks: where a puzzle comes from, a configuration point, and their keys.

A :class:`Task` is (puzzle, :class:`Point`, repeat).  Its :meth:`Task.key` is stable and
content-derived: where the puzzle comes from (a file's real path and the puzzle's
position in it, or a hash of an argument's text), the point's key (backend, swept
setting, budget) and the repeat; so ``--resume`` never confuses two puzzles of two
files with the same name, or two arguments.

>>> from qsudoku.io import parse_puzzle
>>> t = Task(parse_puzzle("1..." "..2." "...." "...4"), Source.argument("1...", 0),
...          Point("sa", Config(), (("cell", 2.0),)), repeat=1)
>>> t.key().split("|")[1:]
['sa', 'cell=2', '', '1']
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from qsudoku.config import Config
from qsudoku.errors import ContradictionError
from qsudoku.model.puzzle import Puzzle

__all__ = ["Source", "Point", "Task", "format_value", "read_sources", "make_tasks"]


@dataclass(frozen=True)
class Source:
    """Where a puzzle comes from: the ``set`` label of its rows, its ``index`` in its input,
    and ``ref``, the stable part of its task keys."""

    set: str
    index: int
    ref: str

    @classmethod
    def file(cls, path: str, index: int, label: str) -> "Source":
        """Puzzle ``index`` of the file ``path`` (keyed by the file's real path)."""
        return cls(label, index, f"{os.path.realpath(path)}:{index}")

    @classmethod
    def argument(cls, text: str, index: int, label: str = "args") -> "Source":
        """Puzzle ``index`` of a command-line argument or stdin (keyed by a hash of the text)."""
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return cls(label, index, f"arg:{digest}:{index}")


@dataclass(frozen=True)
class Point:
    """A configuration point: a backend label, the config :func:`solve` runs with, the
    swept values (``setting``) and a wall-time ``budget`` (``None``: the config's own)."""

    label: str
    config: Config
    setting: tuple = ()
    budget: float | None = None

    @property
    def setting_text(self) -> str:
        """``"cell=1 num_sweeps=10"`` (``"default"`` when nothing is swept)."""
        return " ".join(f"{k}={format_value(v)}" for k, v in self.setting) or "default"

    def key(self) -> str:
        """The point's part of a task key."""
        budget = "" if self.budget is None else repr(float(self.budget))
        return f"{self.label}|{self.setting_text}|{budget}"


@dataclass(frozen=True)
class Task:
    """One measurement: a puzzle, where it comes from, a point and a repeat."""

    puzzle: Puzzle = field(repr=False)
    source: Source
    point: Point
    repeat: int = 0

    def key(self) -> str:
        """Stable, content-derived identity of the task's row (the resume key)."""
        return f"{self.source.ref}|{self.point.key()}|{self.repeat}"


def format_value(v) -> str:
    """A swept value as text: ``0.5``, ``(1,9)``, ``default`` for ``None``."""
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (tuple, list)):
        return "(" + ",".join(format_value(x) for x in v) + ")"
    return "default" if v is None else str(v)


def read_sources(specs: Sequence[str], rules, *, limit: int | None = None, on_error=None,
                 label=None) -> list[tuple[Source, Puzzle]]:
    """The puzzles of every input with their :class:`Source` (``limit``: first N of each).

    ``label(spec)`` names the ``set`` of a file's rows; unreadable puzzles go to
    ``on_error`` (or are raised when it is ``None``).
    """
    from qsudoku.io.files import iter_puzzles

    out = []
    for spec in specs:
        is_file = spec != "-" and os.path.isfile(spec)
        name = label(spec) if label else ("args" if not is_file else spec)
        count = 0
        for index, item in enumerate(iter_puzzles(spec, rules)):
            if limit is not None and count >= limit:
                break
            if not isinstance(item, Exception):
                try:
                    item.check_givens()
                except ContradictionError as e:
                    item = e
            if isinstance(item, Exception):
                if on_error is None:
                    raise item
                on_error(item)
                continue
            count += 1
            src = (Source.file(spec, index, name) if is_file
                   else Source.argument(spec if spec != "-" else item.format(), index, name))
            out.append((src, item))
    return out


def make_tasks(sources: Iterable[tuple[Source, Puzzle]], points: Sequence[Point],
               repeat: int = 1) -> list[Task]:
    """Every source x point x repeat, in that order, without duplicate keys."""
    tasks, seen = [], set()
    for src, puzzle in sources:
        for r in range(repeat):
            for point in points:
                t = Task(puzzle, src, point, r)
                if t.key() not in seen:
                    seen.add(t.key())
                    tasks.append(t)
    return tasks
