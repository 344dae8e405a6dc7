"""Parameter sweeps: how penalty weights and sampler settings change the success rate.

A sweep is a grid of *settings* (every combination of the swept values), run on
every puzzle ``repeat`` times.  Each run is one tidy row: the setting, the model
size, the success probability, min/mean energy, broken constraints per kind,
TTS99 and times.  Weight keys are ``cell``, ``row``, ``column``, ``box``,
``extra`` and ``unit`` (= ``row``, ``column``, ``box`` and ``extra`` together;
a specific key in the same setting wins); ``sampler`` switches the sampler (its
registered defaults, plus the base parameters it accepts, such as ``num_reads``
and ``seed``); every other key is a sampling parameter passed to the sampler.
``None`` as a parameter value means the sampler's own default (its column says
``default``).

>>> parse_values("0.5:4:4")
[0.5, 1.0, 2.0, 4.0]
>>> parse_values("100:10000:3"), parse_values("10,30"), parse_values("(0.1,5),(1,10)")
([100, 1000, 10000], [10, 30], [(0.1, 5), (1, 10)])
>>> settings = expand({"cell": [1, 2], "num_sweeps": [10]})
>>> [setting_key(s) for s in settings]
['cell=1 num_sweeps=10', 'cell=2 num_sweeps=10']
>>> split_setting({"unit": 2, "box": 3, "num_sweeps": 10})
({'row': 2, 'column': 2, 'box': 3, 'extra': 2}, {'num_sweeps': 10})
"""

from __future__ import annotations

import ast
import itertools
import json
import math
import os
import re
import signal
import sys
import time
from typing import Any, Iterable, Mapping, Sequence

from .bench import tts99
from .config import Config, PropagateConfig, QuboConfig, SamplerConfig
from .decode import decode, success_rate
from .errors import ConfigError, ContradictionError
from .puzzle import UNIT_KINDS

__all__ = ["WEIGHT_KEYS", "parse_values", "parse_axis", "expand", "split_setting", "setting_key",
           "measure", "run_sweep", "load", "summarize", "columns", "BROKEN_KINDS",
           "ROW_KEY"]

#: Keys of a setting that are penalty weights (``unit`` sets every unit kind).
WEIGHT_KEYS = ("cell", "row", "column", "box", "extra", "unit")
_UNIT_WEIGHTS = ("row", "column", "box", "extra")
#: Constraint kinds counted in the ``broken_<kind>`` columns.
BROKEN_KINDS = ("cell",) + UNIT_KINDS
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"\s*({_NUMBER})\s*:\s*({_NUMBER})\s*:\s*(\d+)\s*")
_INT = re.compile(r"\s*[-+]?\d+\s*")


# -- the grid of settings ----------------------------------------------------------------
#: Sweeps sample the whole reduced QUBO once per setting; by default with plain simulated
#: annealing (the ``swap`` sampler keeps cells one-hot, so cell weights would not matter).
SWEEP_SAMPLER = "sa"
_SWEEP_CONFIG = Config().with_overrides(sampler=SWEEP_SAMPLER)


def parse_values(text: str) -> list:
    """The values of one axis.

    ``start:stop:count`` spaces ``count`` values geometrically from ``start`` to
    ``stop`` (4 significant digits; integers if both ends are integers,
    duplicates dropped); ``a,b,c`` lists them (Python literals, so tuples work:
    ``(0.1,5),(1,10)``; anything else is a string); a single value is a
    one-value axis.

    >>> parse_values("1:1000:4"), parse_values("2"), parse_values("linear,geometric")
    ([1, 10, 100, 1000], [2], ['linear', 'geometric'])
    >>> parse_values("0:1:3")
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: range '0:1:3' needs start and stop > 0 (values are spaced geometrically)
    """
    m = _RANGE.fullmatch(text)
    if m:
        start, stop, count = float(m.group(1)), float(m.group(2)), int(m.group(3))
        if not (start > 0 and stop > 0):
            raise ConfigError(f"range {text!r} needs start and stop > 0 "
                              "(values are spaced geometrically)")
        if count < 1:
            raise ConfigError(f"range {text!r} needs a count >= 1")
        if count == 1:
            raw = [start]
        else:
            raw = [start * (stop / start) ** (k / (count - 1)) for k in range(count)]
        ints = _INT.fullmatch(m.group(1)) and _INT.fullmatch(m.group(2))
        vals = [int(round(x)) if ints else float(f"{x:.4g}") for x in raw]
        return list(dict.fromkeys(vals))
    try:
        vals = ast.literal_eval("[" + text + "]")
    except (ValueError, SyntaxError):
        vals = [v.strip() for v in text.split(",")]
    if not vals or any(v == "" for v in vals):
        raise ConfigError(f"no values in {text!r}")
    return vals


