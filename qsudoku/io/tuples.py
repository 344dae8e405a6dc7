"""Tuple lists: 1-indexed ``[row, col, value]`` triples, and the ``# size N`` line that
gives their size (a tuple list carries none of its own, and it is never guessed).

>>> tuple_givens("[[1, 1, 4], [2, 3, 1]]", Rules(size=4))
(4, [4, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
"""

from __future__ import annotations

import ast
import math
import re

from qsudoku.errors import PuzzleFormatError
from qsudoku.io.rules import Rules
from qsudoku.model.symbols import MAX_SIZE

__all__ = ["tuple_givens", "size_header", "with_size", "SIZE_HEADER"]


def tuple_givens(text: str, rules: Rules, regions=None, *, source="<string>", line=1
                 ) -> tuple[int, list[int]]:
    """The size and the givens of the tuple list ``text``.

    Raises:
        PuzzleFormatError: An entry is not an integer, outside the grid, a cell is given
            twice, or no size is given (``rules.size``, box shape or region map).
    """
    triples = _read_triples(text, source, line)
    for k, t in enumerate(triples):
        if min(t) < 1:
            raise PuzzleFormatError(f"triple {k + 1} [{t[0]}, {t[1]}, {t[2]}] has an entry "
                                    "below 1 (rows, columns and values are 1-indexed)",
                                    source=source, line=line)
    n = _given_size(rules, regions, triples, source=source, line=line)
    givens = [0] * (n * n)
    for k, (r, c, v) in enumerate(triples):
        if not (1 <= r <= n and 1 <= c <= n and 1 <= v <= n):
            raise PuzzleFormatError(f"triple {k + 1} [{r}, {c}, {v}] is outside a {n}x{n} grid "
                                    "(rows, columns and values are 1-indexed)",
                                    source=source, line=line)
        i = (r - 1) * n + (c - 1)
        if givens[i] and givens[i] != v:
            raise PuzzleFormatError(f"cell given twice with {givens[i]} and {v}",
                                    source=source, line=line, cell=(r - 1, c - 1))
        givens[i] = v
    return n, givens


def _read_triples(text: str, source, line) -> list[tuple[int, int, int]]:
    """The triples of ``text``, each entry an ``int`` (an error names its line and column)."""
    lead = text[:len(text) - len(text.lstrip())].count("\n")
    bad = PuzzleFormatError("expected a list of [row, col, value] triples", source=source,
                            line=line)
    try:
        tree = ast.parse(text.strip(), mode="eval").body
        if not isinstance(tree, (ast.List, ast.Tuple)):
            raise bad
        triples = []
        for k, node in enumerate(tree.elts):
            t = ast.literal_eval(node)
            where = dict(source=source, line=line + lead + node.lineno - 1,
                         column=node.col_offset + 1)
            if not isinstance(t, (list, tuple)) or len(t) != 3:
                raise PuzzleFormatError(f"triple {k + 1} {t!r} is not a [row, col, value] "
                                        "triple", **where)
            for x in t:
                if type(x) is not int:
                    r, c = t[0], t[1]
                    cell = (r - 1, c - 1) if type(r) is int and type(c) is int else None
                    shown = "[" + ", ".join(map(repr, t)) + "]"
                    raise PuzzleFormatError(f"triple {k + 1} {shown}: {x!r} is not an integer "
                                            "(a tuple list holds [row, col, value] triples "
                                            "of integers)",
                                            cell=cell, **where)
            triples.append(tuple(t))
    except PuzzleFormatError:
        raise
    except (ValueError, SyntaxError, TypeError, OverflowError, MemoryError, RecursionError):
        raise bad from None
    return triples


#: The line giving the size of the tuple lists after it: ``# size 9`` (also ``# size: 9``,
#: ``# size 9x9``).
SIZE_HEADER = re.compile(r"#\s*size\s*[:=]?\s*(\d{1,4})(?:\s*[xX]\s*\1)?\s*", re.IGNORECASE)


def size_header(line: str) -> int | None:
    """The size a ``# size N`` line gives, else ``None``.

    >>> size_header("# size 9"), size_header("# Size: 16x16"), size_header("# sized 9")
    (9, 16, None)
    """
    m = SIZE_HEADER.fullmatch(line.strip())
    return int(m.group(1)) if m else None


def with_size(rules: Rules, size: int, *, source=None, line=None) -> Rules:
    """``rules`` with the ``size`` of a ``# size N`` line; a different size already set
    (``--size``, a ``sudokuN/`` folder) is refused.

    >>> with_size(Rules(), 9).size
    9
    >>> with_size(Rules(size=16), 9)
    Traceback (most recent call last):
    ...
    qsudoku.errors.PuzzleFormatError: the text says '# size 9' but the size is 16 (--size or its folder); drop one
    """
    if rules.size is not None and rules.size != size:
        raise PuzzleFormatError(f"the text says '# size {size}' but the size is {rules.size} "
                                "(--size or its folder); drop one", source=source, line=line)
    if not 2 <= size <= MAX_SIZE:
        raise PuzzleFormatError(f"grid size {size} is not supported (2..{MAX_SIZE})",
                                source=source, line=line)
    return Rules.merged(rules, Rules(size=size))


def _given_size(rules: Rules, regions, triples, *, source, line) -> int:
    """The size of a tuple list from ``rules`` or ``regions``, never from its entries."""
    regions = regions if regions is not None else rules.regions
    if rules.size:
        return rules.size
    if rules.box is not None:
        return rules.box[0] * rules.box[1]
    if regions is not None:
        return math.isqrt(len(regions))
    largest = max((max(t) for t in triples), default=0)
    if largest > MAX_SIZE:
        raise PuzzleFormatError(f"value {largest} is larger than any supported size (at most "
                                f"{MAX_SIZE})", source=source, line=line)
    seen = (f" (its largest row, column or value is {largest}; the grid may be larger)"
            if triples else "")
    raise PuzzleFormatError(f"a tuple list carries no grid size{seen}: pass --size N, or "
                            "begin the file with a line '# size N'", source=source, line=line)
