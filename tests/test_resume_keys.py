"""bench and sweep: a row's key holds every setting, a resume with other settings computes
new rows, a damaged resume file is one error naming its line, and one output has one
writer under every name it can be reached by."""

from __future__ import annotations

import json
import os

import pytest

from qsudoku.errors import ConfigError
from qsudoku.experiments.table import RowWriter, read_rows

from _cli import one_error, run
from _puzzles import BOX_GIVEN4, THREE_GIVENS4

BENCH = ("--sampler", "sa", "--reads", "2", "--param", "num_sweeps=10", "--rules", "none",
         "--quiet")


def _bench(capsys, *argv):
    return run(capsys, "bench", *BENCH, *argv)  # later flags win


@pytest.mark.slow
@pytest.mark.parametrize("change", [
    ("--param", "num_sweeps=11"), ("--weight", "cell=2"), ("--rules", "naked_single"),
    ("--seed", "7"), ("--option", "x=1"), ("--time-budget", "5")])
def test_bench_resume_with_other_settings_computes_new_rows(tmp_path, capsys, change):
    out = str(tmp_path / "r.csv")
    assert _bench(capsys, BOX_GIVEN4, "-o", out)[0] == 0
    old = read_rows(out)
    code, _, err = _bench(capsys, BOX_GIVEN4, "-o", out, "--resume", *change)
    if change[0] == "--option":  # sa takes no constructor option x: refused, file untouched
        assert code == 2 and read_rows(out) == old
        return
    if change[0] == "--time-budget":  # a sampler's row is a fixed sample: no budget, same row
        assert code == 0 and read_rows(out) == old
        return
    rows = read_rows(out)
    assert code == 0, err
    assert len(rows) == 2 and rows[0] == old[0] and rows[0]["key"] != rows[1]["key"]
    # the same settings again: nothing new
    assert _bench(capsys, BOX_GIVEN4, "-o", out, "--resume", *change)[0] == 0
    assert len(read_rows(out)) == 2


@pytest.mark.slow
def test_bench_resume_after_the_files_puzzles_changed(tmp_path, capsys):
    src, out = tmp_path / "p.txt", str(tmp_path / "r.csv")
    src.write_text(BOX_GIVEN4 + "\n")
    assert _bench(capsys, src, "-o", out)[0] == 0
    assert _bench(capsys, src, "-o", out, "--resume")[0] == 0
    assert len(read_rows(out)) == 1  # unchanged file: nothing new
    src.write_text(THREE_GIVENS4 + "\n")  # same path, same line, another puzzle
    assert _bench(capsys, src, "-o", out, "--resume")[0] == 0
    rows = read_rows(out)
    assert len(rows) == 2 and rows[0]["index"] == rows[1]["index"] == "0"


def test_sweep_resume_with_other_reads_and_exact_float_settings(tmp_path, capsys):
    out = str(tmp_path / "s.csv")
    base = ("sweep", BOX_GIVEN4, "--rules", "none", "--param", "num_sweeps=10", "--quiet",
            "-o", out)
    assert run(capsys, *base, "--reads", "2", "--grid", "cell=1.0000001,1.0000002")[0] == 0
    rows = read_rows(out)
    assert len(rows) == 2 and rows[0]["key"] != rows[1]["key"]
    assert [r["setting"] for r in rows] == ["cell=1 num_sweeps=10"] * 2  # readable column as before
    assert run(capsys, *base, "--resume", "--reads", "3",
               "--grid", "cell=1.0000001,1.0000002")[0] == 0
    rows = read_rows(out)
    assert [r["num_reads"] for r in rows] == ["2", "2", "3", "3"]


