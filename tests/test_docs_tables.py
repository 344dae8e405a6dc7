"""The docs' tables of results are read from ``benchmarks/results`` at build time, not typed again.

- every ``{include}`` / ``{literalinclude}`` / ``{results-table}`` of a docs page names a file
  that exists (a ``:pending:`` table may wait for its study), and a ``results-table`` (the
  local extension's directive) reads a rectangular table;
- every file of ``benchmarks/results`` that a page includes or shows is a study's output:
  beside it, a provenance record naming an existing spec of ``benchmarks/studies/`` and a
  commit of the repository;
- no docs page types in its prose a number that a results file it includes holds.
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
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


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


def _shown(page: Path) -> list[Path]:
    """Every file of ``benchmarks/results`` that ``page`` includes or shows as an image (a
    pending table whose study has not run yet left out)."""
    files = [f for _, f, opts in _includes(page) if "pending" not in opts or f.is_file()]
    files += [(page.parent / m).resolve() for m in _IMAGE.findall(page.read_text("utf-8"))]
    return [f for f in files if RESULTS in f.parents]


def test_every_included_file_exists():
    included = [(page.name, file) for page in _pages() for _, file, opts in _includes(page)
                if "pending" not in opts]
    assert any(RESULTS in f.parents for _, f in included), "no page includes a results file"
    missing = [(name, str(f)) for name, f in included if not f.is_file()]
    missing += [(page.name, str(f)) for page in _pages() for f in _shown(page)
                if not f.is_file()]
    assert missing == []


def provenance_problems(file: Path, results: Path = RESULTS, repo: Path = REPO) -> list[str]:
    """What is wrong with the provenance of the results file ``file``: it must lie in a
    study's folder ``results/<study>/`` beside ``results.provenance.json``, which names
    the spec ``benchmarks/studies/<study>.toml`` (existing) and a commit of ``repo``."""
    import json
    import subprocess

    parts = file.relative_to(results).parts
    if len(parts) < 2:
        return [f"{file.name} is in no study's folder of {results.name}/"]
    record = results / parts[0] / "results.provenance.json"
    if not record.is_file():
        return [f"{parts[0]}/ has no results.provenance.json"]
    rec = json.loads(record.read_text(encoding="utf-8"))
    problems = []
    spec = rec.get("spec")
    if spec != f"benchmarks/studies/{parts[0]}.toml" or not (repo / spec).is_file():
        problems.append(f"{parts[0]}/results.provenance.json names the spec {spec!r}, not "
                        f"an existing benchmarks/studies/{parts[0]}.toml")
    commit = rec.get("commit")
    if not (isinstance(commit, str) and re.fullmatch(r"[0-9a-f]{40}", commit)):
        problems.append(f"{parts[0]}/results.provenance.json names no commit ({commit!r})")
    elif (repo / ".git").exists():
        known = subprocess.run(["git", "-C", str(repo), "cat-file", "-e", f"{commit}^{{commit}}"],
                               capture_output=True).returncode == 0
        if not known:
            problems.append(f"{parts[0]}/results.provenance.json: commit {commit[:12]} is "
                            "not in the repository")
    return problems


def test_every_results_file_a_page_shows_has_a_provenance_record():
    problems = [(page.name, p) for page in _pages() for f in _shown(page)
                for p in provenance_problems(f)]
    assert problems == []


def test_the_provenance_check_finds_a_file_without_a_record(tmp_path):
    results = tmp_path / "results"
    (results / "s").mkdir(parents=True)
    (results / "s" / "results.summary.csv").write_text("set\n")
    (results / "loose.txt").write_text("x\n")
    assert provenance_problems(results / "loose.txt", results, tmp_path) == [
        "loose.txt is in no study's folder of results/"]
    assert provenance_problems(results / "s" / "results.summary.csv", results, tmp_path) == [
        "s/ has no results.provenance.json"]
    (results / "s" / "results.provenance.json").write_text(
        '{"spec": "benchmarks/studies/s.toml", "commit": null}')
    found = provenance_problems(results / "s" / "results.summary.csv", results, tmp_path)
    assert len(found) == 2 and "not an existing" in found[0] and "no commit" in found[1]


def _reader(name: str = "read_results_table"):
    """A function of the docs' extension (``docs/_ext/qsudoku_docs.py``)."""
    import importlib
    import sys

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        return getattr(importlib.import_module("qsudoku_docs"), name)
    finally:
        sys.path.remove(str(DOCS / "_ext"))


