import math

import pandas as pd
import pytest

from qsudoku import Config, parse_puzzle, propagate, solve
from qsudoku.cli import main
from qsudoku.model.decode import decode_array
from qsudoku.io import Rules, load_puzzles, parse_regions
from qsudoku.plots.grid import (STYLES, broken_cells, curves, draw_grid, draw_result, energy_histogram,
                          heatmap, region_ids, save_figure)
from qsudoku.model.qubo import build_model

from _shared import DATA, needs_data
from _puzzles import BOX_GIVEN4, EASY4, SEED004

JIGSAW = "3.......4..2.6.1...1.9.8.2...5...6...2.....1...9...8...8.3.4.6...4.1.9..5.......7"
REGIONS = "aaabcccccaaabbbcccaddddbbbcaadeeeebbddddeffffggeeeefiihgggffffihhhgggiiihhhhhgiii"


def _texts(fig):
    return [t for t in fig.axes[0].texts if t.get_text()]


def _thick_segments(fig):
    col = [c for c in fig.axes[0].collections if max(c.get_linewidths()) >= 2][0]
    return len(col.get_segments())


def _region_boundaries(puzzle):
    n, ids = puzzle.size, region_ids(puzzle)
    inner = sum(ids[r * n + c] != ids[r * n + c + 1] for r in range(n) for c in range(n - 1))
    inner += sum(ids[r * n + c] != ids[(r + 1) * n + c] for r in range(n - 1) for c in range(n))
    return inner + 4


def test_jigsaw_borders_follow_the_regions():
    p = parse_puzzle(JIGSAW, Rules(regions=parse_regions(REGIONS)))
    ids = region_ids(p)
    assert len(set(ids)) == 9 and -1 not in ids
    fig = draw_grid(p)
    assert _thick_segments(fig) == _region_boundaries(p)
    # every given drawn once, bold black
    texts = _texts(fig)
    assert len(texts) == sum(1 for d in p.givens if d)
    assert all(t.get_fontweight() == "bold" for t in texts)


def test_standard_9x9_has_box_borders_only():
    fig = draw_grid(parse_puzzle(SEED004))
    # 2 inner box lines each way, 9 unit segments each, plus the 4 outer sides
    assert _thick_segments(fig) == 2 * 2 * 9 + 4


def test_given_propagated_and_annealed_digits_have_distinct_styles():
    p = parse_puzzle(SEED004)
    r = solve(p, Config().with_overrides(sampler="sa", seed=3, reads=20))
    assert r.valid
    fig = draw_result(r)
    texts = _texts(fig)
    assert len(texts) == p.size ** 2
    colours = {t.get_color() for t in texts}
    assert colours == {STYLES["given"], STYLES["propagated"], STYLES["annealed"]}
    fixed = r.model.fixed
    annealed = [t for t in texts if t.get_color() == STYLES["annealed"]]
    assert len(annealed) == sum(1 for d in fixed if d == 0)
    assert all(t.get_fontstyle() == "italic" for t in annealed)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["given", "propagated", "annealed"]


def test_broken_constraints_of_an_invalid_sample_are_highlighted():
    p = parse_puzzle(BOX_GIVEN4)
    m = build_model(propagate(p, rules=()))
    bad = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 2]  # r4c4 should be 1: row 4 has two 2s
    d = decode_array(m, m.sample_of_grid(bad)[None, :])[0]
    assert not d.valid and d.broken
    conflict, missing = broken_cells(p, d.grid, d.broken)
    assert {14, 15} <= conflict
    fig = draw_grid(p, d.grid, fixed=m.fixed, broken=d.broken)
    reds = [pt for pt in fig.axes[0].patches
            if pt.get_facecolor()[:3] == pytest.approx(_rgb(STYLES["broken"]))]
    assert len(reds) == len(conflict)


def _rgb(hex_colour):
    from matplotlib.colors import to_rgb

    return to_rgb(hex_colour)


@pytest.mark.slow
@needs_data
def test_diagonals_are_shaded_and_large_grids_draw():
    px = load_puzzles(str(DATA / "generated" / "sudokux9" / "unique.txt"))[0]
    fig = draw_grid(px)
    shaded = [pt for pt in fig.axes[0].patches
              if pt.get_facecolor()[:3] == pytest.approx(_rgb(STYLES["extra"]))]
    assert len(shaded) == 2 * px.size  # both diagonals (the centre twice)
    p25 = load_puzzles(str(DATA / "sudoku25" / "gecode.txt"))[0]
    texts = _texts(draw_grid(p25, candidates=propagate(p25)))
    assert any(t.get_text() == "P" for t in texts)  # digit 25


