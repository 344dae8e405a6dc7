"""Encodings behind the one seam of the QUBO builder: one-hot and the domain wall.

What must hold for every encoding: energy 0 exactly on valid grids (the known solution
has energy 0, every single-variable flip from it raises the energy, an exact solver's
ground states are exactly the puzzle's solutions), decoding reads grids and broken
constraints back by label, and the solve path, the CLI and sweeps take the encoding by
name.  Puzzles are made here from seeded valid grids: no data files needed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import dimod
import numpy as np
import pytest

from qsudoku import Config, solve
from qsudoku.errors import ConfigError, ParameterError
from qsudoku.io import parse_puzzle
from qsudoku.model.decode import decode, decode_array
from qsudoku.model.penalty import penalty_terms
from qsudoku.model.propagate import propagate
from qsudoku.model.puzzle import Puzzle, diagonal_units
from qsudoku.model.qubo import Weights, build_model
from qsudoku.samplers.registry import get_sampler
from _puzzles import BOX_GIVEN4, SEED001, SEED003, SEED004, THREE_GIVENS4

GRID4 = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]
GRID6 = [int(c) for c in "123456456123231564564231312645645312"]
GRID9 = [(3 * (r % 3) + r // 3 + c) % 9 + 1 for r in range(9) for c in range(9)]
# A Sudoku-X solution (both diagonals hold 1..9).
GRIDX = [int(c) for c in "123456789679283145584197263738645921941832576265719438456321897312978654897564312"]


def puzzles():
    """Seeded puzzles with known solutions: 4x4, 6x6 (2x3 boxes), 9x9, Sudoku-X."""
    rng = np.random.default_rng(11)
    cases = [(GRID4, ()), (GRID6, ()), (GRID9, ()), (GRIDX, diagonal_units(9))]
    for full, extra in cases:
        for keep in (0.3, 0.6):
            givens = [d if rng.random() < keep else 0 for d in full]
            yield Puzzle.standard(givens, extra=extra), full


def brute(flat, sizes, weights, coefs, consts, x):
    """``sum_g w_g (sum a_i x_i + b_g)^2`` evaluated directly."""
    total, at = 0.0, 0
    for g, m in enumerate(sizes):
        idx = flat[at:at + m]
        total += weights[g] * (float(np.dot(coefs[at:at + m], x[idx])) + consts[g]) ** 2
        at += m
    return total


def test_penalty_terms_with_coefficients_expand_the_squares_exactly():
    rng = np.random.default_rng(5)
    nv = 9
    for _ in range(20):
        sizes = rng.integers(1, 5, size=4)
        flat = np.concatenate([rng.choice(nv, size=m, replace=False) for m in sizes])
        coefs = rng.choice([-1.0, 1.0, 2.0], size=len(flat))
        consts = rng.choice([-1.0, 0.0, 1.0], size=len(sizes))
        weights = rng.uniform(0.5, 2.0, size=len(sizes))
        lin, pieces, off = penalty_terms(flat, sizes, weights, nv, piece=3, coefs=coefs,
                                         consts=consts)
        bqm = dimod.BQM(lin, {}, off, "BINARY")
        for i, j, b in pieces:
            bqm.add_quadratic_from(zip(i.tolist(), j.tolist(), b.tolist()))
        for x in rng.integers(0, 2, size=(16, nv)):
            assert bqm.energy(x) == pytest.approx(brute(flat, sizes, weights, coefs, consts, x))


@pytest.mark.parametrize("rules", [(), ("naked_single", "hidden_single")])
def test_domain_wall_solution_has_energy_zero_and_every_flip_costs(rules):
    w = Weights(cell=1.5, row=1.0, column=2.0, box=0.5, extra=1.0)
    for puzzle, full in puzzles():
        cands = propagate(puzzle, rules)
        if cands.solved:
            continue
        hot = build_model(cands, w)
        dw = build_model(cands, w, encoding="domain-wall")
        open_sizes = np.bincount(hot.slot_cell)[np.unique(hot.slot_cell)]
        assert dw.num_variables == int((open_sizes - 1).sum()) < hot.num_variables
        assert dw.encoding == "domain-wall" and dw.energy_of_grid(full) == 0.0
        x = dw.sample_of_grid(full)
        for v in range(dw.num_variables):
            y = x.copy()
            y[v] ^= 1
            assert dw.bqm.energy((y, dw.variables)) >= min(0.5, 1.5) - 1e-9


@pytest.mark.slow
def test_exact_ground_states_of_a_domain_wall_model_are_the_puzzles_solutions():
    p = parse_puzzle(THREE_GIVENS4)
    cands = propagate(p, ())
    dw = build_model(cands, Weights(cell=2.0, row=1.5), encoding="domain-wall")
    hot = build_model(cands)
    assert dw.num_variables <= 20
    ss = dimod.ExactSolver().sample(dw.bqm)
    ground = ss.record.energy < 1e-9
    decoded = decode_array(dw, ss.record.sample[ground])
    # The solutions, independently: the one-hot model after singles, by exhaustion.
    small = build_model(propagate(p, ("naked_single", "hidden_single")))
    assert small.num_variables <= 16
    exact = dimod.ExactSolver().sample(small.bqm)
    solutions = {tuple(d.grid) for d in decode(small, exact) if d.valid}
    assert len(solutions) >= 2 and all(d.valid for d in decoded)
    assert {tuple(d.grid) for d in decoded} == solutions and len(decoded) == len(solutions)
    assert all(hot.energy_of_grid(g) == 0.0 for g in solutions)
    assert ss.record.energy[~ground].min() >= 1.0


def test_a_broken_chain_decodes_as_a_broken_cell_with_no_digit():
    p = parse_puzzle(BOX_GIVEN4)
    dw = build_model(propagate(p, ()), encoding="domain-wall")
    x = dw.sample_of_grid(GRID4)
    # The first cell with two or more wall variables: break its chain as 0 then 1.
    cells = [c for c in np.unique(dw.var_cell) if (dw.var_cell == c).sum() >= 2]
    idx = np.flatnonzero(dw.var_cell == cells[0])
    x[idx[0]], x[idx[1]] = 0, 1
    d = decode_array(dw, x[None, :])[0]
    r, c = divmod(int(cells[0]), 4)
    assert not d.valid and d.grid[cells[0]] == 0
    assert ("cell", (r, c)) in d.broken and d.broken_by_kind["cell"] == 1
    assert d.energy == pytest.approx(float(dw.bqm.energy((x, dw.variables))))


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["sa", "tabu", "neal", "steepest", "sqa", "rotor", "pt",
                                     "pa", "kerberos"])
def test_solve_with_the_domain_wall_solves_seed004(sampler):
    """Every sampler that takes any BQM solves seed004's domain-wall model (no fallback)."""
    options = {"qpu_sampler": "mock-qpu"} if sampler == "kerberos" else None
    cfg = Config().with_overrides(sampler=sampler, seed=1, encoding="domain-wall",
                                  route={"exact_fallback": ""}, options=options)
    r = solve(parse_puzzle(SEED004), cfg)
    assert r.valid and r.solved_by.startswith(sampler) and r.encoding == "domain-wall"
    assert r.to_dict()["encoding"] == "domain-wall" and r.num_variables == 36


