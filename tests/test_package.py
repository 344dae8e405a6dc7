import subprocess
import sys
from _puzzles import FOUR_GIVENS4
import pytest
from _cli import one_error, run
from _input_cases import _only
from _puzzles import EASY4_SET


def test_import_stays_light():
    """`import qsudoku` loads neither dimod nor D-Wave, pandas, matplotlib or numba."""
    code = ("import sys, qsudoku; heavy = [m for m in ('dimod', 'dwave', 'dwave.system', 'pandas', "
            "'matplotlib', 'numba', 'ortools', 'pysat', 'sympy') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_python_dash_m_runs_cli():
    out = subprocess.run([sys.executable, "-m", "qsudoku", "solve", FOUR_GIVENS4,
                          "--json"], capture_output=True, text=True)
    assert out.returncode == 0 and '"valid": true' in out.stdout


def test_console_script_declared():
    import tomllib
    from pathlib import Path

    data = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert data["project"]["scripts"]["qsudoku"] == "qsudoku.cli:run"


def test_missing_matplotlib_names_the_extra(tmp_path, capsys, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run(capsys, "show", EASY4_SET[0], "-o", tmp_path / "g.png")
    assert code == 3 and one_error(err).endswith('pip install -e ".[bench]" (from the repository\'s root)')
    _only(tmp_path)


def test_missing_pyarrow_names_the_extra():
    from qsudoku.cli import optional_import_error

    e = ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'.")
    assert str(optional_import_error(e)) == (".parquet files need pyarrow, which is not "
                                             "installed: pip install -e \".[bench]\" "
                                             "(from the repository's root)")
    assert optional_import_error(ImportError("cannot import name 'x'")) is None
