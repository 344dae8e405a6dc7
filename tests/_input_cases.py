"""Helpers and tables of the puzzle-input tests (``test_files.py``) and of the output,
config and cache cases moved beside their modules: the bad files and arguments with the
pieces their one error line must name, the puzzles that break under propagation, and the
options that keep a run cheap.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import qsudoku

from _puzzles import EASY4_SET, ONE_GIVEN4, SEED004

NO_CANDIDATE = "12.." "..3." "..4." "...."  # r1c3 sees 1, 2 (row) and 3, 4 (column)

NO_PLACE = "...2" ".1.." "..1." "1..."  # 1 has no place in row 1

#: Options that keep a run cheap when a puzzle needs sampling.
FAST = ["--sampler", "random", "--reads", "1", "--no-route", "--no-fallback"]


def write(tmp_path, name, content):
    path = tmp_path / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return path

# -- 1. bad puzzles ----------------------------------------------------------------------
BAD_FILES = [
    # (name, content, pieces the one error line must contain)
    ("short.txt", "1" * 80, ["short.txt:1:", "has 80"]),
    ("long.txt", SEED004 + "1", ["long.txt:1:", "has 82"]),
    ("char.txt", SEED004[:40] + "x" + SEED004[41:], ["char.txt:1:41:", "unknown symbol 'x'",
                                                       "(cell r5c5)"]),
    ("range4.txt", "12.5" + "." * 12, ["range4.txt:1:4:", "unknown symbol '5'", "digits are 1-4",
                                       "(cell r1c4)"]),
    ("range9.txt", SEED004[:5] + "A" + SEED004[6:], ["range9.txt:1:6:", "symbol 'A'", "(cell r1c6)"]),
    ("range_tuples.txt", "[[1, 1, 65], [2, 2, 3]]", ["range_tuples.txt:1:", "value 65 is larger",
                                                           "at most 64"]),
    ("range_grid.txt", "\n".join([" ".join(["13"] + ["."] * 11)] + [" ".join(["."] * 12)] * 11),
     ["range_grid.txt:1:", "unknown symbol '13'", "(cell r1c1)"]),
    ("hex.txt", "0F" + "." * 254, ["hex.txt:1:1:", "writes 0 but never G", "--digits 0-9A-F",
                                   "(cell r1c1)"]),
    ("dup.txt", "22" + SEED004[2:], ["dup.txt:1:", "digit 2 given twice in row 1", "r1c1 and r1c2"]),
    ("dup_box.txt", "1...\n.1..\n....\n....", ["dup_box.txt:1", "given twice in box 1",
                                               "r1c1 and r2c2"]),
    ("jig_count.txt", ONE_GIVEN4 + " aaaabbbbcccccccc",
     ["jig_count.txt:1:", "3 regions, a 4x4 jigsaw needs 4"]),
    ("jig_size.txt", ONE_GIVEN4 + " aaaaabbbccccdddd",
     ["jig_size.txt:1:", "region 1 has 5 cells, expected 4"]),
    ("jig_len.txt", ONE_GIVEN4 + " aaaabbbbccccddd",
     ["jig_len.txt:1:", "region map has 15 cells"]),
    ("mixed.txt", SEED004 + "\n" + EASY4_SET[0], ["mixed.txt:2:", "a 4x4 puzzle in a file of 9x9",
                                              "line 1"]),
    ("empty.txt", "", ["empty.txt:", "no puzzle found"]),
    ("blank.txt", "\n  \n# only a comment\n\t\n", ["blank.txt:", "no puzzle found"]),
    ("fields.txt", f"{SEED004} aabb extra", ["fields.txt:1:", "3 fields"]),
    ("junk.bin", bytes(range(256)) * 8, ["junk.bin:", "binary file"]),
    ("latin1.txt", "caf\xe9\n".encode("latin-1"), ["latin1.txt:1:", "not UTF-8"]),
    ("huge_line.txt", "." * 10 ** 6, ["huge_line.txt:1:", "size 1000 is not supported"]),
    ("tuples.txt", "[[1, 1, 1e999]]", ["tuples.txt:1:", "[row, col, value] triples"]),
    ("tsv.tsv", "name\t" + "1" * 80 + "\t-\t\n", ["tsv.tsv:1:", "has 80"]),
]

_REPO = str(Path(qsudoku.__file__).resolve().parents[1])


def _cli(args, tmp_path, preexec=None, stdout=None):
    env = dict(os.environ, PYTHONPATH=_REPO)
    return subprocess.run([sys.executable, "-m", "qsudoku", *map(str, args)], cwd=tmp_path,
                          env=env, preexec_fn=preexec, stdout=stdout or subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120)


def _file_size_limit():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))


def _only(tmp_path, *names):
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


def _read_fifo(path, into):
    with open(path, "rb") as f:
        into.append(f.read())
