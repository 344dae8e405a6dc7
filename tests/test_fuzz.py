"""Hypothesis fuzzing of the parsers and the CLI with hostile input.

Every generated input must end either in a well-formed :class:`Puzzle` (whose
invariants hold and which round-trips through its own text) or in a typed
:class:`QSudokuError` with a one-line message; through the CLI, in an exit code
0-3 with no traceback and one ``qsudoku: error:`` line per bad input.

About 1,800 inputs are generated per run (the ``max_examples`` below); the
``qsudoku`` Hypothesis profile of ``conftest.py`` makes them the same on every
run.  ``QSUDOKU_FUZZ_SCALE=10`` multiplies the counts for a local bug hunt.
"""

from __future__ import annotations

import json
import os
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qsudoku.cli import main
from qsudoku.errors import PuzzleFormatError, QSudokuError
from qsudoku.io import Rules, parse_puzzle, parse_regions
from qsudoku.io.files import iter_puzzles
from qsudoku.io.text import parse_line
from qsudoku.model.puzzle import Puzzle

from _shared import data_sets
from _puzzles import EASY4, FOUR_GIVENS4, ONE_GIVEN4, SEED004

SCALE = int(os.environ.get("QSUDOKU_FUZZ_SCALE", "1"))


def cli_settings(examples: int) -> settings:
    """Settings of the in-process CLI runs (capsys is reset by each run's readouterr)."""
    return settings(max_examples=examples * SCALE, suppress_health_check=[
        HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])

#: Valid puzzle lines of several sizes and kinds (no data files needed).
BASE_LINES = [
    SEED004,
    EASY4,
    ONE_GIVEN4,
    "." * 36,
    "1....." "...2.." + "." * 24,
    "G" + "." * 254 + "1",
    "1.3.2..4.1....2. aabbaabbccddccdd",
    FOUR_GIVENS4 + " abbbaacbaccdddcd",
]
#: Symbols worth trying: every alphabet, blanks, separators, look-alikes and control characters.
NASTY = (string.digits + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcgpz" + ".*?_0-|+=: \t/#[](),;'\"\\"
         + "ß²٣\u00a0\u200b\ufeff\u0130ıﬁ\x00\x0b\x7f\u2028é")


def _shared_lines() -> list[str]:
    lines = []
    for f in data_sets():
        with open(f, encoding="utf-8") as fh:
            lines.append(fh.readline().strip())
    return lines


SHARED_LINES = _shared_lines()
LINES = BASE_LINES + [ln for ln in SHARED_LINES if len(ln.split()[0]) <= 256]
SMALL_LINES = [ln for ln in LINES if len(ln.split()[0]) <= 81]


# -- checks ------------------------------------------------------------------------------
def check_puzzle(p: Puzzle) -> None:
    """Invariants of every puzzle a parser returns, and its text round trip."""
    n = p.size
    assert isinstance(p, Puzzle) and len(p.givens) == n * n
    assert all(0 <= d <= n for d in p.givens)
    assert len(p.alphabet) == n
    for u in p.units:
        assert len(set(u.cells)) == n and all(0 <= c < n * n for c in u.cells)
    regions = [u for u in p.units if u.kind == "region"]
    again = parse_line(p.format(), Rules(digits=p.alphabet),
                       regions=_region_ids(p) if regions else None)
    assert again.givens == p.givens and again.units == p.units


def _region_ids(p: Puzzle):
    ids = [0] * (p.size * p.size)
    for u in p.units:
        if u.kind == "region":
            for c in u.cells:
                ids[c] = u.index
    return ids


def parse_outcome(fn):
    """Run a parser: a checked Puzzle, or a typed error with a one-line message."""
    try:
        p = fn()
    except QSudokuError as e:
        msg = str(e)
        assert msg and "\n" not in msg and "Traceback" not in msg, msg
        assert len(msg) < 2000
        return e
    check_puzzle(p)
    return p


def run_cli(capsys, argv) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in (0, 1, 2, 3), (code, err)
    assert "Traceback" not in err and "Traceback" not in out
    for line in err.splitlines():
        assert line.startswith(("qsudoku: error: ", "qsudoku: note: ", "usage: ", "  ",
                                "qsudoku solve: error: ")), line
    if code == 2:
        assert "error: " in err, err
    return code, out, err


# -- strategies --------------------------------------------------------------------------
nasty_text = st.text(alphabet=st.sampled_from(NASTY), max_size=40)


