"""Options shared by several subcommands: puzzle input, rules and configuration."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import replace
from typing import Any

from qsudoku.checks import MAX_SECONDS
from qsudoku.model.encodings import ENCODINGS
from qsudoku.config import DEFAULTS, Config, load_config, toml_value
from qsudoku.errors import ConfigError, ContradictionError, PuzzleFormatError, exit_code_for
from qsudoku.io import Rules, parse_digits, parse_regions
from qsudoku.io.files import companion, iter_puzzles
from qsudoku.io.output import check_outputs, is_stdout
from qsudoku.io.stream import MAX_LINE_BYTES
from qsudoku.io.rules import parse_box
from qsudoku.model.result import count_noun
from qsudoku.solving.budget import BASE_BUDGET, BIG_MODEL

__all__ = ["add_input_args", "add_config_args", "add_route_args", "rules_from_args", "config_from_args",
           "iter_inputs", "parse_key_values", "parse_rules", "add_index_arg", "pick_puzzle", "check_seconds",
           "SecondsAction", "SecondsListAction", "add_option", "DeprecatedAlias",
           "command_inputs", "check_writes", "OPTIONS", "add_options", "say_error", "error_reporter", "report"]


def add_option(container, *names: str, old: tuple[str, ...] = (), **kwargs) -> argparse.Action:
    """``container.add_argument(*names, **kwargs)``, plus ``old`` spellings of the same option
    that still work: each prints one note on stderr, then does what the new name does
    (hidden from ``--help``; new and old exclude each other; either satisfies
    ``required``).  The one home of the command line's renamed flags.

    Args:
        container: A parser or an argument group.
        names: The option's names (``"-o", "--output"``).
        old: Deprecated names of the same option (``"--out",``).
        kwargs: As for ``add_argument``.

    Returns:
        The new option's action.

    >>> p = argparse.ArgumentParser(prog="x")
    >>> _ = add_option(p, "-o", "--output", old=("--out",), required=True)
    >>> p.parse_args(["-o", "a.csv"]).output
    'a.csv'
    >>> p.parse_args(["--out", "a.csv"]).output  # and the note on stderr
    'a.csv'
    """
    if not old:
        return container.add_argument(*names, **kwargs)
    group = container.add_mutually_exclusive_group(required=kwargs.pop("required", False))
    action = group.add_argument(*names, **kwargs)
    group.add_argument(*old, action=DeprecatedAlias, dest=action.dest, target=action)
    return action


class DeprecatedAlias(argparse.Action):
    """An old spelling of the option ``target`` (see :func:`add_option`): one note on stderr,
    then ``target``'s own action."""

    def __init__(self, option_strings, dest, target: argparse.Action, **kwargs):
        super().__init__(option_strings, dest, nargs=target.nargs, const=target.const,
                         default=argparse.SUPPRESS, type=target.type,  # type: ignore[arg-type]
                         choices=target.choices,
                         required=False, help=argparse.SUPPRESS, metavar=target.metavar)
        self.target = target

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"qsudoku: note: {option_string} is deprecated; use "
              f"{'/'.join(self.target.option_strings)}", file=sys.stderr)
        self.target(parser, namespace, values, option_string)


def add_input_args(p: argparse.ArgumentParser, many: bool = True) -> None:
    """``PUZZLE`` plus the flags that give the rules explicitly."""
    p.add_argument("puzzles", nargs="+" if many else None, metavar="PUZZLE",
                   help="a puzzle string, a file (one puzzle per line, grids, tuples, .tsv), "
                        "or - for stdin")
    g = p.add_argument_group("rules (override what a file's folder and name imply, e.g. data/sudokux9/ adds the diagonals)")
    add_options(g, "--box", "--variant")
    g.add_argument("--regions", metavar="MAP|FILE",
                   help="jigsaw region map (letters, rows separated by / or newlines) or a file")
    g.add_argument("--digits", metavar="ALPHABET",
                   help="symbols for 1..n, e.g. 0-9A-F (default 1-9 then A=10, B=11, ...)")
    g.add_argument("--format", choices=["auto", "line", "grid", "tuples"], default="auto")
    g.add_argument("--size", type=int, help="grid size for tuple lists (default: the file's "
                   "'# size N' line or its sudokuN/ folder; never guessed)")
    g.add_argument("--keep-going", action="store_true",
                   help="report unreadable puzzles of a file and go on with the rest")


