"""Run docs/tutorial.ipynb top to bottom, as a reader would, in a scratch folder, and check that
every code cell prints what the notebook shows under it.

    python docs/run_tutorial.py            # run it: exit 1 naming the first cell whose output differs
    python docs/run_tutorial.py --write    # run it and store the outputs in the notebook

The code cells run in one namespace, in order, like a kernel's (no Jupyter needed); a cell's
output is what it prints. The tests run this script (tests/test_docs.py).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
from pathlib import Path
import sys
import tempfile

NOTEBOOK = Path(__file__).resolve().parent / "tutorial.ipynb"


def run(notebook: dict) -> list[str]:
    """Each code cell's printed output, the cells run in order in an empty folder."""
    outputs = []
    namespace: dict = {"__name__": "__main__"}
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            for i, cell in enumerate(c for c in notebook["cells"] if c["cell_type"] == "code"):
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    exec(compile("".join(cell["source"]), f"tutorial cell {i + 1}", "exec"), namespace)  # noqa: S102
                outputs.append(printed.getvalue())
        finally:
            os.chdir(here)
    return outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="store the outputs in the notebook")
    write = parser.parse_args().write
    notebook = json.loads(NOTEBOOK.read_text())
    outputs = iter(run(notebook))
    for i, cell in enumerate(c for c in notebook["cells"] if c["cell_type"] == "code"):
        got = next(outputs)
        shown = "".join(text for out in cell.get("outputs", []) for text in out.get("text", []))
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
