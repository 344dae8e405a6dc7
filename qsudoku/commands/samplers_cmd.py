"""``qsudoku samplers``: list the registered samplers and their default parameters.

Defaults are written as ``--param`` and config files take them (TOML values:
``beta_range=[0.5, 4.0]``); for qsudoku's own samplers they are the defaults of the
class's ``sample()``.  "each solve round" is what the solve path passes on top (reads
that it stops at its time limit or a ground state).
"""

from __future__ import annotations

import json

from qsudoku.errors import install_hint
from qsudoku.model.result import jsonable
from qsudoku.samplers import get_spec, names


def register(sub) -> None:
    p = sub.add_parser("samplers", help="list the registered samplers")
    p.set_defaults(run=run)


def run(args) -> int:
    for name in names():
        spec = get_spec(name)
        where = "offline" if spec.offline else "needs a D-Wave token"
        extra = f", extra [{spec.extra}]" if spec.extra else ""
        try:
            defaults = _listed(spec.defaults) or "-"
        except ImportError:  # its class's module needs the extra
            defaults = f"({install_hint(spec.extra)} to list them)"
        rounds = f"; each solve round: {_listed(spec.round)}" if spec.round else ""
        print(f"{name:10s} {spec.summary} ({where}{extra}); defaults: {defaults}{rounds}")
    return 0


def _listed(params) -> str:
    return ", ".join(f"{k}={json.dumps(jsonable(v))}" for k, v in params.items())