def add_config_args(p: argparse.ArgumentParser) -> None:
    """``--config`` and the flags that override it."""
    g = p.add_argument_group("configuration (flags override the config file)")
    g.add_argument("--config", metavar="FILE", help="TOML config: the keys it changes from the shipped qsudoku/defaults.toml")
    g.add_argument("--sampler", metavar="NAME",
                   help="registry name (qsudoku samplers lists them), or module:Class for any "
                        "importable dimod.Sampler, e.g. openjij:SASampler")
    g.add_argument("--reads", type=int, metavar="N", help="num_reads")
    g.add_argument("--seed", type=int, metavar="S", help="random seed")
    g.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a sampling parameter as a TOML value, e.g. num_sweeps=5000, "
                        "stop_at_ground=false, beta_range=[0.1,4] (repeatable)")
    g.add_argument("--rules", metavar="R1,R2",
                   help="propagation rules, e.g. naked_single,hidden_single,locked_candidates "
                        "(none = only the givens eliminate)")
    g.add_argument("--weight", action="append", default=[], metavar="KIND=W",
                   help="penalty weight, a key of [qubo.weights]: cell, row, column, box, "
                        "extra, or unit (row, column, box and extra at once) (repeatable)")
    add_options(g, "--encoding")
    g.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a sampler constructor option as a TOML value, e.g. "
                        "topology=zephyr (repeatable)")
    g.add_argument("--profile", metavar="NAME",
                   help="D-Wave config-file profile for the qpu/hybrid samplers "
                        "(credentials stay in D-Wave's own config)")


def check_seconds(flag: str, value) -> float:
    """``value`` (text or a number) as seconds in (0, :data:`~qsudoku.checks.MAX_SECONDS`],
    else one line naming ``flag``: the one check of every option that takes seconds.

    >>> check_seconds("--time-limit", "2.5")
    2.5
    >>> check_seconds("--time-limit", "inf")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: --time-limit inf must be a finite number of seconds > 0
    >>> check_seconds("--time-budget", "1e308")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: --time-budget 1e308 must be at most 1e+07 seconds (about 116 days)
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{flag} {value!r} is not a number of seconds") from None
    if not 0 < x < math.inf:
        raise ConfigError(f"{flag} {value} must be a finite number of seconds > 0")
    if x > MAX_SECONDS:
        raise ConfigError(f"{flag} {value} must be at most {MAX_SECONDS:g} seconds (about "
                          f"{MAX_SECONDS / 86400:.0f} days)")
    return x


class SecondsAction(argparse.Action):
    """An option taking seconds, checked by :func:`check_seconds` as it is parsed (the
    error is a :class:`~qsudoku.errors.ConfigError`, one line, exit 2)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, check_seconds(option_string, values))


