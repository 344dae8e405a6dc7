"""A function named ``"module:function"``, imported when first called.

The tables of exact backends (:mod:`.backends`) and exports (:mod:`.exports`) and the
child process of :mod:`.isolate` name functions this way, so that none of them imports a
solver module, and no solver module needs to import a table back.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

__all__ = ["Lazy"]


@dataclass(frozen=True)
class Lazy:
    """A function named ``"module:function"``, imported when first called.

    >>> Lazy("math:hypot")(3.0, 4.0)
    5.0
    """

    target: str

    def resolve(self) -> Callable:
        """Import the module and return the function."""
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Lazy({self.target!r})"
