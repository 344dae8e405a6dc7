"""The solve path: one :func:`solve` for every sampler.

- :mod:`.plan`: the sampler, its checked parameters and seed, made once from a config;
- :mod:`.rounds`: one sampler call on one model, decoded (:func:`sample_round`), and the
  statistics over rounds (:class:`Tally`);
- :mod:`.budget`: the time budget, set or derived from the built model;
- :mod:`.loop`: the root model's build and the round loop of one puzzle, within its budget;
- :mod:`.fallback`: the exact fallback, and an exact sampler's direct answer;
- :mod:`.report`: the one :class:`~qsudoku.model.result.Result`, made from the stages' values;
- :mod:`.policy`: :func:`solve`, the stages in a few lines.
"""

from qsudoku.solving.plan import Plan, make_plan
from qsudoku.solving.rounds import Round, Tally, best_read, sample_round
from qsudoku.solving.loop import rounds_text
from qsudoku.solving.policy import build, run_plan, solve

__all__ = ["solve", "run_plan", "build", "Plan", "make_plan", "Round", "Tally", "sample_round",
           "best_read", "rounds_text"]
