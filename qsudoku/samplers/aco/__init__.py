"""``aco``: ant colony construction over a BQM's one-hot groups (:mod:`.sampler`), its
compiled ants (:mod:`.kernel`), the ants that refute contradictions (:mod:`.learn`) and
the tabu search that can polish a colony's record (:mod:`.partial`)."""

from qsudoku.samplers.aco.sampler import *  # noqa: F401,F403
from qsudoku.samplers.aco.sampler import __all__  # noqa: F401
