"""Every study of ``benchmarks/studies/`` runs at a reduced size, and what it writes has the
columns of its committed results (``benchmarks/results/<study>/``): a study whose code
changed its output cannot leave the docs reading another schema.

The reduced run is the spec itself with its sizes overridden (one puzzle of each set, the
set of a folder cut to one of its files, two reads, one repeat, half a second of budget,
a few calls of the QPU-path samplers), written into a temporary folder.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from qsudoku.commands.spec import read_spec
from qsudoku.io import dataset_path

from _cli import run
from _shared import REPO, needs_data

STUDIES = sorted((REPO / "benchmarks" / "studies").glob("*.toml"))
RESULTS = REPO / "benchmarks" / "results"

#: Per-sampler parameters that bound a reduced run (``--param NAME.KEY=VALUE``).
SMALL_PARAMS = ("sa.num_sweeps=100", "decompose.max_calls=2", "kerberos.max_iter=1",
                "pt.num_sweeps=20", "pa.num_sweeps=20", "sqa.num_sweeps=50")


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value)


def _one_file(name: str) -> str:
    """A set name, or for a folder of sets its last file (the most givens: the quickest)."""
    path = dataset_path(name)
    if not path.is_dir():
        return name
    files = sorted(p for p in path.glob("*.txt")
                   if not p.name.endswith((".solutions.txt", ".ids.txt")))
    return f"{name}/{files[-1].name}"


def reduced_spec(path: Path, out: Path, tmp: Path) -> Path:
    """A copy of the study at ``path`` with its sizes overridden, writing to ``out``."""
    spec = read_spec(str(path))
    options = dict(spec.get("options", {}))
    options.update(first=1, output=str(out), seed=0)
    options.pop("jobs", None)
    options.pop("plot", None)
    if "repeat" in options:
        options["repeat"] = 1
    options["reads"] = min(int(options.get("reads", 2)), 2)
    if spec["command"] == "bench":
        options["time-budget"] = [0.5]
        options["param"] = [p for p in options.get("param", [])
                            if p.partition("=")[0] not in {s.partition("=")[0]
                                                           for s in SMALL_PARAMS}]
        options["param"] += list(SMALL_PARAMS)
    lines = [f"title = {_toml_value(spec['title'])}", f"command = {_toml_value(spec['command'])}",
             f"puzzles = {_toml_value([_one_file(n) for n in spec.get('puzzles', [])])}"]
    if "generate" in spec:  # instances the spec makes: two quick fractions, one of each
        generate = dict(spec["generate"], fractions=[0.5, 1.0], count=1)
        lines += ["[generate]", *(f"{key} = {_toml_value(value)}"
                                  for key, value in generate.items())]
    lines += ["[options]", *(f"{key} = {_toml_value(value)}" for key, value in options.items())]
    small = tmp / path.name
    small.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return small


def _header(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as f:
        return next(csv.reader(f))


@needs_data
@pytest.mark.slow
@pytest.mark.parametrize("path", STUDIES, ids=lambda p: p.stem)
def test_a_study_at_a_reduced_size_writes_its_committed_schema(path, tmp_path, capsys,
                                                                monkeypatch):
    committed = RESULTS / path.stem / "results.csv"
    monkeypatch.setenv("QSUDOKU_NO_SHARED", "1")
    monkeypatch.delenv("QSUDOKU_DATA", raising=False)
    out = tmp_path / "results.csv"
    spec = reduced_spec(path, out, tmp_path)
    command = read_spec(str(path))["command"]
    code, _, err = run(capsys, command, "--spec", spec, "--quiet")
    assert code == 0, err
    assert (tmp_path / "results.provenance.json").is_file()
    if not committed.is_file():  # it ran; there is no schema to hold it to yet
        pytest.skip(f"benchmarks/results/{path.stem}/results.csv is not committed yet "
                    f"(the study has not been run for the docs): its columns are not compared")
    assert _header(out) == _header(committed)
    summary = RESULTS / path.stem / "results.summary.csv"
    assert set(_header(tmp_path / "results.summary.csv")) == set(_header(summary))


def test_the_reduced_spec_of_a_generated_study_makes_fewer_instances(tmp_path):
    path = REPO / "benchmarks" / "studies" / "phase_curve_9.toml"
    small = read_spec(str(reduced_spec(path, tmp_path / "r.csv", tmp_path)))
    assert small["generate"] == dict(read_spec(str(path))["generate"], fractions=[0.5, 1.0],
                                     count=1)
    assert small["puzzles"] == []


def test_the_reduced_spec_keeps_the_study_and_cuts_its_sizes(tmp_path):
    path = REPO / "benchmarks" / "studies" / "hard9_per_read.toml"
    small = read_spec(str(reduced_spec(path, tmp_path / "r.csv", tmp_path)))
    full = read_spec(str(path))
    assert small["puzzles"] == full["puzzles"]
    assert small["options"]["sampler"] == full["options"]["sampler"]
    assert small["options"]["first"] == 1 and small["options"]["reads"] == 2
    assert "sa.num_sweeps=100" in small["options"]["param"]
    assert "sa.num_sweeps=10000" not in small["options"]["param"]
