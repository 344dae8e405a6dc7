"""Parse one puzzle from text, and write grids back.

Accepted forms (``format="auto"`` picks by shape):

* **line**: ``n*n`` symbols (``.`` or ``0`` blank; 16x16 uses ``1-9A-G``), for a
  jigsaw followed by a space and its region map (``<puzzle> <regions>``).
* **seeds row**: ``name<TAB>puzzle<TAB>regions[<TAB>solution]`` (regions ``-`` = boxes).
* **grid**: ``n`` rows of ``n`` cells, with optional spaces, ``|`` and separator lines;
  whitespace-separated numbers (``10 11 ...``) for sizes above 9.
* **tuples**: a list of 1-indexed ``[row, col, value]`` triples.

Region maps are letter grids (``/`` or newlines between rows, or one ``n*n`` string),
relabelled in order of first appearance; any character but whitespace, ``/``, ``|`` and
``,`` is a label.

>>> parse_puzzle("[[1,1,1],[2,3,4]]", rules=Rules(size=4)).format()
'1......4........'
>>> parse_regions("aabb/aabb/ccdd/ccdd", 4)
(0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3)
>>> parse_puzzle("1..." "..2." ".3.." "...4" " aabb/aabb/ccdd/ccdd").kind
'jigsaw 4x4'

:func:`parse_puzzle` reads every one-line form a file holds, so a line copied from a
file parses as it did there.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

from qsudoku.checks import need_ints, need_type
from qsudoku.errors import PuzzleFormatError
from qsudoku.model.puzzle import Puzzle
from qsudoku.io.rules import Rules, parse_regions
from qsudoku.io.tuples import size_header, tuple_givens, with_size
from qsudoku.model.symbols import (MAX_SIZE, SYMBOLS, blanks_for, decode_symbol, default_alphabet,
                                   digits_spec)

__all__ = ["parse_puzzle", "parse_line", "decode_line", "parse_grid", "parse_tuples", "parse_regions",
           "parse_seeds_row", "with_known_solution", "format_grid", "looks_like_grid_row",
           "reads_as_line", "is_separator"]

_SEP_LINE = re.compile(r"^[\s\-+=|:*]*$")
_DECIMAL = re.compile(r"[0-9]{1,3}")  # ASCII only: str.isdigit() also accepts '²' and '٣'


def _alphabet(n: int, rules: Rules, *, source=None, line=None) -> str:
    if n > MAX_SIZE:
        raise PuzzleFormatError(f"grid size {n} is not supported (2..{MAX_SIZE})",
                                source=source, line=line)
    if rules.digits:
        if len(rules.digits) != n:
            raise PuzzleFormatError(
                f"digits {rules.digits!r} have {len(rules.digits)} symbols, a {n}x{n} grid needs {n}",
                source=source, line=line)
        return rules.digits
    try:
        return default_alphabet(n)
    except PuzzleFormatError as e:
        raise PuzzleFormatError(e.message, source=source, line=line) from None


def _decode(symbols: Sequence[str], n: int, rules: Rules, *, source, line, columns=None):
    alphabet = _alphabet(n, rules, source=source, line=line)
    blanks = blanks_for(alphabet)
    out = []
    for i, ch in enumerate(symbols):
        v = decode_symbol(ch, alphabet, blanks)
        if v is None and _DECIMAL.fullmatch(ch) and 0 < int(ch) <= n and not rules.digits:
            v = int(ch)  # whitespace-separated decimal tokens such as "12"
        if v is None:
            col = columns[i] if columns else i + 1
            hint = f"digits are {digits_spec(alphabet)}" if n > 1 else ""
            raise PuzzleFormatError(
                f"unknown symbol {ch!r} for a {n}x{n} grid ({hint}, blank . or 0)",
                source=source, line=line, column=col, cell=divmod(i, n))
        out.append(v)
    return out, alphabet


def decode_line(text: str, rules: Rules = Rules(), *, source="<string>", line=1):
    """Values (0 = blank) and alphabet of ``n*n`` symbols on one line.

    >>> decode_line("12.4" * 4)[0][:4]
    [1, 2, 0, 4]
    """
    s = text.strip()
    n = math.isqrt(len(s))
    if n * n != len(s) or n < 2:
        raise PuzzleFormatError(
            f"a puzzle line has n*n symbols (16, 36, 81, 256, ...); this one has {len(s)}",
            source=source, line=line)
    values, alphabet = _decode(s, n, rules, source=source, line=line)
    _check_zero_convention(s, values, n, rules, source=source, lines=[line] * len(s),
                           columns=range(1, len(s) + 1))
    return values, alphabet


def _check_zero_convention(symbols, values, n, rules, *, source, lines, columns):
    """Refuse a grid above 9x9 that writes ``0`` but never its largest digit: it is most
    likely written ``0..n-1``, and reading ``0`` as a blank would solve another puzzle."""
    if rules.digits or n <= 9 or n in values:
        return
    for i, ch in enumerate(symbols):
        if ch == "0":
            top = default_alphabet(n)[-1]
            zero_based = digits_spec("0" + default_alphabet(n - 1))
            raise PuzzleFormatError(
                f"this {n}x{n} grid writes 0 but never {top}: if its digits are 0-based "
                f"pass --digits {zero_based}, if 0 is a blank pass --digits "
                f"{digits_spec(default_alphabet(n))} (or write blanks as .)",
                source=source, line=lines[i], column=columns[i], cell=divmod(i, n))


def parse_line(text: str, rules: Rules = Rules(), *, source="<string>", line=1,
               regions=None, name="", solution=None) -> Puzzle:
    """Parse one puzzle line: ``n*n`` symbols, optionally followed by a region map.

    >>> parse_line("1..." "..2." ".3.." "...4" " aaab/abbb/cccd/cddd").kind
    'jigsaw 4x4'
    """
    parts = text.split()
    if len(parts) > 2 or (len(parts) == 2 and regions is not None):
        raise PuzzleFormatError(f"expected a puzzle (and optionally a region map), found "
                                f"{len(parts)} fields", source=source, line=line)
    if len(parts) == 2:
        regions = parse_regions(parts[1], source=source, line=line)
    givens, alphabet = decode_line(parts[0] if parts else "", rules, source=source, line=line)
    return _make(rules, givens, regions, name or f"{source}:{line}", solution, alphabet,
                 source=source, line=line)


def parse_seeds_row(text: str, rules: Rules = Rules(), *, source="<string>", line=1) -> Puzzle:
    """Parse a seeds ``.tsv`` row: ``name<TAB>puzzle[<TAB>regions[<TAB>solution]]``
    (regions ``-`` or empty = standard boxes).

    >>> p = parse_seeds_row("tiny\\t1.3.3..2.3..2..3\\t-\\t1234341221434321")
    >>> p.name, p.solution[:4]
    ('tiny', (1, 2, 3, 4))
    """
    fields = text.rstrip("\r\n").split("\t")
    if len(fields) < 2:
        raise PuzzleFormatError("expected tab-separated name, puzzle[, regions, solution]",
                                source=source, line=line)
    name, puzzle = fields[0].strip(), fields[1].strip()
    regions_text = fields[2].strip() if len(fields) > 2 else "-"
    regions = None if regions_text in ("", "-") else parse_regions(
        regions_text, source=source, line=line)
    p = parse_line(puzzle, rules, source=source, line=line, regions=regions, name=name)
    return with_known_solution(p, fields[3] if len(fields) > 3 else "", rules, source=source,
                               line=line)


def with_known_solution(puzzle: Puzzle, text: str | None, rules: Rules = Rules(), *,
                        source: str = "", line: int | None = None) -> Puzzle:
    """``puzzle`` with the known solution ``text`` (a puzzle line); unchanged if there is
    no text or it is a ``#`` comment.

    >>> p = parse_line("1.3.3..2.3..2..3")
    >>> with_known_solution(p, "1234341221434321").solution[:2], with_known_solution(p, "").solution
    ((1, 2), None)

    Raises:
        PuzzleFormatError: ``text`` is not a solution of ``puzzle``'s size.
    """
    text = (text or "").strip()
    if not text or (rules.comments and text.startswith("#")):  # a comment: none known
        return puzzle
    try:
        solution = tuple(decode_line(text, rules)[0])
    except PuzzleFormatError:
        solution = ()
    if len(solution) != len(puzzle.givens):
        n = puzzle.size
        raise PuzzleFormatError(f"the known solution has {len(text)} symbols, a {n}x{n} puzzle "
                                f"needs {n * n}: these solutions belong to other puzzles",
                                source=source, line=line)
    from dataclasses import replace

    return replace(puzzle, solution=solution)


def looks_like_grid_row(text: str) -> bool:
    """True if ``text`` is a separator line or has separators (``|``, spaces) between cells."""
    s = text.strip()
    return is_separator(s) or "|" in s or len(s.split()) > 1


def is_separator(line: str) -> bool:
    """True for a grid's separator line (``----+----``) or a blank one."""
    return bool(_SEP_LINE.match(line.strip()))