@st.composite
def mutated(draw, lines=LINES):
    """A real puzzle line after one to four hostile edits."""
    s = draw(st.sampled_from(lines))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["replace", "delete", "insert", "duplicate", "truncate",
                                   "repeat", "regions", "swapcase", "zeros", "wrap", "pad"]))
        i = draw(st.integers(0, max(len(s) - 1, 0)))
        if op == "replace" and s:
            s = s[:i] + draw(st.sampled_from(NASTY)) + s[i + 1:]
        elif op == "delete":
            s = s[:i] + s[i + draw(st.integers(1, 9)):]
        elif op == "insert":
            s = s[:i] + draw(nasty_text) + s[i:]
        elif op == "duplicate" and s:
            j = draw(st.integers(0, len(s) - 1))
            s = s[:j] + s[i] + s[j + 1:]
        elif op == "truncate":
            s = s[:i]
        elif op == "repeat":
            s = s + s
        elif op == "regions":
            s = (s.split() or [""])[0] + " " + draw(st.text(alphabet="abcdefghiz/", max_size=90))
        elif op == "swapcase":
            s = s.swapcase()
        elif op == "zeros":
            s = s.replace(".", "0")
        elif op == "wrap" and s:
            k = draw(st.integers(1, 16))
            s = "\n".join(s[j:j + k] for j in range(0, len(s), k))
        elif op == "pad":
            s = draw(st.sampled_from([" ", "\t", "|", "\n", "#"])) + s
    return s


tuple_values = st.one_of(st.integers(-3, 40), st.floats(allow_nan=False), st.text(max_size=3),
                         st.booleans(), st.just(1e999), st.just(10 ** 30))
tuples_text = st.one_of(
    st.lists(st.lists(tuple_values, min_size=0, max_size=4), max_size=12).map(repr),
    st.lists(st.tuples(st.integers(-2, 30), st.integers(-2, 30), st.integers(-2, 30)),
             max_size=20).map(repr),
    st.builds(lambda a, b: a + b, st.sampled_from(["[", "(", "[[", "[(1,2,3),"]), nasty_text),
)


@st.composite
def grid_text(draw):
    n = draw(st.integers(1, 17))
    rows = []
    for _ in range(draw(st.integers(0, n + 2))):
        cells = draw(st.lists(st.sampled_from(list(".123456789ABCDEFG0") + ["10", "13", "x"]),
                              min_size=max(n - 1, 0), max_size=n + 1))
        sep = draw(st.sampled_from([" ", "", " | ", "|"]))
        rows.append(sep.join(cells))
        if draw(st.integers(0, 5)) == 0:
            rows.append(draw(st.sampled_from(["------+------", "", "+---+", "# note"])))
    return "\n".join(rows)


# -- parser-level fuzzing ----------------------------------------------------------------
@pytest.mark.slow
@settings(max_examples=300 * SCALE)
@given(text=st.text(max_size=300), fmt=st.sampled_from(["auto", "line", "grid", "tuples"]))
def test_arbitrary_text_never_escapes_typed_errors(text, fmt):
    parse_outcome(lambda: parse_puzzle(text, Rules(format=fmt)))


@pytest.mark.slow
@settings(max_examples=300 * SCALE)
@given(text=mutated())
def test_mutated_real_puzzles_parse_or_fail_cleanly(text):
    out = parse_outcome(lambda: parse_puzzle(text))
    if isinstance(out, PuzzleFormatError):
        assert out.source == "<string>" and out.line is not None


@pytest.mark.slow
@settings(max_examples=150 * SCALE)
@given(text=tuples_text, size=st.sampled_from([None, 4, 9]))
def test_tuple_lists_parse_or_fail_cleanly(text, size):
    out = parse_outcome(lambda: parse_puzzle(text, Rules(format="tuples", size=size)))
    if isinstance(out, PuzzleFormatError):
        assert out.source == "<string>" and out.line == 1, out


@pytest.mark.slow
@settings(max_examples=100 * SCALE)
@given(text=grid_text())
def test_grids_parse_or_fail_cleanly(text):
    parse_outcome(lambda: parse_puzzle(text, Rules(format="grid")))


@pytest.mark.slow
@settings(max_examples=150 * SCALE)
@given(givens=st.sampled_from(["1.3.2..4.1....2.", "." * 36, SEED004]),
       regions=st.text(alphabet="abcdefghiXY /|\n", max_size=100))
