"""``qsudoku qubo``: write the reduced model of a puzzle for other tools."""

from __future__ import annotations

import json
import numbers
import os
import shutil
import sys

from qsudoku.errors import ConfigError
from qsudoku.io.output import atomic_open, atomic_write, is_stdout
from qsudoku.solving import build
from qsudoku.model.encodings import variable_name
from qsudoku.commands.common import (add_config_args, add_index_arg, add_input_args,
                                     check_writes, config_from_args, pick_puzzle)

FORMATS = ("bqm", "json", "coo")


def register(sub) -> None:
    p = sub.add_parser(
        "qubo", help="write the reduced QUBO of a puzzle",
        description="Write the reduced model: 'bqm' is dimod's own file format "
                    "(dimod.BinaryQuadraticModel.from_file), 'json' a plain QUBO with the "
                    "variable labels and constraint groups, 'coo' lines 'i j bias' with "
                    "the label of every index in the header. The format follows the "
                    "extension of -o unless --to is given. -o - writes to standard "
                    "output (bqm, a binary format, only when it is redirected).")
    add_model_args(p, FORMATS, "output file (- for standard output)")
    p.set_defaults(run=run)


def run(args) -> int:
    cfg = config_from_args(args)
    fmt = pick_model_format(args.output, args.to, {f".{f}": f for f in FORMATS}, FORMATS)
    check_writes(args, [args.output], binary=fmt == "bqm")
    puzzle = pick_puzzle(args)
    cands, model, _ = build(puzzle, cfg)
    said = sys.stderr if is_stdout(args.output) else sys.stdout  # stdout holds the model
    if model is None:
        print(f"{puzzle.name}: propagation solves it; the model has no variables", file=said)
        from qsudoku.model.qubo import build_model
        model = build_model(cands, cfg.qubo.weights, encoding=cfg.qubo.encoding)
    write_model(model, args.output, fmt)
    if not is_stdout(args.output):
        print(f"wrote {args.output} ({fmt}): {model_summary(model)}")
    return 0


def model_summary(model) -> str:
    """``212 variables, 1301 interactions, 324 constraints``."""
    return (f"{model.num_variables} variables, {model.num_interactions} interactions, "
            f"{len(model.constraints)} constraints")


def add_model_args(p, formats, output_help: str) -> None:
    """The arguments of ``export`` and ``qubo``: one puzzle, its configuration, ``-o FILE``
    and ``--to`` one of ``formats``."""
    add_input_args(p, many=False)
    add_config_args(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE", help=output_help)
    p.add_argument("--to", choices=list(formats), help="output format (default: from the extension)")
    add_index_arg(p)


def pick_model_format(output: str, to: str | None, extensions: dict, formats) -> str:
    """The output format: ``to`` if given, else the one of ``output``'s extension."""
    fmt = to or extensions.get(os.path.splitext(output)[1].lower())
    if fmt is None:
        raise ConfigError(f"cannot tell the format of {output!r}; use --to {'|'.join(formats)}")
    return fmt


def model_to_json(model) -> dict:
    """A plain, self-describing QUBO: index-based terms plus labels and groups."""
    bqm = model.bqm
    pos = {v: i for i, v in enumerate(model.variables)}
    return {
        "format": "qsudoku-qubo-1",
        "vartype": "BINARY",
        "puzzle": model.puzzle.format(),
        "size": model.puzzle.size,
        "encoding": model.encoding,
        "variables": [list(v) for v in model.variables],
        "linear": [float(bqm.get_linear(v)) for v in model.variables],
        "quadratic": [[pos[u], pos[v], float(b)] for (u, v), b in bqm.quadratic.items()],
        "offset": float(bqm.offset),
        "constraints": [{"label": _lab(c.label), "kind": c.kind, "weight": float(c.weight),
                         "variables": c.variables.tolist()} for c in model.constraints],
    }


def _lab(label):
    return [list(map(int, x)) if isinstance(x, tuple) else
            int(x) if isinstance(x, numbers.Integral) else x for x in label]


def write_model(model, path: str, fmt: str) -> None:
    """Write ``model`` to ``path`` atomically in ``fmt`` (bqm, json or coo); ``-`` is
    standard output.  Every number is written as a plain number (``108.0``).

    >>> from qsudoku.io import parse_puzzle
    >>> from qsudoku.model.propagate import propagate
    >>> from qsudoku.model.qubo import build_model
    >>> model = build_model(propagate(parse_puzzle("1..." "..2." "...." "...4"), ()))
    >>> write_model(model, "-", "coo")  # doctest: +ELLIPSIS
    # qsudoku QUBO (BINARY), offset 52.0
    # 0 = r1c2#2
    ...
    """
    if fmt == "bqm":
        with model.bqm.to_file() as src:
            atomic_write(path, lambda dst: shutil.copyfileobj(src, dst))
    elif fmt == "json":
        with atomic_open(path) as f:
            json.dump(model_to_json(model), f)
    else:
        data = model_to_json(model)
        with atomic_open(path) as f:
            f.write(f"# qsudoku QUBO (BINARY), offset {data['offset']!r}\n")
            for i, v in enumerate(data["variables"]):
                f.write(f"# {i} = {variable_name(tuple(v))}\n")
            for i, b in enumerate(data["linear"]):
                f.write(f"{i} {i} {b!r}\n")
            for i, j, b in data["quadratic"]:
                f.write(f"{min(i, j)} {max(i, j)} {b!r}\n")
