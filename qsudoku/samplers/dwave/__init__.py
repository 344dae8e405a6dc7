"""The D-Wave samplers: the QPU and its offline emulator behind a cached embedding
(:mod:`.qpu`, :mod:`.embedding`), Leap's hybrid solvers (:mod:`.hybrid`), QPU-sized
subproblems (:mod:`.decompose`, :mod:`.subproblems`, :mod:`.construct`) and dwave-hybrid's
Kerberos (:mod:`.kerberos`).  dwave-system, dwave-cloud-client, minorminer and
dwave-hybrid are imported only when a sampler is built or called.
"""

from qsudoku.samplers.dwave.qpu import *  # noqa: F401,F403
from qsudoku.samplers.dwave.qpu import __all__  # noqa: F401
