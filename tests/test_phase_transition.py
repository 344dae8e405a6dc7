"""``benchmarks/phase_transition.py``: the route alone per size and fraction through
``qsudoku bench``, summarised per fraction by :func:`phase_table`."""

from __future__ import annotations

import importlib.util
import math

import pytest

from qsudoku.experiments.results import iter_rows

from _shared import REPO, needs_data


def load_benchmark():
    spec = importlib.util.spec_from_file_location(
        "phase_transition", REPO / "benchmarks" / "phase_transition.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


COLUMNS = {"size", "percent", "n", "propagation", "solved", "solved_pct", "median", "p95",
           "max", "variables", "peak_mb"}


def row(set_, index, valid=True, budget="1.0", sampler="solve", wall=0.5, peak="200.0"):
    return {"set": set_, "sampler": sampler, "budget": budget, "index": str(index),
            "valid": str(valid), "solved_by": "aco (1 round)" if valid else "none",
            "wall": str(wall), "num_variables": "100", "peak_rss_mb": peak}


def test_the_table_keeps_the_rows_of_its_sets_budgets_and_limit():
    bench = load_benchmark()
    rows = [row("a/p30", 0), row("a/p30", 1, valid=False, wall=1.0), row("a/p30", 2),
            row("a/p30", 0, budget="2.0"), row("a/p30", 0, sampler="sa"), row("b/p60", 0),
            row("a/p60", 0, peak="")]
    table = bench.phase_table(rows, {"a/p30": (9, 30), "a/p60": (9, 60)}, {9: 1.0}, limit=2)
    assert [(t["size"], t["percent"], t["n"], t["solved"]) for t in table] == \
        [(9, 30, 2, 1), (9, 60, 1, 1)]
    assert table[0]["median"] == math.inf and table[0]["max"] == 1.0
    assert table[0]["peak_mb"] == 200.0 and math.isnan(table[1]["peak_mb"])


@needs_data
@pytest.mark.slow
def test_the_benchmark_runs_two_fractions_of_the_shipped_sets(tmp_path):
    bench = load_benchmark()
    out = tmp_path / "pt.txt"
    bench.main(["--parts", "lewis", "--source", "data", "--sizes", "9,16",
                "--fractions", "0.3,0.6", "--limit", "2", "--budget9", "2", "--budget16", "2",
                "--jobs", "1", "--no-sa", "--out", str(out),
                "--figure", str(tmp_path / "pt.png")])
    files = {bench.set_name(f): (size, pct) for size in (9, 16)
             for pct, f in bench.fraction_files(size, "data") if pct in (30, 60)}
    assert sorted(files.values()) == [(9, 30), (9, 60), (16, 30), (16, 60)]
    rows = [r for size in (9, 16) for r in iter_rows(str(tmp_path / f"pt_{size}.csv"))]
    assert len(rows) == 8
    table = bench.phase_table(rows, files, {9: 2.0, 16: 2.0}, limit=2)
    assert [(t["size"], t["percent"], t["n"]) for t in table] == \
        [(9, 30, 2), (9, 60, 2), (16, 30, 2), (16, 60, 2)]
    for t in table:
        assert set(t) == COLUMNS
        assert 0 <= t["propagation"] <= t["solved"] <= t["n"]
        assert t["solved_pct"] == 100.0 * t["solved"] / t["n"]
        assert t["peak_mb"] > 0 and t["max"] > 0
    assert table[0]["variables"] > table[1]["variables"]  # 30% given leaves more than 60%
    text = out.read_text().splitlines()
    assert sum(line.split()[:2] in (["9", "30%"], ["9", "60%"], ["16", "30%"], ["16", "60%"])
               for line in text) == 4
    assert (tmp_path / "pt.png").stat().st_size > 0
