"""``--spec FILE``: a study written down once, run by ``qsudoku bench`` or ``qsudoku sweep``.

A study spec is a small TOML file (the repository keeps them in ``benchmarks/studies/``)::

    title = "The default solve on the hardest 9x9 sets"
    figure = "docs/performance.md#the-hardest-9x9"   # the docs figure or table it makes
    command = "bench"                                # or "sweep"
    puzzles = ["sudoku9/forum_hardest_1106.txt"]     # set names: qsudoku.io.dataset_path

    [options]                                        # the command's flags, without --
    time-budget = [2]
    no-fallback = true
    output = "benchmarks/results/hard9/results.csv"   # benchmarks/results/<spec stem>/

``qsudoku bench --spec FILE`` runs it on the same engine as any ``bench``; beside
``--output`` go its summaries and its provenance record
(:mod:`qsudoku.experiments.provenance`).  Flags given on the command line win over the
spec's (``--param``, ``--grid``, ``--weight`` and ``--option`` add to its lists), and
``PUZZLE`` arguments replace its ``puzzles`` and ``[generate]`` table
(:mod:`qsudoku.experiments.generated`); a set name is looked up in ``$QSUDOKU_DATA``
first, then in ``data/``.  Each key of ``[options]`` is the full name of a flag; an
error in a value the spec gave names the spec and its key.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re

from qsudoku.errors import ConfigError

__all__ = ["SpecAction", "read_spec", "spec_argv", "apply_spec", "option_name", "KEYS"]

#: Repeatable flags: the command line's items add to the spec's.
APPENDED = ("param", "grid", "weight", "option")
#: The keys of a spec's top level (``options`` holds the command's flags).
KEYS = {"title", "figure", "command", "puzzles", "needs", "options", "generate"}


def read_spec(path: str) -> dict:
    """The spec at ``path``, its keys checked (not yet its options: :func:`apply_spec`).

    Raises:
        ConfigError: Unreadable, not TOML, an unknown key, or a key of the wrong type.
    """
    import tomllib

    from qsudoku.config.files import MAX_CONFIG_BYTES
    from qsudoku.io.reading import NotRegularFileError, read_regular

    try:  # a FIFO would block, a device never end: a spec is a regular file
        raw = read_regular(path, MAX_CONFIG_BYTES, "study spec")
    except NotRegularFileError as e:
        raise ConfigError(f"--spec {path}: {e.kind}, not a regular file") from None
    if raw is None:
        raise ConfigError(f"--spec {path}: no such file")
    try:
        spec = tomllib.loads(raw.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise ConfigError(f"--spec {path}: not TOML: {e}") from None
    unknown = sorted(set(spec) - KEYS)
    if unknown:
        raise ConfigError(f"--spec {path}: unknown key {unknown[0]!r} (known: "
                          f"{', '.join(sorted(KEYS))})")
    if spec.get("command") not in ("bench", "sweep"):
        raise ConfigError(f"--spec {path}: command must be \"bench\" or \"sweep\"")
    puzzles = spec.get("puzzles", [])
    if not (isinstance(puzzles, list) and all(isinstance(p, str) for p in puzzles)):
        raise ConfigError(f"--spec {path}: puzzles must be a list of set names")
    if not isinstance(spec.get("options", {}), dict):
        raise ConfigError(f"--spec {path}: [options] must be a table of flags")
    if "spec" in spec.get("options", {}):
        raise ConfigError(f"--spec {path}: a spec cannot name another spec")
    for key in ("title", "figure", "needs"):
        if not isinstance(spec.get(key, ""), str):
            raise ConfigError(f"--spec {path}: {key} must be a string")
    if "generate" in spec:  # instances the study makes: qsudoku.experiments.generated
        from qsudoku.experiments.generated import parse_generate

        try:
            parse_generate(spec["generate"])
        except ConfigError as e:
            raise ConfigError(f"--spec {path}: {e}") from None
    return spec


def spec_argv(spec: dict) -> list[str]:
    """The command-line words of a spec's ``[options]`` (its puzzles not included).

    >>> spec_argv({"options": {"first": 5, "no-fallback": True, "time-budget": [1, 2],
    ...                        "param": ["num_sweeps=10", "seed=1"]}})
    ['--first', '5', '--no-fallback', '--time-budget', '1,2', '--param', 'num_sweeps=10', '--param', 'seed=1']
    """
    out: list[str] = []
    for key, value in spec.get("options", {}).items():
        flag = "--" + key
        if value is True:
            out.append(flag)
        elif value is False:
            continue
        elif isinstance(value, list) and key in APPENDED:
            for item in value:
                out += [flag, str(item)]
        elif isinstance(value, list):
            out += [flag, ",".join(str(v) for v in value)]
        else:
            out += [flag, str(value)]
    return out


def _resolve(word: str) -> str:
    """A ``PUZZLE`` argument of a spec run: a path or a puzzle as given, else the set of that
    name (``$QSUDOKU_DATA`` first, then ``data/``)."""
    from qsudoku.errors import DatasetMissingError
    from qsudoku.io.datasets import dataset_path

    if word == "-" or os.path.exists(word) or "/" not in word:
        return word
    try:
        return str(dataset_path(word))
    except DatasetMissingError:
        return word  # read as given: its own error names it


class SpecAction(argparse.Action):
    """Keeps the spec's path and the parser that reads it; :func:`apply_spec` merges it."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, (values, parser))


