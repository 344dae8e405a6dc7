"""``qsudoku export``: every format is solved back (CNF, LP/MPS, ASP, BQM) or checked for
syntax and content (MiniZinc, TPTP: the known solution satisfies every axiom, a broken one
does not)."""

import io
import json
import re
import sys
import os
import pty
import subprocess

import dimod
import numpy as np
import pytest

from qsudoku.cli import main
from qsudoku.commands.export import FORMATS, pick_format
from qsudoku.errors import ConfigError
from qsudoku.exact.mzn import MODEL
from qsudoku.io import Rules, load_puzzles, parse_puzzle

from _shared import DATA, SEEDS, needs_data
from _puzzles import FOUR_GIVENS4, ONE_GIVEN4, SEED004, SEED004_SOLUTION
from _io_cases import EASY, qsudoku


def _export(tmp_path, puzzle, fmt, *extra):
    out = tmp_path / f"model.{fmt}"
    assert main(["export", puzzle, "--to", fmt, "-o", str(out), *extra]) == 0
    return out


def _jigsawx6():
    path = str(DATA / "jigsawx6/smilingwayne.txt")
    return path, load_puzzles(path)[0]


# -- formats a solver here reads: solved back ----------------------------------------------
@pytest.mark.parametrize("rules", [[], ["--rules", "none"]])
def test_cnf_is_solved_by_pysat_and_proves_uniqueness(tmp_path, rules):
    from pysat.formula import CNF
    from pysat.solvers import Solver

    path = _export(tmp_path, SEED004, "cnf", *rules)
    text = path.read_text()
    names = {int(i): (int(r), int(c), int(d)) for i, r, c, d in
             re.findall(r"^c var (\d+) = r(\d+)c(\d+)#(\d+)$", text, re.M)}
    fixed = re.search(r"^c qsudoku propagated: (\S+)$", text, re.M).group(1)
    cnf = CNF(from_string=text)
    assert cnf.nv == len(names) and len(cnf.clauses) == int(text.split("p cnf ")[1].split()[1])
    with Solver(name="minisat22", bootstrap_with=cnf.clauses) as s:
        assert s.solve()
        model = s.get_model()
        grid = list(fixed)
        for x in model:
            if x > 0:
                r, c, d = names[x]
                grid[(r - 1) * 9 + c - 1] = str(d)
        assert "".join(grid) == SEED004_SOLUTION
        s.add_clause([-x for x in model if x > 0])
        assert not s.solve()  # unique


@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_lp_and_mps_are_solved_by_highs(tmp_path, fmt):
    from qsudoku.exact.lp import read_solution

    path = _export(tmp_path, SEED004, fmt, "--rules", "none")
    status, values = read_solution(str(path))
    assert status == "Optimal"
    grid = list(SEED004)
    for name, x in values.items():
        if x > 0.5:
            _, r, c, d = name.split("_")
            grid[(int(r) - 1) * 9 + int(c) - 1] = d
    assert "".join(grid) == SEED004_SOLUTION


@needs_data
def test_asp_is_solved_by_clingo_with_exactly_one_answer_set(tmp_path):
    import clingo

    spec, p = _jigsawx6()
    path = _export(tmp_path, spec, "lp-asp", "--rules", "none")
    ctl = clingo.Control(["0", "--warn=none"])
    ctl.load(str(path))
    ctl.ground([("base", [])])
    models = []
    ctl.solve(on_model=lambda m: models.append(m.symbols(shown=True)))
    assert len(models) == 1
    grid = [0] * 36
    for s in models[0]:
        r, c, d = (a.number for a in s.arguments)
        grid[(r - 1) * 6 + c - 1] = d
    assert grid == list(p.solution)


@needs_data
def test_bqm_is_solved_by_the_annealer(tmp_path):
    from dwave.samplers import SimulatedAnnealingSampler

    p = load_puzzles(str(DATA / "generated/jigsaw4/unique.txt"))[0]
    path = _export(tmp_path, p.format(), "bqm", "--rules", "none", "--regions", _regions(p))
    with open(path, "rb") as f:
        bqm = dimod.BinaryQuadraticModel.from_file(f)
    ss = SimulatedAnnealingSampler().sample(bqm, num_reads=20, num_sweeps=2000, seed=3)
    assert ss.first.energy == pytest.approx(0.0)
    grid = list(p.givens)
    for (r, c, d), x in ss.first.sample.items():
        if x:
            grid[r * 4 + c] = d
    assert grid == list(p.solution)


