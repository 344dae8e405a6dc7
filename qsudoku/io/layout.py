"""The layout of a puzzle text: which lines hold content, which form the text is in (grids,
one puzzle a line, one tuple list a line), and where each grid of a text of grids ends.

These look only at the shape of the lines, so that :mod:`qsudoku.io.files` can pick a
parser from the first lines of a stream.  A grid has as many rows as its first row has
cells (separator lines not counted), at most :data:`~qsudoku.model.symbols.MAX_SIZE`.

>>> is_grid("1 2 | 3 4"), is_grid("1.3.3..2.3..2..3")
(True, False)
>>> list(grid_blocks(enumerate(["12 34", "34 12", "", "# next", "1.3.", "3..2"], start=1)))
[(1, ['12 34', '34 12']), (5, ['1.3.', '3..2'])]
"""

from __future__ import annotations

import itertools
import math
from typing import Iterable, Iterator

from qsudoku.errors import QSudokuError
from qsudoku.io.text import is_separator, looks_like_grid_row
from qsudoku.model.symbols import MAX_SIZE

__all__ = ["LOOKAHEAD", "is_content", "content_lines", "closed_list", "looks_like_grids",
           "is_grid", "grid_blocks"]

#: Lines read ahead to decide between grids and one puzzle a line (see :func:`is_grid`).
LOOKAHEAD = 4 * MAX_SIZE


def is_content(line: str, comments: bool = True) -> bool:
    """True for a line that holds puzzle text: neither blank nor a ``#`` comment (none
    with ``comments=False``: ``#`` is a digit).

    >>> is_content("1.3."), is_content("  # a note"), is_content("   ")
    (True, False, False)
    >>> is_content("#1234567" + "." * 73, comments=False)
    True
    """
    return bool(line.strip()) and not (comments and line.lstrip().startswith("#"))


def content_lines(numbered, comments: bool = True):
    """Content lines only (:func:`is_content`) of ``(number, line)`` pairs: no blank or
    comment lines."""
    return ((k, ln) for k, ln in numbered if is_content(ln, comments))


def closed_list(line: str) -> bool:
    """True if ``line`` holds a whole tuple list (its brackets close on the line).

    >>> closed_list("[[1, 1, 4], [2, 3, 1]]"), closed_list("[[1, 1, 4],")
    (True, False)
    """
    s = line.strip()
    depth = 0
    for ch in s:
        depth += (ch in "[(") - (ch in "])")
    return s[:1] in "[(" and s[-1:] in "])" and depth == 0


def looks_like_grids(head: list, rest, comments: bool = True) -> bool:
    """True if the text is grids: :func:`is_grid` of the first content line and of the
    lines read ahead (into ``head``), up to the end of the first grid."""
    if not is_grid(head[0][1], [head[0]]):
        return False
    block = [head[0][1]]
    for lineno, ln in rest:
        head.append((lineno, ln))
        if isinstance(ln, QSudokuError):
            break
        if is_content(ln, comments):
            if not is_grid(head[0][1], [(lineno, ln)]):
                return False
            block.append(ln)
        if _block_complete(block) or len(head) > LOOKAHEAD:
            break
    return True


def is_grid(line: str, content=()) -> bool:
    """True if the text starting with ``line`` is read as grids rather than one puzzle a line.

    A first token longer than any grid row on a line of ``content`` (not a separator)
    means one puzzle a line, so that a bad first line still gets one error per line.
    """
    if any(len(ln.split()[0]) > MAX_SIZE and "|" not in ln and not is_separator(ln)
           for _, ln in content):
        return False
    s = line.strip()
    if looks_like_grid_row(s) and len(s.split()) != 2:
        return True
    n = math.isqrt(len(s.split()[0]))
    return n * n != len(s.split()[0]) or n < 4


def grid_blocks(numbered: Iterable[tuple[int, str]], comments: bool = True
                ) -> Iterator[tuple[int, list[str]]]:
    """``(first line, lines)`` of each block of content lines; a block ends when complete,
    at a blank or comment line, or after more lines than any grid has."""
    block, start = [], None
    for lineno, ln in itertools.chain(numbered, [(None, "")]):
        if is_content(ln, comments):
            if start is None:
                start = lineno
            block.append(ln)
            if _block_complete(block) or len(block) > LOOKAHEAD:
                yield start, block
                block, start = [], None
        elif block:
            yield start, block
            block, start = [], None


def _block_complete(block) -> bool:
    """True if ``block`` has as many rows (not separators) as its first row has cells."""
    rows = [b for b in block if not is_separator(b)]
    if not rows:
        return False
    s = rows[0].replace("|", " ").split()
    n = len(s) if len(s) > 1 else len(s[0])
    return len(rows) == n
