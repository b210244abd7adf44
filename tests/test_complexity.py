"""CI's gate on complexity: radon's cyclomatic complexity of every function of the package,
its command line and its migrations (ruff's C901 leaves out boolean operators, conditional
expressions and comprehensions, and scored a function of 36 paths 10)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 20  # radon's grade C ends here: past it a function is D, "more than moderate risk"


def complexities(source: str) -> dict[str, int]:
    """Every function's and method's complexity by its qualified name, nested ones included."""
    found: dict[str, int] = {}

    def add(function: Any, prefix: str = "") -> None:
        name = prefix + function.fullname
        found[name] = function.complexity
        for inner in function.closures:
            add(inner, name + ".")

    for block in cc_visit(source):
        if not hasattr(block, "methods"):  # a class: its methods come as functions of their own
            add(block)
    return found


def measured() -> dict[str, int]:
    files = [path for folder in ("zeckdb", "cli", "migrations") for path in sorted((ROOT / folder).rglob("*.py"))]
    assert len(files) > 50, files
    return {f"{path.relative_to(ROOT)}:{name}": score
            for path in files for name, score in complexities(path.read_text()).items()}


def test_the_measure_counts_what_branches():
    source = """
def plain(a):
    return a

def branches(a, b, c):
    if a and b or c:
        return [x for x in a if x] if b else 0
    def inner(y):
        return y or 1
    return inner

class Shape:
    def area(self, wide):
        for w in wide:
            if w:
                return w
        return 0
"""
    assert complexities(source) == {"plain": 1, "branches": 7, "branches.inner": 2, "Shape.area": 3}


def test_no_function_is_over_the_limit():
    over = {name: score for name, score in measured().items() if score > LIMIT}
    assert not over, f"over radon's complexity {LIMIT}: {over}; split them where it reads better"
