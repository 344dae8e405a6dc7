"""The fast weight inference of ``compile_structure``: the exact method's decisions and weights.

``infer_weights`` checks a BQM against ``sum_g w_g (sum q - 1)**2`` without sorting pair
tables; ``_infer_weights_exact`` is the reference method (and its fallback).  These tests
check, on real models of every shape and on random group structures, that both return the
same weights, and that broken BQMs are rejected by the fast path itself.
"""

import dimod
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from qsudoku.io import load_puzzles, parse_puzzle
from qsudoku.model.propagate import propagate
from qsudoku.model.qubo import Weights, build_model, one_hot
from qsudoku.samplers import penalty_fit as S
from qsudoku.samplers.swap.structure import compile_structure
from _puzzles import THREE_GIVENS4

# (file under data/, number of puzzles): 4x4, 9x9, Sudoku-X, jigsaw and jigsaw-X.
FILES = [("generated/sudoku4/unique.txt", 3), ("sudoku9/forum_hardest_1106.txt", 3),
         ("sudoku9/magictour_top1465.txt", 2), ("generated/sudokux9/unique.txt", 3),
         ("jigsaw9/smilingwayne.txt", 3), ("jigsawx6/smilingwayne.txt", 2)]
WEIGHTS = [Weights(), Weights(cell=2.0, row=1.0, column=3.0, box=0.5, extra=1.5),
           Weights(cell=0.3, row=7.0, column=1.25, box=2.0, extra=0.1)]
NOT_ONE_HOT = "not a sum of one-hot penalties"


def _args(bqm, groups):
    """The arguments ``compile_structure`` passes to ``infer_weights``."""
    variables = list(bqm.variables)
    pos = {v: i for i, v in enumerate(variables)}
    gidx = [np.array([pos[v] for v in labels], np.int64) for _, labels in groups]
    members = np.concatenate(gidx) if gidx else np.zeros(0, np.int64)
    return variables, gidx, [k for k, _ in groups], members, [len(g) for g in gidx]


def fast(bqm, groups):
    return S.infer_weights(bqm, *_args(bqm, groups))


def exact(bqm, groups):
    """Per-group weights by the reference method."""
    variables, gidx, kinds, _, _ = _args(bqm, groups)
    names = sorted(set(kinds))
    kid = np.array([names.index(k) for k in kinds], np.int64)
    lin, quad, off = bqm.to_numpy_vectors(variable_order=variables)
    w = S._infer_weights_exact(len(variables), lin, quad, off, gidx, kid, len(names))
    return None if w is None else w[kid]


def _refuse_fallback(monkeypatch):
    def refuse(*args):
        raise AssertionError("the fast path fell back to the exact method")

    monkeypatch.setattr(S, "_infer_weights_exact", refuse)


@pytest.fixture
def no_fallback(monkeypatch):
    """Fail if the fast path hands the decision to the exact method."""
    _refuse_fallback(monkeypatch)


@pytest.fixture(scope="module")
def real_models(data_dir):
    """Models of the shared puzzles (no propagation and naked singles) with three weightings."""
    models = []
    for name, count in FILES:
        for puzzle in load_puzzles(str(data_dir / name))[:count]:
            for rules in ((), ("naked_single",)):
                for w in WEIGHTS:
                    m = build_model(propagate(puzzle, rules), w)
                    if m.num_variables:
                        models.append((f"{name} {rules} {w}", m))
    return models


@pytest.mark.slow
def test_fast_weights_equal_the_exact_ones_on_real_models(real_models):
    shared_centre = False
    for name, m in real_models:
        expected = np.array([c.weight for c in m.constraints])
        ref = exact(m.bqm, m.groups())
        got = fast(m.bqm, m.groups())
        assert ref is not None and got is not None, name
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0, err_msg=name)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0, err_msg=name)
        extra = [c.variables for c in m.constraints if c.kind == "extra"]
        if extra:
            counts = np.bincount(np.concatenate(extra), minlength=m.num_variables)
            shared_centre |= bool((counts > 1).any())
    # A Sudoku-X centre on both diagonals (two groups of kind 'extra') was among them.
    assert shared_centre


