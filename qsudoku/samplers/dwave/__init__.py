"""The D-Wave samplers: the QPU and its offline emulator behind a cached embedding
(:mod:`.qpu`, :mod:`.embedding`, with what they share with Leap in :mod:`.cloud`), Leap's hybrid solvers (:mod:`.hybrid`), QPU-sized
subproblems (:mod:`.decompose`, :mod:`.subproblems`, :mod:`.construct`) and dwave-hybrid's
Kerberos (:mod:`.kerberos`).  dwave-system, dwave-cloud-client, minorminer and
dwave-hybrid are imported only when a sampler is built or called.
"""

from qsudoku.samplers.dwave import cloud, qpu
from qsudoku.samplers.dwave.cloud import *  # noqa: F401,F403
from qsudoku.samplers.dwave.qpu import *  # noqa: F401,F403

__all__ = [*cloud.__all__, *qpu.__all__]