def test_region_maps_parse_or_fail_cleanly(givens, regions):
    def parse():
        ids = parse_regions(regions)
        return parse_line(givens, regions=ids)
    out = parse_outcome(parse)
    if isinstance(out, Puzzle):
        for u in out.units:
            if u.kind == "region":
                assert len(u.cells) == out.size


@pytest.mark.slow
@settings(max_examples=200 * SCALE)
@given(lines=st.lists(st.one_of(mutated(), st.sampled_from(LINES), st.binary(max_size=64).map(
           lambda b: b.decode("latin-1"))), min_size=0, max_size=6),
       raw=st.one_of(st.none(), st.binary(max_size=400)),
       suffix=st.sampled_from([".txt", ".tsv", ".sdk"]))
def test_files_yield_puzzles_or_errors_naming_the_file(tmp_path_factory, lines, raw, suffix):
    path = tmp_path_factory.getbasetemp() / f"fuzz{suffix}"
    path.write_bytes(raw if raw is not None else "\n".join(lines).encode("utf-8", "surrogatepass"))
    items = list(iter_puzzles(str(path)))
    assert items, "every file yields at least one puzzle or error"
    for item in items:
        if isinstance(item, Exception):
            assert isinstance(item, QSudokuError), repr(item)
            assert str(path) in str(item) and "\n" not in str(item)
        else:
            check_puzzle(item)


# -- CLI-level fuzzing -------------------------------------------------------------------
@pytest.mark.slow
@cli_settings(150)
@given(lines=st.lists(st.one_of(mutated(SMALL_LINES), st.sampled_from(SMALL_LINES)),
                      min_size=1, max_size=4),
       junk=st.one_of(st.none(), st.binary(max_size=200)),
       keep_going=st.booleans())
def test_cli_solve_on_hostile_files(tmp_path_factory, capsys, lines, junk, keep_going):
    path = tmp_path_factory.getbasetemp() / "cli_fuzz.txt"
    path.write_bytes(junk if junk is not None else "\n".join(lines).encode("utf-8", "surrogatepass"))
    argv = ["solve", str(path), "--sampler", "random", "--reads", "1", "--json"]
    code, out, err = run_cli(capsys, argv + (["--keep-going"] if keep_going else []))
    for line in out.splitlines():
        if line.strip():
            json.loads(line)  # stdout stays machine-readable whatever the input
    if code == 2:
        assert path.name in err, err  # the error names the file (with its line, when known)


@pytest.mark.slow
@cli_settings(150)
@given(lines=st.lists(st.one_of(mutated(["1" * 81, SEED004]), st.just(SEED004)), min_size=1,
                      max_size=5))
def test_cli_keep_going_loses_nothing(tmp_path_factory, capsys, lines):
    """Every content line of a line-format file ends as one JSON result or one error line."""
    # a first line like this keeps the file in line format; a NUL byte would make it a binary file
    text = "\n".join([SEED004] + lines).replace("\x00", "")
    path = tmp_path_factory.getbasetemp() / "keep_going.txt"
    path.write_text(text, encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    code, out, err = run_cli(capsys, ["solve", str(path), "--keep-going", "--json",
                                      "--sampler", "random", "--reads", "1", "--no-route",
                                      "--no-fallback"])  # one read a line: only the count matters
    results = [json.loads(x) for x in out.splitlines() if x.strip()]
    errors = [x for x in err.splitlines() if x.startswith("qsudoku: error: ")]
    assert len(results) + len(errors) == len(lines), (lines, out, err)
    assert code == (2 if errors else 1 if any(not r["valid"] for r in results) else 0)


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)  # TOML spells inf and nan as Python does
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"


PARAM_KEYS = ["num_reads", "num_sweeps", "seed", "beta_range", "beta_schedule_type",
              "num_sweeps_per_beta", "randomize_order", "proposal_acceptance_criteria",
              "initial_states_generator", "timeout", "interrupt_function", "time_limit", "foo"]
scalars = st.one_of(st.integers(-3, 60), st.floats(-2, 100), st.sampled_from(
    [float("nan"), float("inf"), 2 ** 40, 10 ** 11, "", "geometric", "linear", "random", "none"]),
    st.booleans(), st.text(string.printable.strip(), max_size=6))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from(PARAM_KEYS),
                                                                       inner, max_size=3)),
                      max_leaves=6)
