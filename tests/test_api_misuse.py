"""Misuse of the public API: every wrong-type or wrong-value call raises ``TypeError`` or
``ValueError`` (or a ``QSudokuError`` that is one) whose message names the argument.

The table covers ``qsudoku.__all__`` and the functions the README documents
(``format_grid``, ``count_solutions``, ``tts99``, ``solve``, ``decode``, the unit
builders, ``get_sampler``).  ``python tests/test_api_misuse.py`` prints how many calls
end well, in a raw internal exception, or are accepted silently (to compare versions).
"""

from __future__ import annotations

import math
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Callable, NamedTuple

import numpy as np
import pytest

import qsudoku
from qsudoku import (Config, Puzzle, Rules, Unit, Weights, build_model, load_config, load_puzzles,
                     parse_puzzle, propagate, solve)
from qsudoku.experiments.bench import tts99
from qsudoku.model.decode import decode
from qsudoku.exact import count_solutions
from qsudoku.io import format_grid
from qsudoku.model.puzzle import box_units, diagonal_units, region_units, row_units
from qsudoku.solving import solve
from qsudoku.samplers import get_sampler
from _puzzles import THREE_GIVENS4, TWO_GIVENS4

NAN, INF = math.nan, math.inf
P = parse_puzzle(TWO_GIVENS4)
OTHER = parse_puzzle(THREE_GIVENS4)
CANDS = propagate(P)
MODEL = build_model(CANDS)
BLANK9 = [0] * 81


class Case(NamedTuple):
    label: str
    call: Callable
    error: type | tuple
    name: str  # must appear in the message


TE, VE, EITHER = TypeError, ValueError, (TypeError, ValueError)


