"""``aco``: ant colony construction over a BQM's one-hot groups (:mod:`.sampler`), its
compiled ants (:mod:`.kernel`) and the ants that learn from contradictions (:mod:`.learn`)."""

from qsudoku.samplers.aco.sampler import *  # noqa: F401,F403
from qsudoku.samplers.aco.sampler import __all__  # noqa: F401
