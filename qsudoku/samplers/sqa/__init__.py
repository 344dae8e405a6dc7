"""``sqa`` and ``rotor``: dwave-samplers' quantum-inspired annealers with schedules of
their own (:mod:`.sampler`)."""

from qsudoku.samplers.sqa.sampler import *  # noqa: F401,F403

__all__ = ["PathIntegralSampler", "RotorSampler", "check_sqa", "check_rotor",
           "transverse_schedule"]
