"""Parameter sweeps: how penalty weights and sampler settings change the success rate.

A sweep is a grid of *settings* (every combination of the swept values), run on every
puzzle ``repeat`` times; each run is a fixed sample (:mod:`qsudoku.experiments.measure`)
and one tidy row.  Weight keys are ``cell``, ``row``, ``column``, ``box``, ``extra`` and
``unit`` (= ``row``, ``column``, ``box`` and ``extra`` together; a specific key wins);
``sampler`` switches the sampler; every other key is a sampling parameter (``None``: the
sampler's own default).  Axis values are read by :mod:`qsudoku.experiments.axes`.

>>> settings = expand({"cell": [1, 2], "num_sweeps": [10]})
>>> [setting_key(s) for s in settings]
['cell=1 num_sweeps=10', 'cell=2 num_sweeps=10']
>>> split_setting({"unit": 2, "box": 3, "num_sweeps": 10})
({'box': 3, 'row': 2, 'column': 2, 'extra': 2}, {'num_sweeps': 10})
"""

from __future__ import annotations

import itertools
import math
import os
from typing import Iterable, Mapping, Sequence

from qsudoku.config import WEIGHT_KEYS, Config, SamplerConfig, weight_overrides
from qsudoku.errors import ConfigError
from qsudoku.experiments.measure import BROKEN_KINDS
from qsudoku.experiments.axes import MAX_AXIS_VALUES, parse_axis, parse_values
from qsudoku.experiments.results import load_frame
from qsudoku.experiments.stats import Pool, as_float
from qsudoku.experiments.tasks import Point

__all__ = ["ENCODING_KEY", "WEIGHT_KEYS", "MAX_AXIS_VALUES", "MAX_SETTINGS", "parse_values", "parse_axis", "expand", "split_setting", "setting_key",
           "points", "run_sweep", "load", "summarize", "BROKEN_KINDS", "SWEEP_SAMPLER"]

#: The key of a setting that names the QUBO's encoding (``[qubo] encoding``).
ENCODING_KEY = "qubo.encoding"
#: Most settings (combinations of every axis) of a sweep.
MAX_SETTINGS = 10_000


# -- the grid of settings ----------------------------------------------------------------
#: Sweeps sample the reduced QUBO once per setting, by default with plain simulated
#: annealing (the route's samplers keep cells one-hot, so cell weights would not matter).
SWEEP_SAMPLER = "sa"
_SWEEP_CONFIG = Config(sampler=SamplerConfig(SWEEP_SAMPLER))


def expand(axes: Mapping[str, Sequence]) -> list[dict]:
    """Every combination of the axes' values, the last axis varying fastest.

    >>> expand({"a": [1, 2], "b": ["x", "y"]})[:3]
    [{'a': 1, 'b': 'x'}, {'a': 1, 'b': 'y'}, {'a': 2, 'b': 'x'}]
    >>> expand({})
    [{}]

    Raises:
        ConfigError: More than :data:`MAX_SETTINGS` combinations.
    """
    keys = list(axes)
    total = math.prod(len(axes[k]) for k in keys)
    if total > MAX_SETTINGS:
        raise ConfigError(f"the sweep grid has {total} settings ("
                          + " x ".join(f"{len(axes[k])} {k}" for k in keys)
                          + f"); at most {MAX_SETTINGS}")
    return [dict(zip(keys, combo)) for combo in itertools.product(*(list(axes[k]) for k in keys))]


def split_setting(setting: Mapping) -> tuple[dict, dict]:
    """``(weights, sampling params)`` of a setting, with ``unit`` expanded as in a config
    file (:func:`~qsudoku.config.weight_overrides`)."""
    weights = {k: v for k, v in setting.items() if k in WEIGHT_KEYS}
    return weight_overrides(weights), {k: v for k, v in setting.items() if k not in WEIGHT_KEYS}


def setting_key(setting: Mapping) -> str:
    """A stable readable key of a setting (the resume key of its rows)."""
    return Point("", Config(), tuple(setting.items())).setting_text