def _default(parser, dest: str):
    """The default of ``dest`` (an old spelling's hidden alias has none of its own)."""
    default = parser.get_default(dest)
    return None if default == argparse.SUPPRESS else default


def _given_on_the_command_line(parser, args) -> set[str] | None:
    """The ``dest`` of every flag the command line gave (``args.argv``), so that a flag given
    at its default value still wins over the spec's; ``None`` when the words are unknown."""
    words = getattr(args, "argv", None)
    command = parser.prog.split()[-1]
    if not words or command not in words:
        return None
    words = words[words.index(command) + 1:]
    saved = [(a, a.default) for a in parser._actions]
    try:
        for action, _ in saved:
            action.default = argparse.SUPPRESS
        # already parsed once: a refusal here is a bug, not the user's
        given = _parse(parser, words, known=True, error=RuntimeError)
    finally:
        for action, default in saved:
            action.default = default
    return set(vars(given))


def apply_spec(args) -> None:
    """Fill ``args`` from its ``--spec``: the spec's puzzles unless ``PUZZLE`` arguments were
    given, and every option the command line left at its default.

    Raises:
        ConfigError: The spec is for another command, or one of its options is refused
            by the command's own parser (the message names the spec).
        DatasetMissingError: A set it names is in no data folder.
    """
    if not getattr(args, "spec", None):
        return
    path, parser = args.spec
    spec = read_spec(path)
    command = parser.prog.split()[-1]  # "qsudoku bench" -> bench
    if spec["command"] != command:
        raise ConfigError(f"--spec {path} is a {spec['command']} study: run it with "
                          f"qsudoku {spec['command']} --spec {path}")
    from qsudoku.io.datasets import dataset_path

    options = spec.get("options", {})
    keys = _study_options(path, parser, command, options)
    puzzles = [_resolve(p) for p in args.puzzles] if args.puzzles else \
        [str(dataset_path(name)) for name in spec.get("puzzles", [])]
    explicit = _given_on_the_command_line(parser, args)
    try:
        given = _parse(parser, list(puzzles) + spec_argv(spec))
    except ConfigError as e:
        raise _culprit(path, parser, options, keys) or ConfigError(f"--spec {path}: {e}") \
            from None
    taken = {}
    for dest, value in vars(given).items():
        if dest in ("spec", "puzzles"):
            continue
        mine = getattr(args, dest, None)
        if dest in APPENDED and isinstance(mine, list):  # repeatable flags: both lists
            setattr(args, dest, value + [v for v in mine if v not in value])
        elif explicit is not None and dest in explicit:  # given: the command line wins
            continue
        elif mine == _default(parser, dest):
            setattr(args, dest, value)
            taken[dest] = True
    args.spec_keys = {keys[key].dest: key for key in options if taken.get(keys[key].dest)}
    args.puzzles = list(puzzles)
    if "generate" in spec and not puzzles:  # the spec makes its instances (none given)
        from qsudoku.experiments.generated import parse_generate

        args.generate = parse_generate(spec["generate"])
    if "output" in options and args.out == given.out:  # checked, then made
        from qsudoku.io.output import make_directory

        try:
            make_directory(os.path.dirname(os.path.abspath(args.out)))
        except ConfigError as e:
            raise ConfigError(f"--spec {path}: [options] output = {_shown(options['output'])}: "
                              f"{e}") from None


