"""Read puzzles from files, stdin or a literal string.

A file holds one puzzle a line (for a jigsaw followed by its region map), grids
separated by blank lines, or tuple lists (one a line, or one over many lines); ``#``
starts a comment line unless ``#`` is one of the digits.  A seeds ``.tsv`` file is read
with its names and solutions.

Files and stdin are streamed (:mod:`qsudoku.io.stream`): each puzzle is yielded as
soon as its lines are read; only a tuple list over several lines is read whole (at most
:data:`MAX_FILE_BYTES`).

Under a data folder, a file's folder and name give its rules (``sudoku6/janko_box3x2.txt``
has 3x2 boxes, ``sudokux9/`` adds the diagonals, ``sudoku49/`` sizes its tuple lists); a
sibling ``<name>.solutions.txt`` gives the known solutions.  Explicit rules win.

>>> rules_from_path("data/sudoku6/janko_box3x2.txt")
Rules(box=(3, 2), variant='standard', regions=None, digits=None, format='auto', size=6)
>>> rules_from_path("data/jigsawx6/janko.txt").variant
'x'
"""

from __future__ import annotations

import itertools
import math
import os
import re
import stat
import sys
from typing import IO, Iterator

from qsudoku.checks import need_type
from qsudoku.errors import PuzzleFormatError, QSudokuError
from qsudoku.model.puzzle import Puzzle
from qsudoku.io.failures import file_kind
from qsudoku.io.layout import (closed_list, content_lines, grid_blocks, is_content,
                                looks_like_grids)
from qsudoku.io.reading import open_regular, skip
from qsudoku.io.rules import Rules
from qsudoku.io.stream import file_lines, read_lines
from qsudoku.model.symbols import MAX_SIZE
from qsudoku.io.text import (parse_grid, parse_line, parse_puzzle, parse_seeds_row,
                             reads_as_line, with_known_solution)
from qsudoku.io.tuples import size_header, with_size

__all__ = ["load_puzzles", "iter_puzzles", "rules_from_path", "companion", "MAX_FILE_BYTES"]

#: A form read whole (a tuple list) is refused above this size; the others are streamed.
MAX_FILE_BYTES = 64 * 1024 * 1024
_FILE_SUFFIXES = (".txt", ".tsv", ".sdk", ".sudoku", ".csv", ".json", ".grid")


def companion(path: str, what: str) -> str:
    """The companion file ``what`` (``solutions``, ``ids``) of the puzzle file ``path``.

    >>> companion("data/generated/sudoku4/unique.txt", "ids")
    'data/generated/sudoku4/unique.ids.txt'
    >>> companion("puzzles", "solutions")
    'puzzles.solutions'
    """
    stem, ext = os.path.splitext(path)
    return f"{stem}.{what}{ext}"


def rules_from_path(path: str) -> Rules:
    """Rules implied by a file's directory and name under a data folder."""
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    kw = {}
    m = re.fullmatch(r"(sudoku|jigsaw)(x?)(\d+)", parent)
    if m and m.group(2):
        kw["variant"] = "x"
    if m and 2 <= int(m.group(3)) <= MAX_SIZE:  # the size of its tuple lists
        kw["size"] = int(m.group(3))
    b = re.search(r"box(\d+)x(\d+)", os.path.basename(path))
    if b:
        kw["box"] = (int(b.group(1)), int(b.group(2)))
    return Rules(**kw)


def load_puzzles(spec: str, rules: Rules = Rules(), *, stdin=None) -> list[Puzzle]:
    """All puzzles of ``spec`` (a path, ``-`` for stdin, or a literal puzzle).

    A file must be a regular file (a FIFO or a device is read with :func:`iter_puzzles`
    or as ``stdin`` with ``-``).

    Raises:
        PuzzleFormatError: On the first unreadable puzzle (file, line and cell named), or
            ``spec`` names a file that is not a regular file.
    """
    spec = os.fspath(need_type("spec", spec, (str, os.PathLike), "a str or a path"))
    need_type("rules", rules, Rules)
    _need_stream(stdin)
    _need_regular(spec)
    out = []
    for item in iter_puzzles(spec, rules, stdin=stdin):
        if isinstance(item, QSudokuError):
            raise item
        out.append(item)
    return out


