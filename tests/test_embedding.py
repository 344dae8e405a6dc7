"""Embedding cache: keys, atomic files, corrupt or stale files, chain statistics, the
QPU-time estimate, and the ``qsudoku embed`` report."""

from __future__ import annotations

import json
import os
import stat

import dimod
import pytest

from qsudoku.cli import main
from qsudoku.samplers.dwave.embedding import (EmbeddingCache, chain_stats, check_embedding_parameters,
                               default_cache_dir, embed_bqm, estimate_qpu_access_time, graph_key,
                               is_valid_embedding, target_id)
from qsudoku.errors import ConfigError
from _puzzles import SOLVED4, TWO_GIVENS4
from _file_cases import entry_name, qsudoku, state
from _puzzles import ONE_GIVEN4


@pytest.fixture(autouse=True)
def _cache_env(monkeypatch, tmp_path):
    monkeypatch.setenv("QSUDOKU_CACHE_DIR", str(tmp_path / "default-cache"))


def chimera_target(drop_edges=0):
    """A small structured sampler: Chimera C2 (32 qubits), minus some couplers."""
    import dwave.graphs

    g = dwave.graphs.chimera_graph(2)
    edges = sorted(g.edges)[drop_edges:]
    return dimod.StructureComposite(dimod.ExactSolver(), sorted(g.nodes), edges)


def k5():
    """A labelled K5 (needs chains on Chimera), labels shaped like the model's (r, c, d)."""
    labels = [(0, 0, d) for d in range(1, 6)]
    return dimod.BQM({v: -1.0 for v in labels},
                     {(u, v): 2.0 for i, u in enumerate(labels) for v in labels[i + 1:]},
                     1.0, "BINARY")


def test_graph_key_ignores_order_and_direction_not_labels_nodes_or_target():
    a = graph_key([((0, 0, 1), (0, 0, 2)), ((0, 0, 2), (0, 1, 2))], "t")
    assert a == graph_key([([0, 1, 2], [0, 0, 2]), ((0, 0, 1), (0, 0, 2))], "t")
    assert a != graph_key([((0, 0, 1), (0, 0, 2)), ((0, 0, 2), (0, 1, 3))], "t")
    assert a != graph_key([((0, 0, 1), (0, 0, 2)), ((0, 0, 2), (0, 1, 2))], "u")
    assert a != graph_key([((0, 0, 1), (0, 0, 2)), ((0, 0, 2), (0, 1, 2))], "t", [(5, 5, 5)])
    assert len(a) == 64


def test_target_id_follows_the_working_graph():
    full, other, broken = chimera_target(), chimera_target(), chimera_target(drop_edges=1)
    assert target_id(full) == target_id(other) != target_id(broken)
    assert target_id(full) is full._qsudoku_target_id  # remembered on the sampler


def test_embed_then_hit_the_cache_with_the_same_chains(tmp_path):
    target, bqm = chimera_target(), k5()
    cache = EmbeddingCache(tmp_path / "c")
    first = embed_bqm(bqm, target, cache, parameters={"random_seed": 1})
    assert first.found and not first.cache_hit and first.num_variables == 5
    files = list((tmp_path / "c").iterdir())
    assert [f.name for f in files] == [f"{first.key}.json"]  # no temporary files left behind
    record = json.loads(files[0].read_text())
    assert record["format"] == "qsudoku-embedding" and record["num_qubits"] == first.stats()["num_qubits"]
    second = embed_bqm(bqm, target, cache, parameters={"random_seed": 1})
    assert second.cache_hit and second.embedding == first.embedding
    assert second.seconds == pytest.approx(first.seconds, abs=1e-3)
    stats = second.stats()
    assert stats["longest_chain"] >= 2 and stats["num_qubits"] > 5  # K5 needs chains on Chimera
    json.dumps(stats)
    assert is_valid_embedding(second.embedding, bqm.quadratic, bqm.variables, target.adjacency)


@pytest.mark.parametrize("content", [
    "{not json", "", "[]", '{"format": "qsudoku-embedding", "version": 1}',
    None,  # a well-formed file whose chains do not embed the model
])
def test_corrupt_or_stale_cache_file_is_ignored_and_rewritten(content, tmp_path):
    target, bqm = chimera_target(), k5()
    cache = EmbeddingCache(tmp_path)
    key = embed_bqm(bqm, target, cache, parameters={"random_seed": 2}).key
    path = cache.path(key)
    if content is None:
        record = json.loads(path.read_text())
        record["chains"] = [[label, [0]] for label, _ in record["chains"]]  # all on qubit 0
        content = json.dumps(record)
    path.write_text(content)
    again = embed_bqm(bqm, target, cache, parameters={"random_seed": 2})
    assert again.found and not again.cache_hit
    assert cache.load(key) is not None  # rewritten, readable
    assert embed_bqm(bqm, target, cache, parameters={"random_seed": 2}).cache_hit