def option_name(args, dest: str, flag: str, sep: str = "") -> str:
    """How a message names the option ``dest``: ``flag``, or, when its value came from the
    ``--spec``, the spec and the key followed by ``sep``.

    >>> args = argparse.Namespace(spec=("s.toml", None), spec_keys={"repeat": "repeat"})
    >>> option_name(args, "repeat", "--repeat", " ="), option_name(args, "jobs", "--jobs")
    ('--spec s.toml: [options] repeat =', '--jobs')
    """
    key = (getattr(args, "spec_keys", None) or {}).get(dest)
    return flag if key is None else f"--spec {args.spec[0]}: [options] {key}{sep}"


def _study_options(path: str, parser, command: str, options: dict) -> dict:
    """The flag of each key of ``[options]`` (``--`` + key, a study option of ``command``).

    Raises:
        ConfigError: A key that is no flag (an abbreviation included), or a flag that
            does no study (``help``, ``version``).
    """
    flags = {name[2:]: action for action in parser._actions for name in action.option_strings
             if name.startswith("--")}
    out = {}
    for key in options:
        action = flags.get(key)
        if action is None:
            close = difflib.get_close_matches(key, list(flags), 1)
            raise ConfigError(f"--spec {path}: [options] {key} is not a flag of qsudoku "
                              f"{command}" + (f" (did you mean {close[0]}?)" if close else "")
                              + "; a key is a flag's full name without --")
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            raise ConfigError(f"--spec {path}: [options] {key} is not a study option (it "
                              f"runs nothing; qsudoku {command} --{key} shows it)")
        out[key] = action
    return out


def _culprit(path: str, parser, options: dict, keys: dict) -> ConfigError | None:
    """The error of the first key of ``[options]`` whose value alone is refused, naming the
    spec and the key; ``None`` if each is taken alone."""
    import contextlib
    import io

    for key, value in options.items():
        try:
            with contextlib.redirect_stderr(io.StringIO()):  # an old spelling's note: said
                _parse(parser, spec_argv({"options": {key: value}}))
        except ConfigError as e:
            return ConfigError(f"--spec {path}: [options] {key} = {_shown(value)}: "
                               f"{_reason(str(e), keys[key])}")
    return None


def _parse(parser, words: list[str], known: bool = False,
           error: type[Exception] = ConfigError) -> argparse.Namespace:
    """``parser.parse_args(words)`` (``known``: the options it knows, into an empty
    namespace), its usage errors raised as ``error``."""
    def refuse(message):
        raise error(message)

    saved, parser.error = parser.error, refuse
    try:
        if known:
            return parser.parse_known_args(words, argparse.Namespace())[0]
        return parser.parse_args(words)
    finally:
        parser.error = saved


def _reason(message: str, action) -> str:
    """``message`` without the flag it starts with (the key says which it is).

    >>> _reason("argument --repeat: invalid int value: 'x'", argparse.Action(["--repeat"], "r"))
    "invalid int value: 'x'"
    """
    message = re.sub(r"^argument [^:]*: ", "", message)
    for flag in action.option_strings:
        if message.startswith(flag + " "):
            return message[len(flag) + 1:]
    return message


def _shown(value) -> str:
    """A spec's value as TOML writes it (``"x"``, ``[1, 2]``, ``true``)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)
