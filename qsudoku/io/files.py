"""Read puzzles from files, stdin or a literal string.

A file holds one puzzle per line (``n*n`` symbols, optionally followed by a
space and a jigsaw region map), or one or more grids separated by blank lines,
or a tuple list; ``#`` starts a comment line.  A ``.tsv`` file in the seeds
format (``name  puzzle  regions  solution``; regions ``-`` = standard boxes) is
read with its names and solutions.

The rules of a file under ``shared/data`` follow from its directory and file
name (``sudoku6/janko_box3x2.txt`` has 3x2 boxes, ``sudokux9/`` adds the
diagonals, ``jigsaw7/`` reads a region map per line); a sibling
``<name>.solutions.txt`` provides the known solutions.  Explicit rules (CLI
flags) win over what the path says.

>>> rules_from_path("data/sudoku6/janko_box3x2.txt")
Rules(box=(3, 2), variant='standard', regions=None, digits=None, format='auto', size=None)
>>> rules_from_path("data/jigsawx6/janko.txt").variant
'x'
"""

from __future__ import annotations

import math
import os
import re
import sys
from typing import Iterator

from ..checks import need_type
from ..errors import PuzzleFormatError, QSudokuError
from ..puzzle import Puzzle
from .rules import Rules
from .symbols import SYMBOLS
from .text import decode_line, looks_like_grid_row, parse_grid, parse_line, parse_puzzle, parse_regions

__all__ = ["load_puzzles", "iter_puzzles", "rules_from_path", "MAX_FILE_BYTES"]

#: Larger inputs are refused (a Sudoku file of this size is not a Sudoku file).
MAX_FILE_BYTES = 64 * 1024 * 1024
_FILE_SUFFIXES = (".txt", ".tsv", ".sdk", ".sudoku", ".csv", ".json", ".grid")


def rules_from_path(path: str) -> Rules:
    """Rules implied by a file's directory and name under ``shared/data``."""
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    kw = {}
    m = re.fullmatch(r"(sudoku|jigsaw)(x?)(\d+)", parent)
    if m and m.group(2):
        kw["variant"] = "x"
    b = re.search(r"box(\d+)x(\d+)", os.path.basename(path))
    if b:
        kw["box"] = (int(b.group(1)), int(b.group(2)))
    return Rules(**kw)


def load_puzzles(spec: str, rules: Rules = Rules(), *, stdin=None) -> list[Puzzle]:
    """All puzzles of ``spec`` (a path, ``-`` for stdin, or a literal puzzle).

    Raises:
        PuzzleFormatError: On the first unreadable puzzle (file, line and cell named).
    """
    spec = os.fspath(need_type("spec", spec, (str, os.PathLike), "a str or a path"))
    need_type("rules", rules, Rules)
    out = []
    for item in iter_puzzles(spec, rules, stdin=stdin):
        if isinstance(item, QSudokuError):
            raise item
        out.append(item)
    return out


def iter_puzzles(spec: str, rules: Rules = Rules(), *, stdin=None) -> Iterator[Puzzle | QSudokuError]:
    """Yield each puzzle of ``spec``, or the error of each unreadable one (errors as data)."""
    if spec == "-":
        text = (stdin or sys.stdin).read()
        yield from _iter_text(text, rules, source="<stdin>")
        return
    if os.path.isdir(spec):
        yield PuzzleFormatError(f"{spec} is a directory, not a puzzle file")
        return
    if not os.path.exists(spec):
        if spec.lower().endswith(_FILE_SUFFIXES) or os.sep in spec.rstrip(os.sep) and "." in os.path.basename(spec):
            yield PuzzleFormatError(f"no such file: {spec}")
            return
        yield _guard(lambda: parse_puzzle(spec, rules, source="<argument>"))
        return
    rules = rules_from_path(spec).merged(rules)
    try:
        text = _read_text(spec)
    except QSudokuError as e:
        yield e
        return
    solutions = _sibling_solutions(spec)
    yield from _iter_text(text, rules, source=spec, solutions=solutions)