def parse_axis(spec: str) -> tuple[str, list]:
    """``"cell=0.5:4:8"`` -> ``("cell", [...])``.

    >>> parse_axis("unit=1,2")
    ('unit', [1, 2])
    """
    key, sep, text = spec.partition("=")
    if not sep or not key.strip() or not text.strip():
        raise ConfigError(f"sweep axis {spec!r} is not of the form KEY=VALUES "
                          "(VALUES: start:stop:count or a,b,c)")
    return key.strip(), parse_values(text)


def expand(axes: Mapping[str, Sequence]) -> list[dict]:
    """Every combination of the axes' values, the last axis varying fastest.

    >>> expand({"a": [1, 2], "b": ["x", "y"]})[:3]
    [{'a': 1, 'b': 'x'}, {'a': 1, 'b': 'y'}, {'a': 2, 'b': 'x'}]
    >>> expand({})
    [{}]
    """
    keys = list(axes)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(list(axes[k]) for k in keys))]


def split_setting(setting: Mapping) -> tuple[dict, dict]:
    """``(weights, sampling params)`` of a setting, with ``unit`` expanded."""
    weights, params = {}, {}
    if "unit" in setting:
        weights.update({k: setting["unit"] for k in _UNIT_WEIGHTS})
    for k, v in setting.items():
        if k == "unit":
            continue
        (weights if k in WEIGHT_KEYS else params)[k] = v
    return weights, params


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (tuple, list)):
        return "(" + ",".join(_fmt(x) for x in v) + ")"
    return str(v)


def setting_key(setting: Mapping) -> str:
    """A stable readable key of a setting (the resume key of its rows)."""
    return " ".join(f"{k}={_fmt(v)}" for k, v in setting.items()) or "default"


# -- one measurement ---------------------------------------------------------------------
def _with_setting(config: Config, setting: Mapping, seed: int | None) -> Config:
    setting = dict(setting)
    name = setting.pop("sampler", None)
    if name is not None and str(name) != config.sampler.name:
        config = _switch_sampler(config, str(name))
    weights, params = split_setting(setting)
    try:
        weights = {k: float(v) for k, v in weights.items()}
    except (TypeError, ValueError):
        raise ConfigError(f"weights must be numbers, got {weights}") from None
    cfg = config.with_overrides(params=params, weights=weights)
    if seed is not None:
        cfg = cfg.with_overrides(seed=seed)
    return cfg


def _switch_sampler(config: Config, name: str) -> Config:
    """``config`` with another sampler: its registered defaults, plus the base parameters
    (``num_reads``, ``seed``, ...) that it accepts."""
    new = config.with_overrides(sampler=name)
    accepted = getattr(_sampler_for(new), "parameters", {}) or {}
    return new.with_overrides(params={k: v for k, v in config.sampler.params.items()
                                      if k in accepted})


