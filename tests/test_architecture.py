"""The package's layers, read from its source: imports only go down, no circles, no
private names across modules, and the puzzle's path through the solve stays short.

The layers, lowest first (``qsudoku`` itself is the facade over the solve path):

    errors, checks -> model -> io, exact, samplers -> config -> solving -> qsudoku, testing
    -> experiments -> plots -> commands, cli, __main__
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from _puzzles import SEED004

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "qsudoku"

#: (module prefix, layer): the longest matching prefix decides.
LAYERS = {"qsudoku.errors": 0, "qsudoku.checks": 0, "qsudoku.model": 1, "qsudoku.io": 2,
          "qsudoku.exact": 2, "qsudoku.samplers": 2, "qsudoku.config": 3,
          "qsudoku.solving": 4, "qsudoku": 5, "qsudoku.testing": 5,
          "qsudoku.experiments": 6, "qsudoku.plots": 7,
          "qsudoku.commands": 8, "qsudoku.cli": 8, "qsudoku.__main__": 9}


def layer(module: str) -> int:
    """The layer of ``module`` (its longest registered prefix)."""
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


def modules(root: Path, package: str) -> dict[str, Path]:
    """Dotted name -> file of every module under ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = modules(PACKAGE, "qsudoku")


def imports(module: str, path: Path, known: dict[str, Path]):
    """``(target module, imported name or "")`` for every import in ``path``, lazy ones too."""
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_pkg else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("qsudoku"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                yield (sub, "") if sub in known else (target, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("qsudoku"):
                    yield alias.name, ""


EDGES = sorted({(m, t, n) for m, p in MODULES.items() for t, n in imports(m, p, MODULES)})


def test_the_scan_sees_the_package():
    assert {"qsudoku.solving.policy", "qsudoku.model.qubo", "qsudoku.cli"} <= set(MODULES)
    assert ("qsudoku.solving.policy", "qsudoku.model.qubo", "") in EDGES or any(
        m == "qsudoku.solving.policy" and t.startswith("qsudoku.model") for m, t, _ in EDGES)


def test_imports_only_go_down():
    up = [(m, t) for m, t, _ in EDGES
          if t in MODULES and layer(t) > layer(m) and not m.startswith(t + ".")]
    assert up == []


def test_no_import_circle():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for m, t, _ in EDGES:
        # a package's __init__ re-exporting its own modules is not a cycle through them
        if t in MODULES and t != m and not t.startswith(m + ".") and not m.startswith(t + "."):
            graph[m].add(t)
    state: dict[str, int] = {}
    cycles = []

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == []


@pytest.mark.slow
@pytest.mark.parametrize("where", ["qsudoku", "benchmarks"])
def test_no_private_name_across_modules(where):
    known = MODULES if where == "qsudoku" else {**MODULES, **modules(ROOT / where, where)}
    private = [(m, t, n) for m, p in known.items() if m.split(".")[0] == where
               for t, n in imports(m, p, MODULES)
               if t != m and (n.startswith("_") and not n.startswith("__")
                              or any(part.startswith("_") and not part.startswith("__")
                                     for part in t.split(".")))]
    assert private == []


def test_the_puzzle_path_is_short():
    """Following the puzzle object from ``qsudoku.solve`` through every call that gets it:
    at most 20 module entries and at most 6 climbs back up to a higher layer."""
    import qsudoku

    puzzle = qsudoku.parse_puzzle(
        SEED004)
    seen: list[str] = []

    def tracer(frame, event, arg):
        module = frame.f_globals.get("__name__", "")
        if event == "call" and module.startswith("qsudoku") and any(
                v is puzzle for v in list(frame.f_locals.values())):
            seen.append(module)

    config = qsudoku.Config().with_overrides(seed=1)
    sys.settrace(tracer)
    try:
        result = qsudoku.solve(puzzle, config)
    finally:
        sys.settrace(None)
    assert result.valid
    path = [m for i, m in enumerate(seen) if i == 0 or m != seen[i - 1]]
    climbs = sum(layer(b) > layer(a) for a, b in zip(path, path[1:]))
    assert "qsudoku.model.propagate" in path
    assert len(path) <= 20, path
    assert climbs <= 6, path
