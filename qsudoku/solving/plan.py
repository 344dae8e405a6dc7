"""The plan of a solve: the sampler, its checked parameters and the round policy, made once.

:func:`make_plan` reads a :class:`~qsudoku.config.Config` (and, optionally, a sampler object
passed in) and fails before any work on what cannot run: an unknown parameter, a nonsense
value, a sampler that is not installed (unless ``sampler.fallback`` names one that is).
Every sampler gets the same treatment:

- a *registered* sampler (built here, or passed in as an instance of a registered class)
  takes its registry entry's parameters (:func:`qsudoku.samplers.default_params`: the
  defaults, read from the class's ``sample()`` for qsudoku's own, and the round's reads)
  with the config's on top;
- any other :class:`dimod.Sampler` takes the config's parameters that its ``parameters``
  accept; the others are left out, with one note;
- the seed is taken out of the parameters: each round gets its own, drawn from it
  (:meth:`Plan.round_params`); a sampler that takes no seed gets none, with a note.

>>> from qsudoku import Config
>>> plan = make_plan(Config().with_overrides(sampler="exact", seed=1))
>>> plan.label, plan.seed, plan.notes
('exact', 1, ("sampler 'exact' takes no seed; seed 1 has no effect on it",))
>>> import dimod
>>> plan = make_plan(Config().with_overrides(reads=5, seed=3), dimod.RandomSampler())
>>> plan.label, plan.params
('RandomSampler', {'num_reads': 5})
"""

from __future__ import annotations

import secrets
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from qsudoku.checks import describe
from qsudoku.config import Config
from qsudoku.errors import BackendUnavailableError, ConfigError, ParameterError
from qsudoku.model.encodings import DEFAULT_ENCODING
from qsudoku.samplers import check_params, get_sampler, get_spec, names
from qsudoku.samplers.registry import (accepted_params, check_sampler_values, check_values,
                                       default_params)
from qsudoku.solving.rounds import Round, sample_round

__all__ = ["Plan", "make_plan", "offline_plan", "TIME_PARAMS", "READ_MS_PARAMS",
           "FIXED_SAMPLE_READS", "spec_of", "draw_seed"]

#: Sampling parameters that take a time limit in seconds: a round passes the time left.
TIME_PARAMS = ("time_limit", "time_budget")
#: A time limit in milliseconds per read, the reads one after another (``tabu``'s
#: ``timeout``): a round caps it at the time left shared over its reads.
READ_MS_PARAMS = ("timeout",)
#: Most reads of a fixed sample when ``num_reads`` is not configured (``aco``, ``swap`` and
#: ``swap-tabu`` register 10**6 reads, meant to be cut short by a time limit).
FIXED_SAMPLE_READS = 100


