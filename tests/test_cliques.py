"""Clique packings on Chimera, Zephyr and Pegasus mocks: as many disjoint cliques as fit,
found once per graph, size and count, and no aborting minorminer search for small ones."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("dwave.system")
pytest.importorskip("minorminer")

from dwave.system.testing import MockDWaveSampler  # noqa: E402

from qsudoku.samplers.dwave.cliques import (Packed, clique_embedding, copies_that_fit,  # noqa: E402
                                            packed_size, search_size)
from qsudoku.samplers.dwave.embedding import is_valid_embedding  # noqa: E402


def _mock(topology, shape):
    return MockDWaveSampler(topology_type=topology, topology_shape=shape)


def _disjoint_cliques(emb, copies, size, adjacency):
    qubits = [q for chain in emb.values() for q in chain]
    pairs = [(a, b) for a in range(size) for b in range(a + 1, size)]
    return len(qubits) == len(set(qubits)) and all(
        is_valid_embedding({i: emb[Packed(j, i)] for i in range(size)}, pairs, range(size),
                           adjacency) for j in range(copies))


@pytest.mark.slow
@pytest.mark.parametrize("topology, shape", [("chimera", [4, 4, 4]), ("zephyr", [4, 4]),
                                             ("pegasus", [4])])
def test_the_copies_that_fit_are_packed_and_one_more_is_not(topology, shape):
    sampler = _mock(topology, shape)
    counts = [copies_that_fit(n, sampler, copies=12) for n in (8, 16, 24)]
    assert counts == sorted(counts, reverse=True)  # fewer copies of larger cliques
    for n, k in zip((8, 16, 24), counts):
        if k > 1:
            packed = clique_embedding(n, sampler, copies=k)
            assert packed.found and _disjoint_cliques(packed.embedding, k, n, sampler.adjacency)
            assert k == 12 or not clique_embedding(n, sampler, copies=k + 1).found
    assert counts[0] > 1 and counts[-1] < 12


def test_the_three_families_hold_different_batches():
    small = {t: copies_that_fit(16, _mock(t, s), copies=8)
             for t, s in [("chimera", [4, 4, 4]), ("zephyr", [4, 4]), ("pegasus", [4])]}
    assert small == {"chimera": 1, "zephyr": 8, "pegasus": 2}


def test_the_fit_is_found_once_per_graph_size_and_count(monkeypatch):
    from minorminer import busclique

    sampler = _mock("zephyr", [4, 3])
    assert copies_that_fit(20, sampler, copies=6) == 2
    calls = []
    real = busclique.find_clique_embedding
    monkeypatch.setattr(busclique, "find_clique_embedding",
                        lambda *a, **k: calls.append(a) or real(*a, **k))
    assert copies_that_fit(20, sampler, copies=6) == 2
    assert copies_that_fit(17, sampler, copies=6) == 2  # the same packed size, 24
    assert clique_embedding(24, sampler, copies=2).found  # the prefix of the failed packing
    assert calls == []


def test_a_single_clique_may_fit_where_no_packed_one_does():
    sampler = _mock("zephyr", [4, 1])  # its largest clique has 14 variables
    assert packed_size(10) == 16 and copies_that_fit(10, sampler, copies=4) == 1
    assert copies_that_fit(15, sampler, copies=4) == 0


@pytest.mark.slow
def test_small_cliques_are_searched_at_a_size_minorminer_survives():
    assert [search_size(n, "zephyr", 4) for n in (2, 5, 8, 9)] == [2, 9, 9, 9]
    assert [search_size(n, "chimera", 4) for n in (3, 4, 5)] == [5, 5, 5]
    assert search_size(5, "pegasus", 12) == 5
    # minorminer 0.2.22 aborts (or first grows without bound) on these: a bounded child
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30));"
            "from dwave.system.testing import MockDWaveSampler as M;"
            "from qsudoku.samplers.dwave.cliques import copies_that_fit as f;"
            "print(f(8, M(topology_type='zephyr', topology_shape=[4, 4]), copies=3),"
            "f(3, M(topology_type='chimera', topology_shape=[2, 2, 8]), copies=2))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert out.returncode == 0, out.stderr[-500:]
    assert out.stdout.split() == ["3", "2"]


def test_zephyr_tiles_above_four_have_no_clique_embedder():
    from qsudoku.errors import BackendUnavailableError

    with pytest.raises(BackendUnavailableError, match="tile size of 4 or less"):
        copies_that_fit(8, _mock("zephyr", [2, 5]), copies=2)


def test_the_qpu_sampler_lowers_a_batch_only_in_clique_mode():
    from qsudoku.samplers import get_sampler

    sampler = get_sampler("mock-qpu", topology="chimera", shape=[4, 4, 4], cache=False)
    assert sampler.fit_batch(8, 6) == 6
    sampler.clique = True
    assert (sampler.fit_batch(8, 6), sampler.fit_batch(8, 3), sampler.fit_batch(16, 6)) == (4, 3, 1)
