"""Every file the CLI writes: atomic, never through a planted link, one error line, exit 2.

Links are planted at the target, at the name a naive writer would use for its
temporary file (``<target>.tmp``), at ``<out>.machine.json``, at a results
table, its lock and its Parquet journal; each test checks that the link's target
kept its content.  Driven through :func:`qsudoku.cli.main`.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sys
from pathlib import Path
import errno
import threading

import pytest

from qsudoku.cli import main
from qsudoku.errors import BackendUnavailableError, ConfigError
from qsudoku.io.output import atomic_open, check_target, open_nofollow, write_text

from _cli import one_error, run
from _puzzles import EASY4, FOUR_GIVENS4, SEED004, TWO_GIVENS4
from _io_cases import EASY, error_line, qsudoku
from _input_cases import _cli, _file_size_limit, _only, _read_fifo, write
from _puzzles import EASY4_SET

FAST = ["--sampler", "random", "--reads", "1"]
VICTIM = "must stay as it is\n"


def plant(link, tmp_path, name="victim.txt"):
    """A symbolic link at ``link`` to a file holding :data:`VICTIM`; returns that file."""
    victim = tmp_path / name
    victim.write_text(VICTIM)
    os.symlink(victim, link)
    return victim


def no_temporaries(folder) -> bool:
    return not [p for p in os.listdir(folder) if p.endswith(".tmp") and not os.path.islink(
        os.path.join(folder, p))]


# -- the helper ------------------------------------------------------------------------
def test_write_text_replaces_a_link_and_leaves_its_target(tmp_path):
    target = tmp_path / "out.txt"
    victim = plant(target, tmp_path)
    write_text(str(target), "new\n")
    assert victim.read_text() == VICTIM
    assert not target.is_symlink() and target.read_text() == "new\n"
    assert no_temporaries(tmp_path)


def test_atomic_open_keeps_the_old_file_when_the_block_fails(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with pytest.raises(KeyError):
        with atomic_open(str(target)) as f:
            f.write("half")
            raise KeyError("a bug stays a bug")
    assert target.read_text() == "old\n" and no_temporaries(tmp_path)


@pytest.mark.parametrize("make,piece", [
    (lambda p: p.mkdir(), "it is a directory"),
    (lambda p: None, "does not exist"),
])
def test_check_target_is_one_line(tmp_path, make, piece):
    target = tmp_path / "t"
    make(target)
    path = target / "x.txt" if piece == "does not exist" else target
    with pytest.raises(ConfigError, match=piece) as e:
        check_target(str(path), "-o")
    assert "\n" not in str(e.value) and str(path) in str(e.value)


def test_open_nofollow_refuses_a_link_for_append(tmp_path):
    link = tmp_path / "rows.csv"
    victim = plant(link, tmp_path)
    with pytest.raises(ConfigError, match="symbolic link"):
        open_nofollow(str(link), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    assert victim.read_text() == VICTIM


# -- export, qubo, show ----------------------------------------------------------------
@pytest.mark.parametrize("command,name", [
    ("export", "t.cnf"), ("export", "t.lp"), ("export", "t.bqm"), ("export", "t.json"),
    ("qubo", "t.bqm"), ("qubo", "t.json"), ("qubo", "t.coo"),
])
def test_model_writers_never_follow_links(tmp_path, capsys, command, name):
    target = tmp_path / name
    victims = [plant(target, tmp_path, "victim1"), plant(tmp_path / (name + ".tmp"), tmp_path,
                                                          "victim2")]
    code, out, err = run(capsys, command, FOUR_GIVENS4, "-o", target)
    assert code == 0 and f"wrote {target}" in out
    assert [v.read_text() for v in victims] == [VICTIM, VICTIM]
    assert not target.is_symlink() and target.stat().st_size > 0
    assert no_temporaries(tmp_path)


@pytest.mark.slow
def test_show_never_follows_links(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    target = tmp_path / "grid.svg"
    victim = plant(target, tmp_path)
    code, out, err = run(capsys, "show", EASY4, "-o", target)
    assert code == 0 and victim.read_text() == VICTIM
    assert target.read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize("argv,pieces", [
    (["export", EASY4, "--to", "cnf", "-o", "{dir}"], ["cannot write -o", "it is a directory"]),
    (["export", EASY4, "-o", "{tmp}/missing/x.cnf"], ["missing", "does not exist"]),
    (["qubo", EASY4, "-o", "{tmp}/missing/x.bqm"], ["missing", "does not exist"]),
    (["qubo", EASY4, "--to", "bqm", "-o", "{dir}"], ["it is a directory"]),
    (["show", EASY4, "-o", "{tmp}/missing/g.png"], ["missing", "does not exist"]),
    (["show", EASY4, "-o", "{tmp}/g.png", "--dpi", "0"], ["--dpi 0 must be between"]),
    (["show", EASY4, "-o", "{tmp}/g.png", "--dpi", "100000"], ["--dpi 100000"]),
    (["bench", EASY4, "--sampler", "sa", "-o", "{tmp}/missing/r.csv"],
     ["-o", "missing", "does not exist"]),
    (["sweep", EASY4, "--grid", "cell=1", "-o", "{tmp}/missing/r.csv"],
     ["-o", "missing", "does not exist"]),
    (["sweep", EASY4, "--grid", "cell=1", "-o", "{dir}"], ["it is a directory"]),
    (["bench", "-o", "{tmp}/r.csv", "--plot", "{tmp}/file"], ["--plot", "not a directory"]),
])
def test_bad_output_paths_are_one_line_exit_2(tmp_path, capsys, argv, pieces):
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("x")
    (tmp_path / "r.csv").write_text("key,sampler\n")
    argv = [a.format(tmp=tmp_path, dir=tmp_path / "dir") for a in argv]
    code, out, err = run(capsys, *argv)
    line = one_error(err)
    assert code == 2, err
    for piece in pieces:
        assert piece in line, (piece, line)
    assert not (tmp_path / "missing").exists() and no_temporaries(tmp_path)


# -- no command writes over its inputs (one check: commands.common.check_writes) --------
REGIONS4 = "aabb/aabb/ccdd/ccdd\n"
SPEC = 'command = "{command}"\n[options]\nsampler = "random"\nreads = 1\n'


def _inputs(tmp_path) -> dict:
    """Input files of every kind, each holding what a command reads there."""
    files = {"r.txt": REGIONS4, "r.svg": REGIONS4, "c.toml": '[sampler]\nname = "random"\n',
             "c.summary.json": '[sampler]\nname = "random"\n',
             "p.txt": TWO_GIVENS4 + "\n", "p.png": TWO_GIVENS4 + "\n",
             "p.json": TWO_GIVENS4 + "\n", "p.solutions.json": "2341412334121234\n",
             "p.ids.txt": "one\n", "s.summary.json": SPEC.format(command="bench")
             + 'output = "s.csv"\n', "s.csv": SPEC.format(command="bench"),
             "w.summary.csv": SPEC.format(command="sweep") + 'grid = ["cell=1"]\n'}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return files


@pytest.mark.parametrize("argv,victim", [
    (["export", TWO_GIVENS4, "--regions", "r.txt", "--to", "cnf", "-o", "r.txt"], "r.txt"),
    (["export", TWO_GIVENS4, "--config", "c.toml", "--to", "cnf", "-o", "c.toml"], "c.toml"),
    (["export", "p.txt", "--to", "cnf", "-o", "p.ids.txt"], "p.ids.txt"),
    (["qubo", "p.json", "-o", "p.json"], "p.json"),
    (["qubo", "p.json", "-o", "./p.solutions.json"], "p.solutions.json"),
    (["qubo", TWO_GIVENS4, "--config", "c.toml", "--to", "json", "-o", "c.toml"], "c.toml"),
    (["show", "p.png", "-o", "p.png"], "p.png"),
    (["show", TWO_GIVENS4, "--regions", "r.svg", "-o", "x.png", "--solve", "--hist", "r.svg"],
     "r.svg"),
    (["bench", "p.txt", "--spec", "s.summary.json"], "s.summary.json"),
    (["bench", "p.txt", "--spec", "s.csv", "-o", "s.csv", "--overwrite"], "s.csv"),
    (["sweep", "p.txt", "--spec", "w.summary.csv", "-o", "w.csv"], "w.summary.csv"),
    (["sweep", "p.txt", "--grid", "cell=1", "--config", "c.summary.json", "-o", "c.csv"],
     "c.summary.json"),
])
def test_no_writer_writes_over_its_inputs(tmp_path, capsys, monkeypatch, argv, victim):
    """``export``/``qubo``/``show`` checked only the target; a spec was no input of bench.
    Now every writer refuses an output that is an input (a puzzle file, a companion,
    ``--regions``, ``--config``, ``--spec``), exit 2 in one line, every file unchanged."""
    monkeypatch.chdir(tmp_path)
    files = _inputs(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    assert "is also an input of this run" in one_error(err) and victim in one_error(err)
    assert {n: (tmp_path / n).read_text() for n in files} == files
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)


@pytest.mark.parametrize("out", ["d/a.txt", "d/a.solutions.txt"])
def test_no_writer_writes_over_a_puzzle_file_of_a_directory_it_reads(tmp_path, capsys,
                                                                      monkeypatch, out):
    """A directory stands for its puzzle files: those (and their companions) are inputs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    files = {"d/a.txt": TWO_GIVENS4 + "\n", "d/a.solutions.txt": "2341412334121234\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    code, _, err = run(capsys, "bench", "d", *FAST, "-o", out, "--overwrite")
    assert code == 2 and f"{out} is also an input of this run" in one_error(err)
    assert {n: (tmp_path / n).read_text() for n in files} == files


@pytest.mark.parametrize("hist", ["a.png", "./a.png", "{tmp}/a.png"])
def test_show_refuses_one_file_for_both_pictures(tmp_path, capsys, monkeypatch, hist):
    """``show P --solve -o a.png --hist a.png`` kept one picture of two, exit 0."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "show", TWO_GIVENS4, "--solve", *FAST, "-o", "a.png",
                         "--hist", hist.format(tmp=tmp_path))
    assert code == 2 and "it is the same file as -o a.png" in one_error(err)
    assert list(tmp_path.iterdir()) == []


def test_show_refuses_standard_output_for_both_pictures(capsys):
    code, out, err = run(capsys, "show", TWO_GIVENS4, "--solve", "-o", "-", "--hist", "-")
    assert code == 2 and "standard output takes -o - already" in one_error(err)


@pytest.mark.slow
def test_show_writes_two_pictures_of_two_names(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    code, out, err = run(capsys, "show", TWO_GIVENS4, "--solve", "--sampler", "random",
                         "--reads", "20", "--no-fallback",
                         "-o", tmp_path / "a.png", "--hist", tmp_path / "b.png")
    assert code in (0, 1), err
    assert (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "b.png").read_bytes()[:4] == b"\x89PNG"


# -- bench and sweep tables ------------------------------------------------------------
def test_machine_json_replaces_a_link(tmp_path, capsys):
    out = tmp_path / "r.csv"
    victim = plant(tmp_path / "r.csv.machine.json", tmp_path)
    code, _, err = run(capsys, "bench", EASY4, "--sampler", "sa", "-o", out, "--quiet")
    assert code == 0, err
    assert victim.read_text() == VICTIM
    assert "python" in json.loads((tmp_path / "r.csv.machine.json").read_text())


@pytest.mark.parametrize("name,planted", [
    ("r.csv", "r.csv"), ("r.csv", "r.csv.lock"), ("r.parquet", "r.parquet.partial.csv"),
])
def test_results_table_refuses_links(tmp_path, capsys, name, planted):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    victim = plant(tmp_path / planted, tmp_path)
    code, _, err = run(capsys, "sweep", EASY4, "--grid", "cell=1", "-o", tmp_path / name,
                       "--quiet")
    assert code == 2 and "symbolic link" in one_error(err) and planted in err
    assert victim.read_text() == VICTIM


def test_resume_of_a_foreign_csv_is_one_line(tmp_path, capsys):
    out = tmp_path / "r.csv"
    out.write_text("name,score\na,1\n")
    code, _, err = run(capsys, "bench", EASY4, "--sampler", "sa", "-o", out, "--resume")
    assert code == 2 and "r.csv" in one_error(err)
    assert out.read_text() == "name,score\na,1\n"


# -- counts have limits ----------------------------------------------------------------
@pytest.mark.parametrize("argv,piece", [
    (["sweep", EASY4, "--grid", "cell=1.0:2.0:5000"], "count from 1 to 1000"),
    (["sweep", EASY4, "--grid", "cell=1.0:2.0:100", "--grid", "row=1.0:2.0:100",
      "--grid", "column=1.0:3.0:100"], "1000000 settings"),
    (["sweep", EASY4, "--grid", "cell=1", "--repeat", "100000000"], "--repeat 100000000"),
    (["bench", EASY4, "--jobs", "100000"], "--jobs 100000"),
    (["sweep", EASY4, "--grid", "cell=1.0:2.0:300", "--repeat", "1000"], "= 300000 runs"),
    (["solve", EASY4, "--reads", "1000000000"], "num_reads = 1000000000"),
    (["solve", EASY4, "--fallback", "bogus"], "fallback = 'bogus' is not a registered sampler"),
])
def test_counts_and_names_are_checked_at_start(capsys, argv, piece):
    code, out, err = run(capsys, *argv)
    assert code == 2 and piece in one_error(err) and out == ""


# -- exit codes ------------------------------------------------------------------------
def test_debug_keeps_exit_3(capsys, monkeypatch):
    def unavailable(*args, **kwargs):
        raise BackendUnavailableError("no such backend here")

    monkeypatch.setattr("qsudoku.solving.plan.get_sampler", unavailable)
    assert main(["solve", FOUR_GIVENS4]) == 3
    assert main(["--debug", "solve", FOUR_GIVENS4]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "BackendUnavailableError: no such backend here" in err


# -- "-" is standard output; no repr of numpy or Python objects in any output ------------
QUICK = ["--sampler", "sa", "--reads", "2", "--param", "num_sweeps=10", "--seed", "1"]
#: What a repr of a numpy or Python object looks like in text.
REPR = re.compile(r"np\.[a-z_]+\d*\(|array\(|dtype=|numpy\.|<[a-z_.]+ object at 0x")


def test_qubo_to_stdout_prints_the_model(capsys):
    code, out, err = run(capsys, "qubo", SEED004, "--to", "json", "-o", "-")
    data = json.loads(out)
    assert code == 0 and data["offset"] == 108.0 and len(data["variables"]) == 63
    assert not os.path.exists("-")
    code, out, err = run(capsys, "qubo", SEED004, "--to", "coo", "-o", "-")
    assert out.splitlines()[0] == "# qsudoku QUBO (BINARY), offset 108.0"
    assert "wrote" not in out + err


def test_binary_pictures_to_stdout_only_when_redirected(capsysbinary, monkeypatch):
    pytest.importorskip("matplotlib")
    assert main(["show", EASY4, "-o", "-"]) == 0
    out, err = capsysbinary.readouterr()
    assert out.startswith(b"\x89PNG") and b"wrote" not in err

    class Terminal(io.TextIOWrapper):
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stdout", Terminal(io.BytesIO()))
    assert main(["show", EASY4, "-o", "-"]) == 2
    assert b"standard output is a terminal" in capsysbinary.readouterr().err
    assert sys.stdout.buffer.getvalue() == b""


def test_results_stream_to_stdout_as_csv(capsys):
    code, out, err = run(capsys, "bench", FOUR_GIVENS4, *FAST, "-o", "-")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 1 and rows[0]["sampler"] == "random"
    assert "TTS99" in err and not os.path.exists("-.machine.json")
    code, out, err = run(capsys, "sweep", FOUR_GIVENS4, *FAST, "-o", "-", "--resume")
    assert code == 2 and "--resume needs a results file" in one_error(err)
    code, out, err = run(capsys, "bench", FOUR_GIVENS4, *FAST, "-o", "-", "--plot", "-")
    assert code == 2 and "--plot needs a directory" in one_error(err) and out == ""


def _outputs(tmp_path):
    """Every command with each of its output forms: (argv, files it writes)."""
    svg, csv_out = tmp_path / "g.svg", tmp_path / "r.csv"
    yield ["solve", SEED004, *QUICK, "--no-fallback"], []
    yield ["solve", SEED004, *QUICK, "--json", "--check-unique"], []
    yield ["solve", SEED004, "--sampler", "random", "--json", "--time-budget", "0.05"], []
    for fmt in ("json", "coo"):
        yield ["qubo", SEED004, "--to", fmt, "-o", "-"], []
    for fmt in ("cnf", "lp", "mps", "mzn", "lp-asp", "tptp", "qubo-json"):
        yield ["export", SEED004, "--to", fmt, "-o", "-"], []
    yield ["count", SEED004], []
    yield ["count", SEED004, "--json"], []
    yield ["samplers"], []
    yield ["embed", SEED004, "--no-cache", "--time-budget", "5"], []
    yield ["embed", SEED004, "--no-cache", "--time-budget", "5", "--json"], []
    yield ["bench", SEED004, *QUICK, "-o", csv_out], [csv_out,
                                                         Path(f"{csv_out}.machine.json")]
    yield ["sweep", SEED004, *QUICK[:4], "--grid", "num_sweeps=5,10", "-o", "-"], []
    yield ["show", SEED004, *QUICK, "--solve", "-o", svg], [svg]


@pytest.mark.slow
def test_no_output_shows_a_repr(tmp_path, capsys):
    """Text, JSON, CSV, exports, notes and pictures hold plain numbers, never
    ``np.float64(...)``, ``array(...)`` or an object's default repr."""
    for argv, files in _outputs(tmp_path):
        if argv[0] in ("show", "embed"):
            pytest.importorskip("matplotlib" if argv[0] == "show" else "minorminer")
        code, out, err = run(capsys, *argv)
        assert code in (0, 1), (argv, err)
        texts = [out, err] + [Path(f).read_text() for f in files]
        leaks = [m.group() for t in texts for m in REPR.finditer(t)]
        assert not leaks, (argv[:3], leaks)


@pytest.mark.slow
def test_an_output_fifo_with_no_reader_is_refused_not_waited_for(tmp_path):
    os.mkfifo(tmp_path / "out.cnf")
    proc = qsudoku(tmp_path, "export", EASY, "-o", "out.cnf")
    assert proc.returncode == 2
    assert error_line(proc) == ("cannot write out.cnf: it is a FIFO with no reader (start the "
                                "reader first, or write to a regular file)")


@pytest.mark.slow
def test_env_file_size_limit_on_an_output_is_exit_4_and_leaves_nothing(tmp_path):
    out = _cli(["qubo", SEED004, "-o", "m.bqm"], tmp_path, _file_size_limit)
    assert out.returncode == 4, out.stderr
    assert one_error(out.stderr) == ("qsudoku: error: cannot write m.bqm: file too large: "
                                     "a file-size limit was reached (EFBIG)")
    _only(tmp_path)  # no m.bqm, no temporary file


@pytest.mark.slow
def test_env_file_size_limit_on_stdout_is_exit_4(tmp_path):
    with open(tmp_path / "out.txt", "wb") as sink:
        out = _cli(["solve", SEED004, "--json"], tmp_path, _file_size_limit, stdout=sink)
    assert out.returncode == 4, out.stderr
    assert one_error(out.stderr).endswith("cannot write standard output: file too large: "
                                          "a file-size limit was reached (EFBIG)")


@pytest.mark.slow
def test_env_closed_stdout_is_exit_4(tmp_path):
    out = _cli(["solve", EASY4_SET[0]], tmp_path, lambda: os.close(1))
    assert out.returncode == 4
    assert one_error(out.stderr).endswith("cannot write standard output: it is closed (EBADF)")


def test_env_disk_full_keeps_the_old_output_and_no_temporary(tmp_path, capsys, monkeypatch):
    from qsudoku.io import output

    target = write(tmp_path, "x.cnf", "old\n")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output.os, "fsync", full)
    code, out, err = run(capsys, "export", SEED004, "--to", "cnf", "-o", target)
    assert code == 4 and out == ""
    assert one_error(err).endswith(f"cannot write {target}: no space left on device (ENOSPC)")
    assert target.read_text() == "old\n"
    _only(tmp_path, "x.cnf")