@dataclass(frozen=True)
class Plan:
    """What a solve runs, checked once.

    Attributes:
        label: The registry name, or the class name of a sampler that is not registered.
        sampler: The :class:`dimod.Sampler`.
        params: The checked parameters of every round (without ``seed``).
        seed: The seed the rounds' seeds are drawn from (``None`` = fresh).
        config: The configuration (after an offline fallback, the fallback's).
        notes: What the user should know about the plan (parameters left out, no seed).
    """

    label: str
    sampler: Any
    params: Mapping
    seed: int | None
    config: Config
    notes: tuple[str, ...] = ()
    accepted: frozenset = field(default=frozenset(), repr=False)
    online: bool = False
    seed_drawn: bool = False

    def seeded(self) -> "Plan":
        """This plan with a seed drawn by :func:`draw_seed` (``seed_drawn``) if it has none
        and the sampler takes one, so that the seed that runs is known: re-running with it
        reproduces the reads of a sampler that does a fixed amount of work.

        >>> plan = make_plan(Config().with_overrides(sampler="sa")).seeded()
        >>> isinstance(plan.seed, int), plan.seed_drawn
        (True, True)
        >>> make_plan(Config().with_overrides(sampler="sa", seed=4)).seeded().seed
        4
        """
        if self.seed is not None or not self.takes_seed:
            return self
        return replace(self, seed=draw_seed(), seed_drawn=True)

    @property
    def takes_seed(self) -> bool:
        """True if the sampler takes a ``seed`` (else its answer would not change)."""
        return "seed" in self.accepted

    @property
    def timed(self) -> tuple[str, ...]:
        """The :data:`TIME_PARAMS` the sampler takes and the plan does not fix; none for an
        online service (its time is billed and has a minimum of its own) unless its
        ``properties`` say that its time limit is wall time spent here
        (``wall_time_limit``: ``decompose``, whose QPU calls are billed one by one)."""
        props = getattr(self.sampler, "properties", None)
        if self.online and not (isinstance(props, Mapping) and props.get("wall_time_limit")):
            return ()
        return tuple(k for k in TIME_PARAMS if k in self.accepted and k not in self.params)

    @property
    def sample_size(self) -> int | None:
        """Reads of a fixed sample, the configured ``num_reads``, else the registered one up
        to :data:`FIXED_SAMPLE_READS` (``None``: the sampler takes no ``num_reads``).

        >>> make_plan(Config().with_overrides(sampler="aco")).sample_size
        100
        >>> make_plan(Config().with_overrides(sampler="aco", reads=500)).sample_size
        500
        """
        if "num_reads" not in self.accepted:
            return None
        asked = self.config.sampler.params.get("num_reads")
        if asked is not None:
            return int(asked)
        return min(int(self.params.get("num_reads", 1) or 1), FIXED_SAMPLE_READS)

    def round_params(self, seed: int | None, left: float | None, num_reads: int | None = None,
                     *, fixed_sample: bool = False) -> dict:
        """The keyword arguments of one round's ``sample`` call.

        Args:
            seed: This round's seed (passed if the sampler takes one).
            left: Seconds left of the budget, passed through each time parameter the
                sampler takes (``None`` = none passed).
            num_reads: Reads of this round, for samplers without a time parameter.
            fixed_sample: Every read runs: ``stop_at_ground`` off, no time left passed,
                :attr:`sample_size` reads unless ``num_reads`` is given.

        >>> plan = make_plan(Config().with_overrides(reads=3))
        >>> plan.round_params(1, 0.5)["stop_at_ground"], "time_limit" in plan.round_params(1, 0.5)
        (True, True)
        >>> call = plan.round_params(1, 0.5, fixed_sample=True)
        >>> call["stop_at_ground"], "time_limit" in call, call["num_reads"]
        (False, False, 3)
        """
        call = dict(self.params)
        if seed is not None and self.takes_seed:
            call["seed"] = seed
        if left is not None and not fixed_sample:
            for k in self.timed:
                call[k] = max(float(left), 1e-3)
        if "stop_at_ground" in self.accepted:
            if fixed_sample:
                call["stop_at_ground"] = False
            else:
                call.setdefault("stop_at_ground", True)
        if fixed_sample and num_reads is None:
            num_reads = self.sample_size
        if num_reads is not None:
            call["num_reads"] = num_reads
        if left is not None and not fixed_sample:
            reads = max(1, int(call.get("num_reads") or 1))
            for k in READ_MS_PARAMS:
                if k in self.accepted and isinstance(call.get(k), (int, float)):
                    call[k] = max(1, min(int(call[k]), int(float(left) * 1000 / reads)))
        return call

    def sample(self, model, *, seed: int | None = None, left: float | None = None,
               num_reads: int | None = None, deadline: float | None = None,
               fixed_sample: bool = False, finite: bool = False) -> Round:
        """One round: sample ``model`` with :meth:`round_params` and decode every read (the
        reads of lowest energy that fit before ``deadline``, if one is given).  ``finite``:
        see :func:`~qsudoku.solving.rounds.sample_round` (a model of a NaN bias is refused).

        >>> from qsudoku import Config, parse_puzzle
        >>> from qsudoku.solving import build
        >>> _, model, _ = build(parse_puzzle("1..." "..2." "...." "...4"))
        >>> plan = make_plan(Config().with_overrides(sampler="sa", reads=4))
        >>> rnd = plan.sample(model, seed=5)
        >>> rnd.num_reads, rnd.params
        (4, {'num_reads': 4, 'num_sweeps': 1000, 'seed': 5})

        Raises:
            ConfigError: The sampler rejected a parameter value (see :meth:`rejected`).
        """
        with self.rejected():
            return sample_round(model, self.sampler, self.round_params(
                seed, left, num_reads, fixed_sample=fixed_sample), self.label, deadline,
                finite=finite)

    def warm_up(self, num_variables: int | None = None) -> float:
        """Compile the sampler's kernels for these parameters (seconds it took; 0 if none),
        those a model of ``num_variables`` variables runs when it is given (a kernel
        sampler's choice of kernels may depend on the model's size: ``aco``'s refuting
        ants from 1,000 variables)."""
        warm = getattr(self.sampler, "warm_up", None)
        if warm is None:
            return 0.0
        if num_variables is None:
            return warm(dict(self.params))
        return warm(dict(self.params), num_variables)

    @contextmanager
    def rejected(self):
        """A sampler's own refusal of a parameter value becomes a ConfigError naming it.

        Only the sampler's parameter checks count: a
        :class:`~qsudoku.errors.ParameterError`, or a ``ValueError``/``TypeError`` raised
        by the checks at the top of another library's ``sample`` method.  Anything else
        is a bug and propagates unchanged.
        """
        try:
            yield
        except ConfigError as e:
            if not isinstance(e, ParameterError):
                raise
            raise self._error(e) from None
        except (ValueError, TypeError) as e:
            if not _raised_by_foreign_sample(e):
                raise
            raise self._error(e) from None

    def _error(self, e: Exception) -> ConfigError:
        where = f"{self.config.source}: " if self.config.source else ""
        kind = ParameterError if isinstance(e, ParameterError) else ConfigError
        return kind(f"{where}sampler {self.label!r} rejected its parameters "
                           f"{dict(self.params)}: {e}")


