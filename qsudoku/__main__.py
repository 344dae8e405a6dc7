"""``python -m qsudoku`` runs the command-line interface."""

from .cli import run

raise SystemExit(run())
