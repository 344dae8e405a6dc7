"""The docs' tables of results are read from ``benchmarks/results`` at build time, not typed again.

- every ``{include}`` / ``{literalinclude}`` / ``{results-table}`` of a docs page names a file
  that exists; a slice of a ``.txt`` results file included as a table is a Markdown table, and
  a ``results-table`` (the local extension's directive) reads a rectangular table;
- every curated table ``benchmarks/results/<name>.md`` is included by a docs page and names
  the results files it comes from, which exist;
- no docs page types a table row that a results file holds (row-level duplication).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from _shared import REPO

DOCS = REPO / "docs"
RESULTS = REPO / "benchmarks" / "results"
_BUILT = ("_build", "tutorials", "api")
_INCLUDE = re.compile(r"^```\{(include|literalinclude|results-table)\}[ \t]+(\S+)[ \t]*\n((?::[\w-]+:.*\n)*)```",
                      re.M)


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if p.relative_to(DOCS).parts[0] not in _BUILT)


def _includes(page: Path) -> list[tuple[str, Path, dict[str, str]]]:
    """``(directive, included file, options)`` for every include directive of ``page``."""
    out = []
    for kind, target, opts in _INCLUDE.findall(page.read_text(encoding="utf-8")):
        options = dict(re.findall(r"^:([\w-]+):[ \t]*(.*)$", opts, re.M))
        out.append((kind, (page.parent / target).resolve(), options))
    return out


def _is_row(line: str) -> bool:
    """A Markdown table row (a separator row such as ``|---|---:|`` is not one)."""
    line = line.strip()
    return line.startswith("|") and line.endswith("|") and bool(re.search(r"[^|\-: ]", line))


def test_every_included_file_exists():
    included = [(page.name, file) for page in _pages() for _, file, _ in _includes(page)]
    assert any(RESULTS in f.parents for _, f in included), "no page includes a results file"
    missing = [(name, str(f)) for name, f in included if not f.is_file()]
    assert missing == []


def test_an_included_slice_of_a_results_file_is_a_markdown_table():
    for page in _pages():
        for kind, file, opts in _includes(page):
            if kind != "include" or RESULTS not in file.parents or file.suffix != ".txt":
                continue
            lines = file.read_text(encoding="utf-8").splitlines()
            # docutils' start-line/end-line: a Python slice of the file's lines
            part = lines[int(opts.get("start-line", 0)):int(opts.get("end-line", len(lines)))]
            assert len(part) >= 3 and all(line.startswith("|") for line in part), (page.name, file)
            assert _is_row(part[0]) and not _is_row(part[1]), (page.name, file.name, part[:2])


def _reader(name: str = "read_results_table"):
    import sys

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import qsudoku_docs
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    return getattr(qsudoku_docs, name)


def test_every_results_table_directive_reads_a_table():
    read, read_csv = _reader(), _reader("read_results_csv")
    tables = 0
    for page in _pages():
        for kind, file, opts in _includes(page):
            if kind == "results-table" and "columns" in opts:
                head, rows = read_csv(file, opts["columns"], opts.get("header", ""))
                assert rows and all(len(r) == len(head) for r in rows)
                tables += 1
            elif kind == "results-table":
                end = opts.get("end-line")
                head, rows = read(file, int(opts.get("start-line", 0)), end and int(end),
                                  opts.get("header"), opts.get("sep", r"\s{2,}"))
                assert rows and all(len(r) == len(head) for r in rows)
                tables += 1
    assert tables


def test_a_ragged_plain_table_is_an_error(tmp_path):
    read = _reader()
    path = tmp_path / "r.txt"
    path.write_text("run: x\nset    n  wall med\n-----\na     1  2.0 ms\nb  2 3.0 ms\n")
    assert read(path, 1, 4) == (["set", "n", "wall med"], [["a", "1", "2.0 ms"]])
    with pytest.raises(ValueError, match="do not split"):
        read(path, 1, 5)
    assert read(path, 3, 5, "set | n | wall", r"\s+(?=\d)|\s{2,}")[1] == [
        ["a", "1", "2.0 ms"], ["b", "2", "3.0 ms"]]


def test_a_csv_table_formats_its_columns_and_names_a_missing_one(tmp_path):
    read = _reader("read_results_csv")
    path = tmp_path / "s.summary.csv"
    path.write_text("sampler,p_read,tts99_median,n\naco,0.5,0.0123,3\nsa,0.0,inf,3\ncpsat,,,1\n")
    head, rows = read(path, "{sampler} | {p_read:.2f} | {tts99_median!t} | {n}",
                      "sampler | p | TTS99 | n")
    assert head == ["sampler", "p", "TTS99", "n"]
    assert rows == [["aco", "0.50", "12.3 ms", "3"], ["sa", "0.00", "inf", "3"],
                    ["cpsat", "-", "-", "1"]]
    with pytest.raises(ValueError, match="no column 'wall'"):
        read(path, "{wall}", "wall")
    with pytest.raises(ValueError, match="2 header cells for 1 columns"):
        read(path, "{n}", "a | b")


def test_every_curated_table_is_included_and_names_its_sources():
    included = {file for page in _pages() for _, file, _ in _includes(page)}
    for table in sorted(RESULTS.glob("*.md")):
        assert table.resolve() in included, f"{table.name} is included by no docs page"
        first, *rows = table.read_text(encoding="utf-8").splitlines()
        assert first.startswith("% "), f"{table.name}: first line names its sources"
        sources = re.findall(r"[\w.-]+\.txt", first)
        assert sources and all((RESULTS / s).is_file() for s in sources), (table.name, sources)
        assert rows and all(line.startswith("|") for line in rows), table.name


def _duplicated_rows(pages: list[Path], results: list[Path]) -> list[tuple[str, str]]:
    kept = {line.strip() for f in results for line in f.read_text(encoding="utf-8").splitlines()}
    return [(page.name, line.strip()) for page in pages
            for line in page.read_text(encoding="utf-8").splitlines()
            if _is_row(line) and line.strip() in kept]


def test_no_docs_page_types_a_row_of_a_results_file():
    results = sorted(f for f in RESULTS.rglob("*") if f.suffix in (".txt", ".md"))
    assert _duplicated_rows(_pages(), results) == []


def test_the_row_check_finds_a_typed_row(tmp_path):
    (tmp_path / "r.txt").write_text("header\n| a | b |\n|---|---|\n| 1 | 2.5 |\n")
    (tmp_path / "p.md").write_text("text\n\n| a | b |\n|---|---|\n| 1 | 2.6 |\n")
    found = _duplicated_rows([tmp_path / "p.md"], [tmp_path / "r.txt"])
    assert found == [("p.md", "| a | b |")]  # the header row; the separator is no row