def measure(puzzle, config: Config = _SWEEP_CONFIG, *, sampler=None) -> dict:
    """Propagate, build, sample and decode once; the metrics of that run.

    Returns a dict with ``num_variables``, ``num_interactions``, ``num_reads``,
    ``solved_by``, ``success_prob``, ``num_valid``, ``min_energy``,
    ``mean_energy``, ``broken_<kind>`` (mean broken groups per read, for each of
    :data:`BROKEN_KINDS`), ``broken_total``, ``chain_break_fraction`` (NaN unless
    the sampler reports it), ``t_propagate``, ``t_build``, ``t_sample``,
    ``t_read`` (= ``t_sample / num_reads``), ``tts99`` (seconds, from ``t_read``, see
    :func:`qsudoku.bench.tts99`; 0 when propagation solved the puzzle)
    and ``params`` (the sampling parameters, JSON).

    >>> from qsudoku.io import parse_puzzle
    >>> m = measure(parse_puzzle("1..." "..2." ".3.." "...4"))
    >>> m["solved_by"], m["success_prob"], m["tts99"]
    ('propagation', 1.0, 0.0)
    """
    from .pipeline import build, sample_model

    cands, model, timings = build(puzzle, config)
    out = {"num_variables": 0, "num_interactions": 0, "num_reads": 0, "solved_by": "propagation",
           "success_prob": 1.0, "num_valid": 0, "min_energy": 0.0, "mean_energy": 0.0}
    out.update({f"broken_{k}": 0.0 for k in BROKEN_KINDS})
    out.update({"broken_total": 0.0, "chain_break_fraction": math.nan,
                "t_propagate": timings.get("propagate", 0.0), "t_build": 0.0, "t_sample": 0.0,
                "t_read": 0.0, "tts99": 0.0, "params": "{}"})
    if model is None:
        return out
    t = time.perf_counter()
    sampleset, params = sample_model(model, config, sampler)
    t_sample = time.perf_counter() - t
    decoded = decode(model, sampleset)
    occ = [d.num_occurrences for d in decoded]
    reads = sum(occ)
    p = success_rate(decoded)
    t_read = t_sample / reads if reads else math.nan
    rec = sampleset.record
    cbf = math.nan
    if "chain_break_fraction" in rec.dtype.names:
        w = rec.num_occurrences if "num_occurrences" in rec.dtype.names else None
        cbf = float(_wmean(rec.chain_break_fraction, w))
    out.update({
        "num_variables": model.num_variables, "num_interactions": model.num_interactions,
        "num_reads": reads, "solved_by": config.sampler.name, "success_prob": p,
        "num_valid": sum(d.num_occurrences for d in decoded if d.valid),
        "min_energy": min(d.energy for d in decoded),
        "mean_energy": _wmean([d.energy for d in decoded], occ),
    })
    for k in BROKEN_KINDS:
        out[f"broken_{k}"] = _wmean([d.broken_by_kind.get(k, 0) for d in decoded], occ)
    out.update({
        "broken_total": _wmean([len(d.broken) for d in decoded], occ),
        "chain_break_fraction": cbf, "t_build": timings.get("build", 0.0), "t_sample": t_sample,
        "t_read": t_read, "tts99": tts99(t_read, p), "params": json.dumps(_jsonable(params)),
    })
    return out


def _wmean(values, weights=None) -> float:
    values = [float(v) for v in values]
    weights = [1.0] * len(values) if weights is None else [float(w) for w in weights]
    total = sum(weights)
    return sum(v * w for v, w in zip(values, weights)) / total if total else math.nan


def _jsonable(x):
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    try:
        return x.item()
    except AttributeError:
        return repr(x)


# -- a whole sweep -----------------------------------------------------------------------
def _config_state(cfg: Config) -> dict:
    """A picklable description of ``cfg`` (its mappings are read-only proxies)."""
    s = cfg.sampler
    return {"rules": tuple(cfg.propagate.rules), "weights": cfg.qubo.weights, "name": s.name,
            "options": dict(s.options), "params": dict(s.params), "source": cfg.source}


def _config_from_state(st: Mapping) -> Config:
    return Config(PropagateConfig(st["rules"]), QuboConfig(st["weights"]),
                  SamplerConfig(st["name"], st["options"], st["params"]), source=st["source"])


_SAMPLERS: dict = {}


def _sampler_for(cfg: Config):
    """One sampler instance per process and (name, options)."""
    from .pipeline import sampler_factory

    key = (cfg.sampler.name, repr(sorted(cfg.sampler.options.items())))
    if key not in _SAMPLERS:
        _SAMPLERS[key] = sampler_factory(cfg)
    return _SAMPLERS[key]


def _base_seed(cfg: Config) -> int:
    seed = cfg.sampler.params.get("seed")
    return int(seed) if isinstance(seed, int) and not isinstance(seed, bool) else 0


def _run_task(task: tuple) -> dict:
    """Run one (puzzle, setting, repeat); a worker's entry point."""
    state, index, puzzle, setting, repeat, axis_keys = task
    base = _config_from_state(state)
    cfg = _with_setting(base, setting, None)
    sampler = _sampler_for(cfg)
    seed = _base_seed(base) + repeat if "seed" in getattr(sampler, "parameters", {}) else None
    if seed is not None:
        cfg = cfg.with_overrides(seed=seed)
    w = cfg.qubo.weights
    row = {"puzzle": puzzle.name or puzzle.format(), "puzzle_index": index, "kind": puzzle.kind,
           "size": puzzle.size, "setting": setting_key(setting), "repeat": repeat,
           "seed": "" if seed is None else seed, "sampler": cfg.sampler.name,
           "w_cell": w.cell, "w_row": w.row, "w_column": w.column, "w_box": w.box,
           "w_extra": w.extra}
    for k in _axis_columns(axis_keys):
        row[k] = _cell_value(setting[k])
    try:
        metrics = measure(puzzle, cfg, sampler=sampler)
        error = ""
    except ContradictionError as e:
        metrics = dict(_FAILED)
        error = str(e)
    row.update(metrics)
    row["error"] = error
    return {k: row[k] for k in columns(axis_keys)}


