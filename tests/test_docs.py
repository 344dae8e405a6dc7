"""The README is a front page and the documentation says each thing once.

- README.md is short, starts with the two set-up commands, and its links resolve;
- no run of 6 or more consecutive non-blank lines of the README appears in a docs page, and
  no two docs pages share one (a page quotes another by linking to it);
- every relative link of the README and the docs pages resolves to a file of the repository
  (and a heading of it, for a ``#fragment`` of a Markdown page) without a build;
- what the README, the docs and the notebooks import comes from ``qsudoku`` or a module the
  API reference documents as public;
- LICENSE and CHANGELOG.md exist, and the version has one home;
- the site builds with warnings as errors and has the pages the reference promises; no page
  loads a script or stylesheet from another host, and in headless Chromium (when installed)
  its formulas render with no network and wide tables scroll inside their column.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from html.parser import HTMLParser
from itertools import combinations
from pathlib import Path

import pytest

from _shared import REPO

README = REPO / "README.md"
DOCS = REPO / "docs"
#: Folders of docs/ that the build writes (copies and stubs), not pages of the repository.
_BUILT = ("_build", "tutorials", "api")
RUN = 6


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if p.relative_to(DOCS).parts[0] not in _BUILT)


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _runs(path: Path) -> dict[tuple[str, ...], int]:
    """Every run of :data:`RUN` consecutive non-blank lines of ``path`` -> its first line number
    among the non-blank lines."""
    lines = _lines(path)
    return {tuple(lines[i:i + RUN]): i for i in range(len(lines) - RUN + 1)}


def test_readme_is_a_front_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    first = re.search(r"```\w*\n(.*?)```", text, re.S).group(1).splitlines()
    assert first[0].startswith("pip install -e . && qsudoku solve ")
    assert first[1] == 'pip install -e ".[test]" && pytest'
    assert text.index("```") < text.index("\n## ")  # the commands come first


def test_no_run_of_the_readme_is_repeated_in_the_docs():
    readme = _runs(README)
    for page in _pages():
        shared = set(readme) & set(_runs(page))
        assert not shared, f"{page.name} repeats README lines: {sorted(shared)[0]}"


def test_no_two_docs_pages_share_a_run_of_lines():
    runs = {page: set(_runs(page)) for page in _pages()}
    for a, b in combinations(runs, 2):
        shared = runs[a] & runs[b]
        assert not shared, f"{a.name} and {b.name} share: {sorted(shared)[0]}"


def test_the_run_check_finds_a_repeat(tmp_path):
    body = "\n".join(f"line {i}" for i in range(8))
    (tmp_path / "a.md").write_text("intro\n\n" + body)
    (tmp_path / "b.md").write_text(body + "\nmore")
    assert set(_runs(tmp_path / "a.md")) & set(_runs(tmp_path / "b.md"))


_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """The anchor GitHub and MyST give a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(m) for m in re.findall(r"^#+ (.*)$", path.read_text(encoding="utf-8"), re.M)}


def _links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return [a or b for a, b in _LINK.findall(text)]


@pytest.mark.parametrize("path", [README, *_pages()], ids=lambda p: p.name)
def test_every_relative_link_resolves(path):
    bad = []
    for link in _links(path):
        if re.match(r"[a-z]+:", link):  # http(s), mailto: not checked offline
            continue
        target, _, fragment = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        if not file.exists():
            bad.append(link)
        elif fragment and file.suffix == ".md" and fragment not in _anchors(file):
            bad.append(link)
    assert not bad, f"{path.name}: links that do not resolve: {bad}"


def _public_modules() -> set[str]:
    text = (DOCS / "api-modules.md").read_text(encoding="utf-8")
    return set(re.findall(r"automodule:: ([\w.]+)", text))


_IMPORT = re.compile(r"^\s*(?:from (qsudoku[\w.]*) import ([\w, ]+(?: as \w+)?)|import (qsudoku[\w.]*))",
                     re.M)


def _code_of_notebooks() -> dict[str, str]:
    out = {}
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        out[nb.name] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return out


def test_examples_import_only_the_public_api():
    public = _public_modules() | {"qsudoku"}
    sources = {p.name: p.read_text(encoding="utf-8") for p in [README, *_pages()]}
    sources.update(_code_of_notebooks())
    bad = {}
    for name, text in sources.items():
        for module, names, plain in _IMPORT.findall(text):
            # `from qsudoku.plots import grid as plot` imports the module qsudoku.plots.grid
            wanted = {plain} if plain else {module} if module in public else {
                f"{module}.{n.split(' as ')[0].strip()}" for n in names.split(",")}
            if wanted - public:
                bad.setdefault(name, set()).update(wanted - public)
    assert not bad, f"imports from modules the API reference does not document: {bad}"


@pytest.mark.slow
def test_every_public_module_imports():
    for module in sorted(_public_modules()):
        proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        assert proc.returncode == 0, proc.stderr[-500:]


def test_licence_changelog_and_one_version():
    assert "Apache License" in (REPO / "LICENSE").read_text() and "Version 2.0" in (
        REPO / "LICENSE").read_text()
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "Apache-2.0"}
    assert f"## [{project['version']}]" in (REPO / "CHANGELOG.md").read_text()
    init = (REPO / "qsudoku" / "__init__.py").read_text()
    assert project["version"] not in init  # the version's home is pyproject.toml
    assert (REPO / "qsudoku" / "py.typed").is_file()
    assert "py.typed" in tomllib.loads((REPO / "pyproject.toml").read_text())["tool"][
        "setuptools"]["package-data"]["qsudoku"]