def _row_tokens(text: str) -> list[str]:
    s = text.replace("|", " ").strip()
    parts = s.split()
    if len(parts) > 1 and all(len(p) == 1 for p in parts):
        return parts
    if len(parts) > 1 and all(re.fullmatch(r"\d+|[.*?_]", p) for p in parts):
        return parts  # decimal tokens, e.g. "10 . 12"
    return list("".join(parts))


def parse_grid(lines: Sequence[str], rules: Rules = Rules(), *, source="<string>",
               first_line=1, regions=None, name="", solution=None) -> Puzzle:
    """Parse a grid of ``n`` rows (separator lines and blank lines are skipped)."""
    rows, where = [], []
    for k, raw in enumerate(lines):
        if is_separator(raw):
            continue
        rows.append(_row_tokens(raw))
        where.append(first_line + k)
    n = len(rows)
    if n < 2:
        raise PuzzleFormatError("a grid needs at least 2 rows", source=source, line=first_line)
    for r, (toks, ln) in enumerate(zip(rows, where)):
        if len(toks) != n:
            raise PuzzleFormatError(
                f"grid row {r + 1} has {len(toks)} cells, expected {n} (the grid has {n} rows)",
                source=source, line=ln)
    givens = []
    for r, (toks, ln) in enumerate(zip(rows, where)):
        vals, alphabet = _decode(toks, n, rules, source=source, line=ln)
        givens.extend(vals)
    if n <= len(SYMBOLS):  # larger grids are written in numbers, 1-based (see format_grid)
        _check_zero_convention([t for toks in rows for t in toks], givens, n, rules,
                               source=source, lines=[ln for ln in where for _ in range(n)],
                               columns=[None] * (n * n))
    return _make(rules, givens, regions, name or f"{source}:{first_line}", solution, alphabet,
                 source=source, line=first_line)


