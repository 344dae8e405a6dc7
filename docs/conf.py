"""Sphinx configuration of qsudoku's documentation site.

Build it with ``sphinx-build -W -b html docs docs/_build/html`` (after
``pip install -e ".[docs]"``). The Markdown pages are read through MyST (myst-nb), the
notebooks of ``notebooks/`` are shown with their stored outputs (not executed again), and
the reference pages are generated from the code by ``docs/_ext/qsudoku_docs.py``.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

import qsudoku  # noqa: E402

project = "qsudoku"
author = "the qsudoku authors"
copyright = "the qsudoku authors; Apache License 2.0"
release = version = qsudoku.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "qsudoku_docs",
    # MathJax served from the built site (_static/mathjax), so formulas render offline
    "sphinx-mathjax-offline",
]

# Markdown and notebooks
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
nb_execution_mode = "off"  # the test suite runs the notebooks; the site shows their outputs
myst_heading_anchors = 3  # links such as performance.md#building-the-qubo
myst_enable_extensions = ["dollarmath"]
# Several pages open with a second-level heading or skip a level: not an error for the site.
suppress_warnings = ["myst.header"]

# API reference: Google-style docstrings
napoleon_google_docstring = True
napoleon_numpy_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True  # `config=Config()`, not its whole repr

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "_ext"]

smartquotes = False  # keep "--flag" as typed
html_theme = "furo"
html_title = f"qsudoku {release}"

# -- the notebooks --------------------------------------------------------------------------
# notebooks/ (at the repository root) is their one home; the site reads copies made here at
# every build (docs/tutorials/ is a build product, not committed).
_TUTORIALS = DOCS / "tutorials"
_TUTORIALS.mkdir(exist_ok=True)
for _nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
    _copy = _TUTORIALS / _nb.name
    if not _copy.is_file() or _copy.read_bytes() != _nb.read_bytes():
        shutil.copyfile(_nb, _copy)

# -- the theme ------------------------------------------------------------------------------
# docs/_static/qsudoku.css: wide tables scroll inside their column (furo's right-hand table of
# contents stays clear), code in table cells wraps.
html_static_path = ["_static"]
html_css_files = ["qsudoku.css"]