@pytest.mark.slow
def test_sa_solves_seed001_with_the_domain_wall_at_chain_weight_two():
    """The domain wall's chain weight is tuned apart from the units': at ``cell = 2``
    simulated annealing solves seed001's 192-variable domain-wall model without fallback."""
    cfg = Config().with_overrides(sampler="sa", seed=1, encoding="domain-wall",
                                  weights={"cell": 2.0}, route={"exact_fallback": ""})
    r = solve(parse_puzzle(SEED001), cfg, budget=60)
    assert r.valid and r.solved_by.startswith("sa") and r.encoding == "domain-wall"


@pytest.mark.slow
def test_mock_qpu_solves_seed004_with_the_domain_wall():
    pytest.importorskip("dwave.system")
    cfg = Config().with_overrides(sampler="mock-qpu", seed=1, encoding="domain-wall",
                                  route={"exact_fallback": ""})
    r = solve(parse_puzzle(SEED004), cfg)
    assert r.valid and r.solved_by.startswith("mock-qpu")


@pytest.mark.slow
def test_decompose_frees_whole_domain_wall_cells():
    """decompose's energy strategy frees a domain wall's cells whole (units grow through
    the interactions); construct refuses groups that list no candidate slots."""
    pytest.importorskip("dwave.system")
    cfg = Config().with_overrides(sampler="decompose", seed=1, encoding="domain-wall",
                                  route={"exact_fallback": ""},
                                  options={"qpu_sampler": "mock-qpu"},
                                  params={"strategy": "energy"})
    r = solve(parse_puzzle(SEED004), cfg, budget=60)
    assert r.valid and r.solved_by.startswith("decompose")
    assert 0 <= r.info["chain_break_fraction"] <= 1
    dw = build_model(propagate(parse_puzzle(SEED004)), encoding="domain-wall")
    walls_only = [g for g in dw.groups() if g[0] == "wall"]
    with pytest.raises(ParameterError, match="list no candidate slots"):
        get_sampler("decompose", qpu_sampler="mock-qpu").sample(
            dw.bqm, groups=walls_only, strategy="construct")


