"""The time budget of a solve: the one set, exactly, or a default that fits the work.

A budget set (``--time-budget S``, ``route.time_budget = S``, ``budget=S``) is ``S``
seconds from the start of the puzzle's solve, propagation and build included.  The default,
``"auto"``, is derived from the work (:func:`default_budget`):

- :data:`BASE_BUDGET`, counted the same way, below :data:`BIG_MODEL` variables (every
  9x9 to 25x25 model): more time buys little on what sampling does not solve, and the exact
  fallback is better started early;
- from :data:`BIG_MODEL` variables, :data:`BUILDS` times the model's build, counted from the
  end of the build, plus :data:`~qsudoku.solving.loop.SAMPLE_OVERHEAD` builds: the build
  measures the model's size in this machine's seconds;
- at least one round's cost when the registry says so
  (:attr:`qsudoku.samplers.SamplerSpec.round_cost`: ``decompose``);
- for an exact sampler, which no fallback follows, an exact solve's time limit
  (``route.fallback_time_limit``; ``0`` = none), from the end of propagation.

The result says which budget ran and why (``sampler.route.time_budget`` and
``sampler.route.budget``).

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
#: Variables from which the default budget grows with the model: more than any 25x25
#: model has (15,625).
BIG_MODEL = 20_000
#: Builds of the model that the default budget gives a big model's sampling: ``aco`` took
#: 0.9-5.1 builds to solve blank 36x36 and 49x49 grids (``docs/big_grids.md``).
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