def test_the_config_reference_reads_every_key():
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from reference_pages import read_defaults
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    _, tables = read_defaults()
    keys = {f"{t}.{k[0]}" for t, (_, ks) in tables.items() for k in ks}
    data = tomllib.loads((REPO / "qsudoku" / "defaults.toml").read_text())
    flat = {f"{t}.{k}" for t, table in data.items() for k, v in table.items()
            if not isinstance(v, dict)}
    flat |= {f"{t}.{s}.{k}" for t, table in data.items() for s, sub in table.items()
             if isinstance(sub, dict) for k in sub}
    assert flat <= keys
    assert {"qubo.weights.unit", "sampler.params.seed", "sampler.fallback"} <= keys  # optional


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The built site: ``$QSUDOKU_DOCS_BUILD`` if CI built it already, else built here with
    the documented command (warnings are errors)."""
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    built = os.environ.get("QSUDOKU_DOCS_BUILD")
    if built:
        return Path(built)
    out = tmp_path_factory.mktemp("site") / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(DOCS),
                           str(out), "-d", str(out.parent / "doctrees")],
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_site_has_an_api_page_for_every_exported_name(site):
    import qsudoku

    for name in qsudoku.__all__:
        page = site / "api" / f"{name}.html"
        assert page.is_file() and f"qsudoku.{name}" in _text(page), name


@pytest.mark.slow
def test_the_site_shows_every_notebook_with_its_images(site):
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        page = site / "tutorials" / f"{nb.stem}.html"
        assert page.is_file() and "<img" in _text(page), nb.name


class _Tags(HTMLParser):
    """The ``src`` of every ``<script>`` and the ``href`` of every ``<link>`` of a page, the
    text outside scripts and styles, and the cells of its tables."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self.text: list[str] = []
        self.cells: list[str] = []
        self._skip = 0
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and attrs.get("src"):
            self.urls.append(attrs["src"])
        if tag == "link" and attrs.get("href"):
            self.urls.append(attrs["href"])
        if tag in ("script", "style"):
            self._skip += 1
        if tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1
        if tag == "td" and self._cell is not None:
            self.cells.append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)
            if self._cell is not None:
                self._cell.append(data)


def _tags(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    return parser


def test_the_tag_reader_finds_a_remote_script():
    page = _tags('<link rel="stylesheet" href="_static/a.css"><script src="https://cdn.x/m.js">'
                 '</script><script>var a = "`";</script><p>a</p><table><td>`b`</td><td></td>')
    assert page.urls == ["_static/a.css", "https://cdn.x/m.js"]
    assert "".join(page.text) == "a`b`" and page.cells == ["`b`", ""]


@pytest.mark.slow
def test_no_page_loads_a_script_or_stylesheet_from_another_host(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 30
    remote = {(p.relative_to(site).as_posix(), url) for p in pages
              for url in _tags(_text(p)).urls if re.match(r"(https?:)?//", url)}
    assert remote == set()
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()  # MathJax is served here


@pytest.mark.slow
def test_the_configuration_page_has_no_raw_markup_and_no_empty_cell(site):
    page = _tags(_text(site / "configuration.html"))
    article = "".join(page.text)
    assert "`" not in article and "design card" not in article
    assert len(page.cells) >= 50 and "" not in page.cells  # 3 cells a key


_CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                  if shutil.which(n)), None)
needs_chromium = pytest.mark.skipif(_CHROMIUM is None, reason="no headless Chromium installed")


def _dom(page: Path, tmp_path: Path, width: int = 1400) -> str:
    """The DOM of ``page`` after its scripts ran in headless Chromium, with no network."""
    profile = tmp_path / f"profile-{page.stem}"
    proc = subprocess.run(
        [_CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={profile}", f"--window-size={width},900",
         "--virtual-time-budget=15000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize("name", ["model.html", "measurement.html",
                                  "tutorials/01_walkthrough.html"])
def test_formulas_render_with_no_network(site, tmp_path, name):
    dom = _dom(site / name, tmp_path)
    text = "".join(_tags(dom).text)
    if 'class="math' in _text(site / name):  # the page has formulas: MathJax typeset them
        assert "<mjx-container" in dom
    left = [s for s in ("\\(", "\\[", "\\frac", "\\sum") if s in text]
    assert left == [], f"{name}: TeX left as text: {left}"


_PROBE = """<script>window.addEventListener('load', () => {
  const edge = document.querySelector('article').getBoundingClientRect().right;
  const out = [];
  document.querySelectorAll('article table').forEach(t => {
    let right = t.getBoundingClientRect().right, p = t.parentElement;
    for (; p && p.tagName !== 'ARTICLE'; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') { right = Math.min(right, p.getBoundingClientRect().right); break; }
    }
    out.push(Math.round(right - edge));
  });
  const d = document.createElement('pre'); d.id = 'probe'; d.textContent = out.join(' ');
  document.body.appendChild(d);
});</script>"""


@pytest.mark.slow
@needs_chromium
def test_wide_tables_scroll_inside_their_column(site, tmp_path):
    """Past the article's right edge (under the right-hand table of contents), a table shows
    nothing: it scrolls inside its column. 02's data frames are wider than the column."""
    page = site / "tutorials" / "02_penalty_weights.html"
    probe = page.with_name("probe_tables.html")
    probe.write_text(_text(page).replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    try:
        dom = _dom(probe, tmp_path, width=1500)
    finally:
        probe.unlink()
    overflow = [int(v) for v in re.search(r'<pre id="probe">([^<]*)</pre>', dom).group(1).split()]
    assert len(overflow) >= 3 and max(overflow) <= 0, overflow
