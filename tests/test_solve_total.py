"""``qsudoku solve FILE`` of many puzzles ends with a total line (issue 49, item 5), as
``embed`` ends with its summary: valid grids, by what, and the time taken."""

from __future__ import annotations

import json
import re

from _cli import run
from _puzzles import EASY4_SET, ONE_GIVEN4
from _shared import SEEDS

#: ``N/M valid (what K, ...)[, extras], T`` with T in ms or s.
TOTAL = re.compile(r"^(\d+)/(\d+) valid(?: \(([^)]*)\))?((?:, \d+ [a-z ]+)*), [\d.]+ m?s$")


def _total(out: str) -> re.Match:
    last = out.rstrip("\n").splitlines()[-1]
    m = TOTAL.match(last)
    assert m, last
    return m


def test_the_seeds_end_with_a_total_line(capsys):
    code, out, err = run(capsys, "solve", SEEDS, "--seed", "1")
    m = _total(out)
    assert code == 0 and m.group(1) == m.group(2) == str(out.count("  VALID  "))
    by = dict(part.rsplit(" ", 1) for part in m.group(3).split(", "))
    assert sum(map(int, by.values())) == int(m.group(1)) and "propagation" in by


def test_the_total_counts_what_is_not_valid(tmp_path, capsys):
    f = tmp_path / "mixed.txt"
    no_solution = "12.." "..34" "...." "...."  # r1c3 and r1c4 have no candidate left
    duplicate = "11" + "." * 14  # a digit twice in row 1: unreadable, --keep-going goes on
    f.write_text("\n".join([*EASY4_SET, no_solution, duplicate, ONE_GIVEN4]) + "\n")
    code, out, err = run(capsys, "solve", f, "--sampler", "sa", "--reads", "1", "--keep-going",
                         "--param", "num_sweeps=1", "--no-route", "--no-fallback", "--seed", "3")
    m = _total(out)
    valid, extras = int(m.group(1)), m.group(4)
    assert m.group(2) == "6" and valid >= 3 and m.group(3).startswith("propagation 3")
    assert ", 1 no solution" in extras and ", 1 unreadable" in extras and code == 2
    others = sum(int(n) for n in re.findall(r"(\d+) (?:not valid|no solution|unreadable)", extras))
    assert valid + others == 6 and ("not valid" in extras) == (valid == 3)


def test_one_puzzle_and_json_print_no_total(tmp_path, capsys):
    code, out, _ = run(capsys, "solve", EASY4_SET[0])
    assert code == 0 and not TOTAL.match(out.rstrip("\n").splitlines()[-1])
    f = tmp_path / "three.txt"
    f.write_text("\n".join(EASY4_SET) + "\n")
    code, out, _ = run(capsys, "solve", f, "--json")
    assert code == 0 and [json.loads(line)["valid"] for line in out.splitlines()] == [True] * 3