def test_qubo_json_energy_is_zero_at_the_solution(tmp_path):
    path = _export(tmp_path, SEED004, "qubo-json")
    data = json.loads(path.read_text())
    assert data["format"] == "qsudoku-qubo-1" and data["vartype"] == "BINARY"
    x = np.array([int(SEED004_SOLUTION[r * 9 + c]) == d for r, c, d in data["variables"]], dtype=float)
    e = data["offset"] + np.dot(data["linear"], x) + sum(b * x[i] * x[j]
                                                         for i, j, b in data["quadratic"])
    assert e == pytest.approx(0.0)
    x[0] = 1 - x[0]
    assert data["offset"] + np.dot(data["linear"], x) + sum(
        b * x[i] * x[j] for i, j, b in data["quadratic"]) > 0.5


# -- MiniZinc: syntax and content ----------------------------------------------------------
def _balanced(text):
    stack, pairs = [], {")": "(", "]": "[", "}": "{"}
    for ch in re.sub(r'"[^"]*"|%[^\n]*', "", text):
        if ch in "([{":
            stack.append(ch)
        elif ch in ")]}":
            if not stack or stack.pop() != pairs[ch]:
                return False
    return not stack


def _mzn_array(text, name):
    body = re.search(rf"^{name} = \[\|(.*?)\|\];", text, re.M | re.S).group(1)
    return [row.strip() for row in body.split("|")]


@needs_data
def test_minizinc_model_and_data(tmp_path):
    spec, p = _jigsawx6()
    text = _export(tmp_path, spec, "mzn").read_text()
    assert MODEL in text and _balanced(text)
    statements = re.sub(r"%[^\n]*", "", text).split(";")
    assert all(s.strip() == "" for s in statements[-1:])  # every item ends with ';'
    assert re.search(r"^n = 6;$", text, re.M) and re.search(r"^num_units = 20;$", text, re.M)
    units = [[int(x) for x in row.split(",")] for row in _mzn_array(text, "units")]
    assert units == [[c + 1 for c in u.cells] for u in p.units]
    givens = [int(x) for row in _mzn_array(text, "givens") for x in row.split(",")]
    assert givens == list(p.givens)
    cand = re.findall(r"\{([\d, ]*)\}", text.split("cand = ")[1].split("|];")[0])
    assert len(cand) == 36
    for c, digits in enumerate(cand):
        assert p.solution[c] in {int(x) for x in digits.split(",")}
    for u in units:  # the solution satisfies every alldifferent
        assert len({p.solution[c - 1] for c in u}) == 6


# -- TPTP: syntax (a parser for the FOF we write) and content (an evaluator) ---------------
_TOKEN = re.compile(r"\s*(<=>|=>|!=|\$true|\$false|[A-Z]\w*|[a-z]\w*|[()\[\],:!?~&|=.])")