config_dicts = st.fixed_dictionaries({}, optional={
    "propagate": st.one_of(values, st.fixed_dictionaries({}, optional={"rules": st.one_of(
        values, st.lists(st.sampled_from(["naked_single", "hidden_single", "locked_candidates",
                                          "naked_pair", "nope", ""]), max_size=3))})),
    "qubo": st.one_of(values, st.fixed_dictionaries({}, optional={"weights": st.one_of(
        values, st.dictionaries(st.sampled_from(["cell", "unit", "row", "box", "extra", "x"]),
                                scalars, max_size=3))})),
    "sampler": st.one_of(values, st.fixed_dictionaries({}, optional={
        "name": st.one_of(st.sampled_from(["sa", "steepest", "random", "nope", ""]), scalars),
        "params": st.one_of(values, st.dictionaries(st.sampled_from(PARAM_KEYS), scalars,
                                                    max_size=3)),
        "options": st.one_of(values, st.dictionaries(st.sampled_from(PARAM_KEYS), scalars,
                                                     max_size=1)),
        "fallback": st.one_of(st.sampled_from(["sa", "nope"]), scalars),
        "token": st.just("DEV-not-a-real-token-0123"),
    })),
    "typo": values,
})


@pytest.mark.slow
@cli_settings(150)
@given(cfg=config_dicts, garbage=st.one_of(st.none(), st.binary(max_size=60)))
def test_cli_hostile_configs(tmp_path_factory, capsys, cfg, garbage):
    path = tmp_path_factory.getbasetemp() / "fuzz.toml"
    text = "\n".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in cfg.items())
    path.write_bytes(garbage if garbage is not None else text.encode())
    code, out, err = run_cli(capsys, ["solve", ONE_GIVEN4, "--config", str(path), "--json"])
    assert "DEV-not-a-real-token-0123" not in out + err
    if code == 2:
        assert len(err.strip().splitlines()) == 1


FLAG_VALUES = {
    "--reads": st.integers(-5, 100).map(str) | st.sampled_from(["x", "1e3", "99999999999"]),
    "--seed": st.integers(-3, 2 ** 33).map(str),
    "--param": st.builds("{}={}".format, st.sampled_from(PARAM_KEYS + ["", "="]),
                         st.sampled_from(["0", "-1", "5", "1e999", "[1,2]", "(", "'a'", "", "{}",
                                          "None", "[" * 300])),
    "--weight": st.builds("{}={}".format, st.sampled_from(["cell", "row", "box", "extra", "x", ""]),
                          st.sampled_from(["0", "-1", "2", "inf", "nan", "x", "True", "[1]"])),
    "--rules": st.sampled_from(["none", "", ",", "naked_single", "nope", "naked_single,,x"]),
    "--box": st.sampled_from(["2x2", "0x4", "4x1", "1x4", "x", "2x2x2", "-1x-4", "99x99"]),
    "--digits": st.sampled_from(["1-4", "0-3", "A-D", "4-1", "11", "...", "a-z", "1-9A-Z"]),
    "--size": st.sampled_from(["4", "0", "-1", "1", "36", "x"]),
    "--format": st.sampled_from(["auto", "line", "grid", "tuples", "xml"]),
    "--variant": st.sampled_from(["standard", "x", "y"]),
    "--regions": st.sampled_from(["aabbaabbccddccdd", "abc", "aaaa/bbbb/cccc/dddd", "a" * 16, "/"]),
    "--sampler": st.sampled_from(["sa", "steepest", "random", "tabu", "exact", "nope", ""]),
}


@pytest.mark.slow
@cli_settings(150)
@given(flags=st.lists(st.sampled_from(sorted(FLAG_VALUES)), max_size=4, unique=True),
       data=st.data(), puzzle=st.sampled_from([EASY4, "1.3.2..4.1....2.",
                                               "[[1,1,1],[2,2,3]]"]))
def test_cli_hostile_flags(capsys, flags, data, puzzle):
    argv = ["solve", puzzle, "--json"]
    for flag in flags:
        argv += [flag, data.draw(FLAG_VALUES[flag], label=flag)]
    if "--sampler" in flags and "tabu" in argv:
        argv += ["--param", "timeout=5"]
    code, out, err = run_cli(capsys, argv)
    if code == 2:
        assert err.count("error: ") == 1, err


@pytest.mark.parametrize("argv", [
    ["solve"], [], ["nope"], ["solve", "--reads"], ["--debug"], ["solve", "-", "--json"],
])
def test_cli_usage_errors_are_exit_2(capsys, monkeypatch, argv):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("\x00\x01garbage"))
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and "error" in err
