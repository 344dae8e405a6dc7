"""``qsudoku embed``: does the reduced model fit a QPU?  An offline embedding report.

For each puzzle: propagate, build the reduced QUBO, embed its graph with minorminer into a
perfect QPU graph (Pegasus P16 by default, Zephyr Z12, Chimera C16) and print one line:
variables, qubits, chains, time to embed and the estimated QPU access time of one call.
Embeddings land in the cache the ``mock-qpu`` sampler reads.  Exit 0 if every model fits,
1 if some do not (or have no solution), 2 on bad input.  A note on stderr precedes each
search that is not cached.
"""

from __future__ import annotations

import statistics
import sys

from qsudoku.commands.common import (SecondsAction, add_input_args, add_option, add_options,
                                     error_reporter, iter_inputs, parse_rules, report)

TOPOLOGY_CHOICES = ("pegasus", "zephyr", "chimera")
#: minorminer's own ``timeout`` (seconds), which ``--time-budget`` overrides.
DEFAULT_MINORMINER_TIMEOUT = 1000.0


def register(sub) -> None:
    p = sub.add_parser("embed", help="offline report: does each reduced model fit a QPU?",
                       description="Embed each puzzle's reduced QUBO into a QPU graph (offline, "
                                   "minorminer) and report qubits, chain lengths and time. "
                                   "Exit 0 if every model fits, 1 if some do not, 2 on bad input.")
    add_input_args(p)
    g = p.add_argument_group("model")
    g.add_argument("--config", metavar="FILE", help="TOML config (its [propagate] rules apply)")
    g.add_argument("--rules", metavar="R1,R2", help="propagation rules (default: the config's)")
    add_options(g, "--encoding")
    g = p.add_argument_group("target and embedding")
    g.add_argument("--topology", choices=TOPOLOGY_CHOICES, default="pegasus",
                   help="QPU graph: pegasus (Advantage, P16), zephyr (Advantage2, Z12), "
                        "chimera (2000Q, C16); default pegasus")
    g.add_argument("--shape", metavar="N[,T]", help="graph shape, e.g. 16 (pegasus), 12,4 "
                   "(zephyr), 16,16,4 (chimera)")
    add_option(g, "--time-budget", action=SecondsAction, metavar="S", dest="timeout",
               old=("--timeout",), help="seconds minorminer may search for each puzzle's "
                                        "embedding, its initialization included (default "
                                        "1000)")
    g.add_argument("--tries", type=int, metavar="N", help="minorminer restarts")
    g.add_argument("--patience", type=int, metavar="N",
                   help="minorminer chainlength_patience (0 = fastest, longer chains)")
    g.add_argument("--seed", type=int, metavar="S", help="minorminer random_seed")
    g.add_argument("--reads", type=int, default=100, metavar="N",
                   help="num_reads for the QPU access-time estimate (default 100)")
    g.add_argument("--cache-dir", metavar="DIR", help="embedding cache (default "
                   "$QSUDOKU_CACHE_DIR/embeddings or ~/.cache/qsudoku/embeddings)")
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    add_options(p, "--json")
    p.set_defaults(run=run)


def _config(args):
    from qsudoku.config import load_config

    return load_config(args.config).with_overrides(rules=parse_rules(args.rules),
                                                   encoding=args.encoding)


def _embedding_parameters(args) -> dict:
    from qsudoku.samplers.dwave.embedding import check_embedding_parameters

    if args.reads < 1:
        from qsudoku.errors import ConfigError

        raise ConfigError(f"--reads {args.reads} must be >= 1")
    params = {"timeout": args.timeout, "tries": args.tries, "chainlength_patience": args.patience,
              "random_seed": args.seed}
    return check_embedding_parameters({k: v for k, v in params.items() if v is not None})


def _shape(text):
    from qsudoku.errors import ConfigError

    if text is None:
        return None
    try:
        return tuple(int(x) for x in text.replace("x", ",").split(","))
    except ValueError:
        raise ConfigError(f"--shape {text!r} must be integers separated by commas") from None


def _target(args):
    from qsudoku.errors import BackendUnavailableError, install_hint

    try:
        from qsudoku.samplers.dwave.qpu import mock_child

        return mock_child(args.topology, _shape(args.shape))
    except ImportError as e:
        raise BackendUnavailableError(f"qsudoku embed needs the D-Wave packages ({e.name or e}); "
                                      f"run: {install_hint('qpu')}") from None


