"""The time budget's bounds (``qsudoku.solving.budget``): a ``--time-budget`` or a config
budget out of range is one line naming the flag or the key."""

from __future__ import annotations

import pytest

from _backend_cases import HARD
from _cli import one_error, run


@pytest.mark.parametrize("budget, message", [
    ("1e308", "--time-budget 1e308 must be at most 1e+07 seconds"),
    ("1e8", "--time-budget 1e8 must be at most 1e+07 seconds"),
    ("inf", "--time-budget inf must be a finite number of seconds > 0"),
    ("nan", "--time-budget nan must be a finite number of seconds > 0"),
    ("-1", "--time-budget -1 must be a finite number of seconds > 0"),
])
@pytest.mark.parametrize("command", ["solve", "bench"])
def test_a_time_budget_out_of_range_names_the_flag(command, budget, message, capsys, tmp_path):
    out_csv = tmp_path / "r.csv"
    out_csv.write_text("kept\n")
    extra = ["-o", out_csv] if command == "bench" else []
    code, out, err = run(capsys, command, HARD, "--sampler", "sa", f"--time-budget={budget}", *extra)
    line = one_error(err)
    assert code == 2 and out == "" and message in line and "rejected its parameters" not in line
    assert out_csv.read_text() == "kept\n"  # nothing lost


def test_a_config_budget_out_of_range_is_refused(tmp_path, capsys):
    from qsudoku import Config, solve
    from qsudoku.io import parse_puzzle

    cfg = tmp_path / "c.toml"
    cfg.write_text("[route]\ntime_budget = 1e308\n")
    code, out, err = run(capsys, "solve", HARD, "--config", cfg)
    assert code == 2 and out == ""
    assert "route.time_budget = 1e+308 must be a positive number of seconds, at most 1e+07" in \
        one_error(err)
    cfg.write_text("[route]\nfallback_time_limit = 1e308\n")
    code, out, err = run(capsys, "solve", HARD, "--config", cfg)
    assert code == 2 and "route.fallback_time_limit = 1e+308" in one_error(err)
    with pytest.raises(ValueError, match=r"budget = 1e\+100 must be a finite number > 0 and <= 1e\+07"):
        solve(parse_puzzle(HARD), Config(), budget=1e100)
    assert Config.from_dict({"route": {"time_budget": 1e7}}).route.time_budget == 1e7