def test_a_resume_file_that_repeats_a_key_is_one_error_naming_the_line(tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert _bench(capsys, BOX_GIVEN4, THREE_GIVENS4, "-o", out)[0] == 0
    lines = out.read_text().splitlines(keepends=True)
    first_key = lines[1].split(",")[0]
    lines[2] = first_key + lines[2][lines[2].index(","):]  # row 2 carries row 1's key
    out.write_text("".join(lines))
    before = out.read_bytes()
    code, _, err = _bench(capsys, BOX_GIVEN4, THREE_GIVENS4, "-o", out, "--resume")
    assert code == 2
    assert one_error(err) == (f"qsudoku: error: cannot resume {out}, line 3: it repeats the "
                              "key of line 2 (was the file edited?)")
    assert out.read_bytes() == before and not os.path.exists(f"{out}.lock")


def test_a_resume_file_whose_row_does_not_parse_is_one_error_naming_the_line(tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert _bench(capsys, BOX_GIVEN4, THREE_GIVENS4, "-o", out)[0] == 0
    lines = out.read_text().splitlines(keepends=True)
    lines[2] = "just,three,fields\n"
    out.write_text("".join(lines))
    code, _, err = _bench(capsys, BOX_GIVEN4, "-o", out, "--resume")
    assert code == 2
    assert one_error(err).startswith(f"qsudoku: error: {out}, line 3: 3 fields where the header")
    (tmp_path / "bin.csv").write_bytes(b"key,a\n\xff\xfe,1\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        RowWriter(tmp_path / "bin.csv", ("key",), resume=True)


@pytest.mark.slow
def test_the_journal_of_a_running_parquet_output_is_the_same_file(tmp_path, capsys):
    out = str(tmp_path / "c.parquet")
    assert _bench(capsys, BOX_GIVEN4, "-o", out)[0] == 0
    with RowWriter(out, ("key",), resume=True):  # a run writing c.parquet
        code, _, err = _bench(capsys, BOX_GIVEN4, THREE_GIVENS4, "-o", out + ".partial.csv", "--resume")
        assert code == 2 and "being written by another qsudoku run" in one_error(err)
    assert len(read_rows(out)) == 1  # nothing lost, nothing added


def test_hard_links_and_linked_directories_reach_the_same_writer(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    out = real / "c.csv"
    with RowWriter(out, ("key",)) as w:
        w.write({"key": "a", "v": 1})
        os.link(out, tmp_path / "hard.csv")
        os.symlink(real, tmp_path / "alias")
        for other in (tmp_path / "hard.csv", tmp_path / "alias" / "c.csv",
                      tmp_path / "real" / ".." / "real" / "c.csv"):
            with pytest.raises(ConfigError, match="being written by another qsudoku run"):
                RowWriter(other, ("key",), resume=True)
        w.write({"key": "b", "v": 2})
    assert [r["key"] for r in read_rows(out)] == ["a", "b"]


def test_a_refused_run_does_not_touch_the_first_runs_files(tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert _bench(capsys, BOX_GIVEN4, "-o", out)[0] == 0
    machine = tmp_path / "r.csv.machine.json"
    assert json.loads(machine.read_text())["cores"] >= 1
    machine.write_text("first run\n")
    before = out.read_bytes()
    code, _, err = _bench(capsys, THREE_GIVENS4, "-o", out)  # exists, no --resume
    assert code == 2 and "exists" in one_error(err)
    with RowWriter(out, ("key",), resume=True):  # another run holds it
        code, _, err = _bench(capsys, THREE_GIVENS4, "-o", out, "--resume")
        assert code == 2 and "another qsudoku run" in one_error(err)
    code, _, err = run(capsys, "sweep", THREE_GIVENS4, "--grid", "cell=1,2", "-o", out, "--resume",
                       "--quiet")  # other columns than the bench rows
    assert code == 2 and "other columns" in one_error(err)
    assert machine.read_text() == "first run\n" and out.read_bytes() == before


@pytest.mark.slow
def test_parquet_output_prints_the_same_summary_as_csv(tmp_path, capsys):
    summaries = []
    for name in ("b.csv", "b.parquet"):
        code, out, err = run(capsys, "bench", BOX_GIVEN4, THREE_GIVENS4, "--sampler", "solve,sa",
                             "--reads", "2", "--rules", "none", "--no-progress", "-o", tmp_path / name)
        assert code == 0, err
        lines = out.strip().splitlines()[2:]
        summaries.append([line.split()[:5] for line in lines])  # set .. solved (not times)
    assert summaries[0] == summaries[1] and len(summaries[0]) == 2
    assert "nan" not in out


@pytest.mark.parametrize("resume", [(), ("--resume",)])
def test_an_output_that_is_a_fifo_is_refused_and_stays_a_fifo(tmp_path, capsys, resume):
    import stat

    fifo = tmp_path / "r.csv"
    os.mkfifo(fifo)
    code, _, err = _bench(capsys, BOX_GIVEN4, "-o", fifo, *resume)
    assert code == 2
    assert one_error(err) == (f"qsudoku: error: cannot write {fifo}: it is not a regular file "
                              "(a results file must be one)")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and sorted(os.listdir(tmp_path)) == ["r.csv"]


def _rewritten_whole(source: str) -> bytes:
    """The journal a resume wrote before it streamed: every row read, then written at once."""
    import csv
    import io

    from qsudoku.experiments.results import records

    parsed = list(records(source, strict=True))
    header, rows = parsed[0][0], [row for _, row, _ in parsed if row is not None]
    buf = io.StringIO()
    w = csv.DictWriter(buf, header)
    w.writeheader()
    w.writerows({k: "" if v == "" else ("inf" if v == float("inf") else
                                        "-inf" if v == float("-inf") else v)
                 for k, v in r.items()} for r in rows)
    return buf.getvalue().encode("utf-8")


def test_resume_streams_the_old_rows_into_the_same_journal(tmp_path):
    import pandas as pd

    out = tmp_path / "r.csv"
    out.write_bytes(b'key,note,x\r\na,"two\r\nlines",1.5\r\nb,"q""uote",\r\nc,x,inf\r\nd,torn')
    expected = _rewritten_whole(str(out))
    with RowWriter(out, ("key",), resume=True) as w:
        assert w.done == {("a",), ("b",), ("c",)}
        assert out.read_bytes() == expected  # the torn last line dropped, the rest as it was
        assert w.write({"key": "e", "note": "n", "x": 2}) is True
    assert [r["key"] for r in read_rows(out)] == ["a", "b", "c", "e"]
    pq = tmp_path / "r.parquet"  # a Parquet output resumed from its file (no journal)
    pd.DataFrame({"key": ["a", "b"], "x": [1.5, float("nan")], "y": [float("-inf"), 2.0],
                  "s": ["t", None]}).to_parquet(pq, index=False)
    expected = _rewritten_whole(str(pq))
    with RowWriter(pq, ("key",), resume=True) as w:
        assert (tmp_path / "r.parquet.partial.csv").read_bytes() == expected
        assert expected.splitlines()[1:] == [b"a,1.5,-inf,t", b"b,,2.0,"]


@pytest.mark.slow
@pytest.mark.parametrize("value", ["inf", "nan", "1e999", "text"])
def test_a_tampered_integer_column_is_read_as_missing(capsys, tmp_path, value):
    import csv

    from qsudoku.cli import main

    (tmp_path / "e.txt").write_text("12.434.2.1.3..21\n1.3..41.21.3.3.1\n")
    argv = ["bench", str(tmp_path / "e.txt"), "-o", str(tmp_path / "r.csv"), "--sampler",
            "sa", "--reads", "2", "--no-progress"]
    assert main(argv) == 0
    with open(tmp_path / "r.csv", newline="") as f:
        rows = list(csv.reader(f))
    for col in ("num_reads", "size", "rounds"):
        rows[1][rows[0].index(col)] = value
    with open(tmp_path / "r.csv", "w", newline="") as f:
        csv.writer(f).writerows(rows)
    capsys.readouterr()
    for _ in range(2):  # the summary, and every later resume, read the row
        assert main([*argv, "--resume"]) == 0
        err = capsys.readouterr().err
        assert "internal error" not in err and "0 new rows, 2 in" in err
