"""Reference pages generated from the code, so that they cannot drift from it.

The command-line, configuration and samplers references are Markdown written into the
repository by ``docs/_ext/reference_pages.py`` (so that they read on GitHub too); this
extension adds what only a build can do:

- ``results-table`` (usable from MyST pages as ```` ```{results-table} FILE ````): a table
  of a results file of ``benchmarks/results`` read at build time (:func:`read_csv_table`
  for a study's ``results.summary.csv``, :func:`read_results_table` for a plain-text
  table), so that its figures are not typed again.
- A link from a page to a notebook, ``../notebooks/NAME.ipynb`` (which resolves on GitHub),
  is read as a link to the notebook's page of the site, ``tutorials/NAME`` (the copy
  ``conf.py`` makes), and a notebook's link to ``../docs/PAGE.md`` as one to the page, at
  ``source-read``.

At ``config-inited`` it also writes one API stub page per name of ``qsudoku.__all__`` into
``docs/api/`` (a build product, not committed).
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives

ROOT = Path(__file__).resolve().parents[2]


# -- small node builders -------------------------------------------------------------------

def _para(text: str) -> nodes.paragraph:
    return nodes.paragraph(text=text)


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


_NOTEBOOK_LINK = re.compile(r"\]\(\.\./notebooks/([\w-]+\.ipynb)((?:#[\w-]*)?)\)")
_PAGE_LINK = re.compile(r"\]\(\.\./docs/([\w-]+\.md(?:#[\w-]*)?)\)")


def notebook_links(text: str) -> str:
    """A page's links to ``../notebooks/NAME.ipynb`` made links to the site's copy.

    >>> notebook_links("[01](../notebooks/01_walkthrough.ipynb#energies)")
    '[01](tutorials/01_walkthrough.ipynb#energies)'
    """
    return _NOTEBOOK_LINK.sub(r"](tutorials/\1\2)", text)


def page_links(text: str) -> str:
    """A notebook's links to ``../docs/PAGE.md`` (from ``notebooks/``) made links from its
    copy in ``docs/tutorials/``.

    >>> page_links('"[the model](../docs/model.md#the-energy-gap)"')
    '"[the model](../model.md#the-energy-gap)"'
    """
    return _PAGE_LINK.sub(r"](../\1)", text)


def _read_links(app, docname: str, source: list[str]) -> None:
    if docname.startswith("tutorials/"):  # a notebook's copy
        source[0] = page_links(source[0])
    elif "/" not in docname:  # a page of docs/
        source[0] = notebook_links(source[0])


def setup(app):
    app.add_directive("results-table", ResultsTableDirective)
    app.connect("source-read", _read_links)
    app.connect("config-inited", write_api_stubs)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