# -- the points of a sweep -----------------------------------------------------------------
def points(config: Config, axes: Mapping[str, Sequence]) -> list[Point]:
    """One :class:`~qsudoku.experiments.tasks.Point` per setting of ``axes`` on top of
    ``config`` (``sampler``, ``qubo.encoding``, weights, sampling parameters).

    >>> [p.setting_text for p in points(_SWEEP_CONFIG, {"cell": [1, 2]})]
    ['cell=1', 'cell=2']
    >>> points(_SWEEP_CONFIG, {"cell": [2]})[0].config.qubo.weights.cell
    2.0
    >>> [p.config.qubo.encoding for p in points(_SWEEP_CONFIG,
    ...                                          {"qubo.encoding": ["one-hot", "domain-wall"]})]
    ['one-hot', 'domain-wall']
    """
    out = []
    for setting in expand(axes):
        cfg = _with_setting(config, setting)
        out.append(Point(cfg.sampler.name, cfg, tuple(setting.items())))
    return out


def _with_setting(config: Config, setting: Mapping) -> Config:
    setting = dict(setting)
    name = setting.pop("sampler", None)
    if name is not None and str(name) != config.sampler.name:
        config = _switch_sampler(config, str(name))
    encoding = setting.pop(ENCODING_KEY, None)
    if encoding is not None:
        config = config.with_overrides(encoding=str(encoding))
    weights, params = split_setting(setting)
    try:
        weights = {k: float(v) for k, v in weights.items()}
    except (TypeError, ValueError):
        raise ConfigError(f"weights must be numbers, got {weights}") from None
    return config.with_overrides(params=params, weights=weights)


def _switch_sampler(config: Config, name: str) -> Config:
    """``config`` with another sampler: its defaults, plus the base parameters it accepts."""
    from qsudoku.experiments.measure import plan_for

    new = config.with_overrides(sampler=name)
    accepted = plan_for(new).accepted
    return new.with_overrides(params={k: v for k, v in config.sampler.params.items()
                                      if k in accepted})


