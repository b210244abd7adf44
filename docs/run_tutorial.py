"""Run docs/tutorial.ipynb top to bottom in a real Jupyter kernel, as a reader does, in a
scratch folder, and check that every code cell prints what the notebook shows under it.

    python docs/run_tutorial.py                    # run it: exit 1 naming the first cell whose output differs
    python docs/run_tutorial.py --write            # run it and store the outputs in the notebook
    python docs/run_tutorial.py --no-ipywidgets    # as where ipywidgets is not installed (the kernel cannot import it)

The kernel is ipykernel's, driven by nbclient (the `test` extra installs both), so whatever a
kernel does differently from a script shows: DuckDB's Python client refuses to change its
progress bar in a kernel that lacks ipywidgets, and the notebook failed at its first cell.
A cell's output is what it prints (its stream outputs); an error in a cell fails the run with
the kernel's traceback. The tests run this script both ways (tests/test_docs.py).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import sys
import tempfile

NOTEBOOK = Path(__file__).resolve().parent / "tutorial.ipynb"


def run(notebook: dict, ipywidgets: bool = True) -> list[str]:
    """Each code cell's printed output, the cells run in order in a kernel started in an empty
    folder (without `ipywidgets`: the kernel cannot import ipywidgets, as where it is not installed)."""
    import nbclient
    import nbformat

    nb = nbformat.reads(json.dumps(notebook), as_version=4)  # its sources joined, as a kernel reads them
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ)
        if not ipywidgets:  # a package of that name whose import fails, first on the kernel's path
            hidden = Path(scratch) / "hide" / "ipywidgets"
            hidden.mkdir(parents=True)
            (hidden / "__init__.py").write_text("raise ImportError('ipywidgets is not installed here')\n")
            env["PYTHONPATH"] = os.pathsep.join([str(hidden.parent), *filter(None, [env.get("PYTHONPATH")])])
        work = Path(scratch) / "work"
        work.mkdir()
        client = nbclient.NotebookClient(nb, timeout=1800, kernel_name="python3", allow_errors=False,
                                         resources={"metadata": {"path": str(work)}})
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(env)  # the kernel is a child of this process: it takes this environment
        try:
            client.execute()
        finally:
            os.environ.clear()
            os.environ.update(saved)
    return ["".join(out.get("text", "") for out in cell.get("outputs", []) if out.get("output_type") == "stream"
                    and out.get("name") == "stdout")
            for cell in nb.cells if cell.cell_type == "code"]


def _steady(text: str) -> str:
    """A cell's output without the lines whose timing varies: a build's progress, the notice of
    the kernels' first compile."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if "% of the work done" not in line and not line.startswith("zeckdb: compiling"))


def main() -> None:
    import nbclient.exceptions

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="store the outputs in the notebook")
    parser.add_argument("--no-ipywidgets", action="store_true", help="run it where the kernel cannot import ipywidgets")
    args = parser.parse_args()
    write = args.write
    notebook = json.loads(NOTEBOOK.read_text())
    try:
        outputs = iter(run(notebook, ipywidgets=not args.no_ipywidgets))
    except nbclient.exceptions.CellExecutionError as failed:
        sys.exit(f"docs/tutorial.ipynb failed in a kernel:\n{failed}")
    for i, cell in enumerate(c for c in notebook["cells"] if c["cell_type"] == "code"):
        got = next(outputs)
        shown = "".join(text for out in cell.get("outputs", []) for text in out.get("text", []))
        if i == 0 and "% of the work done" not in got:
            sys.exit("docs/tutorial.ipynb: the build of cell 1 showed no progress in its cell")
        if not write:  # a build's progress lines come as its layers do: what they say is checked, not when
            got, shown = _steady(got), _steady(shown)
        if write:
            cell["outputs"] = [{"name": "stdout", "output_type": "stream", "text": got.splitlines(keepends=True)}] \
                if got else []
            cell["execution_count"] = i + 1
        elif got != shown:
            sys.exit(f"docs/tutorial.ipynb: code cell {i + 1} printed\n{got}\nwhere the notebook shows\n{shown}")
    if write:
        NOTEBOOK.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote the outputs into {NOTEBOOK}")
    else:
        print("docs/tutorial.ipynb ran top to bottom and printed what it shows")


if __name__ == "__main__":
    main()
