"""Reference pages generated from the code, so that they cannot drift from it.

Directives (usable from MyST pages as ```` ```{qsudoku-cli} ````):

- ``qsudoku-cli``: every subcommand of :func:`qsudoku.cli.build_parser`, its usage,
  description and every flag with its help, read from the argparse parsers as they are.
- ``qsudoku-config``: every key of ``qsudoku/defaults.toml`` (optional keys left commented
  out included), with its default and the file's own comments.
- ``qsudoku-samplers``: every sampler of the registry (:data:`qsudoku.samplers.SPECS`):
  name, class, default parameters, description, the extra it needs, whether it needs a
  network, and the penalty weights it does not read. ``:weights: read`` lists only the
  samplers for which every weight matters.
- ``results-table``: a table of a results file of ``benchmarks/results`` read at build time
  (:func:`read_csv_table` for a study's ``results.summary.csv``, :func:`read_results_table`
  for a plain-text table), so that its figures are not typed again.

At ``config-inited`` it also writes one API stub page per name of ``qsudoku.__all__`` into
``docs/api/`` (a build product, not committed).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DEFAULTS = ROOT / "qsudoku" / "defaults.toml"


# -- small node builders -------------------------------------------------------------------

def _section(title: str, ident: str, *children) -> nodes.section:
    sec = nodes.section(ids=[nodes.make_id(ident)], names=[nodes.fully_normalize_name(ident)])
    sec += nodes.title(text=title)
    for child in children:
        sec += child
    return sec


def _para(text: str) -> nodes.paragraph:
    return nodes.paragraph(text=text)


def _usage(text: str) -> nodes.literal_block:
    block = nodes.literal_block(text=text.rstrip())
    block["language"] = "text"
    return block


def _code(text: str) -> nodes.paragraph:
    p = nodes.paragraph()
    p += nodes.literal(text=text)
    return p


def _table(headers: list[str], rows: list[list[nodes.Node]], widths=None) -> nodes.table:
    table = nodes.table()
    group = nodes.tgroup(cols=len(headers))
    table += group
    for w in widths or [1] * len(headers):
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    group += head
    row = nodes.row()
    for h in headers:
        entry = nodes.entry()
        entry += _para(h)
        row += entry
    head += row
    body = nodes.tbody()
    group += body
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += cell
            row += entry
        body += row
    return table


# -- the command line ---------------------------------------------------------------------

def _flag_rows(parser: argparse.ArgumentParser) -> list[list[nodes.Node]]:
    formatter = parser._get_formatter()
    rows = []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS:
            continue
        if isinstance(action, argparse._SubParsersAction):
            continue
        if action.option_strings:
            metavar = "" if action.nargs == 0 else " " + formatter._format_args(
                action, action.dest.upper())
            name = ", ".join(s + metavar for s in action.option_strings)
        else:
            name = formatter._format_args(action, action.dest)
        text = formatter._expand_help(action) if action.help else ""
        rows.append([_code(name), _para(text)])
    return rows


def _epilog(parser: argparse.ArgumentParser) -> nodes.Node:
    """The epilog as ``--help`` shows it: its lines kept if the parser keeps them."""
    if issubclass(parser.formatter_class, argparse.RawDescriptionHelpFormatter):
        return _usage(parser.epilog or "")
    return _para(" ".join((parser.epilog or "").split()))


class CliDirective(Directive):
    """Every subcommand of ``qsudoku`` and every one of its flags."""

    has_content = False

    def run(self):
        from qsudoku.cli import build_parser

        parser = build_parser()
        out = [_para(parser.description or ""),
               _section("qsudoku", "cli-qsudoku", _usage(parser.format_usage()),
                        _table(["flag", "help"], _flag_rows(parser), [3, 7]))]
        if parser.epilog:
            out.append(_epilog(parser))
        subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        helps = {c.dest: c.help for c in subs._choices_actions}
        for name, sub in subs.choices.items():
            children = [_usage(sub.format_usage())]
            if helps.get(name):
                children.append(_para(helps[name]))
            if sub.description and sub.description != helps.get(name):
                children.append(_para(sub.description))
            children.append(_table(["flag", "help"], _flag_rows(sub), [3, 7]))
            if sub.epilog:
                children.append(_epilog(sub))
            out.append(_section(f"qsudoku {name}", f"cli-{name}", *children))
        return out


# -- the configuration --------------------------------------------------------------------

_TABLE = re.compile(r"^\[([\w.]+)\]\s*(?:#\s?(.*))?$")
_KEY = re.compile(r"^(\w+)\s*=\s*(.*?)\s*(?:#\s?(.*))?$")
_OPTIONAL = re.compile(r"^#\s*(\w+)\s*=\s*(.*?)\s*(?:#\s?(.*))?$")
_MORE = re.compile(r"^#\s+#\s?(.*)$")


def read_defaults(path: Path = DEFAULTS):
    """``(preamble, tables)`` of a commented TOML file: ``tables`` maps a table name to
    ``(comment, [(key, value text, description, optional)])``.  Every key TOML reads is
    found (else ``ValueError``), so the page cannot miss one."""
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    preamble: list[str] = []
    tables: dict[str, tuple[list[str], list]] = {}
    table, pending, keys = None, [], None
    open_brackets = 0
    for line in text.splitlines():
        stripped = line.strip()
        if open_brackets > 0:  # the rest of a multi-line array
            keys[-1][1] += " " + stripped.split("#")[0].strip()
            open_brackets += stripped.count("[") - stripped.count("]")
            continue
        if not stripped:
            if table is None and pending:
                preamble.extend(pending)
                pending = []
            continue
        m = _TABLE.match(stripped)
        if m:
            table = m.group(1)
            keys = []
            tables[table] = ([m.group(2)] if m.group(2) else [], keys)
            pending = []
            continue
        if table is None:
            preamble.append(stripped.lstrip("#").strip())
            continue
        m = _MORE.match(stripped)
        if m and keys:
            keys[-1][2].append(m.group(1))
            continue
        m = _KEY.match(stripped) or _OPTIONAL.match(stripped)
        if m:
            optional = stripped.startswith("#")
            desc = pending + ([m.group(3)] if m.group(3) else [])
            if not keys and not tables[table][0] and pending and len(pending) > 1:
                tables[table][0].extend(pending)  # a table's opening comment
                desc = [m.group(3)] if m.group(3) else []
            keys.append([m.group(1), m.group(2), desc, optional])
            pending = []
            if not optional:
                open_brackets = m.group(2).count("[") - m.group(2).count("]")
            continue
        if stripped.startswith("#"):
            pending.append(stripped.lstrip("#").strip())
            continue
        raise ValueError(f"{path}: cannot read line {line!r}")
    for name, value in data.items():
        _check_found(name, value, tables, path)
    return preamble, tables


def _check_found(prefix: str, table, tables, path) -> None:
    found = {k[0] for k in tables.get(prefix, ([], []))[1]}
    for key, value in table.items():
        if isinstance(value, dict):
            _check_found(f"{prefix}.{key}", value, tables, path)
        elif key not in found:
            raise ValueError(f"{path}: key {prefix}.{key} was not found by the docs' reader")


class ConfigDirective(Directive):
    """Every key of ``qsudoku/defaults.toml``: default and comments, table by table."""

    has_content = False

    def run(self):
        preamble, tables = read_defaults()
        out = [_para(" ".join(preamble))]
        for name, (comment, keys) in tables.items():
            children = [_para(" ".join(comment))] if comment else []
            rows = [[_code(f"{name}.{key}"), _code(value if not optional else "(not set)"),
                     _para(("optional, e.g. " + value + ". " if optional else "")
                           + " ".join(desc))]
                    for key, value, desc, optional in keys]
            if rows:
                children.append(_table(["key", "default", "what it does"], rows, [2, 2, 6]))
            out.append(_section(f"[{name}]", f"config-{name}", *children))
        return out


# -- the samplers -------------------------------------------------------------------------

WEIGHT_KINDS = ("cell", "row", "column", "box", "extra")


def _weights_text(spec) -> str:
    ignored = tuple(spec.ignores_weights)
    if not ignored:
        return "every weight"
    if set(ignored) >= set(WEIGHT_KINDS):
        return "none (reads the one-hot groups)"
    read = [k for k in WEIGHT_KINDS if k not in ignored]
    return ", ".join(read) + " (not " + ", ".join(ignored) + ")"


class SamplersDirective(Directive):
    """Every registered sampler, read from the registry."""

    has_content = False
    option_spec = {"weights": directives.unchanged}

    def run(self):
        from qsudoku.samplers import SPECS

        specs = list(SPECS.values())
        if self.options.get("weights") == "read":
            specs = [s for s in specs if not s.ignores_weights]
            rows = [[_code(s.name), _para(s.summary)] for s in specs]
            return [_table(["sampler", "what it is"], rows, [2, 8])]
        rows = [[_code(s.name), _para(s.summary),
                 _code(f"qsudoku[{s.extra}]") if s.extra else _para("core"),
                 _para("yes" if s.offline else "no: network and token"),
                 _para(_weights_text(s))] for s in specs]
        out = [_table(["sampler", "what it is", "needs", "offline", "weights it reads"], rows,
                      [2, 6, 2, 2, 3])]
        for s in specs:
            made = s.made or s.target
            children = [_para(s.summary),
                        _table(["", ""], [
                            [_para("class"), _code(str(made))],
                            [_para("built by"), _code(str(s.target))],
                            [_para("default parameters"),
                             _code(", ".join(f"{k}={v!r}" for k, v in s.defaults.items()) or
                                   "(none)")],
                            [_para("extra"), _code(f"pip install 'qsudoku[{s.extra}]'")
                             if s.extra else _para("none: a core dependency")],
                            [_para("offline"), _para("yes" if s.offline else "no")],
                            [_para("penalty weights it reads"), _para(_weights_text(s))],
                        ], [2, 8])]
            out.append(_section(s.name, f"sampler-{s.name}", *children))
        return out


# -- the API stubs ------------------------------------------------------------------------

def write_api_stubs(app, config) -> None:
    """One page per name of ``qsudoku.__all__`` under ``docs/api/`` (rewritten only when
    changed, so incremental builds stay incremental)."""
    import inspect

    import qsudoku

    folder = Path(app.srcdir) / "api"
    folder.mkdir(exist_ok=True)
    wanted = set()
    for name in qsudoku.__all__:
        obj = getattr(qsudoku, name)
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            body = f".. autoexception:: qsudoku.{name}\n   :members:\n"
        elif inspect.isclass(obj):
            body = f".. autoclass:: qsudoku.{name}\n   :members:\n"
        else:
            body = f".. autofunction:: qsudoku.{name}\n"
        title = f"qsudoku.{name}"
        text = f"{title}\n{'=' * len(title)}\n\n{body}"
        path = folder / f"{name}.rst"
        wanted.add(path.name)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    for old in folder.glob("*.rst"):
        if old.name not in wanted:
            old.unlink()

# -- tables of benchmarks/results --------------------------------------------------------

def read_results_table(path: Path, start: int, end: int | None, header: str | None = None,
                       sep: str = r"\s{2,}"):
    """The header and rows of the plain-text table at lines ``[start:end]`` (a Python slice)
    of a results file: cells are separated by ``sep`` (a regular expression; two or more
    spaces by default), rules of ``-`` or ``=`` skipped. ``header`` (cells separated by ``|``) replaces a header line that does not split
    so (the slice then starts at the first row). Every row must have the header's cells.
    """
    lines = path.read_text(encoding="utf-8").splitlines()[start:end]
    rows = [re.split(sep, line.strip()) for line in lines
            if line.strip() and set(line.strip()) - set("-= ")]
    head = [h.strip() for h in header.split("|")] if header else rows.pop(0)
    bad = [r for r in rows if len(r) != len(head)]
    if not rows or bad:
        raise ValueError(f"{path.name} lines {start}-{end}: rows {bad[:1] or rows} do not "
                         f"split into the {len(head)} cells {head}")
    return head, rows


#: Columns of a summary in seconds (shown as ``12.3 ms`` / ``1.23 s``).
_SECONDS = re.compile(r"^(wall|tts99|ttt99|t_|time|budget)")


def format_cell(column: str, value: str) -> str:
    """A summary cell for people: seconds columns as ``12.3 ms``, other numbers to 3
    significant digits, integers as they are, an empty cell as ``-``.

    >>> format_cell("tts99_median", "0.01234"), format_cell("p_read", "0.123456")
    ('12.3 ms', '0.123')
    >>> format_cell("n", "40"), format_cell("solved_pct", "100.0"), format_cell("set", "")
    ('40', '100', '-')
    """
    from qsudoku.model.result import format_seconds

    if value in ("", "nan", "None"):
        return "-"
    try:
        x = float(value)
    except ValueError:
        return value
    if _SECONDS.match(column):
        return format_seconds(x)
    if x == int(x) and abs(x) < 1e15 and re.fullmatch(r"-?\d+(\.0*)?", value):
        return str(int(x))
    return f"{x:.3g}"


def read_csv_table(path: Path, columns: str, where: str | None = None):
    """The header and rows of a summary CSV (``results.summary.csv``): ``columns`` is a
    comma-separated list of ``name`` or ``name=Header`` (``name+ci`` shows the column with
    its ``name_low``/``name_high`` interval: ``0.5 [0.4, 0.6]``); ``where`` keeps the rows
    whose cells match, ``col=a|b, col2=c``. Every named column must exist.
    """
    import csv

    with open(path, newline="", encoding="utf-8") as f:
        records = list(csv.DictReader(f))
    wanted = []
    for item in columns.split(","):
        name, _, title = item.strip().partition("=")
        ci = name.endswith("+ci")
        name = name[:-3] if ci else name
        wanted.append((name.strip(), ci, title.strip() or name.strip()))
    known = set(records[0]) if records else set()
    for name, ci, _ in wanted:
        need = [name] + ([f"{name}_low", f"{name}_high"] if ci else [])
        missing = [n for n in need if n not in known]
        if missing:
            raise ValueError(f"{path.name}: no column {missing[0]!r} (it has {sorted(known)})")
    for cond in (where or "").split(","):
        if cond.strip():
            col, _, values = cond.partition("=")
            keep = {v.strip() for v in values.split("|")}
            records = [r for r in records if r.get(col.strip(), "") in keep]
    if not records:
        raise ValueError(f"{path.name}: no row matches {where!r}")
    rows = []
    for r in records:
        cells = []
        for name, ci, _ in wanted:
            cell = format_cell(name, r[name])
            if ci and cell != "-":
                cell += (f" [{format_cell(name, r[name + '_low'])}, "
                         f"{format_cell(name, r[name + '_high'])}]")
            cells.append(cell)
        rows.append(cells)
    return [title for _, _, title in wanted], rows


class ResultsTableDirective(Directive):
    """``results-table FILE``: a plain-text table (``:start-line:``, ``:end-line:``,
    ``:header:``, ``:sep:``) or a summary CSV (``:columns:``, ``:where:``). ``:pending:
    COMMAND`` lets the file be missing (a study not yet run): the page then says which
    command writes it."""

    required_arguments = 1
    option_spec = {"start-line": directives.nonnegative_int,
                   "end-line": directives.nonnegative_int, "header": directives.unchanged,
                   "sep": directives.unchanged, "columns": directives.unchanged,
                   "where": directives.unchanged, "pending": directives.unchanged}

    def run(self):
        env = self.state.document.settings.env
        rel, path = env.relfn2path(self.arguments[0])
        if "pending" in self.options and not Path(path).is_file():
            p = nodes.paragraph(text="Not measured yet; ")
            p += nodes.literal(text=self.options["pending"])
            p += nodes.Text(" writes this table.")
            return [p]
        env.note_dependency(rel)
        try:
            if "columns" in self.options:
                head, rows = read_csv_table(Path(path), self.options["columns"],
                                            self.options.get("where"))
            else:
                head, rows = read_results_table(Path(path), self.options.get("start-line", 0),
                                                self.options.get("end-line"),
                                                self.options.get("header"),
                                                self.options.get("sep", r"\s{2,}"))
        except (OSError, ValueError) as exc:
            raise self.error(str(exc)) from None
        return [_table(head, [[_para(c) for c in r] for r in rows])]


def setup(app):
    app.add_directive("results-table", ResultsTableDirective)
    app.add_directive("qsudoku-cli", CliDirective)
    app.add_directive("qsudoku-config", ConfigDirective)
    app.add_directive("qsudoku-samplers", SamplersDirective)
    app.connect("config-inited", write_api_stubs)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
