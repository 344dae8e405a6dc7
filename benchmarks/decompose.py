"""``decompose`` on the offline mock QPU: solved share and what a real QPU run would cost.

Each puzzle is propagated (singles), its reduced QUBO goes to the ``decompose`` sampler
(QPU-sized subproblems, ``--batch`` of them per call on disjoint cached clique
embeddings on Pegasus P16; the mock's physics is simulated annealing on the embedded
problem, chains included), with no exact fallback.  Per set: puzzles solved, median / max
QPU calls per puzzle, subproblems per call, median estimated QPU access time per puzzle
(D-Wave's timing model for one call with all its subproblems, summed over the calls: the
figure a real run would be charged), the largest subproblem and the longest chain seen,
and wall time.

    python benchmarks/decompose.py --limit 10
    python benchmarks/decompose.py --sets norvig_top95 forum_hardest_1106 --limit 100
    python benchmarks/decompose.py --sets forum_hardest_1106 --limit 10 --batch 1
    python benchmarks/decompose.py --sets norvig_top95 forum_hardest_1106 --limit 100 --encoding domain-wall

Wall times depend on the machine's load: the script prints the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from qsudoku import Config
from qsudoku.io import load_puzzles
from qsudoku.solving import build
from qsudoku.solving import sample_round
from qsudoku.samplers import get_sampler, get_spec

DATA = Path(os.environ.get("QSUDOKU_DATA", "/work/shared/data")) / "sudoku9"


def run_set(name: str, args, sampler) -> dict:
    puzzles = load_puzzles(DATA / f"{name}.txt")[args.first: args.limit]
    solved, calls, cost, sizes, chains, walls, parts = 0, [], [], [], [], [], []
    for i, puzzle in enumerate(puzzles, args.first):
        t = time.perf_counter()
        _, model, _ = build(puzzle, Config().with_overrides(encoding=args.encoding))
        if model is None:
            solved += 1
            calls.append(0)
            cost.append(0.0)
            continue
        rnd = sample_round(model, sampler, {
            "subproblem_size": args.size, "strategy": args.strategy, "seed": i,
            "qpu_reads": args.qpu_reads, "num_sweeps": args.num_sweeps,
            "max_calls": args.max_calls, "backjump": args.backjump,
            "memory": args.memory, "refute": not args.no_refute, "batch": args.batch})
        info = rnd.sampleset.info
        solved += rnd.best.valid
        calls.append(info["qpu_calls"])
        parts.append(info["subproblems"])
        cost.append(info["estimated_qpu_access_time"] / 1e6)
        sizes.append(info["max_subproblem_variables"])
        chains.append(info["longest_chain"])
        walls.append(time.perf_counter() - t)
        if args.verbose:
            print(f"  {name}[{i}] vars={model.num_variables} valid={rnd.best.valid} "
                  f"energy={rnd.best.energy:g} calls={info['qpu_calls']} "
                  f"subproblems={info['subproblems']} qpu_s={cost[-1]:.3f} "
                  f"max_sub={sizes[-1]} chain={chains[-1]} "
                  f"backjumps={info['backjumps']} restarts={info['restarts']} "
                  f"wall={walls[-1]:.1f}s", flush=True)
    return {"set": name, "puzzles": len(puzzles), "solved": solved,
            "median_calls": statistics.median(calls), "max_calls": max(calls),
            "per_call": sum(parts) / max(sum(calls), 1),
            "median_qpu_s": statistics.median(cost), "max_subproblem": max(sizes, default=0),
            "longest_chain": max(chains, default=0),
            "median_wall_s": statistics.median(walls) if walls else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["norvig_top95", "forum_hardest_1106"])
    ap.add_argument("--limit", type=int, default=100, help="puzzles up to this index (excluded)")
    ap.add_argument("--first", type=int, default=0, help="the first puzzle's index (a share of a set)")
    ap.add_argument("--size", type=int, default=64, help="subproblem_size")
    ap.add_argument("--strategy", default="construct")
    ap.add_argument("--qpu-reads", type=int, default=10, help="reads per QPU call (registry default)")
    ap.add_argument("--num-sweeps", type=int, default=1000, help="mock physics: SA sweeps")
    ap.add_argument("--max-calls", type=int, default=2000, help="the sampler's default")
    ap.add_argument("--backjump", type=int, default=3, help="construct: retries per state")
    ap.add_argument("--memory", type=float, default=1.0, help="construct: blame bias (0: none)")
    ap.add_argument("--no-refute", action="store_true", help="construct: do not rule out digits that contradict")
    ap.add_argument("--batch", type=int, default=get_spec("decompose").defaults["batch"],
                    help="subproblems per QPU call (the registry's default; 1: one per call)")
    ap.add_argument("--encoding", default="one-hot", help="the model's encoding (domain-wall: "
                    "construct propagates over its slots and sends walls)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    sampler = get_sampler("decompose", qpu_sampler="mock-qpu")
    print(f"decompose, mock QPU (Pegasus P16, SA physics): subproblem_size={args.size} "
          f"strategy={args.strategy} qpu_reads={args.qpu_reads} num_sweeps={args.num_sweeps} "
          f"max_calls={args.max_calls} backjump={args.backjump} "
          f"memory={args.memory:g} refute={not args.no_refute} batch={args.batch} "
          f"encoding={args.encoding}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print("set | solved | median QPU calls | max calls | subproblems per call | "
          "median est. QPU access s | max subproblem vars | longest chain | median wall s")
    for name in args.sets:
        r = run_set(name, args, sampler)
        print(f"{r['set']} | {r['solved']}/{r['puzzles']} | {r['median_calls']:g} | "
              f"{r['max_calls']} | {r['per_call']:.2f} | {r['median_qpu_s']:.3f} | {r['max_subproblem']} | "
              f"{r['longest_chain']} | {r['median_wall_s']:.1f}", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