def _read_text(path: str) -> str:
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise PuzzleFormatError(f"file is {size} bytes; puzzle files above {MAX_FILE_BYTES} bytes "
                                "are refused", source=path)
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data:
        raise PuzzleFormatError("binary file (NUL bytes), not puzzle text", source=path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise PuzzleFormatError("not UTF-8 text", source=path, line=line) from None


def _sibling_solutions(path: str) -> dict[int, str]:
    stem, ext = os.path.splitext(path)
    if stem.endswith(".solutions"):
        return {}
    sol = stem + ".solutions" + ext
    if not os.path.exists(sol):
        return {}
    with open(sol, encoding="utf-8") as f:
        return {k + 1: line.strip() for k, line in enumerate(f) if line.strip()}


def _guard(fn):
    try:
        return fn()
    except QSudokuError as e:
        return e


def _iter_text(text: str, rules: Rules, *, source: str, solutions=None):
    lines = text.splitlines()
    content = [(k + 1, ln) for k, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]
    if not content:
        yield PuzzleFormatError("no puzzle found (empty input)", source=source)
        return
    first = content[0][1]
    if "\t" in first and (source.endswith(".tsv") or len(first.split("\t")) >= 3):
        yield from _iter_tsv(content, rules, source)
    elif rules.format == "tuples" or (rules.format == "auto" and first.lstrip().startswith(("[", "("))):
        yield _guard(lambda: parse_puzzle(text, Rules.merged(rules, Rules(format="tuples")),
                                          source=source, line=content[0][0]))
    elif rules.format == "grid" or (rules.format == "auto" and _is_grid(first, content)):
        yield from _same_size(_iter_grids(lines, rules, source), source)
    else:
        yield from _same_size(((lineno, _guard(lambda: _parse_one_line(
            ln, rules, source, lineno, solutions or {}))) for lineno, ln in content), source)


def _same_size(numbered, source):
    """Pass on the items of ``(line, item)`` pairs; a puzzle whose size differs from the
    file's first puzzle becomes an error (one file holds one size)."""
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


def _is_grid(line: str, content=()) -> bool:
    """True if the text starting with ``line`` is read as grids rather than one puzzle a line.

    A first token longer than any grid row (a row has at most ``len(SYMBOLS)``
    cells) on any line of ``content`` means one puzzle per line, so that a file whose
    first line has the wrong length still gets one error per bad line.
    """
    if any(len(ln.split()[0]) > len(SYMBOLS) and "|" not in ln for _, ln in content):
        return False
    s = line.strip()
    if looks_like_grid_row(s) and len(s.split()) != 2:
        return True
    n = math.isqrt(len(s.split()[0]))
    return n * n != len(s.split()[0]) or n < 4


def _parse_one_line(line, rules, source, lineno, solutions):
    parts = line.split()
    regions = None
    if len(parts) == 2:
        regions = parse_regions(parts[1], source=source, line=lineno)
    elif len(parts) != 1:
        raise PuzzleFormatError(f"expected a puzzle (and optionally a region map), found "
                                f"{len(parts)} fields", source=source, line=lineno)
    solution = _solution(solutions.get(lineno), rules)
    p = parse_line(parts[0], rules, source=source, line=lineno,
                   regions=regions, name=f"{os.path.basename(source)}:{lineno}")
    return _with_solution(p, solution)


def _solution(text, rules):
    if not text:
        return None
    try:
        return tuple(decode_line(text, rules)[0])
    except PuzzleFormatError:
        return None


def _with_solution(p: Puzzle, solution):
    if solution is None or len(solution) != len(p.givens):
        return p
    from dataclasses import replace

    return replace(p, solution=tuple(solution))


def _iter_grids(lines, rules, source):
    block, start = [], None
    for k, ln in enumerate(lines + [""]):
        if ln.strip() and not ln.lstrip().startswith("#"):
            if start is None:
                start = k + 1
            block.append(ln)
            if _block_complete(block):
                yield start, _guard(lambda b=block, s=start: parse_grid(b, rules, source=source,
                                                                        first_line=s))
                block, start = [], None
        elif block:
            yield start, _guard(lambda b=block, s=start: parse_grid(b, rules, source=source,
                                                                    first_line=s))
            block, start = [], None


def _block_complete(block) -> bool:
    rows = [b for b in block if not re.fullmatch(r"[\s\-+=|:*]*", b.strip())]
    if not rows:
        return False
    s = rows[0].replace("|", " ").split()
    n = len(s) if len(s) > 1 else len(s[0])
    return len(rows) == n


def _iter_tsv(content, rules, source):
    yield from _same_size(_iter_tsv_items(content, rules, source), source)


def _iter_tsv_items(content, rules, source):
    for lineno, ln in content:
        fields = ln.rstrip("\n").split("\t")
        if len(fields) < 2:
            yield lineno, PuzzleFormatError("expected tab-separated name, puzzle[, regions, "
                                            "solution]", source=source, line=lineno)
            continue
        name, puzzle = fields[0].strip(), fields[1].strip()
        regions_text = fields[2].strip() if len(fields) > 2 else "-"
        sol_text = fields[3].strip() if len(fields) > 3 else ""

        def one(name=name, puzzle=puzzle, regions_text=regions_text, sol_text=sol_text, lineno=lineno):
            regions = None if regions_text in ("", "-") else parse_regions(
                regions_text, source=source, line=lineno)
            p = parse_line(puzzle, rules, source=source, line=lineno, regions=regions, name=name)
            return _with_solution(p, _solution(sol_text, rules))

        yield lineno, _guard(one)
