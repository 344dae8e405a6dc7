"""The time budget of a solve: the one set, exactly, or a default that fits the work.

A budget set (``--time-budget S``, ``route.time_budget = S`` in a config file, or
``budget=S`` in the API) is ``S`` seconds counted from the start of the puzzle's solve,
propagation and the QUBO's build included.  The shipped default, ``route.time_budget =
"auto"``, is derived from the work instead (:func:`default_budget`):

- :data:`BASE_BUDGET` (0.8 s), counted the same way, for a model of fewer than
  :data:`BIG_MODEL` variables (every 9x9 to 25x25 model: a blank 25x25 has 15,625) and a
  sampler whose rounds cost no more: sampling alone solves the hardest shared 9x9 sets well
  within it, and more time buys little on what it does not solve (the exact fallback is
  better started early);
- on a model of :data:`BIG_MODEL` variables or more (loose 36x36 and 49x49 grids, where
  sampling is faster than the exact fallback) :data:`BUILDS` times the model's build time
  of sampling, counted from when the model is built, plus the sampler's own work around
  its limit (:data:`~qsudoku.solving.loop.SAMPLE_OVERHEAD` builds): the build measures the
  model's size in this machine's seconds (its load included), and it no longer eats into
  the first round;
- at least what one round of the sampler costs, when its registry entry says so
  (:attr:`qsudoku.samplers.SamplerSpec.round_cost`: ``decompose``, a run of QPU calls);
- for an exact sampler (``sat``, ``cpsat``, ``ilp``, ``asp``, ``csp``: it solves the
  candidates, and no fallback runs after it), the time limit of an exact solve, the
  fallback's (``route.fallback_time_limit``, 60 s; ``0`` = none), counted from the end of
  propagation: a user who names an exact solver expects its answer, and CP-SAT's start-up
  alone took 1.3 s of the base budget on a busy machine.

The result says which budget ran and why (``sampler.route.time_budget`` and
``sampler.route.budget``; a ``budget:`` line in the text output).

>>> default_budget(200, 0.002)
(0.8, 'default')
>>> default_budget(117_649, 1.5)
(9.0, 'default for 117,649 variables: 6 times the 1.5 s build of the model, after it')
>>> default_budget(200, 0.002, round_cost=120.0, label="decompose")
(120.0, 'default for decompose: what one round of its work costs')
>>> default_budget(200, 0.0, label="cpsat", exact_limit=60.0)
(60.0, "default for the exact sampler cpsat: an exact solve's time limit, route.fallback_time_limit")
"""

from __future__ import annotations

from typing import NamedTuple

from qsudoku.checks import MAX_SECONDS
from qsudoku.samplers import SPECS
from qsudoku.solving.loop import SAMPLE_OVERHEAD
from qsudoku.solving.plan import Plan

__all__ = ["AUTO", "BASE_BUDGET", "BIG_MODEL", "BUILDS", "MAX_BUILD", "Budget", "default_budget",
           "is_auto", "first_budget", "long_build", "derive_budget"]

#: The value of ``route.time_budget`` that asks for the derived default.
AUTO = "auto"
#: Seconds of the default budget on a small model (the 9x9 to 25x25 budget).
BASE_BUDGET = 0.8
#: Variables from which the default budget grows with the model: more than any 25x25 model
#: has (15,625), so blank and loose 36x36 and 49x49 grids, where the default sampler's reads
#: are a tabu search over partial assignments (``aco``'s ``AUTO_TABU_VARIABLES``).
BIG_MODEL = 20_000
#: Builds of the model that the default budget gives a big model's sampling.  ``aco``'s
#: sampling (its own checks of the BQM included) took 0.9-3.4 builds to solve a blank 36x36
#: (seeds 0-4) and 1.6-5.1 builds a blank 49x49 (seeds 1-4; seed 0 was still 8 short after
#: 2.4), at load average 3-9 on 2 cores, where a build and a read slow down alike
#: (``qsudoku solve blank.txt --size 36 --format tuples --seed S --time-budget 60
#: --no-fallback --json``, ``blank.txt`` holding ``[]``; ``docs/big_grids.md``).
BUILDS = 6
#: Seconds the default budget waits at most for a big model to be built (then the exact
#: fallback decides, as when a set budget ends during the build).
MAX_BUILD = 60.0