def draw_seed() -> int:
    """A fresh seed from the operating system's entropy, below ``2**31``: every registered
    sampler takes it (dwave-samplers' are 32-bit).  The one way a run draws the seed it
    then reports (``solve``, ``bench`` and ``sweep`` rows, ``fairness``).

    >>> 0 <= draw_seed() < 2**31
    True
    """
    return secrets.randbits(31)


def spec_of(sampler):
    """The registry entry that builds objects like ``sampler`` (``None`` if none).

    :meth:`qsudoku.samplers.SamplerSpec.matches` decides (the class, and the ``name``
    attribute if the object has one: ``qpu`` and ``mock-qpu`` build the same class).  Of
    entries still tied, the one whose target is the class itself wins over factories naming
    it as their product; a tie beyond that is no match.  Only classes already imported
    count.

    >>> import dimod
    >>> from dwave.samplers import TabuSampler
    >>> spec_of(dimod.RandomSampler()) is None, spec_of(TabuSampler()).name
    (True, 'tabu')
    """
    found = [spec for spec in map(get_spec, names()) if spec.matches(sampler)]
    if len(found) > 1:
        found = [spec for spec in found if spec.product is None]
    return found[0] if len(found) == 1 else None


def _offline(config: Config, error: BackendUnavailableError) -> tuple[Config, str]:
    """The config to run instead when the sampler is unavailable, and the note saying so."""
    fb = config.sampler.fallback
    if not fb or fb == config.sampler.name:
        raise error
    note = (f"sampler {config.sampler.name!r} unavailable ({error}); "
            f"ran the offline fallback {fb!r} instead")
    return config.with_overrides(sampler=fb, fallback=""), note


def offline_plan(plan: Plan, error: BackendUnavailableError) -> Plan:
    """The plan of the configured offline fallback (``sampler.fallback``), for an online
    sampler that could not run when it was first called (a Leap hybrid sampler connects
    only then); re-raises ``error`` if the plan is not online or names no fallback.

    >>> offline_plan(make_plan(Config().with_overrides(sampler="sa")), BackendUnavailableError("x"))
    Traceback (most recent call last):
    ...
    qsudoku.errors.BackendUnavailableError: x
    """
    if not plan.online:
        raise error
    config, note = _offline(plan.config, error)
    fallback = make_plan(config)
    return replace(fallback, notes=(note,) + fallback.notes)