def _cell_value(v):
    if v is None:
        return "default"
    return _fmt(v) if isinstance(v, (tuple, list)) else v


_METRICS = ("num_variables", "num_interactions", "num_reads", "solved_by", "success_prob",
            "num_valid", "min_energy", "mean_energy", *(f"broken_{k}" for k in BROKEN_KINDS),
            "broken_total", "chain_break_fraction", "t_propagate", "t_build", "t_sample",
            "t_read", "tts99", "params", "error")
_FAILED = {k: math.nan for k in _METRICS}
_FAILED.update({"solved_by": "", "success_prob": 0.0, "num_valid": 0, "num_reads": 0,
                "tts99": math.inf, "params": "{}"})
#: Columns identifying a row (resume key).
ROW_KEY = ("puzzle", "puzzle_index", "setting", "repeat")
_META = ("puzzle", "puzzle_index", "kind", "size", "setting", "repeat", "seed", "sampler",
         "w_cell", "w_row", "w_column", "w_box", "w_extra")


def _axis_columns(axis_keys) -> list[str]:
    return [k for k in axis_keys if k not in _META and k not in _METRICS]


def columns(axis_keys: Sequence[str]) -> list[str]:
    """The columns of a sweep's rows, in order, for these swept keys.

    >>> columns(["cell", "num_reads"])[12:15]
    ['w_extra', 'cell', 'num_variables']
    """
    return [*_META, *_axis_columns(axis_keys), *_METRICS]


def _validate(config: Config, settings: list[dict]) -> None:
    """Fail before any work on a bad weight, parameter or sampler name."""
    from .pipeline import sampler_params

    for s in settings:
        cfg = _with_setting(config, s, None)
        sampler_params(_sampler_for(cfg), cfg)


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C


def run_sweep(puzzles: Sequence, axes: Mapping[str, Sequence], config: Config = _SWEEP_CONFIG, *,
              repeat: int = 1, jobs: int = 1, out: str | None = None, resume: bool = False,
              overwrite: bool = False, progress: bool = False) -> list[dict]:
    """Run every puzzle x setting x repeat and return the rows of this call.

    Args:
        puzzles: The puzzles.
        axes: ``{key: [values]}``; weight keys (:data:`WEIGHT_KEYS`) set penalty
            weights, others are sampling parameters.  Values not swept come from
            ``config`` (or the sampler's registered defaults).
        config: The base configuration (rules, weights, sampler, parameters).
        repeat: Runs per puzzle and setting; repeat ``r`` uses seed
            ``config seed (or 0) + r`` when the sampler takes a seed, so every
            setting sees the same seeds.
        jobs: Worker processes (``0`` = one per CPU).
        out: ``.csv`` or ``.parquet`` file written row by row (see
            :class:`~qsudoku.runlog.RowWriter`); ``None`` keeps rows in memory only.
        resume: Skip the rows ``out`` already has and append the rest.
        overwrite: Replace an existing ``out``.
        progress: Show a progress bar on stderr.

    Raises:
        ConfigError: Bad axis, weight, parameter or sampler (before any run);
            ``out`` exists without ``resume``/``overwrite``; or ``resume`` on a
            file with different columns.
        KeyboardInterrupt: Ctrl-C or SIGTERM; the rows finished so far are kept.
    """
    from .runlog import RowWriter, terminate_as_interrupt

    if repeat < 1:
        raise ConfigError(f"repeat = {repeat} must be >= 1")
    if jobs < 0:
        raise ConfigError(f"jobs = {jobs} must be >= 0 (0 = one per CPU)")
    jobs = jobs or os.cpu_count() or 1
    settings = expand(axes)
    _validate(config, settings)
    state = _config_state(config)
    keys = list(axes)
    tasks = [(state, i, p, s, r, keys) for i, p in enumerate(puzzles) for s in settings
             for r in range(repeat)]
    writer = RowWriter(out, key=ROW_KEY, resume=resume, overwrite=overwrite) if out else None
    if writer is not None:
        _check_columns(writer, columns(keys))
        tasks = [t for t in tasks if _task_key(t) not in writer.done]
    rows: list[dict] = []
    bar = _progress(len(tasks), progress)
    try:
        with terminate_as_interrupt():
            for row in _execute(tasks, jobs):
                if writer is not None:
                    writer.write(row)
                rows.append(row)
                bar.update(1)
    finally:
        bar.close()
        if writer is not None:
            writer.close()
    rows.sort(key=lambda r: (r["puzzle_index"], settings_order(settings, r["setting"]), r["repeat"]))
    return rows


