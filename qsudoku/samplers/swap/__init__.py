"""``swap`` and ``swap-tabu``: samplers whose moves swap the digits of two cells of one unit.

:mod:`.structure` compiles a BQM and its one-hot groups into the kernels' arrays;
:mod:`.anneal` (``swap``) anneals with those moves, :mod:`.tabu` (``swap-tabu``) runs tabu
search over them; :mod:`.kernel` and :mod:`.tabu_kernel` are their compiled kernels.
"""

from qsudoku.samplers.swap.anneal import *  # noqa: F401,F403
from qsudoku.samplers.swap.structure import *  # noqa: F401,F403
from qsudoku.samplers.swap.tabu import *  # noqa: F401,F403

__all__ = ["SwapAnnealingSampler", "SwapTabuSampler", "SwapStructure", "compile_structure",
           "FAMILY_KINDS"]