def parse_tuples(text: str, rules: Rules = Rules(), *, source="<string>", line=1,
                 name="", regions=None) -> Puzzle:
    """Parse a list of 1-indexed ``[row, col, value]`` triples of integers.

    The size is never guessed from the largest entry (a 9x9 puzzle may hold no 9): it is
    ``rules.size`` (``--size``, a ``# size N`` line, a ``sudokuN/`` folder) or what the
    box shape or region map implies, else the list is refused.

    >>> parse_tuples("[[1, 1, 4], [2, 2.9, 3]]", Rules(size=4))
    Traceback (most recent call last):
    ...
    qsudoku.errors.PuzzleFormatError: <string>:1:13: triple 2 [2, 2.9, 3]: 2.9 is not an integer (a tuple list holds [row, col, value] triples of integers)
    >>> parse_tuples("[[1, 1, 4], [2, 3, 1]]")
    Traceback (most recent call last):
    ...
    qsudoku.errors.PuzzleFormatError: <string>:1: a tuple list carries no grid size (its largest row, column or value is 4; the grid may be larger): pass --size N, or begin the file with a line '# size N'
    """
    n, givens = tuple_givens(text, rules, regions, source=source, line=line)
    return _make(rules, givens, regions, name or f"{source}:{line}", None,
                 _alphabet(n, rules, source=source, line=line), source=source, line=line)