def settings_order(settings: list[dict], key: str) -> int:
    """Position of the setting with ``setting_key == key`` (for sorting rows)."""
    for k, s in enumerate(settings):
        if setting_key(s) == key:
            return k
    return len(settings)


def _task_key(task) -> tuple:
    _, index, puzzle, setting, repeat, _ = task
    return (puzzle.name or puzzle.format(), str(index), setting_key(setting), str(repeat))


def _check_columns(writer, cols: list[str]) -> None:
    if writer.fields is not None and list(cols) != list(writer.fields):
        writer.close()
        gone = [c for c in writer.fields if c not in cols]
        new = [c for c in cols if c not in writer.fields]
        raise ConfigError(f"{writer.path} was written by a sweep with other axes (columns only "
                          f"there: {', '.join(gone) or '-'}; only here: {', '.join(new) or '-'}); "
                          "resume it with the same --grid/--param keys, or write another file")


def _execute(tasks: list, jobs: int) -> Iterable[dict]:
    if jobs == 1 or len(tasks) <= 1:
        for t in tasks:
            yield _run_task(t)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed

    pool = ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), initializer=_worker_init)
    try:
        futures = [pool.submit(_run_task, t) for t in tasks]
        for f in as_completed(futures):
            yield f.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _NoBar:
    def __init__(self, total: int, show: bool):
        self.total, self.n, self.show = total, 0, show

    def update(self, k: int) -> None:
        self.n += k
        if self.show:
            print(f"\rsweep {self.n}/{self.total}", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.show:
            print(file=sys.stderr)


def _progress(total: int, show: bool):
    if not show:
        return _NoBar(total, False)
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar(total, True)
    return tqdm(total=total, desc="sweep", unit="run", file=sys.stderr, dynamic_ncols=True)


# -- reading and summarising -------------------------------------------------------------
def load(rows_or_path) -> Any:
    """A :class:`pandas.DataFrame` of sweep rows (a list of rows or a results file),
    with numeric columns converted (``"inf"`` -> ``inf``)."""
    import pandas as pd

    from .runlog import read_rows

    rows = read_rows(rows_or_path) if isinstance(rows_or_path, (str, os.PathLike)) else rows_or_path
    df = pd.DataFrame(list(rows))
    for col in df.columns:
        if not pd.api.types.is_numeric_dtype(df[col]) and not pd.api.types.is_bool_dtype(df[col]):
            conv = pd.to_numeric(df[col], errors="coerce")
            filled = df[col].astype(str).str.strip().ne("")
            if conv[filled].notna().all() and filled.any():
                df[col] = conv
    return df


def summarize(rows_or_df, by: Sequence[str] = ("setting",)):
    """Per setting (or ``by``): runs, mean success probability, median TTS99, mean min energy.

    >>> rows = [{"setting": "a", "success_prob": 0.5, "tts99": 2.0, "min_energy": 0.0},
    ...         {"setting": "a", "success_prob": 0.0, "tts99": float("inf"), "min_energy": 2.0}]
    >>> summarize(rows).to_dict("records")
    [{'setting': 'a', 'runs': 2, 'success_prob': 0.25, 'tts99_median': inf, 'min_energy': 1.0}]
    """
    import pandas as pd

    df = rows_or_df if isinstance(rows_or_df, pd.DataFrame) else load(rows_or_df)
    g = df.groupby(list(by), sort=False)
    out = pd.DataFrame({
        "runs": g.size(),
        "success_prob": g["success_prob"].mean(),
        "tts99_median": g["tts99"].median(),
        "min_energy": g["min_energy"].mean(),
    }).reset_index()
    return out
