"""The studies of ``benchmarks/studies/*.toml``: each parses, names data that ships (or
says what it needs), a docs section that exists and options its command accepts; one runs
end to end at a tiny size; and ``benchmarks/`` keeps no path outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from qsudoku.cli import build_parser
from qsudoku.commands.spec import apply_spec, read_spec, spec_argv
from qsudoku.errors import ConfigError
from qsudoku.io import dataset_path
from qsudoku.io.datasets import REPO_DATA

from _cli import one_error, run
from _shared import REPO, needs_data

STUDIES = sorted((REPO / "benchmarks" / "studies").glob("*.toml"))


def anchors(path: Path) -> set[str]:
    """The heading anchors of a Markdown file, as GitHub and MyST make them."""
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#+\s+(.*)", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).lower())
            out.add(text.replace(" ", "-"))
    return out


def test_there_are_studies():
    assert len(STUDIES) >= 10


@needs_data
@pytest.mark.parametrize("path", STUDIES, ids=lambda p: p.stem)
def test_a_study_names_its_data_its_figure_and_flags_its_command_takes(path, monkeypatch):
    spec = read_spec(str(path))
    assert spec["title"] and spec["command"] in ("bench", "sweep")
    page, _, anchor = spec["figure"].partition("#")
    assert (REPO / page).is_file(), spec["figure"]
    assert anchor in anchors(REPO / page), spec["figure"]
    assert (spec.get("puzzles") or "generate" in spec) and all(  # data, or made by the spec
        not Path(n).is_absolute() and ".." not in Path(n).parts for n in spec.get("puzzles", []))
    out = spec["options"].get("output", "")
    assert out == f"benchmarks/results/{path.stem}/results.csv", \
        "a study writes where the docs read it: benchmarks/results/<study>/results.csv"
    assert spec["options"].get("plot", f"benchmarks/results/{path.stem}/figures") == \
        f"benchmarks/results/{path.stem}/figures"
    if "needs" in spec:  # a set that does not ship: QSUDOKU_DATA names it
        assert "QSUDOKU_DATA" in spec["needs"]
        return
    monkeypatch.delenv("QSUDOKU_DATA", raising=False)
    for name in spec.get("puzzles", []):
        assert REPO_DATA in dataset_path(name).parents
    parser = build_parser(spec["command"])
    args = parser.parse_args([spec["command"], "--spec", str(path)])
    apply_spec(args)  # every option is one its command takes, its values accepted
    assert args.puzzles == [str(dataset_path(n)) for n in spec.get("puzzles", [])]
    words = spec_argv(spec)
    assert args.out == out and "--spec" not in words


def test_command_line_flags_win_over_the_spec(tmp_path):
    path = REPO / "benchmarks" / "studies" / "hard9.toml"
    args = build_parser("bench").parse_args(
        ["bench", "--spec", str(path), "--first", "2", "-o", str(tmp_path / "x.csv"),
         "--param", "num_sweeps=5", str(dataset_path("sudoku9/gecode.txt"))])
    apply_spec(args)
    assert args.limit == 2 and args.out == str(tmp_path / "x.csv")
    assert args.no_fallback and args.time_budget == [2.0]
    assert args.puzzles == [str(dataset_path("sudoku9/gecode.txt"))]
    assert args.param == ["num_sweeps=5"]


def test_puzzle_arguments_of_a_spec_run_may_name_sets_of_qsudoku_data(tmp_path, monkeypatch):
    extra = tmp_path / "lewis" / "sudoku4"
    extra.mkdir(parents=True)
    (extra / "lewis_p50.txt").write_text("1..." "..2." ".3.." "...4\n")
    monkeypatch.setenv("QSUDOKU_DATA", str(tmp_path))
    path = REPO / "benchmarks" / "studies" / "phase_transition_16.toml"
    args = build_parser("bench").parse_args(["bench", "--spec", str(path), "lewis/sudoku4"])
    apply_spec(args)
    assert args.puzzles == [str(extra)]
    assert args.time_budget == [1.0] and args.no_fallback


def test_a_spec_for_the_other_command_is_refused_in_one_line(capsys):
    path = REPO / "benchmarks" / "studies" / "encodings.toml"
    code, _, err = run(capsys, "bench", "--spec", path, "--first", "1")
    assert code == 2
    assert "qsudoku sweep --spec" in one_error(err)


def test_a_bad_spec_is_refused_naming_it(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('command = "bench"\npuzzles = ["sudoku9/gecode.txt"]\n'
                   '[options]\nno-such-flag = 1\n')
    args = build_parser("bench").parse_args(["bench", "--spec", str(bad)])
    with pytest.raises(ConfigError, match="bad.toml"):
        apply_spec(args)
    bad.write_text('command = "bench"\nfigures = "x"\n')
    with pytest.raises(ConfigError, match="unknown key 'figures'"):
        read_spec(str(bad))


def test_a_spec_that_is_no_regular_file_is_one_error_line(tmp_path, capsys):
    import os

    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    for path, said in [(fifo, "a FIFO, not a regular file"), (tmp_path / "no.toml", "no such file"),
                       (tmp_path, "not a regular file")]:
        code, _, err = run(capsys, "bench", "--spec", path)
        assert code == 2
        assert said in one_error(err) and str(path) in err


def _spec_run(tmp_path, capsys, monkeypatch, options: str, *argv, command="bench"):
    """``qsudoku COMMAND p.txt --spec s.toml ARGV`` in ``tmp_path``, the spec's
    ``[options]`` being ``options``; returns (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.txt").write_text("1......2........\n")
    (tmp_path / "s.toml").write_text(f'command = "{command}"\n[options]\n{options}\n')
    return run(capsys, command, "p.txt", "--spec", "s.toml", "--sampler", "random",
               "--reads", "1", *argv)


@pytest.mark.parametrize("options,said", [
    # help printed bench's usage and exited 0 without running
    ("help = true", "[options] help is not a study option"),
    ("version = true", "[options] version is not a flag of qsudoku bench"),
    ("h = true", "[options] h is not a flag of qsudoku bench"),  # argparse took it for --help
    ("rep = 2", "[options] rep is not a flag of qsudoku bench (did you mean repeat?)"),
])
def test_a_spec_takes_study_options_only_by_their_full_names(tmp_path, capsys, monkeypatch,
                                                             options, said):
    code, out, err = _spec_run(tmp_path, capsys, monkeypatch, options)
    assert code == 2 and out == ""
    assert one_error(err).startswith(f"qsudoku: error: --spec s.toml: {said}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.txt", "s.toml"]


@pytest.mark.parametrize("options,said", [
    # was: --repeat 100000000 is too many, a flag the user never typed
    ("repeat = 100000000", "[options] repeat = 100000000 is too many; at most 1000"),
    ("first = 0", "[options] first = 0 must be >= 1"),
    ("jobs = 100000", "[options] jobs = 100000 is too many; at most"),
    ('worker-memory = "1MiB"', "[options] worker-memory = '1MiB' is below the 256 MiB"),
    ("resume = true", "[options] resume needs -o FILE"),
    ('repeat = "x"', "[options] repeat = \"x\": invalid int value: 'x'"),
    ("time-budget = [1, 0]", "[options] time-budget = [1, 0]: 0 must be a finite number"),
])
def test_an_option_error_from_a_spec_names_the_spec_and_its_key(tmp_path, capsys, monkeypatch,
                                                                options, said):
    code, out, err = _spec_run(tmp_path, capsys, monkeypatch, options)
    assert code == 2
    assert one_error(err).startswith(f"qsudoku: error: --spec s.toml: {said}")


def test_an_option_error_of_the_command_line_still_names_the_flag(tmp_path, capsys,
                                                                   monkeypatch):
    code, out, err = _spec_run(tmp_path, capsys, monkeypatch, "first = 1",
                               "--repeat", "100000000")
    assert code == 2
    assert one_error(err) == "qsudoku: error: --repeat 100000000 is too many; at most 1000"


@pytest.mark.parametrize("output,said", [
    ("p.txt/r.csv", "cannot write into {tmp}/p.txt: it exists and is not a directory"),
    ("p.txt/sub/r.csv", "cannot create the directory {tmp}/p.txt/sub: Not a directory"),
])
def test_a_spec_output_under_a_regular_file_is_one_line(tmp_path, capsys, monkeypatch,
                                                        output, said):
    """The directory was made before any check: ``internal error: FileExistsError``."""
    code, out, err = _spec_run(tmp_path, capsys, monkeypatch, f'output = "{output}"')
    assert code == 2
    assert one_error(err) == (f'qsudoku: error: --spec s.toml: [options] output = "{output}": '
                              + said.format(tmp=tmp_path))
    assert (tmp_path / "p.txt").read_text() == "1......2........\n"


def test_a_spec_output_directory_is_made_once_checked(tmp_path, capsys, monkeypatch):
    code, out, err = _spec_run(tmp_path, capsys, monkeypatch, 'output = "new/r.csv"',
                               "--quiet")
    assert code == 0, err
    assert (tmp_path / "new" / "r.csv").read_text().startswith("key,")


@needs_data
@pytest.mark.slow
def test_a_study_runs_end_to_end_at_a_tiny_size(tmp_path, capsys, monkeypatch):
    from qsudoku.experiments.results import iter_rows

    out = tmp_path / "hard9.csv"
    code, _, err = run(capsys, "bench", "--spec", REPO / "benchmarks/studies/hard9.toml",
                       "--first", "1", "--jobs", "1", "--time-budget", "5", "-o", out,
                       "--quiet")
    assert code == 0, err
    rows = list(iter_rows(str(out)))
    assert sorted(r["set"] for r in rows) == ["sudoku9/forum_hardest_1106",
                                             "sudoku9/magictour_top1465",
                                             "sudoku9/royle_17clue"]
    assert all(r["valid"] in (True, "True") for r in rows)
    assert (tmp_path / "hard9.csv.machine.json").is_file()
    assert (tmp_path / "hard9.provenance.json").is_file()


def test_benchmarks_name_no_path_outside_the_repository():
    bad = []
    for f in (REPO / "benchmarks").rglob("*"):
        if f.is_file() and f.suffix in (".py", ".toml", ".json", ".md", ".txt", ".csv"):
            text = f.read_text(encoding="utf-8", errors="replace")
            if "../shared" in text or re.search(r"(?<![\w.])/(work|home|tmp|Users)/", text):
                bad.append(str(f.relative_to(REPO)))
    assert bad == []


def test_every_kept_result_is_a_studys_output_and_small():
    """``benchmarks/results/`` holds only what the studies write, one folder per spec, and
    stays small: 3 MB (the hard-9x9 study's rows, one per puzzle and sampler, are 0.8 MB;
    the curves' rows, 4.4 MB, are not kept: their specs remake them)."""
    results = REPO / "benchmarks" / "results"
    files = [f for f in results.rglob("*") if f.is_file()]
    assert sum(f.stat().st_size for f in files) <= 3 * 1024 * 1024
    stems = {p.stem for p in STUDIES}
    strays = [str(f.relative_to(REPO)) for f in files
              if f.relative_to(results).parts[0] not in stems]
    assert strays == []


def test_every_study_is_listed_in_docs_benchmarks_with_its_command():
    page = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    missing = [p.name for p in STUDIES
               if f"qsudoku {read_spec(str(p))['command']} --spec benchmarks/studies/{p.name}"
               not in page]
    assert missing == []


def test_every_asv_benchmark_module_is_in_asv_conf_benchmark_dir():
    import json
    import re as _re

    text = (REPO / "asv.conf.json").read_text(encoding="utf-8")
    conf = json.loads(_re.sub(r"(?m)^\s*//.*$", "", text))
    assert conf["benchmark_dir"] == "benchmarks"
    # asv's: the modules that define benchmarks (the lab's peer samplers define none)
    asv = _re.compile(r"^\s*def (time|timeraw|peakmem|mem|track)_", _re.M)
    modules = {p.stem for p in (REPO / "benchmarks").glob("*.py")
               if asv.search(p.read_text(encoding="utf-8"))}
    assert modules == {"model", "kernels", "startup"}


def test_asv_comes_with_the_extra_the_benchmarks_page_names():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    page = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    # the clone's install line, pip install -e ".[bench]" (qsudoku is on no package index)
    named = [e for group in re.findall(r'\.\[([\w,-]+)\]"', page) for e in group.split(",")
             if e in extras]
    assert named and any(any(re.match(r"asv\b", d) for d in extras[e]) for e in named), named


def test_a_flag_given_at_its_default_value_still_wins_over_the_spec(tmp_path, capsys):
    from qsudoku.experiments.table import read_rows

    from _puzzles import BOX_GIVEN4

    path = REPO / "benchmarks" / "studies" / "annealers.toml"  # repeat = 10, five samplers
    out = tmp_path / "r.csv"
    code, _, err = run(capsys, "bench", "--spec", path, BOX_GIVEN4, "--sampler", "sa",
                       "--repeat", "1", "--reads", "2", "--param", "num_sweeps=10",
                       "--quiet", "-o", out)
    assert code == 0, err
    assert [r["repeat"] for r in read_rows(str(out))] == ["0"]
