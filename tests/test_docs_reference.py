"""The reference pages are Markdown in the repository, written from the code, and read on GitHub.

- ``docs/cli.md``, ``docs/configuration.md``, ``docs/samplers.md`` (and the sampler list of
  ``docs/penalty-weights.md``) are what ``docs/_ext/reference_pages.py`` writes from the code
  now (a stale page fails), with at least 20 lines of content each and no build directive;
- they name every subcommand and flag, every key of ``qsudoku/defaults.toml`` with a
  description, and every registered sampler;
- no page links into a folder that only a build makes (``tutorials/``, ``_build/``, ``api/``);
- the penalty-weight guide's histogram example draws what it says: many reads, some valid.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from _shared import REPO

DOCS = REPO / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
import reference_pages  # noqa: E402
from qsudoku_docs import notebook_links  # noqa: E402

sys.path.remove(str(DOCS / "_ext"))


def _generated(page: str) -> str:
    """The generated blocks of a page, end to end."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return "\n".join(body for _, body in reference_pages._BLOCK.findall(text))


def test_the_reference_pages_are_written_from_the_code_as_it_is():
    assert reference_pages.stale() == [], "run: python docs/_ext/reference_pages.py"


def test_a_stale_page_is_found(tmp_path):
    for page in reference_pages.PAGES:
        (tmp_path / page).write_text((DOCS / page).read_text(encoding="utf-8"), encoding="utf-8")
    cli = tmp_path / "cli.md"
    cli.write_text(cli.read_text().replace("| `--debug` |", "| `--debug-old` |"))
    assert reference_pages.stale(tmp_path) == ["cli.md"]
    assert reference_pages.render(cli.read_text()) == (DOCS / "cli.md").read_text()


