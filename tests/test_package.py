import subprocess
import sys
from _puzzles import FOUR_GIVENS4


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
