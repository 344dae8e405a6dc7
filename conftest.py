"""The one rule of the test suite that reaches the package's doctests as well as ``tests/``.

A test or doctest that runs a sampler kernel the default 9x9 solve does not compile is
``slow``: on a clean clone the first one to run it compiles the kernel (4-10 s each for
``swap``, ``swap-tabu``, and ``aco``'s refuting ants and tabu search, which its
warm-up compiles for models of 1,000 variables and more), which alone would take the fast loop
(``pytest -m "not slow"``) past its minute.  The full suite runs them all.
"""

import pytest
from _pytest.doctest import DoctestItem

#: Samplers whose kernels the default solve does not compile.
OTHER_KERNEL_SAMPLERS = frozenset({"swap", "swap-tabu"})
#: Modules whose doctests run those kernels.
OTHER_KERNEL_DOCTESTS = ("qsudoku.samplers.swap.anneal", "qsudoku.samplers.swap.tabu",
                         "qsudoku.samplers.aco.learn", "qsudoku.samplers.aco.partial")


def pytest_collection_modifyitems(items):
    """Mark ``slow`` the items that run :data:`OTHER_KERNEL_SAMPLERS` or are doctests of
    :data:`OTHER_KERNEL_DOCTESTS`."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (any(isinstance(v, str) and v in OTHER_KERNEL_SAMPLERS for v in params.values())
                or (isinstance(item, DoctestItem) and item.name.startswith(OTHER_KERNEL_DOCTESTS))):
            item.add_marker(pytest.mark.slow)