# -- a whole sweep -----------------------------------------------------------------------
def run_sweep(puzzles: Sequence, axes: Mapping[str, Sequence], config: Config = _SWEEP_CONFIG, *,
              repeat: int = 1, out: str | None = None, resume: bool = False,
              overwrite: bool = False, progress: bool = False, **cluster) -> list[dict]:
    """Run every puzzle x setting x repeat and return the rows of this call.

    Args:
        puzzles: The puzzles, read as the run needs them (a generator streams).
        axes: ``{key: [values]}`` (see :func:`points`); values not swept come from
            ``config``.
        config: The base configuration; each run is a fixed sample of it.
        repeat: Runs per puzzle and setting; repeat ``r`` uses seed ``config seed + r``
            (without a configured seed each run draws one, its row's ``seed``).
        out: ``.csv`` or ``.parquet`` file written row by row; ``None``: in memory only.
        resume: Skip the rows ``out`` already has and append the rest.
        overwrite: Replace an existing ``out``.
        progress: Show a progress bar on stderr.
        **cluster: Where the runs go (:class:`~qsudoku.experiments.engine.Cluster`):
            ``jobs`` (``1``: in this process; ``N``: a local Dask cluster of N worker
            processes; ``0``: one per CPU), ``scheduler`` (an existing Dask scheduler,
            instead of ``jobs``), ``worker_memory``.

    Raises:
        TypeError: An argument of the wrong type (named).
        ValueError: An empty axis, or ``resume`` with ``overwrite``.
        ConfigError: Bad axis, weight, parameter or sampler, ``repeat`` or ``jobs`` out of
            the limits of :mod:`qsudoku.experiments.limits` (before any run); ``out``
            exists without ``resume``/``overwrite``, is held by another run, or has other
            columns.
        BackendUnavailableError: A ``.parquet`` ``out`` without pyarrow (before any run).
        MachineError: The machine refused to write ``out``; finished rows are kept.
        KeyboardInterrupt: Ctrl-C or SIGTERM; the rows finished so far are kept.
    """
    from qsudoku.experiments import runner
    from qsudoku.experiments.engine import Cluster, resolve_scheduler
    from qsudoku.experiments.limits import check_limits
    from qsudoku.model.puzzle import Puzzle

    if isinstance(puzzles, (str, bytes, Puzzle)) or not isinstance(puzzles, Iterable):
        raise TypeError("puzzles must be an iterable of Puzzle (e.g. a list), not "
                        f"{type(puzzles).__name__}")
    if not isinstance(axes, Mapping):
        raise TypeError(f"axes must be a mapping {{key: [values]}}, not {type(axes).__name__}")
    for key, values in axes.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"axes keys must be non-empty strings, not {key!r}")
        if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Sequence):
            raise TypeError(f"axes[{key!r}] must be a list of values, not "
                            f"{type(values).__name__}")
        if not values:
            raise ValueError(f"axes[{key!r}] has no values")
    if not isinstance(config, Config):
        raise TypeError(f"config must be a qsudoku Config, not {type(config).__name__}")
    for name, flag in (("resume", resume), ("overwrite", overwrite), ("progress", progress)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool, not {type(flag).__name__}")
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out must be a path (str) or None, not {type(out).__name__}")
    where = Cluster(**cluster)
    if where.scheduler is not None and not isinstance(where.scheduler, str):
        raise TypeError(f"scheduler must be an address (str) or None, not "
                        f"{type(where.scheduler).__name__}")
    if resume and overwrite:
        raise ValueError("resume and overwrite exclude each other")
    if out is not None:
        from qsudoku.experiments.results import check_format

        check_format(out)
    pts = points(config, axes)
    check_limits(repeat=repeat, jobs=where.jobs,
                 remote=resolve_scheduler(where.scheduler) is not None,
                 points=len(pts))
    for pt in pts:
        runner.check_point(pt)

    def sources():
        for i, p in enumerate(puzzles):
            if not isinstance(p, Puzzle):
                raise TypeError(f"puzzles[{i}] must be a Puzzle, not {type(p).__name__}")
            yield runner.Source.argument(f"{p.name}|{p.kind}|{p.format()}", i, "puzzles"), p

    tasks = runner.iter_tasks(sources(), pts, repeat)
    return runner.run_to(None if out is None else os.fspath(out), tasks, list(axes),
                         resume=resume, overwrite=overwrite, progress=progress, points=pts,
                         **cluster)


# -- reading and summarising -------------------------------------------------------------
# A DataFrame of sweep (or bench) rows: a list of rows or a results file, types restored.
load = load_frame


def summarize(rows_or_df, by: Sequence[str] = ("setting",), **figures):
    """Per setting (or ``by``): ``runs``, ``propagation``, the figures of
    :meth:`qsudoku.experiments.stats.Pool.figures` (``figures`` go to it) and
    ``min_energy_mean``, the mean over runs of each run's lowest energy.

    ``rows_or_df`` is a results file (its rows streamed), an iterable of rows consumed one
    at a time, or a DataFrame; the summary is the same whatever the file's format (a key
    that is a number in text, ``"2"``, is that number).

    >>> rows = [{"setting": "a", "puzzle": "x", "num_reads": 8, "num_valid": 4,
    ...          "t_read": 0.01, "min_energy": 0.0},
    ...         {"setting": "a", "puzzle": "y", "num_reads": 8, "num_valid": 0,
    ...          "t_read": 0.01, "min_energy": 2.0}]
    >>> s = summarize(rows).to_dict("records")[0]
    >>> s["runs"], s["p_read"], s["tts99_median_high"], s["min_energy_mean"]
    (2, 0.25, inf, 1.0)
    """
    import pandas as pd

    from qsudoku.experiments.results import rows_of

    by = list(by)
    rows = (rows_or_df.to_dict("records") if isinstance(rows_or_df, pd.DataFrame)
            else rows_of(rows_or_df))
    groups: dict[tuple, list] = {}  # key -> [runs, min-energy sum, its count, Pool]
    for r in rows:
        key = tuple(_key_value(r.get(k)) for k in by)
        g = groups.get(key)
        if g is None:
            g = groups[key] = [0, 0.0, 0, Pool()]
        g[0] += 1
        e = as_float(r.get("min_energy"))
        if e == e:
            g[1] += e
            g[2] += 1
        g[3].add(r)
    records = [{**dict(zip(by, key)), "runs": g[0], **g[3].figures(**figures),
                "min_energy_mean": g[1] / g[2] if g[2] else math.nan}
               for key, g in groups.items()]
    return pd.DataFrame(records) if records else pd.DataFrame(columns=[*by, "runs"])


def _key_value(v):
    """A group key as the same value from any format: a number in text is that number, a
    whole float an int, a missing value ``""``.

    >>> [_key_value(v) for v in ("2", 2.0, "0.5", "cell=1", None, float("nan"))]
    [2, 2, 0.5, 'cell=1', '', '']
    """
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, str):
        for kind in (int, float):
            try:
                return _key_value(kind(v))
            except ValueError:
                continue
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v
