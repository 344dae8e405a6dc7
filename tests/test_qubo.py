import dimod
import numpy as np
import pytest

from qsudoku.errors import ConfigError
from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import Weights, build_model, one_hot

from _shared import DATA, needs_data, puzzle_files, slow_when_big
from _puzzles import SEED004


def test_one_hot_matches_dimod_equality_constraint():
    rng = np.random.default_rng(0)
    groups = [rng.choice(12, size=k, replace=False) for k in (1, 2, 3, 3, 5, 7)]
    weights = [0.5, 1.0, 2.0, 1.5, 3.0, 1.0]
    lin, quad, off = one_hot(groups, weights, 12)
    ours = dimod.BinaryQuadraticModel.from_numpy_vectors(lin, quad, off, "BINARY")
    ref = dimod.BinaryQuadraticModel("BINARY")
    ref.add_variables_from((v, 0.0) for v in range(12))
    for g, w in zip(groups, weights):
        ref.add_linear_equality_constraint([(int(v), 1.0) for v in g], w, -1)
    for _ in range(50):
        x = rng.integers(0, 2, 12)
        assert ours.energy(x) == pytest.approx(ref.energy(x))


def test_model_over_candidates_only():
    c = propagate(parse_puzzle(SEED004), ["naked_single"])
    m = build_model(c)
    assert m.num_variables == 152 == len(m.bqm.variables)
    assert all(c.grid[r * 9 + col] == 0 and (c.masks[r * 9 + col] >> (d - 1)) & 1
               for r, col, d in m.bqm.variables)
    cells = [k for k in m.constraints if k.kind == "cell"]
    assert len(cells) == len(c.open_cells)


def test_weights_per_kind():
    c = propagate(parse_puzzle(SEED004), [])
    m = build_model(c, Weights(cell=2.0, row=3.0, column=5.0, box=7.0))
    by_kind = {k.kind: k.weight for k in m.constraints}
    assert by_kind == {"cell": 2.0, "row": 3.0, "column": 5.0, "box": 7.0}
    assert m.bqm.offset == pytest.approx(sum(k.weight for k in m.constraints))
    with pytest.raises(ConfigError, match="cell"):
        Weights(cell=0)


def _flip_check(puzzle, rules=()):
    m = build_model(propagate(puzzle, rules), Weights(cell=1.0, row=2.0, box=0.5, extra=1.5))
    x = m.sample_of_grid(puzzle.solution)
    e0 = m.bqm.energy((x, m.variables))
    assert e0 == pytest.approx(0.0)
    flips = np.tile(x, (len(x), 1))
    flips[np.arange(len(x)), np.arange(len(x))] ^= 1
    energies = m.bqm.energies((flips, m.variables))
    assert (energies > 1e-9).all()
    return m


@needs_data
@pytest.mark.parametrize("path", slow_when_big(puzzle_files()), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_data_file_builds_with_solution_at_zero(path):
    for p in load_puzzles(str(path))[:2]:
        m = _flip_check(p, ["naked_single"] if p.size > 9 else ())
        assert m.num_variables > 0 or propagate(p).solved


@needs_data
def test_25x25_builds_quickly_enough_to_test():
    p = load_puzzles(str(DATA / "sudoku25" / "gecode.txt"))[0]
    m = build_model(propagate(p))
    assert m.num_variables > 1000 and m.num_interactions > m.num_variables