def _cases() -> list[Case]:
    c = []

    def add(label, call, error, name):
        c.append(Case(label, call, error, name))

    # parse_puzzle / load_puzzles / Rules
    add("parse_puzzle(None)", lambda: parse_puzzle(None), TE, "text")
    add("parse_puzzle(123)", lambda: parse_puzzle(123), TE, "text")
    add("parse_puzzle(bytes)", lambda: parse_puzzle(TWO_GIVENS4.encode()), TE, "text")
    add("parse_puzzle(list)", lambda: parse_puzzle(list(TWO_GIVENS4)), TE, "text")
    add("parse_puzzle(rules=str)", lambda: parse_puzzle(TWO_GIVENS4, rules="x"), TE, "rules")
    add("parse_puzzle('')", lambda: parse_puzzle(""), VE, "puzzle")
    add("load_puzzles(None)", lambda: load_puzzles(None), TE, "spec")
    add("load_puzzles(5)", lambda: load_puzzles(5), TE, "spec")
    add("load_puzzles(rules=5)", lambda: load_puzzles(TWO_GIVENS4, rules=5), TE, "rules")
    add("Rules(box='3x3')", lambda: Rules(box="3x3"), TE, "box")
    add("Rules(box=(0, 3))", lambda: Rules(box=(0, 3)), VE, "box")
    add("Rules(box=(2,))", lambda: Rules(box=(2,)), TE, "box")
    add("Rules(box=(2.0, 2.0))", lambda: Rules(box=(2.0, 2.0)), TE, "box")
    add("Rules(variant=5)", lambda: Rules(variant=5), TE, "variant")
    add("Rules(variant='y')", lambda: Rules(variant="y"), VE, "variant")
    add("Rules(format='xml')", lambda: Rules(format="xml"), VE, "format")
    add("Rules(format=None)", lambda: Rules(format=None), TE, "format")
    add("Rules(size='9')", lambda: Rules(size="9"), TE, "size")
    add("Rules(size=1)", lambda: Rules(size=1), VE, "size")
    add("Rules(size=2.5)", lambda: Rules(size=2.5), TE, "size")
    add("Rules(digits=5)", lambda: Rules(digits=5), TE, "digits")
    add("Rules(regions='abc')", lambda: Rules(regions="abc"), VE, "regions")  # not n x n
    # Puzzle constructors
    add("Puzzle.standard(None)", lambda: Puzzle.standard(None), TE, "givens")
    add("Puzzle.standard(str)", lambda: Puzzle.standard("1" * 81), TE, "givens")
    add("Puzzle.standard([0.5]*81)", lambda: Puzzle.standard([0.5] * 81), TE, "givens")
    add("Puzzle.standard([True]*81)", lambda: Puzzle.standard([True] * 81), TE, "givens")
    add("Puzzle.standard([None]*81)", lambda: Puzzle.standard([None] * 81), TE, "givens")
    add("Puzzle.standard([0]*80)", lambda: Puzzle.standard([0] * 80), VE, "cells")
    add("Puzzle.standard([10]*81)", lambda: Puzzle.standard([10] * 81), VE, "value")
    add("Puzzle.standard([-1]*81)", lambda: Puzzle.standard([-1] * 81), VE, "value")
    add("Puzzle.standard(box='3x3')", lambda: Puzzle.standard(BLANK9, box="3x3"), TE, "box")
    add("Puzzle.standard(box=(2, 3))", lambda: Puzzle.standard(BLANK9, box=(2, 3)), VE, "box")
    add("Puzzle.standard(box=(0, 9))", lambda: Puzzle.standard(BLANK9, box=(0, 9)), VE, "box")
    add("Puzzle.standard(box=(3.0, 3.0))", lambda: Puzzle.standard(BLANK9, box=(3.0, 3.0)), TE,
        "box")
    add("Puzzle.standard(box=9)", lambda: Puzzle.standard(BLANK9, box=9), TE, "box")
    add("Puzzle.standard(extra=5)", lambda: Puzzle.standard(BLANK9, extra=5), TE, "extra")
    add("Puzzle.standard(extra=['row'])", lambda: Puzzle.standard(BLANK9, extra=["row"]), TE,
        "extra")
    add("Puzzle.standard 7x7", lambda: Puzzle.standard([0] * 49), VE, "box")
    add("Puzzle.standard(name=5)", lambda: Puzzle.standard(BLANK9, name=5), TE, "name")
    add("Puzzle.standard(alphabet=5)", lambda: Puzzle.standard(BLANK9, alphabet=5), TE,
        "alphabet")
    add("Puzzle.standard(solution=[1]*80)", lambda: Puzzle.standard(BLANK9, solution=[1] * 80),
        VE, "solution")
    add("Puzzle.standard(solution=str)", lambda: Puzzle.standard(BLANK9, solution="1" * 81), TE,
        "solution")
    add("Puzzle.standard(solution=[0]*81)", lambda: Puzzle.standard(BLANK9, solution=BLANK9), VE,
        "solution")
    add("Puzzle.jigsaw(regions=None)", lambda: Puzzle.jigsaw([0] * 16, None), TE, "regions")
    add("Puzzle.jigsaw(regions=str)", lambda: Puzzle.jigsaw([0] * 16, "aabb" * 4), TE, "regions")
    add("Puzzle.jigsaw(one region)", lambda: Puzzle.jigsaw([0] * 16, [0] * 16), VE, "region")
    add("Puzzle.jigsaw(short map)", lambda: Puzzle.jigsaw([0] * 16, [0, 1, 2, 3]), VE, "region")
    add("Puzzle.jigsaw(None)", lambda: Puzzle.jigsaw(None, [0] * 16), TE, "givens")
    add("Puzzle.jigsaw(regions=[0.5]*16)", lambda: Puzzle.jigsaw([0] * 16, [0.5] * 16), TE,
        "regions")
    add("Puzzle(size='4')", lambda: Puzzle("4", (0,) * 16, ()), TE, "size")
    add("Puzzle(size=0)", lambda: Puzzle(0, (), ()), VE, "size")
    add("Puzzle(givens=None)", lambda: Puzzle(4, None, ()), TE, "givens")
    add("Puzzle(givens=floats)", lambda: Puzzle(4, (0.0,) * 16, ()), TE, "givens")
    add("Puzzle(units=None)", lambda: Puzzle(4, (0,) * 16, None), TE, "units")
    add("Puzzle(units=('row',))", lambda: Puzzle(4, (0,) * 16, ("row",)), TE, "units")
    add("Puzzle(kind=5)", lambda: Puzzle(4, (0,) * 16, (), kind=5), TE, "kind")
    # Unit and the unit builders
    add("Unit(cells=None)", lambda: Unit("row", 0, None), TE, "cells")
    add("Unit(kind=5)", lambda: Unit(5, 0, (0, 1)), TE, "kind")
    add("Unit(kind='bogus')", lambda: Unit("bogus", 0, (0,)), VE, "kind")
    add("Unit(index=-1)", lambda: Unit("row", -1, (0,)), VE, "index")
    add("Unit(index='0')", lambda: Unit("row", "0", (0,)), TE, "index")
    add("Unit(cells=(0, -1))", lambda: Unit("row", 0, (0, -1)), VE, "cells")
    add("Unit(cells=(0.5,))", lambda: Unit("row", 0, (0.5,)), TE, "cells")
    add("box_units(4, 3, 3)", lambda: box_units(4, 3, 3), VE, "box")
    add("box_units('4', 2, 2)", lambda: box_units("4", 2, 2), TE, "n")
    add("box_units(4, 0, 4)", lambda: box_units(4, 0, 4), VE, "rows")
    add("diagonal_units(-1)", lambda: diagonal_units(-1), VE, "n")
    add("diagonal_units('9')", lambda: diagonal_units("9"), TE, "n")
    add("row_units(2.5)", lambda: row_units(2.5), TE, "n")
    add("region_units(None, 4)", lambda: region_units(None, 4), TE, "regions")
    # Puzzle methods
    add("is_solution(None)", lambda: P.is_solution(None), TE, "grid")
    add("is_solution(str)", lambda: P.is_solution("1234" * 4), TE, "grid")
    add("broken_units(None)", lambda: P.broken_units(None), TE, "grid")
    add("broken_units([99]*16)", lambda: P.broken_units([99] * 16), VE, "grid")
    add("broken_units(short)", lambda: P.broken_units([1] * 5), VE, "grid")
    add("format([99]*16)", lambda: P.format([99] * 16), VE, "grid")
    add("format([0.5]*16)", lambda: P.format([0.5] * 16), TE, "grid")
    add("units_of('a')", lambda: P.units_of("a"), TE, "cell")
    add("units_of(99)", lambda: P.units_of(99), VE, "cell")
    add("units_of(-1)", lambda: P.units_of(-1), VE, "cell")
    add("rc('a')", lambda: P.rc("a"), TE, "cell")
    # format_grid
    add("format_grid(p, [99]*16)", lambda: format_grid(P, [99] * 16), VE, "grid")
    add("format_grid(None)", lambda: format_grid(None), TE, "puzzle")
    add("format_grid(str)", lambda: format_grid(TWO_GIVENS4), TE, "puzzle")
    add("format_grid(p, str)", lambda: format_grid(P, "1234" * 4), TE, "grid")
    add("format_grid(p, short)", lambda: format_grid(P, [1] * 5), VE, "grid")
    add("format_grid(p, floats)", lambda: format_grid(P, [0.5] * 16), TE, "grid")
    # propagate
    add("propagate(None)", lambda: propagate(None), TE, "puzzle")
    add("propagate(str)", lambda: propagate(TWO_GIVENS4), TE, "puzzle")
    add("propagate(rules=str)", lambda: propagate(P, rules="naked_single"), TE, "rules")
    add("propagate(rules=['bogus'])", lambda: propagate(P, rules=["bogus"]), VE, "rule")
    add("propagate(rules=[5])", lambda: propagate(P, rules=[5]), TE, "rules")
    add("propagate(rules=None)", lambda: propagate(P, rules=None), TE, "rules")
    add("propagate(start=5)", lambda: propagate(P, start=5), TE, "start")
    add("propagate(start=other)", lambda: propagate(P, start=propagate(OTHER)), VE, "start")
    # build_model, Weights, QuboModel, decode
    add("build_model(puzzle)", lambda: build_model(P), TE, "candidates")
    add("build_model(None)", lambda: build_model(None), TE, "candidates")
    add("build_model(weights=dict)", lambda: build_model(CANDS, {"cell": 2.0}), TE, "weights")
    add("build_model(weights=2.0)", lambda: build_model(CANDS, 2.0), TE, "weights")
    add("Weights(cell=0)", lambda: Weights(cell=0), VE, "cell")
    add("Weights(cell=-1)", lambda: Weights(cell=-1), VE, "cell")
    add("Weights(cell=nan)", lambda: Weights(cell=NAN), VE, "cell")
    add("Weights(cell=inf)", lambda: Weights(cell=INF), VE, "cell")
    add("Weights(cell=1e308)", lambda: Weights(cell=1e308), VE, "cell")
    add("Weights(row='1')", lambda: Weights(row="1"), EITHER, "row")
    add("Weights(box=True)", lambda: Weights(box=True), EITHER, "box")
    add("Weights(extra=None)", lambda: Weights(extra=None), EITHER, "extra")
    add("energy_of_grid(None)", lambda: MODEL.energy_of_grid(None), TE, "grid")
    add("energy_of_grid([99]*16)", lambda: MODEL.energy_of_grid([99] * 16), VE, "grid")
    add("energy_of_grid(short)", lambda: MODEL.energy_of_grid([1, 2]), VE, "grid")
    add("sample_of_grid(str)", lambda: MODEL.sample_of_grid("1234" * 4), TE, "grid")
    add("decode(None, ss)", lambda: decode(None, _sampleset()), TE, "model")
    add("decode(model, None)", lambda: decode(MODEL, None), TE, "sampleset")
    add("decode(model, dict)", lambda: decode(MODEL, {"a": 1}), TE, "sampleset")
    # solve
    add("solve(None)", lambda: solve(None), TE, "puzzle")
    add("solve(str)", lambda: solve(TWO_GIVENS4), TE, "puzzle")
    add("solve(config=None)", lambda: solve(P, None), TE, "config")
    add("solve(config=dict)", lambda: solve(P, {}), TE, "config")
    add("solve(budget=-1)", lambda: solve(P, budget=-1), VE, "budget")
    add("solve(budget=nan)", lambda: solve(P, budget=NAN), VE, "budget")
    add("solve(budget='1')", lambda: solve(P, budget="1"), TE, "budget")
    add("solve(budget=10**400)", lambda: solve(P, budget=10**400), VE, "budget")
    add("solve(budget=-10**400)", lambda: solve(P, budget=-10**400), VE, "budget")
    add("solve(budget=Fraction(10**400))", lambda: solve(P, budget=Fraction(10**400)), VE,
        "budget")
    add("solve(budget=Decimal('1e400'))", lambda: solve(P, budget=Decimal("1e400")), VE,
        "budget")
    add("solve(budget=Decimal('sNaN'))", lambda: solve(P, budget=Decimal("sNaN")), VE, "budget")
    add("solve(budget=True)", lambda: solve(P, budget=True), TE, "budget")
    add("solve(budget=np.uint64 max)", lambda: solve(P, budget=np.uint64(2**64 - 1)), VE,
        "budget")
    add("solve(sampler='sa')", lambda: solve(P, sampler="sa"), TE, "sampler")
    # Config
    ov = Config().with_overrides
    add("with_overrides(sampler=5)", lambda: ov(sampler=5), TE, "sampler")
    add("with_overrides(sampler='bogus')", lambda: ov(sampler="bogus"), VE, "sampler")
    add("with_overrides(reads=0)", lambda: ov(reads=0), VE, "reads")
    add("with_overrides(reads=2.5)", lambda: ov(reads=2.5), EITHER, "reads")
    add("with_overrides(reads='10')", lambda: ov(reads="10"), EITHER, "reads")
    add("with_overrides(seed=-1)", lambda: ov(seed=-1), VE, "seed")
    add("with_overrides(seed='x')", lambda: ov(seed="x"), EITHER, "seed")
    add("with_overrides(params=5)", lambda: ov(params=5), TE, "params")
    add("with_overrides(params=reads -1)", lambda: ov(params={"num_reads": -1}), VE, "num_reads")
    add("with_overrides(params=beta nan)", lambda: ov(sampler="sa", params={"beta_range": (NAN, 1.0)}),
        VE, "beta_range")
    add("with_overrides(params=time inf)", lambda: ov(params={"time_limit": INF}), VE,
        "time_limit")
    add("with_overrides(rules=str)", lambda: ov(rules="naked_single"), TE, "rules")
    add("with_overrides(rules=['bogus'])", lambda: ov(rules=["bogus"]), VE, "rule")
    add("with_overrides(weights=cell -1)", lambda: ov(weights={"cell": -1}), VE, "cell")
    add("with_overrides(weights=bogus)", lambda: ov(weights={"bogus": 1}), VE, "weight")
    add("with_overrides(weights=5)", lambda: ov(weights=5), TE, "weights")
    add("with_overrides(fallback=5)", lambda: ov(fallback=5), TE, "fallback")
    add("with_overrides(fallback='bogus')", lambda: ov(fallback="bogus"), VE, "fallback")
    add("with_overrides(options=5)", lambda: ov(options=5), TE, "options")
    add("with_overrides(route=5)", lambda: ov(route=5), TE, "route")
    add("with_overrides(route=budget -1)", lambda: ov(route={"time_budget": -1}), VE,
        "time_budget")
    add("with_overrides(route=budget nan)", lambda: ov(route={"time_budget": NAN}), VE,
        "time_budget")
    add("with_overrides(route=bogus)", lambda: ov(route={"bogus": 1}), VE, "route")
    add("with_overrides(route=depth 1.5)", lambda: ov(route={"max_depth": 1.5}), VE, "max_depth")
    add("with_overrides(route=fallback limit -1)",
        lambda: ov(route={"fallback_time_limit": -1}), VE, "fallback_time_limit")
    add("Config(sampler='sa')", lambda: Config(sampler="sa"), TE, "sampler")
    add("Config(qubo=Weights())", lambda: Config(qubo=Weights()), TE, "qubo")
    add("Config.from_dict(None)", lambda: Config.from_dict(None), EITHER, "config")
    add("Config.from_dict(cell='x')", lambda: Config.from_dict({"qubo": {"weights": {"cell": "x"}}}),
        EITHER, "cell")
    add("Config.from_dict(params nan)",
        lambda: Config.from_dict({"sampler": {"name": "sa", "params": {"beta_range": [NAN, 1.0]}}}),
        VE, "beta_range")
    add("Config.from_dict(weights 1e308)",
        lambda: Config.from_dict({"qubo": {"weights": {"cell": 1e308}}}), VE, "cell")
    add("load_config(5)", lambda: load_config(5), TE, "path")
    add("load_config(missing)", lambda: load_config("/nonexistent/q.toml"), VE, "/nonexistent/q.toml")
    # count_solutions
    add("count_solutions(time_limit=-1)", lambda: count_solutions(P, time_limit=-1), VE,
        "time_limit")
    add("count_solutions(time_limit=nan)", lambda: count_solutions(P, time_limit=NAN), VE,
        "time_limit")
    add("count_solutions(time_limit='1')", lambda: count_solutions(P, time_limit="1"), TE,
        "time_limit")
    add("count_solutions(limit=0)", lambda: count_solutions(P, limit=0), VE, "limit")
    add("count_solutions(limit=2.5)", lambda: count_solutions(P, limit=2.5), EITHER, "limit")
    add("count_solutions(None)", lambda: count_solutions(None), TE, "puzzle")
    add("count_solutions(method='bogus')", lambda: count_solutions(P, method="bogus"), VE, "method")
    add("count_solutions(rules=str)", lambda: count_solutions(P, rules="naked_single"), TE, "rules")
    add("count_solutions(hall='yes')", lambda: count_solutions(P, hall="yes"), TE, "hall")
    # tts99
    add("tts99(0.1, 1.5)", lambda: tts99(0.1, 1.5), VE, "p")
    add("tts99(0.1, -0.1)", lambda: tts99(0.1, -0.1), VE, "p")
    add("tts99(0.1, nan)", lambda: tts99(0.1, NAN), VE, "p")
    add("tts99(-1, 0.5)", lambda: tts99(-1, 0.5), VE, "t_read")
    add("tts99('1', 0.5)", lambda: tts99("1", 0.5), TE, "t_read")
    add("tts99(0.1, '0.5')", lambda: tts99(0.1, "0.5"), TE, "p")
    add("tts99(target=1.5)", lambda: tts99(0.1, 0.5, target=1.5), VE, "target")
    add("tts99(target=1.0)", lambda: tts99(0.1, 0.5, target=1.0), VE, "target")
    # solve
    add("solve(None)", lambda: solve(None), TE, "puzzle")
    add("solve(config=dict)", lambda: solve(P, {"sampler": "sa"}), TE, "config")
    add("solve(budget=-1)", lambda: solve(P, budget=-1), VE, "budget")
    add("solve(budget=nan)", lambda: solve(P, budget=NAN), VE, "budget")
    add("solve(sampler=5)", lambda: solve(P, sampler=5), TE, "sampler")
    # samplers
    add("get_sampler(5)", lambda: get_sampler(5), VE, "sampler")
    add("get_sampler('bogus')", lambda: get_sampler("bogus"), VE, "sampler")
    add("get_sampler('sa', bogus=1)", lambda: get_sampler("sa", bogus=1), VE, "option")
    return c