def report_row(puzzle, model, embedded, child, reads: int) -> dict:
    """The JSON row of one puzzle (``model``/``embedded`` are ``None`` if propagation solved it)."""
    from qsudoku.samplers.dwave.embedding import estimate_qpu_access_time

    topo = child.properties["topology"]
    row = {"name": puzzle.name, "size": puzzle.size, "kind": puzzle.kind,
           "topology": topo["type"], "shape": list(topo["shape"]),
           "encoding": model.encoding if model else None,
           "num_variables": model.num_variables if model else 0,
           "num_interactions": model.num_interactions if model else 0}
    if model is None:
        return {**row, "fits": True, "solved_by_propagation": True}
    stats = embedded.stats()
    row.update(fits=embedded.found, solved_by_propagation=False,
               **{k: stats[k] if embedded.found else None
                  for k in ("num_qubits", "longest_chain", "mean_chain_length")},
               embedding_time=stats["embedding_time"], embedding_cache_hit=embedded.cache_hit,
               qubits_available=len(child.nodelist))
    if not embedded.found:
        row["why"] = embedded.why or None
    est = estimate_qpu_access_time(child.properties, stats["num_qubits"], num_reads=reads) \
        if embedded.found else None
    row["estimated_qpu_access_time_ms"] = round(est / 1e3, 2) if est is not None else None
    row["estimate_num_reads"] = reads
    return row


def render_row(row: dict) -> str:
    """One human-readable line."""
    name = row["name"] or "puzzle"
    if row["solved_by_propagation"]:
        return f"{name}  solved by propagation: nothing to embed"
    head = f"{name}  {row['num_variables']} variables, {row['num_interactions']} interactions -> "
    where = f"{row['topology']}{row['shape']}"
    if not row["fits"]:
        why = row.get("why") or f"no embedding found in {row['embedding_time']:.1f} s"
        return head + f"DOES NOT FIT on {where} ({why})"
    cached = " (cached)" if row["embedding_cache_hit"] else ""
    est = row["estimated_qpu_access_time_ms"]
    cost = f", QPU access ~{est:.1f} ms per {row['estimate_num_reads']} reads" if est else ""
    return head + (f"{row['num_qubits']} qubits, longest chain {row['longest_chain']}, mean "
                   f"{row['mean_chain_length']:.2f}, embedded in {row['embedding_time']:.2f} s"
                   f"{cached}{cost}")


def summary(rows: list[dict]) -> str:
    """One line over many rows: how many fit, median qubits, longest chain and time."""
    sampled = [r for r in rows if not r["solved_by_propagation"]]
    fit = [r for r in sampled if r["fits"]]
    if not rows:
        return "no puzzles"
    where = f"{rows[0]['topology']}{rows[0]['shape']}"
    text = f"{len(fit)}/{len(sampled)} models embed on {where}"
    if fit:
        med = lambda k: statistics.median(r[k] for r in fit)  # noqa: E731
        text += (f"; median {med('num_qubits'):g} qubits (of {fit[0]['qubits_available']}), "
                 f"median longest chain {med('longest_chain'):g}, median variables "
                 f"{med('num_variables'):g}, median embedding time {med('embedding_time'):.1f} s")
    if len(rows) > len(sampled):
        text += f"; {len(rows) - len(sampled)} solved by propagation"
    return text


def search_note(name: str, model, timeout: float | None) -> str:
    """The note printed on stderr before minorminer searches for a puzzle's embedding
    (it holds the interpreter meanwhile, so this is said before, not during).

    >>> from types import SimpleNamespace as NS
    >>> search_note("s1", NS(num_variables=212, num_interactions=1301), None)
    'qsudoku: note: embedding s1 (212 variables, 1301 interactions): minorminer searches up to 1000 s (--time-budget)'
    """
    limit = timeout if timeout else DEFAULT_MINORMINER_TIMEOUT
    return (f"qsudoku: note: embedding {name or 'puzzle'} ({model.num_variables} variables, "
            f"{model.num_interactions} interactions): minorminer searches up to {limit:g} s "
            "(--time-budget)")


def run(args) -> int:
    from qsudoku.samplers.dwave.embedding import EmbeddingCache, embed_bqm
    from qsudoku.errors import ContradictionError, exit_code_for
    from qsudoku.solving import build

    cfg = _config(args)
    params = _embedding_parameters(args)
    child = _target(args)
    cache = None if args.no_cache else EmbeddingCache(args.cache_dir) if args.cache_dir \
        else EmbeddingCache()
    rows: list[dict] = []
    for puzzle in iter_inputs(args, error_reporter(args, code=2)):
        try:
            _, model, _ = build(puzzle, cfg)
        except ContradictionError as e:  # 1 no solution, 2 duplicate givens
            report(args, {"name": puzzle.name, "error": str(e)},
                   f"{puzzle.name or 'puzzle'}  NO SOLUTION: {e}", exit_code_for(e))
            continue
        note = search_note(puzzle.name, model, params.get("timeout")) if model else ""
        embedded = embed_bqm(model.bqm, child, cache, parameters=params, bounded=True,
                             on_search=lambda: print(note, file=sys.stderr, flush=True)) \
            if model else None  # --time-budget holds
        row = report_row(puzzle, model, embedded, child, args.reads)
        rows.append(row)
        report(args, row, render_row(row), 0 if row["fits"] else 1)
    if len(rows) > 1 and not args.json:
        print(summary(rows), flush=True)
    return args.exit_so_far