class SecondsListAction(argparse.Action):
    """An option taking comma-separated seconds (``bench --time-budget 0.3,1``): a list,
    each checked by :func:`check_seconds` as it is parsed."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, [check_seconds(option_string, part)
                                       for part in str(values).split(",")])


def add_route_args(p: argparse.ArgumentParser, budget: bool = True) -> None:
    """Flags of the sampling rounds (``[route]`` in the config); ``budget=False`` leaves
    ``--time-budget`` to the command (``bench`` takes a list of budgets)."""
    r = p.add_argument_group("sampling rounds (every sampler; see [route] in the config)")
    if budget:
        r.add_argument("--time-budget", action=SecondsAction, metavar="S", dest="route_budget",
                       help="seconds of sampling rounds per puzzle (default "
                            f"{DEFAULTS['route']['time_budget']}: {BASE_BUDGET:g} s, more on "
                            f"models of {BIG_MODEL:,} variables or more and for samplers whose "
                            "rounds cost more; the output says which budget ran)")
    r.add_argument("--no-fallback", action="store_true",
                   help="no exact fallback: report what the sampler alone reached")
    r.add_argument("--no-route", action="store_true",
                   help="sample the reduced QUBO once instead of in rounds")


def parse_key_values(items, what: str) -> dict:
    """``["a=1", "b=x"]`` -> ``{"a": 1, "b": "x"}``: each value read as a TOML value, as in
    ``[sampler.params]``; a bare word that is no TOML value is taken as a string.

    Args:
        items: ``KEY=VALUE`` strings (``sampler.key=value`` keys are kept as they are).
        what: The flag, for messages (``"--param"``).

    Raises:
        ConfigError: An item has no ``=`` or an empty key.

    >>> parse_key_values(["a=false", "b=1e-3", 'c="text"', "d=[0.5, 4.0]", "e=fewest",
    ...                   "f=10", "g=10**9"], "--param")
    {'a': False, 'b': 0.001, 'c': 'text', 'd': [0.5, 4.0], 'e': 'fewest', 'f': 10, 'g': '10**9'}
    """
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{what} {item!r} is not of the form KEY=VALUE")
        out[key.strip()] = toml_value(value.strip())
    return out


def rules_from_args(args) -> Rules:
    regions = None
    if args.regions:
        text, source = args.regions, "--regions"
        if os.path.exists(text):
            text, source = _read_region_file(text), args.regions
        regions = parse_regions(text, source=source)
    return Rules(box=parse_box(args.box) if args.box else None, variant=args.variant or "standard",
                 regions=regions, digits=None if args.digits is None else parse_digits(args.digits),
                 format=args.format, size=args.size)


def _read_region_file(path: str) -> str:
    """The text of a region map file (at most :data:`MAX_LINE_BYTES`; a device or an
    endless file is refused, not read whole)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LINE_BYTES + 1)
    except OSError as e:
        raise PuzzleFormatError(f"cannot read the region map: {e.strerror or e}",
                                source=path) from None
    if len(data) > MAX_LINE_BYTES or b"\0" in data:
        raise PuzzleFormatError("not a region map (binary, or larger than "
                                f"{MAX_LINE_BYTES} bytes)", source=path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PuzzleFormatError("the region map is not UTF-8 text", source=path) from None


def config_from_args(args, default_sampler: str | None = None) -> Config:
    """The config file (or the defaults, with ``default_sampler`` if given) with every
    flag applied on top."""
    cfg = load_config(args.config)
    _note_dropped(cfg, args.sampler)
    if args.config is None and default_sampler is not None:
        from qsudoku.config import SamplerConfig

        cfg = replace(cfg, sampler=SamplerConfig(default_sampler))
    weights = {k: float(v) if isinstance(v, (int, float)) else v
               for k, v in parse_key_values(args.weight, "--weight").items()}
    options = parse_key_values(getattr(args, "option", []), "--option")
    if getattr(args, "profile", None):
        options["profile"] = args.profile
    route: dict = {}
    if getattr(args, "route_budget", None) is not None:
        route["time_budget"] = args.route_budget
    if getattr(args, "no_fallback", False):
        route["exact_fallback"] = ""
    if getattr(args, "no_route", False):
        route["enabled"] = False
    return cfg.with_overrides(sampler=args.sampler, reads=args.reads, seed=args.seed,
                              params=parse_key_values(args.param, "--param"),
                              rules=parse_rules(args.rules),
                              weights=weights, options=options, route=route,
                              encoding=getattr(args, "encoding", None))


def parse_rules(text: str | None) -> list[str] | None:
    """``--rules R1,R2`` as a list (``none`` or empty: no rule; ``None``: not given).

    >>> parse_rules("naked_single, hidden_single"), parse_rules("none"), parse_rules(None)
    (['naked_single', 'hidden_single'], [], None)
    """
    if text is None:
        return None
    return [] if text.strip() in ("", "none") else [r.strip() for r in text.split(",")]


def _note_dropped(cfg: Config, sampler: str | None) -> None:
    """Name on stderr the config's sampler parameters and options that ``--sampler`` drops."""
    dropped = [f"sampler.params.{k}" for k in cfg.sampler.params if k != "seed"] + \
        [f"sampler.options.{k}" for k in cfg.sampler.options]
    if sampler and sampler != cfg.sampler.name and dropped:
        print(f"qsudoku: note: --sampler {sampler} replaces the config's sampler "
              f"{cfg.sampler.name}; its {', '.join(dropped)} "
              f"{'is' if len(dropped) == 1 else 'are'} not used", file=sys.stderr)


def iter_inputs(args, on_error=None, check_givens: bool = True):
    """Yield the puzzles of every ``PUZZLE`` argument; an unreadable one, or (with
    ``check_givens``) one whose givens repeat a digit in a unit, is passed to ``on_error``
    and skipped with ``--keep-going``, else raised."""
    rules = rules_from_args(args)
    specs = args.puzzles if isinstance(args.puzzles, list) else [args.puzzles]
    for spec in specs:
        for item in iter_puzzles(spec, rules):
            if not isinstance(item, Exception) and check_givens:
                try:
                    item.check_givens()
                except ContradictionError as e:
                    if os.path.isfile(spec) and os.path.basename(spec) not in (e.source or ""):
                        # a .tsv names its puzzles, not the file
                        e = ContradictionError(e.message, cell=e.cell, unit=e.unit, digit=e.digit,
                                               source=f"{spec} ({e.source or 'puzzle'})",
                                               exit_code=e.exit_code)
                    item = e
            if isinstance(item, Exception):
                if getattr(args, "keep_going", False) and on_error is not None:
                    on_error(item)
                    continue
                raise item
            yield item


#: Options that several commands declare alike: flag -> the keywords of ``add_argument``.
OPTIONS: dict[str, dict[str, Any]] = {
    "--box": dict(metavar="RxC", help="box shape, e.g. 2x3 (default: most square)"),
    "--variant": dict(choices=["standard", "x"], help="x adds both main diagonals"),
    "--encoding": dict(choices=sorted(ENCODINGS),
                       help="how a cell's candidates become binary variables (default: the "
                            "config's [qubo] encoding, one-hot)"),
    "--json": dict(action="store_true", help="one JSON object per puzzle (JSON lines)"),
}


def add_options(container, *flags: str) -> None:
    """Add each of ``flags`` to ``container`` as :data:`OPTIONS` declares it."""
    for flag in flags:
        container.add_argument(flag, **OPTIONS[flag])


def say_error(err) -> None:
    """``qsudoku: error: ...`` on stderr, for a puzzle that ``--keep-going`` skips."""
    print(f"qsudoku: error: {err}", file=sys.stderr, flush=True)


def error_reporter(args, code: int | None = None):
    """The ``on_error`` of :func:`iter_inputs`: says each skipped puzzle and raises
    ``args.exit_so_far`` (set to 0 here) to its exit code, or to ``code`` if given."""
    args.exit_so_far = 0

    def on_error(err) -> None:
        args.exit_so_far = max(args.exit_so_far, exit_code_for(err) if code is None else code)
        say_error(err)
    return on_error


def report(args, record: dict, text: str, code: int = 0) -> None:
    """One puzzle's report on standard output, flushed: ``record`` as a JSON line with
    ``--json``, else ``text``; ``args.exit_so_far`` is first raised to ``code``."""
    args.exit_so_far = max(args.exit_so_far, code)
    print(json.dumps(record) if args.json else text, flush=True)


def command_inputs(args) -> list[str]:
    """Every file a command reads, as its arguments name them: each ``PUZZLE`` file (a
    directory's puzzle files) with its companions, ``--regions``, ``--config`` and
    ``--spec``.

    >>> import argparse
    >>> command_inputs(argparse.Namespace(puzzles=["a.txt", "-"], config="c.toml"))
    ['a.txt', 'a.solutions.txt', 'a.ids.txt', 'c.toml']
    """
    given = getattr(args, "puzzles", None) or []
    files = [f for p in (given if isinstance(given, list) else [given])
             if isinstance(p, str) and not is_stdout(p) for f in _files_of(p)]
    out: list = [name for p in files
                 for name in (p, companion(p, "solutions"), companion(p, "ids"))]
    spec = getattr(args, "spec", None)  # (path, parser) once parsed: see commands.spec
    out += [spec[0] if isinstance(spec, tuple) else spec, getattr(args, "config", None),
            getattr(args, "regions", None)]
    return [p for p in out if isinstance(p, str)]


def _files_of(spec: str) -> list[str]:
    """The puzzle files ``spec`` names: a directory's (as the reader takes them), or itself."""
    from qsudoku.io.datasets import puzzle_files_in

    if not os.path.isdir(spec):
        return [spec]
    try:
        return puzzle_files_in(spec)
    except (PuzzleFormatError, OSError):  # none to read: none to keep from being written
        return []


def check_writes(args, outputs, *, what="-o", binary=False) -> None:
    """The one check of every command that writes: each of ``outputs`` can be written,
    none is another, and none is a file the command reads (:func:`command_inputs`).

    Raises:
        ConfigError: One line naming the output and why; nothing was written.
    """
    check_outputs(outputs, command_inputs(args), what=what, binary=binary)


def add_index_arg(p, default: int | None = 1) -> None:
    """``--index K`` (see :func:`pick_puzzle`); ``default=None``: every puzzle unless given."""
    p.add_argument("--index", type=int, default=default, metavar="K",
                   help="which puzzle of the input (1-based, over every PUZZLE argument; "
                        + (f"default {default})" if default else "default: every puzzle)"))


def pick_puzzle(args, on_error=None):
    """The ``args.index``-th puzzle (1-based) of the input, read no further.

    Raises:
        ConfigError: ``--index`` is below 1, or the input has fewer puzzles.
    """
    if args.index < 1:
        raise ConfigError(f"--index {args.index} must be >= 1")
    count = 0
    for count, puzzle in enumerate(iter_inputs(args, on_error), start=1):
        if count == args.index:
            return puzzle
    raise ConfigError(f"--index {args.index}: the input has only {count_noun(count, 'puzzle')}")
