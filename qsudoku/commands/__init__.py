"""Subcommands of the ``qsudoku`` CLI, one module each (see :mod:`qsudoku.cli`)."""