def iter_puzzles(spec: str, rules: Rules = Rules(), *, stdin=None) -> Iterator[Puzzle | QSudokuError]:
    """Yield each puzzle of ``spec``, or the error of each unreadable one (errors as data),
    as soon as its lines are read."""
    _need_stream(stdin)
    if spec == "-":
        stream = stdin if stdin is not None else sys.stdin
        if stream is None:  # ``qsudoku solve - <&-``: no standard input at all
            yield PuzzleFormatError("standard input is closed: nothing to read",
                                    source="<stdin>")
            return
        stream = getattr(stream, "buffer", stream)  # bytes: a BOM and bad UTF-8 are ours
        yield from _iter_text(read_lines(stream, "<stdin>"), rules, source="<stdin>")
        return
    if os.path.isdir(spec):
        yield PuzzleFormatError(f"{spec} is a directory, not a puzzle file")
        return
    if not os.path.exists(spec):
        if _looks_like_path(spec) and ("\n" in spec.strip() or not reads_as_line(spec, rules)):
            yield PuzzleFormatError(f"no such file: {spec}")
            return
        yield _guard(lambda: parse_puzzle(spec, rules, source="<argument>"))
        return
    rules = rules_from_path(spec).merged(rules)
    try:
        solutions = _Solutions.of(spec)
    except QSudokuError as e:
        yield e
        return
    yield from _iter_text(file_lines(spec), rules, source=spec, solutions=solutions)


def _need_regular(spec: str) -> None:
    """Refuse a ``spec`` naming an existing file that is neither regular nor a directory."""
    try:
        mode = os.stat(spec).st_mode if spec != "-" else stat.S_IFREG
    except (OSError, ValueError):  # no such file (a literal puzzle), or a name the OS refuses
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise PuzzleFormatError(f"{spec} is {file_kind(mode)}, not a regular file: "
                                "load_puzzles reads a file whole; read a stream with "
                                "iter_puzzles (as the command line does) or as stdin with '-'")


def _need_stream(stdin) -> None:
    """Refuse a ``stdin`` argument that is neither ``None`` nor a readable file object."""
    if stdin is not None and not callable(getattr(getattr(stdin, "buffer", stdin),
                                                  "readline", None)):
        raise TypeError("stdin must be None or a readable file object (with readline), not "
                        f"{type(stdin).__name__}")


def _looks_like_path(spec: str) -> bool:
    """True if ``spec`` (no existing file) was meant as a file name: a known suffix, or a
    directory part and a dot in its last part."""
    return spec.lower().endswith(_FILE_SUFFIXES) or (
        os.sep in spec.rstrip(os.sep) and "." in os.path.basename(spec))


class _Solutions:
    """The known solutions of a file, from its sibling ``<name>.solutions<ext>``, read
    in step with the file (line ``k`` solves the puzzle on line ``k``)."""

    def __init__(self, path: str | None = None, stream: IO[bytes] | None = None):
        self.path = path
        self._lines = read_lines(stream, path) if stream is not None else iter(())
        self._next = (0, "")  # the last line read: (number, text or error)

    @classmethod
    def of(cls, path: str) -> "_Solutions":
        """The solutions beside ``path``: none if there is no such file, or (with a
        :class:`~qsudoku.io.reading.SkippedFileWarning`) if it is not a regular file or
        cannot be opened."""
        if os.path.splitext(path)[0].endswith(".solutions"):
            return cls()
        sol = companion(path, "solutions")
        try:
            stream = open_regular(sol, "solutions file")
        except QSudokuError as e:
            skip(e, "the puzzles are read without known solutions")
            return cls()
        return cls() if stream is None else cls(sol, stream)

    def get(self, lineno: int) -> str | None:
        """The solution text of line ``lineno`` (increasing from call to call).

        Raises:
            PuzzleFormatError: That line of the solutions file cannot be read.
        """
        while self._next[0] < lineno:
            self._next = next(self._lines, (math.inf, ""))
        at, text = self._next
        if isinstance(text, QSudokuError):
            self._lines, self._next = iter(()), (math.inf, "")  # nothing after a read error
            raise text
        return text.strip() if at == lineno else None


def _guard(fn):
    try:
        return fn()
    except QSudokuError as e:
        return e