def test_every_results_table_directive_reads_a_table():
    read = _reader()
    tables = 0
    for page in _pages():
        for kind, file, opts in _includes(page):
            if kind == "results-table" and "columns" in opts:
                if "pending" in opts and not file.is_file():
                    continue
                head, rows = _reader("read_csv_table")(file, opts["columns"], opts.get("where"))
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


_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")


def significant_digits(number: str) -> int:
    """The significant digits of a number as typed (``0.0120`` 3, ``3,297`` 4, ``100`` 1)."""
    number = number.replace(",", "")
    if "." in number:
        return len(number.replace(".", "").lstrip("0"))
    return len(number.lstrip("0").rstrip("0"))


def _forms(cell: str) -> set[str]:
    """The ways a number of a results file may be typed: as written, and to 3 or 4
    significant digits."""
    out = set(_NUMBER.findall(cell))
    try:
        x = float(cell)
    except ValueError:
        return out
    if x == x and abs(x) != float("inf"):
        out |= {f"{x:.3g}", f"{x:.4g}"}
    return out


def _held_numbers(file: Path, opts: dict) -> set[str]:
    """The numbers (>= 3 significant digits) a results file holds, and those of the table
    the page renders from it."""
    import csv

    cells = []
    with open(file, newline="", encoding="utf-8") as f:
        for row in csv.reader(f):
            cells += row
    if "columns" in opts:
        _, rows = _reader("read_csv_table")(file, opts["columns"], opts.get("where"))
        cells += [c for r in rows for c in r]
    numbers = set().union(*map(_forms, cells)) if cells else set()
    return {n.replace(",", "") for n in numbers if significant_digits(n) >= 3}


def prose(text: str) -> str:
    """A page's prose: without fenced blocks, indented code and inline code."""
    text = re.sub(r"(?ms)^```.*?^```", "", text)
    text = re.sub(r"(?m)^(    |\t).*$", "", text)
    return re.sub(r"`[^`\n]*`", "", text)


def typed_numbers(page: Path) -> list[tuple[str, str, str]]:
    """``(page, results file, number)`` for each number of the page's prose that a CSV
    results file it includes holds."""
    text = prose(page.read_text(encoding="utf-8"))
    found = []
    for _, file, opts in _includes(page):
        if RESULTS not in file.parents or file.suffix != ".csv" or not file.is_file():
            continue
        held = _held_numbers(file, opts)
        for number in _NUMBER.findall(text):
            if significant_digits(number) >= 3 and number.replace(",", "") in held:
                found.append((page.name, file.relative_to(RESULTS).as_posix(), number))
    return found


def test_no_docs_page_types_a_number_its_results_hold():
    assert [t for page in _pages() for t in typed_numbers(page)] == []


def test_the_number_check_finds_a_typed_number(tmp_path, monkeypatch):
    results = tmp_path / "results" / "s"
    results.mkdir(parents=True)
    (results / "results.summary.csv").write_text("set,n,wall_median\nx,40,0.025512\n")
    page = tmp_path / "docs" / "p.md"
    page.parent.mkdir()
    page.write_text("The median was 25.5 ms over 40 puzzles (`25.5` in code is fine).\n\n"
                    "```{results-table} ../results/s/results.summary.csv\n"
                    ":columns: set, n, wall_median\n```\n")
    monkeypatch.setattr(__import__(__name__), "RESULTS", tmp_path / "results")
    assert typed_numbers(page) == [("p.md", "s/results.summary.csv", "25.5")]
    assert significant_digits("0.0120") == 3 and significant_digits("3,297") == 4
    assert significant_digits("100") == 1


def test_a_summary_table_shows_its_columns_with_intervals_and_says_what_is_missing(tmp_path):
    read = _reader("read_csv_table")
    path = tmp_path / "results.summary.csv"
    path.write_text("set,sampler,n,p_read,p_read_low,p_read_high,tts99_median,solved_pct\n"
                    "a,sa,40,0.123456,0.1,0.2,0.01234,100.0\n"
                    "a,aco,40,1.0,0.9,1.0,inf,\n")
    head, rows = read(path, "sampler=backend, n, p_read+ci=p [95% CI], tts99_median, solved_pct",
                      "sampler=sa|aco")
    assert head == ["backend", "n", "p [95% CI]", "tts99_median", "solved_pct"]
    assert rows == [["sa", "40", "0.123 [0.1, 0.2]", "12.3 ms", "100"],
                    ["aco", "40", "1 [0.9, 1]", "inf", "-"]]
    assert read(path, "sampler", "sampler=sa")[1] == [["sa"]]
    with pytest.raises(ValueError, match="no column 'wall'"):
        read(path, "sampler, wall")
    with pytest.raises(ValueError, match="no row matches"):
        read(path, "sampler", "sampler=pt")
