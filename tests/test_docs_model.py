"""docs/model.md teaches the QUBO the code builds, and its numbers are the code's.

- at least 5 display formulas and 10 inline ones, covering the Hamiltonian, the QUBO
  coefficients, the energy gap and the domain wall;
- its figures are made by ``docs/_figures/model_figures.py`` from the 4x4 the page describes
  (variables, couplers, coefficients as stated);
- the energy gap it states (exact on a 4x4) and rows of its size table are recomputed;
- notebook 01 links to it.
"""

from __future__ import annotations

import importlib.util
import json
import re

import numpy as np
import pytest

from _shared import REPO

PAGE = REPO / "docs" / "model.md"
FIGURES = REPO / "docs" / "_figures"


def _figures_module():
    spec = importlib.util.spec_from_file_location("model_figures", FIGURES / "model_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _prose() -> str:
    return re.sub(r"```.*?```", "", PAGE.read_text(encoding="utf-8"), flags=re.S)


def test_the_page_has_the_formulas():
    text = _prose()
    display = re.findall(r"^\$\$\n(.*?)\n\$\$$", text, re.S | re.M)
    inline = re.findall(r"(?<!\$)\$(?!\$)[^$\n]+\$(?!\$)", re.sub(r"^\$\$\n.*?\n\$\$$", "", text,
                                                           flags=re.S | re.M))
    assert len(display) >= 5 and len(inline) >= 10, (len(display), len(inline))
    formulas = "\n".join(display)
    for needle in ("H(x)", "Q_{ii}", "Q_{ij}", r"\Delta", "y_{c,j}", "P_c"):
        assert needle in formulas, needle


def test_the_figures_are_made_from_the_model_the_page_describes():
    figures = _figures_module()
    model = figures.small_model()
    q = figures.qubo_matrix(model)
    text = PAGE.read_text(encoding="utf-8")
    for name in ("qubo_matrix.png", "model_graph.png"):
        assert f"](_figures/{name})" in text and (FIGURES / name).stat().st_size > 10_000
    assert f"{model.num_variables} variables, {model.num_interactions} couplers" in text
    assert set(np.diag(q).tolist()) == {-4.0}  # four groups a variable
    assert set(q[np.triu_indices_from(q, 1)].tolist()) == {0.0, 2.0, 4.0}
    assert model.bqm.offset == len(model.constraints)  # C = sum of the weights


@pytest.mark.slow  # every state of four 4x4 models: about 20 s
def test_the_stated_gap_is_the_exact_one():
    figures = _figures_module()
    gaps = {}
    for encoding, num_variables, lowest in figures.exact_gaps():
        (e0, n0), (e1, _), *_ = lowest
        assert (e0, n0) == (0.0, 1)  # the solution alone at energy 0
        gaps.setdefault(encoding, set()).add(e1)
    assert gaps["one-hot"] == {4.0} and gaps["domain-wall"] <= {5.0, 6.0}
    text = _prose()
    assert r"\Delta = 4$ held by" in text and "gaps are 5 to 6" in text


@pytest.mark.parametrize("name", ["sudoku9/gecode.txt", "jigsaw9/smilingwayne.txt"])
def test_a_row_of_the_size_table_is_recomputed(name):
    (row,) = _figures_module().sizes((name,))
    cells = [str(row[0]), str(row[1]), str(row[2]), f"{row[3]} / {row[4]}",
             f"{row[5]} / {row[6]}", str(row[7])]
    line = "| `" + cells[0] + "` | " + " | ".join(cells[1:]) + " |"
    assert line in PAGE.read_text(encoding="utf-8")


def test_notebook_01_links_to_the_model_page():
    cells = json.loads((REPO / "notebooks" / "01_walkthrough.ipynb").read_text())["cells"]
    text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "](../docs/model.md)" in text
