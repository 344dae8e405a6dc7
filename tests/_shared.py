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
