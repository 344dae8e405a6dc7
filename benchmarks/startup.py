"""Start-up: importing the package, the command line's first answer, and the first solve
of a hard 9x9 in a fresh process (the compiled kernels loaded from numba's cache), each in
its own interpreter (asv's ``timeraw_``).  Replaces ``first_run.py`` (at d8fa8bf); its
``--against TREE`` is ``asv continuous main HEAD``.
"""

from __future__ import annotations

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def timeraw_import_qsudoku():
    return "import qsudoku"


def timeraw_cli_samplers():
    return """
from qsudoku.cli import main
from contextlib import redirect_stdout
import io
with redirect_stdout(io.StringIO()):
    main(["samplers"])
"""


def timeraw_first_solve():
    return f"""
import qsudoku
r = qsudoku.solve(qsudoku.parse_puzzle("{HARD}"), qsudoku.Config().with_overrides(seed=1))
assert r.valid
"""


timeraw_first_solve.timeout = 300
