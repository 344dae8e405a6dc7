"""The vectorised ``build_model``, ``QuboModel.groups``, ``one_hot`` and ``decode`` give
exactly what the straightforward per-unit, per-sample code gave (kept below as the
reference): same variables, BQM, constraints, groups and decoded samples, bit for bit,
on real puzzles of every kind in the shipped data."""

from __future__ import annotations

import dataclasses

import dimod
import numpy as np
import pytest

from qsudoku.model.decode import Decoded, decode, decode_array
from qsudoku.io import load_puzzles
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import Constraint, QuboModel, Weights, build_model, one_hot

from _shared import DATA, needs_data
from _puzzles import THREE_GIVENS4

# -- the reference: the builder and decoder as they were before vectorising -------------


def ref_one_hot(groups, weights, num_variables):
    weights = np.asarray(weights, dtype=float)
    sizes = np.fromiter((len(g) for g in groups), dtype=np.int64, count=len(groups))
    flat = (np.concatenate(groups).astype(np.int64) if len(groups) and sizes.sum()
            else np.zeros(0, np.int64))
    linear = -np.bincount(flat, weights=np.repeat(weights, sizes), minlength=num_variables)
    starts = np.cumsum(sizes) - sizes
    rows, cols, biases = [], [], []
    for m in np.unique(sizes[sizes > 1]):
        idx = np.flatnonzero(sizes == m)
        members = flat[starts[idx][:, None] + np.arange(m)]
        a, b = np.triu_indices(int(m), 1)
        rows.append(members[:, a].ravel())
        cols.append(members[:, b].ravel())
        biases.append(np.repeat(2.0 * weights[idx], len(a)))
    cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))
    return linear, (cat(rows, np.int64), cat(cols, np.int64), cat(biases, float)), float(weights.sum())


