"""The shipped ``data/``: companions, solutions, provenance, reproducible generated sets,
and the resolver that finds a set by name."""

from __future__ import annotations

import re
import shlex

import pytest

from qsudoku.errors import DatasetMissingError
from qsudoku.io import dataset_path, load_puzzles
from qsudoku.io.datasets import REPO_DATA, data_roots

from _cli import run
from _shared import slow_when_big

README = (REPO_DATA / "README.md").read_text()
SETS = sorted(f for f in REPO_DATA.rglob("*.txt")
              if not f.name.endswith((".solutions.txt", ".ids.txt")))


def test_the_data_folder_ships_every_kind():
    kinds = {f.parent.name for f in SETS}
    assert {"sudoku4", "sudoku6", "sudoku8", "sudoku9", "sudoku12", "sudoku16", "sudoku25",
            "sudokux9", "jigsaw4", "jigsaw9", "jigsawx6"} <= kinds
    assert sum(f.stat().st_size for f in REPO_DATA.rglob("*")) < 4 * 2**20


@pytest.mark.parametrize("path", slow_when_big(SETS), ids=lambda f: str(f.relative_to(REPO_DATA)))
def test_every_set_has_its_companions_and_valid_solutions(path):
    lines = path.read_text().splitlines()
    for what in ("solutions", "ids"):
        companion = path.with_name(path.name.replace(".txt", f".{what}.txt"))
        assert len(companion.read_text().splitlines()) == len(lines), companion
    puzzles = load_puzzles(str(path))
    assert len(puzzles) == len(lines)
    assert all(p.solution is not None and p.is_solution(p.solution) for p in puzzles)


def test_the_readme_names_every_set():
    for f in SETS:
        name = str(f.relative_to(REPO_DATA))
        if "/fraction_" in name:
            name = re.sub(r"fraction_[0-9.]+\.txt$", "fraction_F.txt", name)
        assert f"`{name}`" in README or f"-o data/{name}" in README, name


def commands() -> list[list[str]]:
    """The single ``qsudoku generate`` lines of the README (the loop is checked apart)."""
    return [shlex.split(ln.strip())[1:] for ln in README.splitlines()
            if ln.startswith("qsudoku generate ")]


def test_the_readme_commands_cover_the_generated_unique_sets():
    written = {c[c.index("-o") + 1] for c in commands()}
    shipped = {f"data/{f.relative_to(REPO_DATA)}" for f in SETS if f.name.startswith("unique")}
    assert written == shipped


@pytest.mark.slow
@pytest.mark.parametrize("target", ["data/generated/sudoku4/unique.txt",
                                    "data/generated/sudoku6/unique_box3x2.txt",
                                    "data/generated/jigsaw5/unique.txt"])
def test_a_readme_command_writes_the_shipped_bytes(capsys, tmp_path, target):
    argv = next(c for c in commands() if c[c.index("-o") + 1] == target)
    out = tmp_path / "x.txt"
    argv[argv.index("-o") + 1] = str(out)
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    shipped = REPO_DATA.parent / target
    assert out.read_bytes() == shipped.read_bytes()
    assert (tmp_path / "x.solutions.txt").read_bytes() == \
        shipped.with_name(shipped.name.replace(".txt", ".solutions.txt")).read_bytes()


def test_a_fraction_set_is_rewritten_by_the_readme_loop(capsys, tmp_path):
    assert "--size 9 --fraction $f --count 5 --seed $((9000 + p))" in README
    out = tmp_path / "f.txt"
    code, _, err = run(capsys, "generate", "--size", "9", "--fraction", "0.45", "--count", "5",
                       "--seed", str(9000 + 45), "-o", out)
    assert code == 0, err
    assert out.read_bytes() == (REPO_DATA / "generated/sudoku9/fraction_0.45.txt").read_bytes()


def test_the_resolver_searches_qsudoku_data_and_the_repository_only(monkeypatch, tmp_path):
    monkeypatch.delenv("QSUDOKU_DATA", raising=False)
    assert data_roots() == [REPO_DATA]
    assert dataset_path("sudoku9/forum_hardest_1106.txt") == \
        REPO_DATA / "sudoku9" / "forum_hardest_1106.txt"
    with pytest.raises(DatasetMissingError) as e:
        dataset_path("sudoku9/krazydad_1_easy.txt")
    assert "sudoku9/krazydad_1_easy.txt" in str(e.value) and "QSUDOKU_DATA" in str(e.value)
    assert e.value.exit_code == 2
    share = REPO_DATA.parent.parent / "shared" / "data"  # the developers' share: not searched
    assert share not in data_roots() and "shared" not in str(e.value)
    (tmp_path / "sudoku9").mkdir()
    (tmp_path / "sudoku9" / "krazydad_1_easy.txt").write_text("x\n")
    monkeypatch.setenv("QSUDOKU_DATA", str(tmp_path))  # how a set that does not ship is found
    assert dataset_path("sudoku9/krazydad_1_easy.txt") == tmp_path / "sudoku9/krazydad_1_easy.txt"


def test_qsudoku_data_comes_first(monkeypatch, tmp_path):
    mine, other = tmp_path / "mine", tmp_path / "other"
    for root in (mine, other):
        (root / "sudoku9").mkdir(parents=True)
    (mine / "sudoku9" / "forum_hardest_1106.txt").write_text("x\n")
    (other / "sudoku9" / "extra.txt").write_text("y\n")
    monkeypatch.setenv("QSUDOKU_DATA", f"{mine}:{tmp_path / 'missing'}:{other}"
                       .replace(":", __import__("os").pathsep))
    assert dataset_path("sudoku9/forum_hardest_1106.txt").read_text() == "x\n"
    assert dataset_path("sudoku9/extra.txt").read_text() == "y\n"
    assert dataset_path("sudoku16/gecode.txt") == REPO_DATA / "sudoku16" / "gecode.txt"
    assert data_roots()[:2] == [mine, other]