def test_env_full_stdout_is_exit_4(capsys, monkeypatch):
    class Full:
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", Full())
    code = main(["solve", EASY4_SET[0]])
    err = capsys.readouterr().err
    assert code == 4
    assert one_error(err).endswith("cannot write standard output: no space left on device (ENOSPC)")


def test_env_exit_4_is_in_the_help(capsys):
    assert main(["--help"]) == 0
    assert "4 the machine refused" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("argv", [["export", SEED004, "--to", "cnf", "-o"],
                                  ["qubo", SEED004, "--to", "json", "-o"]])
def test_output_fifo_is_written_through_not_replaced(tmp_path, capsys, argv):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=_read_fifo, args=(fifo, got))
    reader.start()
    try:
        code, out, err = run(capsys, *argv, fifo)
    finally:
        if reader.is_alive():  # nothing opened the FIFO: let the reader go
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as e:  # ENXIO: the reader has already closed its end
                if e.errno != errno.ENXIO:
                    raise
        reader.join(30)
    assert code == 0, err
    assert fifo.is_fifo() and got and len(got[0]) > 100
    _only(tmp_path, "pipe")


def test_output_link_to_a_fifo_is_refused_and_kept(tmp_path, capsys):
    fifo, link = tmp_path / "pipe", tmp_path / "link.cnf"
    os.mkfifo(fifo)
    link.symlink_to(fifo)
    code, out, err = run(capsys, "export", SEED004, "--to", "cnf", "-o", link)
    assert code == 2 and "it is a symbolic link to a FIFO" in one_error(err)
    assert link.is_symlink() and fifo.is_fifo()
    _only(tmp_path, "pipe", "link.cnf")
