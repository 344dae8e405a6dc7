"""qsudoku.experiments.table: one locked writer per output, rows exactly once, no writes through
links, clear errors, Parquet journaling and typed frames."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import pandas as pd
import pytest

from qsudoku.errors import ConfigError
from qsudoku.experiments.table import RowWriter, load_frame, read_rows, write_text

ROWS = [{"key": "a", "p": 0.5, "tts99": math.inf, "valid": True, "n": 3, "note": ""},
        {"key": "b", "p": 1.0, "tts99": 2.0, "valid": False, "n": 4, "note": "x"}]


def _one_line(e: pytest.ExceptionInfo) -> str:
    text = str(e.value)
    assert "\n" not in text and "Traceback" not in text
    return text


def test_a_second_writer_in_this_process_is_refused_until_the_first_closes(tmp_path):
    out = str(tmp_path / "r.csv")
    with RowWriter(out, ("key",)) as w:
        w.write(ROWS[0])
        for kwargs in ({"resume": True}, {"overwrite": True}):
            with pytest.raises(ConfigError) as e:
                RowWriter(out, ("key",), **kwargs)
            assert f"{out} is being written by another qsudoku run (pid {os.getpid()})" in \
                _one_line(e)
    assert not os.path.exists(out + ".lock")  # removed on close
    with RowWriter(out, ("key",), resume=True) as w:  # free again
        assert w.done == {("a",)}
        w.write(ROWS[1])
    assert [r["key"] for r in read_rows(out)] == ["a", "b"]


@pytest.mark.slow
def test_a_writer_in_another_process_holds_the_file(tmp_path):
    out = str(tmp_path / "r.csv")
    code = ("import sys; from qsudoku.experiments.table import RowWriter\n"
            "w = RowWriter(sys.argv[1], ('key',)); w.write({'key': 'x'})\n"
            "print('locked', flush=True); sys.stdin.readline(); w.close()\n")
    holder = subprocess.Popen([sys.executable, "-c", code, out], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ConfigError) as e:
            RowWriter(out, ("key",), resume=True)  # two --resume runs must not both write
        assert f"(pid {holder.pid})" in _one_line(e)
        assert [r["key"] for r in read_rows(out)] == ["x"]  # untouched
    finally:
        holder.communicate("\n", timeout=30)
    assert holder.returncode == 0
    with RowWriter(out, ("key",), resume=True) as w:
        assert w.done == {("x",)}


def test_a_key_already_written_is_never_written_again(tmp_path):
    out = str(tmp_path / "r.csv")
    with RowWriter(out, ("key",)) as w:
        assert w.write(ROWS[0]) is True
        assert w.write({**ROWS[0], "p": 0.25}) is False  # e.g. a batch Dask re-ran
    before = open(out, "rb").read()
    with RowWriter(out, ("key",), resume=True) as w:
        assert w.write(ROWS[0]) is False and w.write_many(ROWS) == 1
        assert w.rows_written == 1 and w.rows_skipped == 2
    rows = read_rows(out)
    assert [r["key"] for r in rows] == ["a", "b"] and rows[0]["p"] == "0.5"
    assert open(out, "rb").read().startswith(before)


def test_resume_drops_a_torn_last_line(tmp_path):
    out = tmp_path / "r.csv"
    with RowWriter(str(out), ("key",)) as w:
        w.write_many(ROWS)
    text = out.read_text()
    out.write_text(text[: len(text) - 5])  # killed in the middle of the second line
    with RowWriter(str(out), ("key",), resume=True) as w:
        assert w.done == {("a",)}
        w.write(ROWS[1])
    assert [r["key"] for r in read_rows(str(out))] == ["a", "b"]
    assert out.read_text() == text


@pytest.mark.parametrize("name", ["r.csv", "r.parquet"])
@pytest.mark.parametrize("mode", [{"resume": True}, {"overwrite": True}])
def test_no_output_is_written_through_a_symbolic_link(tmp_path, name, mode):
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    out = tmp_path / name
    journal = tmp_path / (name + ".partial.csv" if name.endswith(".parquet") else name)
    for link in {out, journal}:
        link.symlink_to(target)
        with pytest.raises(ConfigError) as e:
            RowWriter(str(out), ("key",), **mode)
        assert "symbolic link" in _one_line(e)
        link.unlink()
    assert target.read_text() == "keep me\n"
    # a link planted at the lock file is not followed either
    (tmp_path / (name + ".lock")).symlink_to(target)
    with pytest.raises(ConfigError) as e:
        RowWriter(str(out), ("key",), **mode)
    assert "symbolic link" in _one_line(e) and target.read_text() == "keep me\n"


def test_write_text_replaces_a_link_instead_of_following_it(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    link = tmp_path / "r.csv.machine.json"
    link.symlink_to(target)
    write_text(str(link), "{}\n")
    assert not link.is_symlink() and link.read_text() == "{}\n"
    assert target.read_text() == "keep me\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_missing_directory_or_a_directory_is_a_one_line_config_error(tmp_path):
    with pytest.raises(ConfigError) as e:
        RowWriter(str(tmp_path / "nope" / "r.csv"))
    assert "does not exist" in _one_line(e)
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(ConfigError) as e:
        RowWriter(str(tmp_path / "d.csv"))
    assert "is a directory" in _one_line(e)
    with pytest.raises(ConfigError) as e:
        write_text(str(tmp_path / "nope" / "m.json"), "{}")
    _one_line(e)
    with pytest.raises(ConfigError, match="must end in"):
        RowWriter(str(tmp_path / "r.txt"))


def test_resume_of_a_file_without_the_key_columns_names_them(tmp_path):
    out = tmp_path / "r.csv"
    out.write_text("puzzle,valid\nx,True\n")
    with pytest.raises(ConfigError) as e:
        RowWriter(str(out), ("key", "repeat"), resume=True)
    assert "key, repeat" in _one_line(e)
    assert out.read_text() == "puzzle,valid\nx,True\n" and not os.path.exists(str(out) + ".lock")
    with pytest.raises(ConfigError, match="exists"):
        RowWriter(str(out), ("puzzle",))


def test_parquet_is_journaled_and_converted_on_close_then_resumed(tmp_path):
    out = str(tmp_path / "r.parquet")
    with RowWriter(out, ("key",)) as w:
        w.write(ROWS[0])
        assert os.path.exists(out + ".partial.csv") and not os.path.exists(out)
    assert os.path.exists(out) and not os.path.exists(out + ".partial.csv")
    with RowWriter(out, ("key",), resume=True) as w:
        assert w.done == {("a",)} and w.write(ROWS[0]) is False
        w.write(ROWS[1])
    df = load_frame(out)
    assert df["key"].tolist() == ["a", "b"] and df["tts99"].tolist() == [math.inf, 2.0]
    assert df["n"].tolist() == [3, 4] and df["valid"].tolist() == [True, False]
    assert pd.read_parquet(out)["p"].dtype.kind == "f"
    assert [p.name for p in tmp_path.iterdir()] == ["r.parquet"]  # no lock, journal, temp


def test_load_frame_restores_types_from_files_and_rows(tmp_path):
    out = str(tmp_path / "r.csv")
    with RowWriter(out, ("key",)) as w:
        w.write_many(ROWS)
        w.write({"key": "c", "p": "", "tts99": "", "valid": "", "n": "", "note": ""})
    df = load_frame(out)
    assert df["p"].dtype.kind == "f" and math.isnan(df["p"][2])
    assert df["tts99"].tolist()[:2] == [math.inf, 2.0]
    assert df["valid"].tolist()[:2] == [True, False] and pd.isna(df["valid"][2])
    assert df["n"].tolist()[:2] == [3.0, 4.0]
    assert df["key"].tolist() == ["a", "b", "c"]
    assert pd.isna(df["note"][0]) and df["note"][1] == "x"
    typed = load_frame(ROWS)  # rows already typed pass through
    assert typed["valid"].dtype == bool and typed["tts99"].tolist() == [math.inf, 2.0]
    assert load_frame(typed) is not typed and load_frame([]).empty
    assert load_frame([{"flag": "True"}, {"flag": "False"}])["flag"].dtype == bool


def test_rows_stream_from_csv_and_parquet_alike(tmp_path):
    from qsudoku.experiments.results import count_rows, iter_rows

    header_only = tmp_path / "h.csv"
    header_only.write_text("key,v\r\n")
    assert list(iter_rows(str(header_only))) == [] and count_rows(str(header_only)) == 0
    torn = tmp_path / "t.csv"
    torn.write_bytes(b'key,v\r\na,"x\r\ny"\r\nb,2\r\nc,3')  # a quoted line break; a torn end
    rows = iter_rows(str(torn))
    assert next(rows) == {"key": "a", "v": "x\r\ny"}
    assert list(rows) == [{"key": "b", "v": "2"}]
    pq = str(tmp_path / "r.parquet")
    with RowWriter(pq, ("key",)) as w:
        w.write_many([{"key": "a", "v": 1.5}, {"key": "b", "v": ""}])
    assert list(iter_rows(pq)) == [{"key": "a", "v": 1.5}, {"key": "b", "v": ""}]
    assert count_rows(pq) == 2
