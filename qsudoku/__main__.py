"""``python -m qsudoku`` runs the command-line interface."""

from qsudoku.cli import run

raise SystemExit(run())
