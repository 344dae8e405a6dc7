"""What every figure of :mod:`qsudoku.plots` starts from: matplotlib, checked, and its axes.

Figures are made without pyplot (no global state, no display needed).
"""

from __future__ import annotations

from typing import Literal

from qsudoku.errors import BackendUnavailableError, install_hint

__all__ = ["need_matplotlib", "figure"]


def need_matplotlib() -> None:
    """Nothing if matplotlib can be imported.

    Raises:
        BackendUnavailableError: It cannot: one line naming the extra that installs it.
    """
    try:
        import matplotlib.collections  # noqa: F401 - the modules the drawings use
        import matplotlib.figure  # noqa: F401
        import matplotlib.patches  # noqa: F401
    except ImportError:
        raise BackendUnavailableError(
            f"pictures need matplotlib: {install_hint('bench')}") from None


def figure(ax, figsize, panels: int = 1, layout: Literal["constrained"] | None = "constrained"):
    """``(fig, ax)``: the given axes, or a new pyplot-free figure with one axes (with
    ``panels`` > 1: that many side by side, ``ax`` their array)."""
    if ax is not None:
        return ax.figure, ax
    need_matplotlib()
    from matplotlib.figure import Figure
    fig = Figure(figsize=figsize, layout=layout)
    return fig, fig.add_subplot() if panels == 1 else fig.subplots(1, panels)
