"""Execute every notebook on a small budget (QSUDOKU_NB_BUDGET=small), so they cannot rot.

They read the repository's ``data/`` (``../data`` from ``notebooks/``), so they run on a clone
with nothing beside it.

The kernel is the running interpreter: a kernelspec pointing at ``sys.executable`` is
written to a temporary directory and handed to nbclient through its own
KernelSpecManager, so no user-level ``ipykernel install`` is needed (fresh CI venv).
"""

import json
import re
import sys

import pytest

from _shared import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
KERNEL = "qsudoku-tests"
MAX_BYTES = 2 * 1024 * 1024
#: A path of one machine: an absolute POSIX path under a home, a scratch or a build folder,
#: or a Windows drive path (``C:\\Users\\...``).
MACHINE_PATH = re.compile(r"(?<![\w.~])/(?:work|home|root|tmp|Users|private|var/folders|opt|mnt)/"
                          r"|\b[A-Za-z]:\\(?:Users|Windows)\b")


def _output_texts(nb: dict):
    """Every text a notebook's stored outputs carry: streams, results, HTML, tracebacks."""
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            for value in [out.get("text", ""), out.get("traceback", []),
                          *(v for k, v in out.get("data", {}).items() if not k.startswith("image/"))]:
                yield "".join(value) if isinstance(value, list) else str(value)


def test_the_pattern_finds_machine_paths():
    found = [bool(MACHINE_PATH.search(s)) for s in (
        "data in /work/h-readme/data", "/home/ann/qsudoku", "cache /tmp/qsudoku-nb04-x1",
        r"C:\Users\ann", "data in ../data", "sudoku9/norvig_top95.txt", "1/2 valid", "a/tmp/b")]
    assert found == [True] * 4 + [False] * 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_outputs_carry_no_machine_path(path):
    """What a notebook prints names the repository's folders relative to it (``../data``),
    never the checkout it was last run in."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = [m.group(0) for text in _output_texts(nb) for m in MACHINE_PATH.finditer(text)]
    assert not found, f"{path.name}: {found}"


def test_notebooks_exist_and_carry_small_outputs():
    names = [p.name for p in NOTEBOOKS]
    assert names == ["01_walkthrough.ipynb", "02_penalty_weights.ipynb", "03_samplers.ipynb",
                     "04_encodings.ipynb"]
    for path in NOTEBOOKS:
        assert path.stat().st_size < MAX_BYTES, path.name
        nb = json.loads(path.read_text(encoding="utf-8"))
        images = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
                  if "image/png" in o.get("data", {})]
        assert images, f"{path.name} is committed without its figures"
        errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, path.name
        # the notebooks use the library; they define no pipeline functions of their own
        src = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        assert "import qsudoku" in src and "\ndef " not in src and not src.startswith("def ")
        # they read the repository's own data/, nothing beside it
        assert '"../data"' in src and "shared/" not in src, path.name


@pytest.fixture(scope="module")
def kernel_manager_factory(tmp_path_factory):
    pytest.importorskip("ipykernel")
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    kernels = tmp_path_factory.mktemp("kernels")
    spec = kernels / KERNEL
    spec.mkdir()
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "qsudoku tests", "language": "python"}))

    def make():
        return KernelManager(kernel_name=KERNEL,
                             kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))

    return make


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom_on_a_small_budget(path, kernel_manager_factory, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("QSUDOKU_NB_BUDGET", "small")
    monkeypatch.delenv("QSUDOKU_DATA", raising=False)  # the default: ../data
    nb = nbformat.read(str(path), as_version=4)
    client = NotebookClient(nb, km=kernel_manager_factory(), timeout=300,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "budget 'small'" in text and "data in ../data\n" in text
    assert not MACHINE_PATH.search("".join(_output_texts(nb))), "an output names a machine path"
    assert any("image/png" in o.get("data", {}) for o in outputs), "no figure was produced"