@pytest.mark.slow
def test_fast_path_decides_real_models_alone(real_models, no_fallback):
    for name, m in real_models[::5]:
        assert fast(m.bqm, m.groups()) is not None, name


def _unrelated_pair(m):
    """Two variables of different rows, columns and digits that share no coupler."""
    for a in m.variables:
        for b in m.variables:
            if a[0] != b[0] and a[1] != b[1] and a[2] != b[2] and b not in m.bqm.adj[a]:
                return a, b
    raise AssertionError("no unrelated pair")


def _perturbed(m):
    """Named copies of ``m.bqm``, none a sum of one-hot penalties with positive weights."""
    (u, v), bias = next(iter(m.bqm.quadratic.items()))
    a, b = _unrelated_pair(m)
    first = m.variables[0]
    out = {}
    out["coupler changed"] = x = m.bqm.copy()
    x.set_quadratic(u, v, bias + 0.5)
    out["coupler changed by 0.01"] = x = m.bqm.copy()  # (tolerance: 1e-7 * max |bias|)
    x.set_quadratic(u, v, bias + 0.01)
    out["coupler removed"] = x = m.bqm.copy()
    x.remove_interaction(u, v)
    out["coupler set to zero"] = x = m.bqm.copy()
    x.set_quadratic(u, v, 0.0)
    out["extra coupler"] = x = m.bqm.copy()
    x.add_quadratic(a, b, 1.0)
    out["linear bias changed"] = x = m.bqm.copy()
    x.add_linear(first, 0.25)
    out["offset changed"] = x = m.bqm.copy()
    x.offset += 0.25
    out["negative weights"] = x = m.bqm.copy()
    x.scale(-1.0)
    return out


@pytest.mark.slow
def test_perturbed_bqms_are_rejected_by_the_fast_path(real_models, no_fallback):
    for name, m in real_models[::3]:
        for what, bqm in _perturbed(m).items():
            assert fast(bqm, m.groups()) is None, (name, what)


@pytest.mark.slow
def test_perturbed_bqms_are_rejected_by_the_exact_method_and_compile_structure(real_models):
    for name, m in real_models[::7]:
        for what, bqm in _perturbed(m).items():
            assert exact(bqm, m.groups()) is None, (name, what)
            with pytest.raises(ValueError, match=NOT_ONE_HOT):
                compile_structure(bqm, m.groups())


def test_changes_within_the_tolerance_are_accepted_like_the_exact_method(monkeypatch):
    m = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=()))
    (u, v), bias = next(iter(m.bqm.quadratic.items()))
    a, b = _unrelated_pair(m)
    tiny = m.bqm.copy()
    tiny.set_quadratic(u, v, bias + 1e-9)
    tiny.add_quadratic(a, b, 1e-9)  # below 1e-7 * max |bias|: accepted by both methods
    zero = m.bqm.copy()
    zero.add_quadratic(a, b, 0.0)  # a stored zero coupler between unrelated variables
    cases = (tiny, zero, m.bqm * 3.0)
    refs = [exact(bqm, m.groups()) for bqm in cases]
    _refuse_fallback(monkeypatch)
    for bqm, ref in zip(cases, refs):
        assert ref is not None
        np.testing.assert_allclose(fast(bqm, m.groups()), ref, rtol=1e-12)
    np.testing.assert_allclose(refs[2], 3.0, rtol=1e-12)


def test_fast_path_matches_the_exact_method_under_compile_structure():
    """compile_structure (fast path) gives the weights the exact method reads off."""
    m = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=()),
                    Weights(cell=2.0, row=0.5, column=1.5, box=3.0))
    st_ = compile_structure(m.bqm, m.groups())
    conf = [i for i, c in enumerate(m.constraints) if c.kind not in ("cell", "box")]
    np.testing.assert_allclose(st_.arrays["gw"], exact(m.bqm, m.groups())[conf], rtol=1e-12)
    assert st_.weight_scale == pytest.approx(0.5, rel=1e-12)