def test_candidates_as_pencil_marks():
    p = parse_puzzle(SEED004)
    c = propagate(p, rules=["naked_single"])
    fig = draw_grid(p, candidates=c)
    small = [t for t in _texts(fig) if t.get_color() == STYLES["candidates"]]
    assert len(small) == c.num_variables == 152


def test_energy_histogram_counts_every_read():
    # one round (as --no-route): rounds first measure one read, and a result decodes its
    # last round's reads
    r = solve(parse_puzzle(SEED004), Config().with_overrides(sampler="sa", seed=1, reads=30,
                                                            params={"num_sweeps": 50},
                                                            route={"enabled": False}))
    fig = energy_histogram(r, label="sa")
    heights = [pt.get_height() for pt in fig.axes[0].patches]
    assert sum(heights) == pytest.approx(30)
    valid = sum(d.num_occurrences for d in r.decoded if d.valid)
    assert 0 < valid < 30
    frac = energy_histogram(r.decoded, density=True)
    assert sum(pt.get_height() for pt in frac.axes[0].patches) == pytest.approx(1.0)


def test_heatmap_and_curves_show_infinite_tts():
    df = pd.DataFrame({"cell": [1, 1, 2, 2, 1], "unit": [1, 2, 1, 2, 1],
                       "tts99": [0.1, math.inf, 0.3, 0.4, 0.2]})
    fig = heatmap(df, "cell", "unit", "tts99", log=True, fmt="{:.2f}")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["0.15", "0.30", "inf", "0.40"]
    fig = curves(df, "cell", "tts99", hue="unit", logy=True)
    lines = fig.axes[0].lines
    assert [ln.get_label() for ln in lines if not ln.get_label().startswith("_")] == [
        "unit=1", "unit=2"]
    never = [ln for ln in lines if ln.get_marker() == "x"]
    assert len(never) == 1 and list(never[0].get_xdata()) == [1]


def test_save_png_and_svg(tmp_path):
    fig = draw_grid(parse_puzzle(SEED004))
    png = save_figure(fig, str(tmp_path / "g.png"), dpi=60)
    svg = save_figure(fig, str(tmp_path / "g.svg"))
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in open(svg, encoding="utf-8").read(2000)


@pytest.mark.slow
def test_cli_show(tmp_path, capsys):
    out, hist = tmp_path / "g.png", tmp_path / "h.svg"
    assert main(["show", SEED004, "--solve", "--seed", "2", "-o", str(out),
                 "--hist", str(hist)]) == 0
    assert out.stat().st_size > 1000 and hist.stat().st_size > 1000
    # an unsolvable budget: exit 1, picture still written
    code = main(["show", SEED004, "--solve", "--sampler", "sa", "--rules", "none", "--reads", "2", "--param",
                 "num_sweeps=1", "--seed", "1", "--no-route", "--no-fallback", "-o", str(out)])
    assert code == 1 and "NOT valid" in capsys.readouterr().err
    assert main(["show", SEED004, "--candidates", "-o", str(tmp_path / "c.pdf")]) == 0
    assert main(["show", SEED004, "-o", str(tmp_path / "g.jpg")]) == 2
    assert main(["show", SEED004, "--hist", str(hist), "-o", str(out)]) == 2
    assert main(["show", SEED004, "--index", "2", "-o", str(out)]) == 2
    assert "only 1 puzzle" in capsys.readouterr().err


def test_figures_do_not_touch_pyplot():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    draw_grid(parse_puzzle(SEED004))
    heatmap(pd.DataFrame({"a": [1], "b": [1], "success_prob": [1.0]}), "a", "b")
    assert plt.get_fignums() == before


def test_show_solve_without_any_sample_draws_and_says_so(tmp_path, capsys, monkeypatch):
    """A solve that ended with no sample (a 49x49 past its time budget) has no energy:
    ``show --solve`` still draws the grid and says "no sample" (it was a TypeError)."""
    import dataclasses

    import qsudoku.solving as pipeline
    from qsudoku.cli import main

    real = pipeline.solve

    def no_sample(puzzle, cfg, **kw):
        return dataclasses.replace(real(puzzle, cfg, **kw), energy=None, valid=False)

    monkeypatch.setattr(pipeline, "solve", no_sample)
    out = tmp_path / "g.png"
    code = main(["show", EASY4, "--solve", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and out.stat().st_size > 0
    assert "NOT valid" in err and "no sample" in err and "Traceback" not in err
