"""A function named ``"module:function"``, imported when first called.

The tables of :mod:`.backends` and :mod:`.exports` and :mod:`.isolate`'s child name
functions this way, so none imports a solver module.
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
