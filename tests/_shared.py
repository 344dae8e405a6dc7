"""Paths to the shared puzzle data (CI clones the repo with ``shared/`` beside it)."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
SEEDS = DATA / "seeds" / "seeds.tsv"

needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="shared/data not beside the repo")


def puzzle_files(max_size: int = 99) -> list[Path]:
    """Every puzzle file under shared/data (no solutions/ids companions) up to ``max_size``."""
    import re

    out = []
    for f in sorted(DATA.glob("*/*.txt")):
        if f.name.endswith((".solutions.txt", ".ids.txt")):
            continue
        m = re.search(r"(\d+)$", f.parent.name)
        if m and int(m.group(1)) <= max_size:
            out.append(f)
    return out


def route(puzzle, *, seed=None, time_budget=0.8, sampler=None, max_depth=0, fallback=None,
          rules=None, sample_params=None, fallback_time_limit=None, weights=None,
          max_rounds=None, **_ignored):
    """:func:`qsudoku.solve` with the round policy's settings as keywords (no exact
    fallback unless ``fallback`` names one): the sampling rounds alone.  ``max_rounds``
    0 leaves no time for a round; 1 is ``route.enabled = false`` (one round)."""
    from qsudoku import Config, solve

    chain = "" if fallback is None else (fallback if isinstance(fallback, str)
                                         else ",".join(fallback))
    r = {"time_budget": 1e-9 if max_rounds == 0 else time_budget, "max_depth": max_depth,
         "exact_fallback": chain, "enabled": max_rounds is None or max_rounds > 1}
    if fallback_time_limit is not None:
        r["fallback_time_limit"] = fallback_time_limit
    cfg = Config().with_overrides(sampler=sampler, seed=seed, route=r, rules=rules,
                                  params=sample_params, weights=weights)
    return solve(puzzle, cfg)