def make_plan(config: Config = Config(), sampler=None) -> Plan:
    """Build (or adopt) the sampler and check its parameters, before any work.

    Args:
        config: The configuration.
        sampler: A sampler object to use instead of building ``config.sampler.name``.

    Raises:
        TypeError: ``sampler`` is not a sampler.
        ConfigError: An unknown parameter or a nonsense value.
        BackendUnavailableError: The sampler cannot run here (and no offline fallback is
            configured).
    """
    if sampler is not None and not callable(getattr(sampler, "sample", None)):
        raise TypeError(f"sampler must be a dimod sampler object (or None; choose one by name "
                        f"with Config().with_overrides(sampler=...)), not {describe(sampler)}")
    notes: list[str] = []
    if sampler is None:
        try:
            sampler = get_sampler(config.sampler.name, **config.sampler.options)
        except BackendUnavailableError as e:
            config, note = _offline(config, e)
            notes.append(note)
            sampler = get_sampler(config.sampler.name, **config.sampler.options)
        spec = get_spec(config.sampler.name)
    else:
        spec = spec_of(sampler)
    accepted = accepted_params(sampler)
    given = dict(config.sampler.params)
    seed = given.pop("seed", None)
    with_seed = {"seed": seed} if seed is not None and "seed" in accepted else {}
    if spec is not None and spec.name == config.sampler.name:
        label = spec.name
        params = check_params(sampler, {**default_params(spec.name), **given, **with_seed},
                              label, config.source)
    else:  # a sampler of its own: its registered defaults, and what it accepts of the config's
        label = spec.name if spec is not None else type(sampler).__name__
        dropped = sorted(set(given) - accepted)
        given = {k: v for k, v in given.items() if k in accepted}
        params = {**(default_params(spec.name) if spec is not None else {}), **given}
        if spec is not None:  # a registered class is checked as strictly as when configured
            check_sampler_values(label, {**params, **with_seed}, config.source)
        else:
            check_values(given, config.source)
        if dropped:
            notes.append(f"{label} does not accept parameter(s) {', '.join(dropped)} of the "
                         f"configured sampler {config.sampler.name}; left out")
    params.pop("seed", None)
    encoding = config.qubo.encoding
    props = getattr(sampler, "properties", None) or {}
    if "groups" in accepted and encoding != DEFAULT_ENCODING and not props.get("any_encoding"):
        raise ConfigError(f"sampler {label!r} reads the QUBO's one-hot groups, which the "
                          f"{encoding} encoding does not have: use encoding = "
                          f"\"{DEFAULT_ENCODING}\" with it, or a sampler that takes any BQM "
                          "(sa, tabu, sqa, mock-qpu, ...)")
    ignored = _ignored_weights(spec, config)
    if ignored:
        notes.append(f"the penalty weights {ignored} do not change what {label} does: it reads "
                     "the QUBO's one-hot groups, not their weights (samplers that take any BQM, "
                     "e.g. sa, tabu, sqa, sample the weighted QUBO)")
    if seed is not None and "seed" not in accepted:
        notes.append(f"sampler {label!r} takes no seed; seed {seed} has no effect on it")
    online = spec is not None and not spec.offline
    return Plan(label, sampler, params, seed, config, tuple(notes), accepted, online)


def _ignored_weights(spec, config: Config) -> str:
    """The weights ``config`` sets away from the defaults that the sampler of ``spec`` does
    not read (:attr:`~qsudoku.samplers.SamplerSpec.ignores_weights`), as ``"cell=3"``; ``""``
    if none.

    >>> _ignored_weights(get_spec("aco"), Config().with_overrides(weights={"cell": 3}))
    'cell=3'
    >>> _ignored_weights(get_spec("sa"), Config().with_overrides(weights={"cell": 3}))
    ''
    """
    if spec is None or not spec.ignores_weights:
        return ""
    default, given = Config().qubo.weights, config.qubo.weights
    return ", ".join(f"{k}={getattr(given, k):g}" for k in spec.ignores_weights
                     if getattr(given, k) != getattr(default, k))


def _raised_by_foreign_sample(error: BaseException) -> bool:
    """True if ``error`` was raised in the body of the ``sample*`` method of a sampler
    that is not qsudoku's own (that is where dimod samplers check their parameters)."""
    import dimod

    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    frame = tb.tb_frame
    owner = frame.f_locals.get("self")
    return (frame.f_code.co_name.startswith("sample")
            and isinstance(owner, (dimod.Sampler, dimod.Composite))
            and not type(owner).__module__.startswith("qsudoku"))
