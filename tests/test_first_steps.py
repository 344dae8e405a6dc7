"""A newcomer's first steps, as written (issue 49, item 4): install lines that work from a
clone, every one-line form of a file parsed by ``parse_puzzle`` alone, ``Rules`` taking
what the CLI takes, and help texts that name only what the repository holds."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import qsudoku
from qsudoku.errors import install_hint
from qsudoku.io import Rules, load_puzzles, parse_puzzle, parse_regions

from _cli import one_error, run
from _shared import DATA, REPO, SEEDS

#: An install of an extra by the name ``qsudoku``, quoted either way or not: a name no
#: package index knows.
_BY_NAME = re.compile(r"""pip install\s+['"]?qsudoku\[""")


def _tracked_texts():
    try:
        out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True,
                             check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout: its tracked files are unknown")
    for name in filter(None, out.decode().split("\0")):
        path = REPO / name
        if path.is_file() and path.stat().st_size < 5_000_000:
            data = path.read_bytes()
            if b"\0" not in data:
                yield name, data.decode("utf-8", "replace")


def test_no_file_installs_by_a_name_no_index_knows():
    """qsudoku is not on a package index: every install line is one that runs in a clone."""
    found = [f"{name}:{text[:m.start()].count(chr(10)) + 1}"
             for name, text in _tracked_texts() for m in _BY_NAME.finditer(text)]
    assert not found, found


def test_the_install_hint_runs_from_a_clone():
    assert install_hint("qpu") == 'pip install -e ".[qpu]" (from the repository\'s root)'
    assert install_hint(None) == "pip install -e . (from the repository's root)"


def test_a_missing_extra_names_the_clone_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ortools", None)
    code, out, err = run(capsys, "solve", "1.3.3..2.3..2..3", "--sampler", "cpsat")
    assert code == 3
    assert one_error(err).endswith("(ortools); run: " + install_hint("classical"))


class _NeedsAnExtra:
    """A registry entry whose defaults are read from a class its missing extra holds."""

    name, summary, offline, extra, round = "needy", "a sampler of an extra", True, "classical", {}

    @property
    def defaults(self):
        raise ModuleNotFoundError("No module named 'ortools'", name="ortools")


def test_the_samplers_list_names_the_clone_install(capsys, monkeypatch):
    from qsudoku.commands import samplers_cmd

    monkeypatch.setattr(samplers_cmd, "names", lambda: ["needy"])
    monkeypatch.setattr(samplers_cmd, "get_spec", lambda name: _NeedsAnExtra())
    code, out, _ = run(capsys, "samplers")
    assert code == 0 and out.rstrip("\n").endswith(
        f"defaults: ({install_hint('classical')} to list them)")


JIGSAW9 = DATA / "jigsaw9" / "smilingwayne.txt"


def test_the_line_of_a_jigsaw_file_parses_as_a_jigsaw_and_solves():
    line = JIGSAW9.read_text(encoding="utf-8").splitlines()[0]
    puzzle = qsudoku.parse_puzzle(line)
    assert puzzle.kind == "jigsaw 9x9"
    assert [u.cells for u in puzzle.units] == [u.cells for u in load_puzzles(str(JIGSAW9))[0].units]
    result = qsudoku.solve(puzzle, qsudoku.Config().with_overrides(seed=7))
    assert result.valid and puzzle.is_solution(result.grid)


def _one_line_forms():
    """``(form, line, rules a file of it implies)`` of every one-line form a file holds."""
    seeds_row = next(ln for ln in SEEDS.read_text(encoding="utf-8").splitlines()
                     if ln.strip() and not ln.startswith("#"))
    return [
        ("line", "1.3.3..2.3..2..3", Rules()),
        ("jigsaw line", JIGSAW9.read_text(encoding="utf-8").splitlines()[1], Rules()),
        ("jigsaw line, / in the map", "1...." "..2.." "....." "....." "....4"
         " aaaab/cabbb/ccbdd/ccedd/eeeed", Rules()),
        ("tuple list", "[[1, 1, 1], [2, 3, 4]]", Rules(size=4)),
        ("seeds row", seeds_row, Rules()),
        ("digits with /", "/" + "." * 4095, Rules(digits="0-9A-Za-z+/")),
    ]


@pytest.mark.parametrize("form,line,rules", _one_line_forms(), ids=[f for f, *_ in _one_line_forms()])
def test_parse_puzzle_reads_every_one_line_form_of_a_file(form, line, rules, tmp_path):
    """The line copied out of a file parses as the file reads it."""
    path = tmp_path / ("p.tsv" if form == "seeds row" else "p.txt")
    path.write_text(line + "\n", encoding="utf-8")
    (from_file,) = load_puzzles(str(path), rules)
    parsed = parse_puzzle(line, rules)
    assert parsed.givens == from_file.givens and parsed.kind == from_file.kind
    assert [u.cells for u in parsed.units] == [u.cells for u in from_file.units]
    assert parsed.solution == from_file.solution


def test_a_jigsaw_line_with_a_bad_symbol_names_the_symbol():
    with pytest.raises(qsudoku.PuzzleFormatError, match="unknown symbol 'x'"):
        parse_puzzle("x" + "." * 15 + " aabb/aabb/ccdd/ccdd")


def test_rules_take_a_region_map_as_the_cli_does():
    from qsudoku.cli import build_parser
    from qsudoku.commands.common import rules_from_args

    text = "aaab/abbb/cccd/cddd"
    args = build_parser().parse_args(["solve", "1" + "." * 15, "--regions", text])
    assert Rules(regions=text) == rules_from_args(args) == Rules(regions=parse_regions(text))
    assert Rules(regions=text).make([1] + [0] * 15).kind == "jigsaw 4x4"
    with pytest.raises(qsudoku.PuzzleFormatError, match="regions: region map has 3 cells"):
        Rules(regions="abc")


def _commands():
    from qsudoku.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return sorted(sub.choices)


@pytest.mark.parametrize("command", ["", *_commands()])
def test_help_names_no_folder_outside_the_repository(command, capsys):
    code, out, _ = run(capsys, *filter(None, [command]), "--help")
    assert code == 0 and "usage: qsudoku" in out and "shared/" not in out