def ref_build_model(candidates, weights=Weights()):
    puzzle = candidates.puzzle
    n = puzzle.size
    masks = np.asarray(candidates.masks, dtype=np.int64)
    grid = np.asarray(candidates.grid)
    bits = (masks[:, None] >> np.arange(n)[None, :]) & 1
    bits[grid != 0] = 0
    var_cell, d0 = np.nonzero(bits)
    var_digit = d0 + 1
    index = np.full((n * n, n), -1, dtype=np.int64)
    index[var_cell, d0] = np.arange(len(var_cell))
    variables = [(int(c) // n, int(c) % n, int(d)) for c, d in zip(var_cell, var_digit)]
    constraints = []
    starts = np.searchsorted(var_cell, np.arange(n * n + 1))
    for c in np.flatnonzero(grid == 0):
        constraints.append(Constraint(("cell", (int(c) // n, int(c) % n)), "cell",
                                      np.arange(starts[c], starts[c + 1]), weights.cell))
    for k, unit in enumerate(puzzle.units):
        sub = index[list(unit.cells)]
        w = weights.for_kind(unit.kind)
        for d in np.flatnonzero((sub >= 0).any(axis=0)):
            vs = sub[:, d]
            constraints.append(Constraint(("unit", k, int(d) + 1), unit.kind, vs[vs >= 0], w))
    linear, quad, offset = ref_one_hot([c.variables for c in constraints],
                                       [c.weight for c in constraints], len(variables))
    bqm = dimod.BinaryQuadraticModel.from_numpy_vectors(
        linear, quad, offset, dimod.BINARY, variable_order=variables)
    return QuboModel(candidates, weights, bqm, variables, var_cell, var_digit, constraints)


def ref_groups(model):
    v = model.variables
    return [(c.kind, [v[i] for i in c.variables]) for c in model.constraints]


def ref_decode_array(model, samples, energies=None, occurrences=None):
    samples = np.atleast_2d(np.asarray(samples))
    S = samples.shape[0]
    cons = model.constraints
    if cons:
        flat = np.concatenate([c.variables for c in cons]).astype(np.int64)
        ptr = np.cumsum([0] + [len(c.variables) for c in cons])[:-1]
        sums = np.add.reduceat(samples[:, flat].astype(np.int64), ptr, axis=1) if len(flat) else \
            np.zeros((S, len(cons)), np.int64)
        bad = sums != 1
    else:
        bad = np.zeros((S, 0), bool)
    if energies is None:
        energies = [float(model.bqm.energy((row, model.variables))) if model.num_variables
                    else model.bqm.offset for row in samples]
    occurrences = np.ones(S, int) if occurrences is None else occurrences
    fixed = np.asarray(model.fixed)
    on_count = np.zeros((S, len(fixed)), np.int64)
    digit_sum = np.zeros((S, len(fixed)), np.int64)
    if model.num_variables:
        np.add.at(on_count.T, model.var_cell, samples.T.astype(np.int64))
        np.add.at(digit_sum.T, model.var_cell, (samples * model.var_digit[None, :]).T.astype(np.int64))
    grids = np.where(on_count == 1, digit_sum, 0)
    grids = np.where(fixed[None, :] != 0, fixed[None, :], grids)
    out = []
    for s in range(S):
        idx = np.flatnonzero(bad[s])
        broken = [cons[k].label for k in idx]
        kinds = {}
        for k in idx:
            kinds[cons[k].kind] = kinds.get(cons[k].kind, 0) + 1
        grid = grids[s].tolist()
        valid = not broken and model.puzzle.is_solution(grid)
        out.append(Decoded(grid, float(energies[s]), valid, broken, int(occurrences[s]), kinds))
    return out


def ref_decode(model, sampleset):
    rec = sampleset.record
    pos = {v: k for k, v in enumerate(sampleset.variables)}
    order = np.fromiter((pos[v] for v in model.variables), dtype=np.int64, count=model.num_variables)
    samples = (np.asarray(rec.sample)[:, order] if model.num_variables
               else np.zeros((len(sampleset), 0), dtype=np.int8))
    return ref_decode_array(model, samples, rec.energy, rec.num_occurrences)


# -- comparisons -------------------------------------------------------------------------

CASES = [  # (file under data/, how many puzzles)
    ("sudoku9/forum_hardest_1106.txt", 8),
    ("sudoku9/magictour_top1465.txt", 3),
    ("sudoku9/royle_17clue.txt", 3),
    ("generated/sudoku4/unique.txt", 3),
    ("generated/sudoku6/unique_box2x3.txt", 2),
    ("generated/sudoku6/unique_box3x2.txt", 2),
    ("sudoku16/smilingwayne.txt", 2),
    ("sudoku25/gecode.txt", 1),
    ("generated/sudokux9/unique.txt", 3),
    ("jigsaw9/smilingwayne.txt", 3),
    ("jigsawx6/smilingwayne.txt", 2),
]
WEIGHTS = [Weights(), Weights(cell=2, row=1.5, column=0.5, box=3, extra=1.25),
           Weights(cell=0.1, row=0.7, column=0.3, box=0.2, extra=0.11)]


def assert_same_model(ref, new):
    assert new.variables == ref.variables
    assert all(type(x) is int for label in new.variables for x in label)
    assert np.array_equal(new.var_cell, ref.var_cell)
    assert np.array_equal(new.var_digit, ref.var_digit)
    assert list(new.bqm.variables) == list(ref.bqm.variables) and new.bqm == ref.bqm
    a, b = (m.bqm.to_numpy_vectors(variable_order=ref.variables) for m in (ref, new))
    assert np.array_equal(a[0], b[0]) and a[2] == b[2]
    assert all(np.array_equal(x, y) for x, y in zip(a[1], b[1]))
    assert len(new.constraints) == len(ref.constraints)
    for r, c in zip(ref.constraints, new.constraints, strict=True):
        assert (c.label, c.kind, c.weight) == (r.label, r.kind, r.weight)
        assert type(c.weight) is float and c.variables.dtype == r.variables.dtype
        assert np.array_equal(c.variables, r.variables)
    assert new.groups() == ref_groups(ref)


def assert_same_decoded(ref, new):
    assert len(new) == len(ref)
    for r, d in zip(ref, new):
        assert dataclasses.asdict(d) == dataclasses.asdict(r)
        assert type(d.valid) is bool and type(d.energy) is float and type(d.num_occurrences) is int
        assert all(type(v) is int for v in d.grid)


def _models(path, count, weights=WEIGHTS):
    for p in load_puzzles(str(DATA / path))[:count]:
        for rules in [("naked_single", "hidden_single"), ()]:
            c = propagate(p, rules)
            for w in weights:
                yield p, c, w


@pytest.mark.slow
@needs_data
@pytest.mark.parametrize("path,count", CASES, ids=[c[0] for c in CASES])
def test_build_model_matches_reference(path, count):
    for _, c, w in _models(path, count):
        assert_same_model(ref_build_model(c, w), build_model(c, w))


@pytest.mark.slow
@needs_data
@pytest.mark.parametrize("path,count", CASES, ids=[c[0] for c in CASES])
def test_decode_matches_reference(path, count):
    rng = np.random.default_rng(7)
    for p, c, w in _models(path, count, WEIGHTS[1:2]):  # the weights only change the energies
        m = build_model(c, w)
        V = m.num_variables
        solution = m.sample_of_grid(p.solution)
        flipped = np.repeat(solution[None, :], 6, axis=0)
        for r in range(1, 6):
            if V:
                flipped[r, rng.integers(0, V, r)] ^= 1
        arrays = [rng.integers(0, 2, (9, V)).astype(np.int8),
                  np.repeat(solution[None, :], 4, axis=0), flipped]
        for x in arrays:
            assert_same_decoded(ref_decode_array(m, x), decode_array(m, x))
            e, occ = rng.normal(size=len(x)), rng.integers(1, 4, len(x))
            assert_same_decoded(ref_decode_array(m, x, e, occ), decode_array(m, x, e, occ))
            energies = m.bqm.energies((x, m.variables)) if V else np.full(len(x), m.bqm.offset)
            ss = dimod.SampleSet.from_samples((x, m.variables), "BINARY", energy=energies)
            assert_same_decoded(ref_decode(m, ss), decode(m, ss))
            perm = rng.permutation(V)  # a sample set in another variable order
            ss = dimod.SampleSet.from_samples((x[:, perm], [m.variables[i] for i in perm]),
                                              "BINARY", energy=energies, num_occurrences=occ)
            assert_same_decoded(ref_decode(m, ss), decode(m, ss))
        valid = [d.valid for d in decode_array(m, arrays[1])]
        assert valid == [True] * 4


@pytest.mark.slow  # a kernel the default solve does not compile (conftest.py)
@needs_data
def test_decode_of_swap_tabu_samples_matches_reference():
    from qsudoku.samplers import get_sampler

    sampler = get_sampler("swap-tabu")
    for p in load_puzzles(str(DATA / "sudoku9/forum_hardest_1106.txt"))[:6]:
        m = build_model(propagate(p, ("naked_single", "hidden_single")))
        ss = sampler.sample(m.bqm, groups=m.groups(), num_reads=16, seed=0)
        assert_same_decoded(ref_decode(m, ss), decode(m, ss))


@needs_data
def test_model_built_without_builder_caches_decodes_the_same():
    """A QuboModel made directly (no arrays set by build_model) packs its constraints lazily."""
    p = load_puzzles(str(DATA / "generated/sudokux9/unique.txt"))[0]
    m = build_model(propagate(p, ()), WEIGHTS[1])
    bare = dataclasses.replace(m)
    assert "packed" not in vars(bare)
    assert bare.groups() == ref_groups(m)
    x = np.random.default_rng(3).integers(0, 2, (8, m.num_variables))
    assert_same_decoded(ref_decode_array(m, x), decode_array(bare, x))


def test_groups_returns_fresh_lists():
    from qsudoku.io import parse_puzzle

    m = build_model(propagate(parse_puzzle(THREE_GIVENS4), ()))
    first = m.groups()
    first[0][1].append("junk")
    first.append(("cell", []))
    assert m.groups() == ref_groups(m)


def test_one_hot_matches_reference_on_random_groups():
    rng = np.random.default_rng(0)
    for _ in range(300):
        V = int(rng.integers(1, 40))
        sizes = rng.integers(0, 10, int(rng.integers(0, 12)))
        groups = [rng.integers(0, V, size=m).astype(np.int32 if k % 2 else np.int64)
                  for k, m in enumerate(sizes)]
        weights = rng.random(len(groups)) * 3
        (l1, q1, o1), (l2, q2, o2) = ref_one_hot(groups, weights, V), one_hot(groups, weights, V)
        assert np.array_equal(l1, l2) and o1 == o2
        for a, b in zip(q1, q2):
            assert a.dtype == b.dtype and np.array_equal(a, b)


# -- the build in pieces (PIECE_PAIRS couplers at a time, between deadline checks) -------

def _generated_models():
    """Models without data files: seeded blanks of valid grids, blank grids, Sudoku-X."""
    from qsudoku.model.puzzle import Puzzle, diagonal_units

    rng = np.random.default_rng(3)
    grid9 = [(3 * (r % 3) + r // 3 + c) % 9 + 1 for r in range(9) for c in range(9)]
    grid6 = [int(c) for c in "123456456123231564564231312645645312"]
    for full, extra in [(grid6, ()), (grid9, ()), ([0] * 81, diagonal_units(9)),
                        ([0] * 256, ())]:
        givens = [d if rng.random() < 0.3 else 0 for d in full]
        p = Puzzle.standard(givens, extra=extra)
        for rules in [(), ("naked_single",)]:
            for w in WEIGHTS:
                yield propagate(p, rules), w


@pytest.mark.slow
@pytest.mark.parametrize("piece", [1, 7, 1000])
def test_a_build_in_small_pieces_is_the_reference_bit_for_bit(monkeypatch, piece):
    import qsudoku.model.penalty as qubo

    monkeypatch.setattr(qubo, "PIECE_PAIRS", piece)
    for c, w in _generated_models():
        assert_same_model(ref_build_model(c, w), build_model(c, w, deadline=1e300))


@pytest.mark.slow
@needs_data
def test_a_build_in_small_pieces_matches_reference_on_real_puzzles(monkeypatch):
    import qsudoku.model.penalty as qubo

    monkeypatch.setattr(qubo, "PIECE_PAIRS", 5)
    for path, count in CASES:
        for _, c, w in _models(path, min(count, 2), WEIGHTS[1:]):
            assert_same_model(ref_build_model(c, w), build_model(c, w))