def _iter_text(lines, rules: Rules, *, source: str, solutions=None):
    """The puzzles of numbered ``lines`` (or of a text), in the form its first lines show."""
    if isinstance(lines, str):
        lines = enumerate(lines.splitlines(), start=1)
    lines = iter(lines)
    solutions = solutions or _Solutions()
    head = []  # the first content line and up to layout.LOOKAHEAD more lines
    for lineno, ln in lines:
        if isinstance(ln, QSudokuError):
            yield ln
            return
        if head or is_content(ln, rules.comments):
            head.append((lineno, ln))
            break
        size = size_header(ln) if rules.comments else None
        if size is not None:  # '# size N' before the first puzzle: the size of its tuple lists
            try:
                rules = with_size(rules, size, source=source, line=lineno)
            except PuzzleFormatError as e:
                yield e
                return
    if not head:
        yield PuzzleFormatError("no puzzle found (empty input)", source=source)
        return
    first = head[0][1]

    def each_line(parse):  # one puzzle a line: parse(line, lineno)
        return _same_size(((k, _guard(lambda: parse(ln, k))) for k, ln in content_lines(
            _chain(head, lines), rules.comments)), source)

    try:
        if "\t" in first and (source.endswith(".tsv") or len(first.split("\t")) >= 3):
            yield from each_line(lambda ln, k: parse_seeds_row(ln, rules, source=source, line=k))
        elif rules.format == "tuples" or (rules.format == "auto"
                                          and first.lstrip().startswith(("[", "("))):
            tuples = Rules.merged(rules, Rules(format="tuples"))
            if closed_list(first):  # one tuple list a line
                yield from each_line(lambda ln, k: _known(parse_puzzle(
                    ln, tuples, source=source, line=k), solutions, k, rules))
            else:
                yield _guard(lambda: _known(parse_puzzle(
                    _whole(_chain(head, lines), source), tuples, source=source,
                    line=head[0][0]), solutions, head[0][0], rules))
        elif rules.format == "grid" or (rules.format == "auto"
                                        and looks_like_grids(head, lines, rules.comments)):
            yield from _same_size(_iter_grids(_chain(head, lines), rules, source), source)
        else:
            yield from each_line(lambda ln, k: _known(parse_line(
                ln, rules, source=source, line=k, name=f"{os.path.basename(source)}:{k}"),
                solutions, k, rules))
    except _ReadError as e:  # the text ended in a read error: it is the last item
        yield e.error


class _ReadError(Exception):
    """Carries a read error of the lines out of the parsers to :func:`_iter_text`."""

    def __init__(self, error: QSudokuError):
        super().__init__(str(error))
        self.error = error


def _chain(head: list, rest):
    """The lines of ``head`` then the rest; a read error among them ends them."""
    for lineno, ln in itertools.chain(head, rest):
        if isinstance(ln, QSudokuError):
            raise _ReadError(ln)
        yield lineno, ln


def _whole(numbered, source: str) -> str:
    """The text of ``numbered`` lines, for a form that is read whole (a tuple list)."""
    parts, size = [], 0
    for _, ln in numbered:
        size += len(ln) + 1
        if size > MAX_FILE_BYTES:
            raise PuzzleFormatError(f"a tuple list above {MAX_FILE_BYTES} bytes is refused",
                                    source=source)
        parts.append(ln)
    return "\n".join(parts)


def _same_size(numbered, source):
    """The items of ``(line, item)`` pairs; a puzzle of another size than the first is an
    error (one file holds one size)."""
    first = None
    for lineno, item in numbered:
        if isinstance(item, Puzzle):
            if first is None:
                first = (item.size, lineno)
            elif item.size != first[0]:
                n, m = item.size, first[0]
                item = PuzzleFormatError(f"a {n}x{n} puzzle in a file of {m}x{m} puzzles (the first "
                                         f"is at line {first[1]}); one file holds one size",
                                         source=source, line=lineno)
        yield item


def _known(p: Puzzle, solutions: "_Solutions", lineno: int, rules: Rules) -> Puzzle:
    """``p`` with the known solution of line ``lineno`` of its solutions file, if any."""
    return with_known_solution(p, solutions.get(lineno), rules, source=solutions.path or "",
                               line=lineno)


def _iter_grids(numbered, rules, source):
    """``(first line, grid)`` of each grid of a text of grids (:func:`~.layout.grid_blocks`)."""
    for start, block in grid_blocks(numbered, rules.comments):
        yield start, _guard(lambda: parse_grid(block, rules, source=source, first_line=start))