@pytest.mark.parametrize("page", ["cli.md", "configuration.md", "samplers.md"])
def test_a_reference_page_reads_without_a_build(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    assert "```{" not in text  # no directive that only a build fills
    content = [line for line in _generated(page).splitlines() if line.strip()]
    assert len(content) >= 20, (page, len(content))


def test_the_cli_page_names_every_subcommand_and_flag():
    from qsudoku.cli import build_parser

    text = _generated("cli.md")
    subs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in subs.choices.items():
        section = text.split(f"\n## qsudoku {name}\n", 1)[1].split("\n## ", 1)[0]
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:  # an old spelling, hidden (docs/development.md)
                continue
            for flag in action.option_strings:
                assert re.search(rf"^\| (?:[^|]*, )?`{re.escape(flag)}[ `]", section, re.M), (name, flag)


def _config_rows() -> dict[str, list[str]]:
    rows = {}
    for line in _generated("configuration.md").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 3 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells
    return rows


def test_the_configuration_page_describes_every_key():
    rows = _config_rows()
    data = tomllib.loads((REPO / "qsudoku" / "defaults.toml").read_text())
    keys = set()
    for table, values in data.items():
        for key, value in values.items():
            keys |= ({f"{table}.{key}.{k}" for k in value} if isinstance(value, dict)
                     else {f"{table}.{key}"})
    assert keys <= set(rows)
    assert {"qubo.weights.unit", "sampler.params.seed", "sampler.fallback"} <= set(rows)
    empty = [k for k, cells in rows.items() if not all(cells)]
    assert empty == []
    for key in ("propagate.rules", "qubo.encoding", "sampler.name", "cluster.scheduler"):
        assert len(rows[key][2]) > 40, key  # its comment, not the table's
    # route.time_budget's comment runs on its indented lines; exact_fallback's is its own
    assert "0.8 s" in rows["route.time_budget"][2]
    assert rows["route.exact_fallback"][2].startswith("Exact solver")
    assert "design card" not in _generated("configuration.md")
    assert "[docs/performance.md](performance.md)" in rows["propagate.rules"][2]


def test_the_defaults_reader_gives_each_comment_its_key(tmp_path):
    path = tmp_path / "d.toml"
    path.write_text('# preamble\n\n[a]\n# about x,\n# two lines\nx = 1\ny = 2  # about y\n'
                    '          # and more about y\n# about z\nz = 3\n\n'
                    '[b]\n# about b\nk = 1  # about k\n# m = 2  # optional m\n#       # more m\n'
                    '\n[c]\n# only a comment\n')
    preamble, tables = reference_pages.read_defaults(path)
    assert preamble == ["preamble"]
    assert tables["a"] == ([], [["x", "1", ["about x,", "two lines"], False],
                                ["y", "2", ["about y", "and more about y"], False],
                                ["z", "3", ["about z"], False]])
    assert tables["b"] == (["about b"], [["k", "1", ["about k"], False],
                                         ["m", "2", ["optional m", "more m"], True]])
    assert tables["c"] == (["only a comment"], [])
    path.write_text("[a]\nx = 1\n[b]\n[[c]]\nk = 1\n")  # an array of tables: not read
    with pytest.raises(ValueError, match="cannot read line"):
        reference_pages.read_defaults(path)


def test_markdown_text_is_escaped_and_links_made():
    assert reference_pages.text("sample(bqm, **params) at $HOME, a|b") == (
        r"sample(bqm, \*\*params) at \$HOME, a\|b")
    assert reference_pages.text("`--x **y` see docs/cluster.md") == (
        "`--x **y` see [docs/cluster.md](cluster.md)")
    assert reference_pages.table(["a"], [["`x|y`"]])[-1] == r"| `x\|y` |"


def test_the_samplers_page_has_a_section_for_every_sampler():
    from qsudoku.samplers import SPECS

    text = _generated("samplers.md")
    for name, spec in SPECS.items():
        assert f"\n### {name}\n" in text and f"](#{name})" in text, name
        if spec.extra:
            assert f'`pip install -e ".[{spec.extra}]"`' in text, name
    assert "pip install 'qsudoku" not in text
    weights = _generated("penalty-weights.md")
    assert {n for n, s in SPECS.items() if not s.ignores_weights} == set(
        re.findall(r"\[`([\w-]+)`\]\(samplers\.md#", weights))


_PAGES = [REPO / "README.md", *sorted(p for p in DOCS.glob("*.md"))]


@pytest.mark.parametrize("path", _PAGES, ids=lambda p: p.name)
def test_no_link_points_into_a_build_product(path):
    links = re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8"))
    built = [link for link in links if re.match(r"(docs/)?(tutorials|_build|api)/", link)]
    assert built == []


def test_a_link_to_a_notebook_becomes_its_page_on_the_site():
    assert notebook_links("[a](../notebooks/02_penalty_weights.ipynb) [b](../data/x.txt)") == (
        "[a](tutorials/02_penalty_weights.ipynb) [b](../data/x.txt)")


@pytest.mark.slow
def test_the_histogram_example_draws_many_reads(tmp_path):
    """The ``show --hist`` line of penalty-weights.md, run as ``solve --json`` with the same
    puzzle and sampler flags: many reads, some valid and some not (two kinds of bars)."""
    text = (DOCS / "penalty-weights.md").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("qsudoku show") and "--hist" in x)
    args = shlex.split(line)[2:]
    keep, skip = [], {"-o", "--hist"}
    it = iter(args)
    for a in it:
        if a in skip:
            next(it)
        elif a != "--solve":
            keep.append(a)
    proc = subprocess.run([sys.executable, "-m", "qsudoku", "solve", *keep, "--index", "1",
                           "--json"], capture_output=True, text=True, cwd=REPO, timeout=300,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    row = json.loads(proc.stdout)
    row = row[0] if isinstance(row, list) else row
    assert row["num_reads"] >= 100 and 0 < row["success_rate"] < 1, row


@pytest.mark.parametrize("nb", sorted((REPO / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_every_relative_link_of_a_notebook_resolves(nb):
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    bad = [link for link in re.findall(r"\]\(([^)\s]+)\)", text)
           if not re.match(r"[a-z]+:", link) and not (nb.parent / link.partition("#")[0]).exists()]
    assert bad == []