def test_one_model_on_one_graph_is_embedded_once_whatever_the_seed(tmp_path):
    """The key is the model's graph and the target: a seeded search reuses what an unseeded
    one stored (and the other way round), so ``embed`` pins the embedding of later runs."""
    target, bqm = chimera_target(), k5()
    cache = EmbeddingCache(tmp_path)
    unseeded = embed_bqm(bqm, target, cache)
    seeded = embed_bqm(bqm, target, cache, parameters={"random_seed": 3})
    assert seeded.cache_hit and seeded.key == unseeded.key
    assert seeded.embedding == unseeded.embedding
    assert len(list(tmp_path.glob("*.json"))) == 1
    fresh = embed_bqm(bqm, target, EmbeddingCache(tmp_path / "other"),
                      parameters={"random_seed": 3})
    again = embed_bqm(bqm, target, EmbeddingCache(tmp_path / "third"),
                      parameters={"random_seed": 3})
    assert not fresh.cache_hit and fresh.embedding == again.embedding  # a seeded search


def test_unwritable_cache_does_not_stop_embedding(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    emb = embed_bqm(k5(), chimera_target(), EmbeddingCache(blocker / "sub"))
    assert emb.found and not emb.cache_hit
    assert embed_bqm(k5(), chimera_target(), None).found


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("QSUDOKU_CACHE_DIR", str(tmp_path))
    assert default_cache_dir() == tmp_path / "embeddings"
    monkeypatch.delenv("QSUDOKU_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "qsudoku" / "embeddings"


def test_validity_checks():
    adj = {0: {1, 3}, 1: {0, 2}, 2: {1}, 3: {0}}
    edges, vs = [("a", "b")], ["a", "b"]
    assert is_valid_embedding({"a": [0, 1], "b": [2]}, edges, vs, adj)
    assert not is_valid_embedding({"a": [0, 1], "b": [1, 2]}, edges, vs, adj)  # overlap
    assert not is_valid_embedding({"a": [2, 3], "b": [1]}, edges, vs, adj)     # chain not connected
    assert not is_valid_embedding({"a": [3], "b": [2]}, edges, vs, adj)        # no coupler
    assert not is_valid_embedding({"a": [0]}, edges, vs, adj)                  # missing chain
    assert not is_valid_embedding({"a": [0], "b": [9]}, edges, vs, adj)        # unknown qubit
    assert chain_stats({}) == {"num_qubits": 0, "longest_chain": 0, "mean_chain_length": 0.0}


@pytest.mark.parametrize("params, message", [
    ({"timeout": 0}, "timeout = 0 must be a number > 0"), ({"tries": True}, "tries = True"),
    ({"random_seed": -1}, "random_seed = -1 must be a number in 0"), ({"tries": 10**9}, "in 1..10000"),
    ({"timeout": float("nan")}, "timeout = nan"), ("nonsense", "must be a table"),
    ({"verbose": 1}, "unknown embedding parameter 'verbose'"),
])
def test_embedding_parameters_are_checked(params, message):
    with pytest.raises(ConfigError, match=message):
        check_embedding_parameters(params)


def test_qpu_access_time_estimate_grows_with_reads_and_anneal():
    from dwave.cloud.testing.mocks import qpu_problem_timing_data

    props = {"problem_timing_data": qpu_problem_timing_data("advantage")}
    t10 = estimate_qpu_access_time(props, 200, num_reads=10)
    t100 = estimate_qpu_access_time(props, 200, num_reads=100, label="ignored")
    slow = estimate_qpu_access_time(props, 200, num_reads=100, annealing_time=200.0)
    assert 10_000 < t10 < t100 < slow  # microseconds: ~15 ms programming, then per read
    assert estimate_qpu_access_time({}, 200, num_reads=10) is None


# -- qsudoku embed -----------------------------------------------------------------------------

@pytest.mark.slow
def test_embed_command_reports_each_puzzle_and_a_summary(tmp_path, capsys):
    f = tmp_path / "puzzles.txt"
    f.write_text(f"{TWO_GIVENS4}\n{SOLVED4}\n")
    argv = ["embed", str(f), "--rules", "none", "--seed", "0", "--cache-dir", str(tmp_path / "c")]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    # minorminer holds the interpreter while it searches: the note comes before, on stderr
    assert err.splitlines() == [f"qsudoku: note: embedding {f.name}:1 (42 variables, "
                                "156 interactions): minorminer searches up to 1000 s "
                                "(--time-budget)"]
    assert len(lines) == 3
    assert "42 variables" in lines[0] and "qubits, longest chain" in lines[0] and "cached" not in lines[0]
    assert "QPU access ~" in lines[0] and "solved by propagation" in lines[1]
    assert lines[2].startswith("1/1 models embed on pegasus[16]; median") and "of 5640" in lines[2]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "(cached)" in out and err == ""  # nothing is searched for: nothing to announce


@pytest.mark.slow
def test_embed_command_json_topology_and_failures(tmp_path, capsys):
    cache = ["--cache-dir", str(tmp_path)]
    assert main(["embed", TWO_GIVENS4, "--topology", "zephyr", "--json", *cache]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["topology"] == "zephyr" and row["shape"] == [12, 4] and row["fits"] is True
    assert row["num_variables"] == 32 and row["num_qubits"] >= 32 and row["longest_chain"] >= 1
    assert row["estimated_qpu_access_time_ms"] > 0 and row["embedding_cache_hit"] is False
    tiny = ["--topology", "chimera", "--shape", "1,1,4", "--time-budget", "1", "--tries", "1"]
    assert main(["embed", TWO_GIVENS4, "--rules", "none", *tiny, *cache]) == 1
    assert "DOES NOT FIT on chimera[1, 1, 4]" in capsys.readouterr().out
    assert main(["embed", TWO_GIVENS4, "--shape", "a,b"]) == 2
    assert "--shape 'a,b'" in capsys.readouterr().err
    assert main(["embed", TWO_GIVENS4, "--topology", "zephyr", "--shape", "4"]) == 2
    assert "not a valid zephyr shape" in capsys.readouterr().err


@pytest.mark.slow
def test_embed_pins_the_embedding_of_later_solves_and_their_qpu_line(tmp_path, capsys,
                                                                       monkeypatch):
    """``embed P``, then ``solve P`` with the mock-qpu sampler (seeded or not) and with the
    shipped mock-qpu config: one cache file, a cache hit each time; the QPU cost line
    gives calls, qubits and the estimated access time, never the mock's canned time."""
    from pathlib import Path

    monkeypatch.setenv("QSUDOKU_CACHE_DIR", str(tmp_path))
    config = Path(__file__).resolve().parents[1] / "configs" / "mock-qpu.toml"
    assert main(["embed", TWO_GIVENS4, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["embedding_cache_hit"] is False and row["encoding"] == "one-hot"
    for argv in (["--sampler", "mock-qpu"], ["--sampler", "mock-qpu", "--seed", "5"],
                 ["--config", str(config), "--seed", "1"]):
        main(["solve", TWO_GIVENS4, *argv, "--no-fallback"])
        qpu = [line for line in capsys.readouterr().out.splitlines() if line.startswith("qpu:")]
        assert len(qpu) == 1 and "cache hit True" in qpu[0], argv
        assert "QPU call" in qpu[0] and f"qubits {row['num_qubits']}" in qpu[0]
        assert "(estimated, D-Wave's timing model)" in qpu[0] and "reported" not in qpu[0]
    assert len(list((tmp_path / "embeddings").glob("*.json"))) == 1


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fifo", "link to a FIFO", "link to a huge file"])
def test_embedding_cache_entry_that_cannot_be_read_is_a_miss(tmp_path, entry_name, kind):
    entry = tmp_path / "cache" / "embeddings" / entry_name
    entry.parent.mkdir(parents=True)
    other = tmp_path / ("big" if kind.endswith("huge file") else "fifo")
    if kind == "fifo":
        os.mkfifo(entry)
        other = entry
    elif other.name == "fifo":
        os.mkfifo(other)
        os.symlink(other, entry)
    else:
        with open(other, "wb") as f:
            f.truncate(10 * 1024 ** 3)  # sparse: no disk used
        os.symlink(other, entry)
    before = state(other)
    proc = qsudoku(tmp_path, "embed", ONE_GIVEN4, "--rules", "none", "--time-budget", "5", "--seed", "1",
                   timeout=90)
    assert proc.returncode == 0, proc.stderr
    warning, = [ln for ln in proc.stderr.splitlines() if "SkippedFileWarning" in ln]
    why = "larger than 67,108,864 bytes" if other.name == "big" else "it is a FIFO"
    assert f"cannot read the embedding cache entry {entry}: " in warning
    assert why in warning and warning.endswith("the embedding is found anew")
    if kind != "fifo":  # the link was replaced by a new entry, its target left alone
        assert state(other) == before and stat.S_ISREG(os.lstat(entry).st_mode)
