"""A setting the chosen sampler does not read is said so, in one line: penalty weights for
the structure-aware samplers (they read the one-hot groups, not the weights), and an
encoding a sampler refuses."""

from __future__ import annotations

import pytest

from _cli import one_error, run
from qsudoku import Config, parse_puzzle, solve
from qsudoku.samplers import SPECS

PUZZLE = "2.513...4....48........7.2..385...92....9.7........45.86.97....95.....31..4......"


def _weight_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "penalty weights" in line]


def test_weights_with_the_default_sampler_print_one_line(capsys):
    code, out, err = run(capsys, "solve", PUZZLE, "--weight", "cell=3", "--seed", "1")
    assert code == 0
    lines = _weight_lines(out + err)
    assert len(lines) == 1, out + err
    assert "cell=3 do not change what aco does" in lines[0]


def test_weights_with_a_sampler_that_reads_them_print_nothing(capsys):
    code, out, err = run(capsys, "solve", PUZZLE, "--weight", "cell=3", "--sampler", "sa",
                         "--seed", "1")
    assert code == 0 and _weight_lines(out + err) == []


def test_default_weights_print_nothing(capsys):
    code, out, err = run(capsys, "solve", PUZZLE, "--seed", "1")
    assert code == 0 and _weight_lines(out + err) == []


@pytest.mark.slow
def test_the_swap_samplers_read_the_unit_weights_not_the_cell_weight():
    puzzle = parse_puzzle(PUZZLE)
    cfg = Config().with_overrides(sampler="swap-tabu", seed=1)
    cell = solve(puzzle, cfg.with_overrides(weights={"cell": 2}))
    unit = solve(puzzle, cfg.with_overrides(weights={"row": 2}))
    assert any("cell=2 do not change what swap-tabu does" in n for n in cell.notes)
    assert not _weight_lines("\n".join(unit.notes))


@pytest.mark.parametrize("name", sorted(n for n, s in SPECS.items() if s.ignores_weights))
def test_a_sampler_that_ignores_weights_reads_the_groups(name):
    """Every entry flagged as ignoring weights is structure-aware: it takes the groups (or,
    for the Leap hybrid solvers, builds constraints from them)."""
    assert set(SPECS[name].ignores_weights) <= {"cell", "row", "column", "box", "extra"}
    assert name in {"aco", "swap", "swap-tabu", "sat", "cpsat", "ilp", "asp", "csp",
                    "hybrid-cqm", "hybrid-nl"}


def test_an_encoding_the_sampler_refuses_is_one_line(capsys):
    code, out, err = run(capsys, "solve", PUZZLE, "--encoding", "domain-wall")
    line = one_error(err)
    assert code == 2 and out == ""
    assert "sampler 'aco' reads the QUBO's one-hot groups" in line and "domain-wall" in line


def test_an_encoding_a_sampler_takes_says_nothing(capsys):
    code, out, err = run(capsys, "solve", PUZZLE, "--encoding", "domain-wall", "--sampler",
                         "sa", "--weight", "cell=2", "--seed", "1")
    assert code == 0 and err == "" and "one-hot groups" not in out