def parse_puzzle(text: str, rules: Rules = Rules(), *, source="<string>", line=1,
                 name="", solution=None) -> Puzzle:
    """Parse one puzzle in any accepted form (see the module docstring).

    >>> parse_puzzle("s\\t1.3.3..2.3..2..3\\t-").name
    's'
    """
    need_type("text", text, str, "a str (the puzzle's text)")
    need_type("rules", rules, Rules)
    s = text.strip()
    first, _, rest = s.partition("\n")
    size = size_header(first) if rules.comments else None
    if size is not None:  # '# size N' then the puzzle: the size of its tuple list
        rules = with_size(rules, size, source=source, line=line)
        s, line = rest.strip(), line + 1 + rest[:len(rest) - len(rest.lstrip())].count("\n")
    fmt = rules.format
    if fmt == "auto":
        if s.startswith("[") or s.startswith("("):
            fmt = "tuples"
        elif "\n" not in s and s.count("\t") >= 2:
            return parse_seeds_row(s, rules, source=source, line=line)
        elif "\n" not in s and _is_puzzle_line(s, rules):
            fmt = "line"
        elif "\n" in s or "/" in s or looks_like_grid_row(s.splitlines()[0] if s else ""):
            fmt = "grid"
        else:
            fmt = "line"
    if not s:
        raise PuzzleFormatError("empty puzzle", source=source, line=line)
    if fmt == "tuples":
        return parse_tuples(s, rules, source=source, line=line, name=name)
    if fmt == "grid":
        return parse_grid(s.replace("/", "\n").splitlines(), rules, source=source,
                          first_line=line, name=name, solution=solution)
    return parse_line(s, rules, source=source, line=line, name=name, solution=solution)


def reads_as_line(s: str, rules: Rules) -> bool:
    """True if ``s`` is one or two fields and the first reads as a puzzle line.

    >>> reads_as_line("1.3.3..2.3..2..3 aabb/aabb/ccdd/ccdd", Rules()), reads_as_line("a/b.txt", Rules())
    (True, False)
    """
    parts = s.split()
    if not 1 <= len(parts) <= 2:
        return False
    try:
        decode_line(parts[0], rules)
    except PuzzleFormatError:
        return False
    return True


def _is_puzzle_line(s: str, rules: Rules) -> bool:
    """True if the one-line ``s`` is a puzzle line rather than a grid on one line (rows
    split by ``/`` or spaces): it :func:`reads_as_line`, or (a bad symbol, reported as
    such) it has two fields and the first has ``n*n`` characters (``n >= 4``), no ``/``.

    >>> _is_puzzle_line("12/21", Rules()), _is_puzzle_line("12 34", Rules())
    (False, False)
    """
    if reads_as_line(s, rules):
        return True
    parts = s.split()
    n = math.isqrt(len(parts[0])) if parts else 0
    return len(parts) == 2 and "/" not in parts[0] and n * n == len(parts[0]) and n >= 4


def format_grid(puzzle: Puzzle, grid: Sequence[int] | None = None) -> str:
    """A readable multi-line grid with box separators; above 35x35 with the default
    alphabet, in right-aligned numbers (blanks ``.``), which read back with no flags.

    >>> print(format_grid(Puzzle.standard([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1])))
    1 2 | 3 4
    3 4 | 1 2
    ----+----
    2 1 | 4 3
    4 3 | 2 1
    """
    need_type("puzzle", puzzle, Puzzle)
    n = puzzle.size
    grid = puzzle.givens if grid is None else need_ints("grid", grid, low=0, high=n,
                                                        length=n * n)
    box = _box_shape(puzzle)
    if n > len(SYMBOLS) and puzzle.alphabet == default_alphabet(n):
        width = len(str(n))
        sym = [str(d).rjust(width) if d else ".".rjust(width) for d in grid]
    else:
        sym = [puzzle.alphabet[d - 1] if d else "." for d in grid]
    lines = []
    for r in range(n):
        cells = sym[r * n:(r + 1) * n]
        if not box:
            lines.append(" ".join(cells))
            continue
        row = " | ".join(" ".join(cells[j:j + box[1]]) for j in range(0, n, box[1]))
        if r and r % box[0] == 0:
            lines.append("".join("+" if ch == "|" else "-" for ch in row))
        lines.append(row)
    return "\n".join(lines)


def _box_shape(puzzle: Puzzle) -> tuple[int, int] | None:
    boxes = [u for u in puzzle.units if u.kind == "box"]
    if not boxes:
        return None
    rows = {c // puzzle.size for c in boxes[0].cells}
    return len(rows), puzzle.size // len(rows)


def _make(rules: Rules, givens, regions, name, solution, alphabet, *, source, line) -> Puzzle:
    try:
        return rules.make(givens, regions=regions, name=name, solution=solution, alphabet=alphabet)
    except PuzzleFormatError as e:
        if e.source is None:
            raise PuzzleFormatError(e.message, source=source, line=line, cell=e.cell) from None
        raise