def is_auto(budget) -> bool:
    """True if ``budget`` asks for the derived default (``"auto"``).

    >>> is_auto("auto"), is_auto(0.8)
    (True, False)
    """
    return isinstance(budget, str) and budget == AUTO


def default_budget(num_variables: int, built: float, *, round_cost: float | None = None,
                   label: str = "", exact_limit: float | None = None) -> tuple[float, str]:
    """The default budget's seconds of sampling and the reason, for a model of
    ``num_variables`` variables built in ``built`` seconds and a sampler whose round costs
    ``round_cost`` seconds (``None``: no more than any); for an exact sampler,
    ``exact_limit``, the time limit of an exact solve (``0``: none, and the seconds are
    :data:`~qsudoku.checks.MAX_SECONDS`).

    The seconds are counted from the start of the solve when they are
    :data:`BASE_BUDGET` (reason ``"default"``), else from when the model is built (for
    an exact sampler, which builds none, from the end of propagation).
    """
    if exact_limit is not None:
        return (float(exact_limit or MAX_SECONDS),
                f"default for the exact sampler {label}: an exact solve's time limit, "
                "route.fallback_time_limit" + (" (0: none)" if not exact_limit else ""))
    seconds, why = BASE_BUDGET, "default"
    if num_variables >= BIG_MODEL and BUILDS * built > seconds:
        seconds = BUILDS * built
        why = (f"default for {num_variables:,} variables: {BUILDS} times the {built:.2g} s "
               "build of the model, after it")
    if round_cost is not None and round_cost > seconds:
        seconds, why = float(round_cost), (f"default for {label}: what one round of its work "
                                            "costs")
    return round(seconds, 3), why


class Budget(NamedTuple):
    """A solve's time budget.

    Attributes:
        seconds: Seconds from the start of the solve that the rounds end by (a compile's
            time on top).
        shown: The budget the result reports (``route.time_budget``): an exact sampler's
            is its time limit.
        why: ``"set"``, ``"default"``, or why a default was derived.
        auto: It is the default (``route.time_budget = "auto"``, no budget given).
        derived: It was derived from the model (or the exact sampler) by
            :func:`derive_budget`.
    """

    seconds: float
    shown: float
    why: str
    auto: bool = False
    derived: bool = False


def first_budget(configured, given: float | None) -> Budget:
    """The budget before any work: ``given`` (the API's or the command line's), else the
    configured ``route.time_budget``, else, for ``"auto"``, :data:`BASE_BUDGET` until the
    model is built.

    >>> first_budget("auto", None), first_budget("auto", 2)
    (Budget(seconds=0.8, shown=0.8, why='default', auto=True, derived=False), Budget(seconds=2.0, shown=2.0, why='set', auto=False, derived=False))
    """
    if given is None and is_auto(configured):
        return Budget(BASE_BUDGET, BASE_BUDGET, "default", auto=True)
    seconds = float(configured if given is None else given)
    return Budget(seconds, seconds, "set")


def long_build(label: str, num_variables: int) -> bool:
    """Whether the default budget lets the root model take up to :data:`MAX_BUILD` to build:
    a big model's, or a costly sampler's (:attr:`~qsudoku.samplers.SamplerSpec.round_cost`)."""
    spec = SPECS.get(label)
    return num_variables >= BIG_MODEL or (spec is not None and bool(spec.round_cost))


def derive_budget(plan: Plan, num_variables: int, built: float, elapsed: float, *,
                  exact: bool = False) -> Budget:
    """The default budget of a model of ``num_variables`` variables built in ``built``
    seconds, ``elapsed`` seconds after the start of the solve: the base budget from the
    start, or a big model's (or costly sampler's, or an ``exact`` sampler's) from now, with
    :data:`~qsudoku.solving.loop.SAMPLE_OVERHEAD` builds on top.  An exact sampler's is
    shown as its time limit."""
    spec = SPECS.get(plan.label)
    seconds, why = default_budget(
        num_variables, built, label=plan.label,
        round_cost=spec.round_cost if spec is not None else None,
        exact_limit=plan.config.route.fallback_time_limit if exact else None)
    shown = seconds
    if why != "default":
        seconds = round(elapsed + SAMPLE_OVERHEAD * built + seconds, 3)
        if not exact:  # an exact sampler's is its time limit, as the fallback's is
            shown = seconds
    return Budget(seconds, shown, why, auto=True, derived=True)