@pytest.mark.slow
@pytest.mark.parametrize("puzzle", [SEED001, SEED003, SEED004], ids=["seed001", "seed003",
                                                                      "seed004"])
def test_decompose_constructs_the_seed_puzzles_in_domain_walls(puzzle):
    """``solve --encoding domain-wall --sampler decompose`` (strategy ``auto``: construct over
    the candidate slots, subproblems sent in walls) solves the seed puzzles on the mock QPU
    without fallback, its subproblems within ``subproblem_size`` walls."""
    pytest.importorskip("dwave.system")
    cfg = Config().with_overrides(sampler="decompose", seed=1, route={"exact_fallback": ""},
                                  options={"qpu_sampler": "mock-qpu"})
    dw = solve(parse_puzzle(puzzle), cfg.with_overrides(encoding="domain-wall"), budget=60)
    assert dw.valid and dw.solved_by.startswith("decompose") and dw.encoding == "domain-wall"
    assert dw.info["strategy"] == "construct"
    assert 0 < dw.info["max_subproblem_variables"] <= 64


def test_the_domain_wall_groups_are_its_cells_then_its_slots():
    """Per open cell its walls, then the one-hot groups over the candidate slots: the
    ``cell`` groups pair with the walls (a cell of k slots has k - 1 walls, labelled by
    the slots' digits after the first)."""
    dw = build_model(propagate(parse_puzzle(SEED004)), encoding="domain-wall")
    oh = build_model(propagate(parse_puzzle(SEED004)))
    groups = dw.groups()
    walls = [labels for kind, labels in groups if kind == "wall"]
    assert sorted(v for labels in walls for v in labels) == sorted(dw.variables)
    assert [g for g in groups if g[0] != "wall"] == oh.groups()
    cells = [labels for kind, labels in groups if kind == "cell"]
    assert len(cells) == len(walls)
    for w, c in zip(walls, cells):
        assert [(r, col, ">=", d) for r, col, d in c[1:]] == w


@pytest.mark.parametrize("sampler", ["aco", "swap-tabu", "csp"])
def test_samplers_that_read_one_hot_groups_refuse_the_domain_wall(sampler):
    cfg = Config().with_overrides(sampler=sampler, encoding="domain-wall")
    with pytest.raises(ConfigError, match="one-hot groups.*domain-wall"):
        solve(parse_puzzle(SEED004), cfg)


def test_an_unknown_encoding_is_a_config_error_naming_the_choices(tmp_path):
    from qsudoku.config import load_config

    with pytest.raises(ConfigError, match="unknown encoding 'binary'.*domain-wall, one-hot"):
        Config().with_overrides(encoding="binary")
    f = tmp_path / "c.toml"
    f.write_text('[qubo]\nencoding = "domain-wall"\n[sampler]\nname = "sa"\n')
    assert load_config(str(f)).qubo.encoding == "domain-wall"
    f.write_text('[qubo]\nencoding = "binary"\n')
    with pytest.raises(ConfigError, match="c.toml.*unknown encoding"):
        load_config(str(f))


@pytest.mark.slow
def test_cli_qubo_and_solve_take_the_encoding(tmp_path):
    out = tmp_path / "m.json"
    run = [sys.executable, "-m", "qsudoku"]
    subprocess.run(run + ["qubo", SEED004, "--encoding", "domain-wall", "-o", str(out)],
                   check=True, capture_output=True, cwd=tmp_path)
    data = json.loads(out.read_text())
    assert data["encoding"] == "domain-wall" and len(data["variables"]) == 36
    assert all(v[2] == ">=" for v in data["variables"])
    bad = subprocess.run(run + ["solve", SEED004, "--encoding", "domain-wall"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "one-hot groups" in bad.stderr


def test_a_sweep_over_the_encoding_writes_rows_for_both():
    from qsudoku.experiments.sweep import run_sweep

    cfg = Config().with_overrides(sampler="sa", seed=2, reads=10)
    rows = run_sweep([parse_puzzle(SEED004)], {"qubo.encoding": ["one-hot", "domain-wall"]},
                     cfg)
    assert sorted(r["qubo.encoding"] for r in rows) == ["domain-wall", "one-hot"]
    assert sorted(r["num_variables"] for r in rows) == [36, 63]