def _tokens(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m, f"bad TPTP near {text[pos:pos + 30]!r}"
        out.append(m.group(1))
        pos = m.end()
    return out


class _Fof:
    """Recursive-descent parser of the FOF subset, producing nested tuples."""

    def __init__(self, toks):
        self.t, self.i = toks, 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def eat(self, tok=None):
        x = self.peek()
        assert tok is None or x == tok, f"expected {tok!r}, got {x!r}"
        self.i += 1
        return x

    def formula(self):
        left = self.unitary()
        op = self.peek()
        if op not in ("&", "|", "=>", "<=>"):
            return left
        parts = [left]
        while self.peek() == op:
            self.eat()
            parts.append(self.unitary())
        assert self.peek() not in ("&", "|", "=>", "<=>"), "mixed connectives need parentheses"
        assert op in ("&", "|") or len(parts) == 2, f"{op} is not associative"
        return (op, parts)

    def unitary(self):
        x = self.peek()
        if x == "(":
            self.eat("(")
            f = self.formula()
            self.eat(")")
            return f
        if x in ("!", "?"):
            self.eat()
            self.eat("[")
            names = [self.eat()]
            while self.peek() == ",":
                self.eat(",")
                names.append(self.eat())
            self.eat("]")
            self.eat(":")
            assert all(v[0].isupper() for v in names)
            return (x, names, self.unitary())
        if x == "~":
            self.eat()
            return ("~", self.unitary())
        if x in ("$true", "$false"):
            self.eat()
            return (x,)
        left = self.term()
        if self.peek() in ("=", "!="):
            op = self.eat()
            return (op, left, self.term())
        return ("pred", left)

    def term(self):
        name = self.eat()
        assert re.fullmatch(r"[A-Za-z]\w*", name), name
        if name[0].isupper():
            return ("var", name)
        args = []
        if self.peek() == "(":
            self.eat("(")
            args.append(self.term())
            while self.peek() == ",":
                self.eat(",")
                args.append(self.term())
            self.eat(")")
        return ("app", name, args)


def _parse_tptp(text):
    out = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("%"):
            continue
        toks = _tokens(line)
        assert toks[:2] == ["fof", "("] and toks[3:6] == [",", "axiom", ","] and toks[-2:] == [")", "."]
        name = toks[2]
        assert re.fullmatch(r"[a-z]\w*", name) and name not in out
        parser = _Fof(toks[6:-2])
        out[name] = parser.formula()
        assert parser.peek() is None, f"trailing tokens in {name}"
    return out


def _interpretation(p, grid):
    n = p.size
    funcs = {f"d{i}": (lambda i=i: i) for i in range(1, n + 1)}
    funcs["val"] = lambda r, c: grid[(r - 1) * n + c - 1]
    preds = {}
    by_kind = {}
    for u in p.units:
        by_kind.setdefault(u.kind, []).append(u)
    for kind, units in by_kind.items():
        owner = {c: k + 1 for k, u in enumerate(units) for c in u.cells}
        funcs[f"{kind}_of"] = lambda r, c, owner=owner: owner.get((r - 1) * n + c - 1, 0)
        for k, u in enumerate(units, start=1):
            cells = set(u.cells)
            preds[f"in_{u.name or kind}_{k}"] = lambda r, c, cells=cells: (r - 1) * n + c - 1 in cells
    return range(1, n + 1), funcs, preds


def _holds(f, env, model):
    dom, funcs, preds = model

    def term(t):
        if t[0] == "var":
            return env[t[1]]
        return funcs[t[1]](*[term(a) for a in t[2]])

    op = f[0]
    if op == "&":
        return all(_holds(g, env, model) for g in f[1])
    if op == "|":
        return any(_holds(g, env, model) for g in f[1])
    if op == "=>":
        return not _holds(f[1][0], env, model) or _holds(f[1][1], env, model)
    if op == "<=>":
        return _holds(f[1][0], env, model) == _holds(f[1][1], env, model)
    if op == "~":
        return not _holds(f[1], env, model)
    if op in ("!", "?"):
        names, body = f[1], f[2]

        def rec(k, env):
            if k == len(names):
                return _holds(body, env, model)
            results = (rec(k + 1, {**env, names[k]: x}) for x in dom)
            return all(results) if op == "!" else any(results)
        return rec(0, env)
    if op == "=":
        return term(f[1]) == term(f[2])
    if op == "!=":
        return term(f[1]) != term(f[2])
    if op == "pred":
        t = f[1]
        return preds[t[1]](*[term(a) for a in t[2]])
    return op == "$true"


@needs_data
@pytest.mark.parametrize("which", ["jigsawx6", "sudoku4"])
def test_tptp_syntax_and_the_solution_is_its_only_kind_of_model(tmp_path, which):
    if which == "jigsawx6":
        spec, p = _jigsawx6()
    else:
        spec = str(DATA / "generated/sudoku4/unique.txt")
        p = load_puzzles(spec)[0]
    text = _export(tmp_path, spec, "tptp").read_text()
    axioms = _parse_tptp(text)
    givens = sum(1 for g in p.givens if g)
    assert sum(1 for k in axioms if k.startswith("given_")) == givens
    good = _interpretation(p, list(p.solution))
    assert all(_holds(f, {}, good) for f in axioms.values())
    n = p.size
    bad = list(p.solution)
    free = [c for c in range(n) if not p.givens[c]]  # two open cells of row 1, swapped
    if len(free) >= 2:
        a, b = free[:2]
        bad[a], bad[b] = bad[b], bad[a]
        model = _interpretation(p, bad)
        assert not all(_holds(f, {}, model) for k, f in axioms.items() if not k.startswith("given"))
    wrong_given = list(p.solution)
    g = next(c for c in range(n * n) if p.givens[c])
    wrong_given[g] = wrong_given[g] % n + 1
    model = _interpretation(p, wrong_given)
    assert not all(_holds(f, {}, model) for k, f in axioms.items() if k.startswith("given"))


# -- the command itself ---------------------------------------------------------------------
def test_format_from_extension_and_errors(tmp_path, capsys):
    assert pick_format("x.cnf", None) == "cnf" and pick_format("x.lp", None) == "lp"
    assert pick_format("x.p", None) == "tptp" and pick_format("x.lp", "lp-asp") == "lp-asp"
    with pytest.raises(ConfigError, match="cannot tell the format"):
        pick_format("x.txt", None)
    assert main(["export", SEED004, "-o", str(tmp_path / "x.txt")]) == 2
    assert main(["export", SEED004, "-o", str(tmp_path / "nodir" / "x.cnf")]) == 2
    assert main(["export", "11.." "...." "...." "....", "-o", str(tmp_path / "x.cnf")]) == 2
    assert set(FORMATS) == {"cnf", "lp", "mps", "mzn", "lp-asp", "tptp", "bqm", "qubo-json"}


def test_binary_export_to_stdout_only_when_redirected(capsysbinary, monkeypatch):
    """bqm goes to a redirected standard output; to a terminal it is refused in one line."""
    assert main(["export", SEED004, "--to", "bqm", "-o", "-"]) == 0
    assert capsysbinary.readouterr().out.startswith(b"DIMODBQM")
    class Terminal(io.TextIOWrapper):
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stdout", Terminal(io.BytesIO()))
    assert main(["export", SEED004, "--to", "bqm", "-o", "-"]) == 2
    out, err = capsysbinary.readouterr()
    assert sys.stdout.buffer.getvalue() == b"" and b"standard output is a terminal" in err and err.count(b"\n") == 1


def test_export_to_stdout_and_a_solved_puzzle(tmp_path, capsys):
    assert main(["export", SEED004, "--to", "lp-asp", "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("% qsudoku") and "#show value/3." in out
    assert main(["export", FOUR_GIVENS4, "-o", str(tmp_path / "s.cnf")]) == 0
    assert "nothing left to choose" in capsys.readouterr().out
    assert "p cnf 0 0" in (tmp_path / "s.cnf").read_text()


@needs_data
def test_every_format_of_a_seed_puzzle(tmp_path):
    """Each format writes a non-empty file for a seed jigsaw (index picks the puzzle)."""
    seeds = load_puzzles(str(SEEDS))
    k = next(i for i, p in enumerate(seeds, start=1) if "jigsaw" in p.name)
    for fmt in FORMATS:
        out = tmp_path / f"seed.{fmt}"
        assert main(["export", str(SEEDS), "--index", str(k), "--to", fmt, "-o", str(out)]) == 0
        assert out.stat().st_size > 100


def _regions(p):
    owner = {c: u.index for u in p.units if u.kind == "region" for c in u.cells}
    return "".join("abcdefghijklmnopqrstuvwxy"[owner[c]] for c in range(p.size ** 2))


def test_regions_helper_round_trips():
    p = parse_puzzle(ONE_GIVEN4, Rules(regions=(0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3)))
    assert _regions(p) == "aabbaabbccddccdd"


@pytest.mark.slow
@pytest.mark.parametrize("fmt, head", [("cnf", "c "), ("lp", "\\ "), ("mzn", "% "),
                                       ("tptp", "% ")])
def test_text_exports_go_to_a_terminal(tmp_path, fmt, head):
    leader, follower = pty.openpty()
    try:
        proc = qsudoku(tmp_path, "export", EASY, "--rules", "none", "--to", fmt, "-o", "-",
                       stdout=follower, stderr=subprocess.PIPE)
        os.close(follower)
        follower = -1
        data = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert proc.returncode == 0, proc.stderr
    assert data.decode().startswith(head)


@pytest.mark.slow
def test_binary_export_is_still_refused_on_a_terminal(tmp_path):
    leader, follower = pty.openpty()
    try:
        proc = qsudoku(tmp_path, "export", EASY, "--to", "bqm", "-o", "-",
                       stdout=follower, stderr=subprocess.PIPE)
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 2 and "the format is binary" in proc.stderr
