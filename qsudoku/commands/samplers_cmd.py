"""``qsudoku samplers``: list the registered samplers and their default parameters.

Defaults are written as ``--param`` and config files take them (TOML values:
``beta_range=[0.5, 4.0]``).
"""

from __future__ import annotations

import json

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
        defaults = ", ".join(f"{k}={json.dumps(jsonable(v))}" for k, v in spec.defaults.items()) or "-"
        print(f"{name:10s} {spec.summary} ({where}{extra}); defaults: {defaults}")
    return 0
