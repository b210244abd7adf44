"""The variant lists written by hand (the README's table, docs/schema.md's table, the
command line's help) name exactly the registered variants: adding a game without
documenting it fails here."""

from __future__ import annotations

from pathlib import Path
import re

from zeckdb.variants import catalog

ROOT = Path(__file__).resolve().parent.parent
# `zeckendorf`, `black-hole-M`, `nacci-C-K`, `zeckendorf-pP`: words joined by dashes, a family's letters last
WORDS = r"[a-z][a-z0-9]*(?:-(?:p?[A-Z]|[a-z0-9]+))*"
NAME = f"`({WORDS})`"


def registered() -> set[str]:
    """Every registered name, a family as `prefix-M`, `prefix-C-K` or `prefix-pP`."""
    return {name.split(" (")[0] for name, _, _ in catalog()}


def first_column_names(text: str, header: str) -> set[str]:
    """The backquoted names in the first column of the table that follows `header`."""
    table = text[text.index(header):].split("\n\n")[0]
    return {name for row in table.splitlines()[2:] for name in re.findall(NAME, row.split("|")[1])}


def test_the_readme_table_lists_every_variant():
    text = (ROOT / "README.md").read_text()
    assert first_column_names(text, "| variant | game | start | source |") == registered()


def test_the_schema_doc_says_what_n_means_for_every_variant():
    text = (ROOT / "docs" / "schema.md").read_text()
    assert first_column_names(text, "| variant | a position | its layer n | start of n |") == registered()


def test_the_help_names_every_variant(capsys):
    from .conftest import run

    code, out, _ = run(capsys, "--help")
    assert code == 0
    flat = " ".join(out.replace("│", " ").split())
    named = set(re.findall(WORDS, flat[flat.index("Variants"):flat.index("Variants") + 1000]))
    assert registered() <= named
