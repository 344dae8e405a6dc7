"""The results table (``qsudoku.experiments.table``): a new table has its header before any
row; a journal or a results file that is a FIFO is refused, not waited on."""

from __future__ import annotations

import os

import pytest

from _file_cases import BENCH, easy_file, error_line, python, qsudoku, state


def test_a_new_table_has_its_header_before_any_row(tmp_path):
    from qsudoku.experiments.results import results_header
    from qsudoku.experiments.table import RowWriter

    out = str(tmp_path / "r.csv")
    with RowWriter(out, ("key",), fields=["key", "valid"]):
        assert results_header(out) == ["key", "valid"]  # interrupted now: still resumable
    with RowWriter(out, ("key",), resume=True, fields=["key", "valid"]) as w:
        assert w.done == set()


def test_journal_that_is_a_fifo_is_refused(tmp_path):
    pytest.importorskip("pyarrow")
    fifo = tmp_path / "r.parquet.partial.csv"
    os.mkfifo(fifo)
    before = state(fifo)
    proc = qsudoku(tmp_path, *BENCH, easy_file(tmp_path), "-o", "r.parquet", "--resume",
                   timeout=60)
    assert proc.returncode == 2 and "not a regular file" in error_line(proc)
    assert state(fifo) == before


@pytest.mark.slow
def test_reading_a_results_file_that_is_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "r.csv")
    proc = python(tmp_path, "import sys\nfrom qsudoku.errors import ConfigError\n"
                  "from qsudoku.experiments.results import read_rows\ntry:\n"
                  "    read_rows(sys.argv[1])\nexcept ConfigError as e:\n    print(e)",
                  tmp_path / "r.csv", timeout=60)
    assert proc.stdout.strip() == (f"cannot read the results file {tmp_path}/r.csv: it is a "
                                   "FIFO, not a regular file")