def _sampleset():
    import dimod

    return dimod.SampleSet.from_samples([{v: 0 for v in MODEL.variables}], "BINARY", [0.0])


CASES = _cases()


def outcome(case: Case) -> str:
    """``"ok"`` (the right exception, naming the argument), ``"unnamed"`` (the right type,
    but the message does not name it), ``"raw"`` (another exception) or ``"silent"``."""
    try:
        case.call()
    except case.error as e:
        return "ok" if case.name in str(e) else "unnamed"
    except Exception:  # noqa: BLE001 - classifying is the point
        return "raw"
    return "silent"


def test_the_table_covers_the_public_api():
    assert len(CASES) >= 100
    tried = " ".join(c.label for c in CASES)
    for name in ("parse_puzzle", "load_puzzles", "propagate", "build_model", "Weights", "solve",
                 "Config", "load_config", "Puzzle", "Unit", "Rules"):
        assert name in qsudoku.__all__ and name in tried, name


@pytest.mark.parametrize("budget", [Decimal("0.5"), Fraction(1, 2), np.int64(1), np.float32(0.5)])
def test_a_budget_of_any_numeric_type_is_taken(budget):
    r = solve(P, budget=budget)
    assert r.sampler["route"]["time_budget"] == float(budget)


def test_a_budget_beyond_every_float_is_quoted_short():
    with pytest.raises(ValueError) as e:
        solve(P, budget=10**400)
    assert str(e.value) == f"budget = {'1' + '0' * 36}... must be a finite number > 0 and <= 1e+07"


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_misuse_is_a_clear_error(case):
    with pytest.raises(case.error) as e:
        case.call()
    assert case.name in str(e.value), str(e.value)
    assert "\n" not in str(e.value).strip()


if __name__ == "__main__":
    counts: dict[str, list[str]] = {}
    for case in CASES:
        counts.setdefault(outcome(case), []).append(case.label)
    print(f"{len(CASES)} calls: " + ", ".join(f"{k} {len(v)}" for k, v in sorted(counts.items())))
    if "-v" in sys.argv:
        for k, labels in sorted(counts.items()):
            if k != "ok":
                print(f"{k}: " + "; ".join(labels))
