"""The README's console examples run as written, against the small database: every
`$ zeckdb ...` line succeeds, and the output the README shows under a command is what
it prints (a line ending in `...` matches as a prefix). `zeckdb serve` and the lines of
other programs (curl) are left to the service's own tests."""

from __future__ import annotations

from pathlib import Path
import shlex

import pytest

from .conftest import run

README = Path(__file__).resolve().parent.parent / "README.md"


def examples() -> list[tuple[list[str], list[str]]]:
    """(argument list, the output lines shown under it) of each `$ zeckdb` line."""
    found: list[tuple[list[str], list[str]]] = []
    inside = False
    for line in README.read_text().splitlines():
        if line.startswith("```"):
            inside = line == "```console"
            continue
        if not inside:
            continue
        if line.startswith("$ "):
            words = shlex.split(line[2:], comments=True)
            found.append((words, []))
        elif found and line.strip():
            found[-1][1].append(line)
    return [(words[1:], shown) for words, shown in found if words[0] == "zeckdb" and words[1] != "serve"]


EXAMPLES = examples()


def test_the_readme_has_examples():
    assert len(EXAMPLES) >= 15 and any(shown for _, shown in EXAMPLES)


@pytest.mark.parametrize("args, shown", EXAMPLES, ids=[" ".join(a)[:60] for a, _ in EXAMPLES])
def test_a_readme_example_runs_as_shown(capsys, small_db, tmp_path, monkeypatch, args, shown):
    monkeypatch.chdir(tmp_path)  # plot, draw and export write here
    code, out, err = run(capsys, *args, "--db", str(small_db))
    assert code == 0, err
    printed = [line.rstrip() for line in out.splitlines()]
    for want in shown:
        if "..." in want:  # the pieces around each ... in order, in one line
            pieces = [p.strip(" ,") for p in want.split("...") if p.strip(" ,")]
            assert any(_in_order(line, pieces) for line in printed), (want, printed)
        else:
            assert want.rstrip() in printed, (want, printed)


def _in_order(line: str, pieces: list[str]) -> bool:
    at = 0
    for piece in pieces:
        at = line.find(piece, at)
        if at < 0:
            return False
        at += len(piece)
    return True


def python_blocks() -> list[str]:
    blocks, current, inside = [], [], False
    for line in README.read_text().splitlines():
        if line.startswith("```"):
            if inside:
                blocks.append("\n".join(current))
            inside, current = line == "```python", []
            continue
        if inside:
            current.append(line)
    return blocks


def test_the_readme_python_blocks_run_as_written(tmp_path, monkeypatch):
    """Every ```python block of the README runs, as written, in an empty folder."""
    blocks = python_blocks()
    assert blocks
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})  # noqa: S102 (the README's own code)
    assert (tmp_path / "winners.svg").exists() and (tmp_path / "zeckdb.duckdb").exists()
