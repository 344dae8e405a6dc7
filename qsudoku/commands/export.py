"""``qsudoku export``: write a puzzle in the classical formulations for other solvers."""

from __future__ import annotations

from functools import partial

from qsudoku.exact.exports import EXPORTS
from qsudoku.io.output import is_stdout, write_text
from qsudoku.commands.common import check_writes, config_from_args, pick_puzzle
from qsudoku.commands.qubo import add_model_args, model_summary, pick_model_format, write_model

#: Format -> what it is: the classical formulations of the exact-backend table, then the QUBO.
FORMATS = {**{name: e.summary for name, e in EXPORTS.items()},
           "bqm": "dimod's BQM file (dimod.BinaryQuadraticModel.from_file)",
           "qubo-json": "plain QUBO as JSON, with variable labels and constraint groups"}

#: File extension -> format (``.lp`` is the LP format; clingo programs use ``--to lp-asp``).
EXTENSIONS = {**{ext: name for name, e in EXPORTS.items() for ext in e.extensions},
              ".bqm": "bqm", ".json": "qubo-json"}


def register(sub) -> None:
    p = sub.add_parser(
        "export", help="write a puzzle as CNF, LP/MPS, MiniZinc, ASP, TPTP, BQM or QUBO",
        description="Write one puzzle in a classical formulation. All but mzn and tptp encode "
                    "the reduced problem (the candidates left by --rules propagation; "
                    "--rules none keeps every candidate the givens allow); mzn restricts "
                    "cells to the same candidates and tptp encodes the givens. Formats: "
                    + "; ".join(f"{k}: {v}" for k, v in FORMATS.items())
                    + ". The format follows the extension of -o unless --to is given "
                      "(.lp means LP; use --to lp-asp for a clingo file).")
    add_model_args(p, FORMATS, "output file (- for standard output; bqm, a binary format, "
                                "only when it is redirected)")
    p.set_defaults(run=run)


#: The export format: ``--to`` if given, else the one of the output's extension.
pick_format = partial(pick_model_format, extensions=EXTENSIONS, formats=FORMATS)


def render(puzzle, cands, fmt: str, weights=None, encoding: str = "one-hot"):
    """The export as text (or, for ``bqm``, the model to write); returns ``(payload, summary)``."""
    if fmt in EXPORTS:
        from qsudoku.exact.problem import Problem

        return EXPORTS[fmt].write(Problem.from_candidates(cands))
    from qsudoku.model.qubo import Weights, build_model
    model = build_model(cands, weights or Weights(), encoding=encoding)
    return model, model_summary(model)


def write_export(payload, path: str, fmt: str) -> None:
    """Write ``payload`` (text, or a QuboModel for bqm/qubo-json) atomically to ``path``."""
    if fmt in ("bqm", "qubo-json"):
        write_model(payload, path, "bqm" if fmt == "bqm" else "json")
        return
    write_text(path, payload)


def run(args) -> int:
    from qsudoku.model.propagate import propagate

    cfg = config_from_args(args)
    fmt = pick_format(args.output, args.to)
    check_writes(args, [args.output], binary=fmt == "bqm")
    puzzle = pick_puzzle(args)
    cands = propagate(puzzle, cfg.propagate.rules)
    payload, summary = render(puzzle, cands, fmt, cfg.qubo.weights, cfg.qubo.encoding)
    write_export(payload, args.output, fmt)
    if not is_stdout(args.output):  # standard output holds the export
        note = " (propagation solves it: nothing left to choose)" if cands.solved else ""
        print(f"wrote {args.output} ({fmt}): {summary}{note}")
    return 0
