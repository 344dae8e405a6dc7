"""Where a run writes (``qsudoku.io.targets``): an output that is also an input of the run
(the same name, a link, a hard link, the config) is refused and the input kept."""

from __future__ import annotations

import os

import pytest

from _file_cases import BENCH, error_line, here, leftovers, state
from _puzzles import EASY4


@pytest.mark.parametrize("out", ["X.csv", "./X.csv", "link.csv", "hard.csv"])
def test_an_output_that_is_also_an_input_is_refused(here, tmp_path, out):
    puzzles = tmp_path / "X.csv"
    puzzles.write_text(EASY4 + "\n")
    os.symlink(puzzles, tmp_path / "link.csv")
    os.link(puzzles, tmp_path / "hard.csv")
    before = state(puzzles)
    proc = here(tmp_path, *BENCH, "X.csv", "-o", out, "--overwrite")
    assert proc.returncode == 2
    assert error_line(proc) == (f"-o {out}: {out} is also an input of this run (X.csv); "
                                "write the results to another file")
    assert state(puzzles) == before and leftovers(tmp_path) == []


def test_sweep_an_output_that_is_the_config_is_refused(here, tmp_path):
    config = tmp_path / "c.csv"
    config.write_text("[sampler]\nname = \"random\"\n")
    before = state(config)
    proc = here(tmp_path, "sweep", EASY4, "--config", config, "--grid", "cell=1,2",
                   "-o", config, "--overwrite", "--quiet")
    assert proc.returncode == 2 and "is also an input of this run" in error_line(proc)
    assert state(config) == before