def test_a_group_that_repeats_a_variable_goes_to_the_exact_method(monkeypatch):
    calls = []
    real = S._infer_weights_exact
    monkeypatch.setattr(S, "_infer_weights_exact", lambda *a: calls.append(1) or real(*a))
    m = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=()))
    groups = m.groups()
    kind, labels = groups[0]
    groups = [(kind, list(labels) + [labels[0]])] + groups[1:]
    assert fast(m.bqm, groups) is None and calls == [1]
    assert exact(m.bqm, groups) is None


def _random_bqm(draw_groups, kind_weights, num_vars, change):
    """A BQM built from random groups, then maybe changed; and its labelled groups."""
    labels = [f"v{i}" for i in range(num_vars)]
    idx = [np.array(g, np.int64) for _, g in draw_groups]
    lin, (i, j, b), off = one_hot(idx, [kind_weights[k] for k, _ in draw_groups], num_vars)
    lin = lin.copy()
    np.add.at(lin, i[i == j], b[i == j])  # a repeated variable: q * q = q
    keep = i != j
    bqm = dimod.BinaryQuadraticModel.from_numpy_vectors(
        lin, (i[keep], j[keep], b[keep]), off, "BINARY", variable_order=labels)
    what, x, y, delta = change
    if what == "coupler" and bqm.num_interactions:
        (u, v), bias = list(bqm.quadratic.items())[x % bqm.num_interactions]
        bqm.set_quadratic(u, v, bias + delta)
    elif what == "remove" and bqm.num_interactions:
        bqm.remove_interaction(*list(bqm.quadratic)[x % bqm.num_interactions])
    elif what == "add" and x % num_vars != y % num_vars:
        bqm.add_quadratic(labels[x % num_vars], labels[y % num_vars], delta)
    elif what == "linear":
        bqm.add_linear(labels[x % num_vars], delta)
    elif what == "offset":
        bqm.offset += delta
    return bqm, [(k, [labels[v] for v in g]) for k, g in draw_groups]


@pytest.mark.slow
@given(num_vars=st.integers(2, 12),
       groups=st.lists(st.tuples(st.sampled_from("abc"), st.lists(st.integers(0, 11), max_size=6)),
                       min_size=1, max_size=8),
       weights=st.fixed_dictionaries({k: st.sampled_from([0.5, 1.0, 2.0, 3.7, -1.0])
                                      for k in "abc"}),
       change=st.tuples(st.sampled_from(["none", "coupler", "remove", "add", "linear", "offset"]),
                        st.integers(0, 100), st.integers(0, 100),
                        st.sampled_from([0.0, 1e-9, 1e-6, 0.5, -2.0])),
       repeat=st.booleans())
@settings(max_examples=300)
def test_random_group_structures_get_the_exact_methods_decision(num_vars, groups, weights, change,
                                                                 repeat):
    """Groups of one kind that overlap, are empty or singletons (or repeat a variable)."""
    groups = [(k, list(dict.fromkeys(v % num_vars for v in g))) for k, g in groups]
    if repeat and groups[0][1]:
        groups[0][1].append(groups[0][1][0])
    bqm, labelled = _random_bqm(groups, weights, num_vars, change)
    ref, got = exact(bqm, labelled), fast(bqm, labelled)
    assert (ref is None) == (got is None)
    if ref is not None:
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=0)


@pytest.mark.parametrize("where", ["extra coupler", "coupler", "linear", "offset"])
@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_biases_are_rejected(where, value):
    # A NaN coupler between unrelated variables once counted as absent and passed the check.
    m = build_model(propagate(parse_puzzle(THREE_GIVENS4), rules=()))
    bqm = m.bqm.copy()
    if where == "extra coupler":
        bqm.add_quadratic(*_unrelated_pair(m), value)
    elif where == "coupler":
        bqm.set_quadratic(*next(iter(bqm.quadratic)), value)
    elif where == "linear":
        bqm.set_linear(m.variables[0], value)
    else:
        bqm.offset = value
    with pytest.raises(ValueError, match=NOT_ONE_HOT):
        compile_structure(bqm, m.groups())
