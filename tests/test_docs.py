"""The variant lists written by hand (the README's table, docs/schema.md's table, the
command line's help) name exactly the registered variants: adding a game without
documenting it fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
import itertools
import re

from zeckdb.variants import catalog

ROOT = Path(__file__).resolve().parent.parent
# `zeckendorf`, `black-hole-M`, `nacci-C-K`, `zeckendorf-pP`: words joined by dashes, a family's letters last
WORDS = r"(?:[a-z][a-z0-9]*|GAME)(?:-(?:p?[A-Z]|[a-z0-9]+))*"  # GAME-misere: any game's twin
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


def test_the_games_summary_mode_takes_are_the_registrys(capsys):
    """docs/scaling.md and `build --help` list what summary mode solves as the registry says."""
    from zeckdb.variants import summary_games

    from .conftest import run

    names = ", ".join(label.split(" (")[0] for label in summary_games())
    assert f"Summary mode solves: {names} (" in (ROOT / "docs" / "scaling.md").read_text()
    code, out, _ = run(capsys, "build", "--help")
    listed = out[out.index("mode solves:"):].splitlines()[1:len(summary_games()) + 2]  # one per line
    assert code == 0 and [line.strip() for line in listed if line.strip()] == names.split(", ")


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


def test_nothing_points_outside_the_repository():
    """The rules of every game are in docs/games.md: code, tests and docs cite papers and
    this repository's files, never a folder beside it or the issue a change came from."""
    outside = re.compile(r"\.\./shared|GAMES\.md|SECURITY-NOTES|PERFORMANCE-NOTES|STYLE\.md|\b[Tt]he issue\b")
    files = [f for top in ("zeckdb", "cli", "tests", "docs", "sql", "bench", "migrations", ".ci")
             for f in (ROOT / top).rglob("*") if f.is_file() and f.suffix in {".py", ".md", ".sql", ".js", ".html", ""}]
    files += [ROOT / "README.md", ROOT / "pyproject.toml"]
    found = [f"{f.relative_to(ROOT)}:{i}" for f in files if f != Path(__file__)
             for i, line in enumerate(f.read_text(errors="replace").splitlines(), 1) if outside.search(line)]
    assert len(files) > 50 and found == []


def test_the_wheel_lists_every_package():
    """pyproject.toml names its packages one by one (cli/, sql/ and migrations/ are mapped into
    zeckdb): a new subpackage of zeckdb/ must be among them, or the installed wheel lacks it."""
    text = (ROOT / "pyproject.toml").read_text()
    listed = set(re.findall(r'"(zeckdb[a-z.]*)"', text[text.index("packages = ["):].split("]")[0]))
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "zeckdb").rglob("__init__.py")}
    assert found and found <= listed, found - listed


def test_every_relative_link_of_the_docs_resolves():
    """Links from README.md and docs/*.md to files of the repository (anchors aside) exist."""
    broken = []
    for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_the_readme_stays_a_front_page():
    """At most 220 lines, and the command table's cells short (one or two lines on a page)."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 220
    table = text[text.index("| command | what it does |"):].splitlines()[2:]
    rows = [line for line in itertools.takewhile(lambda line: line.startswith("|"), table)]
    assert len(rows) >= 15 and all(len(row.split(" | ", 1)[1]) <= 230 for row in rows), \
        [row[:60] for row in rows if len(row.split(" | ", 1)[1]) > 230]


def test_the_changelog_gives_each_release_its_version_date_and_schema():
    """A header per release (version, date, schema revision) with Added / Changed / Fixed;
    the newest is this version, at the schema the code writes."""
    from zeckdb import __version__
    from zeckdb.store import SCHEMA_HEAD

    releases = (ROOT / "CHANGELOG.md").read_text().split("\n## ")[1:]
    assert len(releases) >= 2
    assert all(re.match(r"\d+\.\d+\.\d+ \(\d{4}-\d\d-\d\d.*, schema revisions? \d{4}", r) for r in releases)
    newest = releases[0]
    assert newest.startswith(f"{__version__} (") and f"schema revision {SCHEMA_HEAD})" in newest.splitlines()[0]
    assert all(f"\n### {part}\n" in newest for part in ("Added", "Changed", "Fixed"))


@pytest.mark.parametrize("ipywidgets", [True, False], ids=["with ipywidgets", "without ipywidgets"])
def test_the_tutorial_notebook_runs_top_to_bottom_and_shows_what_it_prints(ipywidgets):
    """docs/tutorial.ipynb, run as a reader runs it: in a real Jupyter kernel (it passed when its
    cells were exec'd in a script, and failed at cell 1 in a kernel without ipywidgets), its
    cells in order on the database its first cell builds: every cell runs, and prints what the
    notebook shows under it. Where ipywidgets is installed or not (the test extra installs it;
    without: the kernel cannot import it)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(root / "docs" / "run_tutorial.py"),
                           *([] if ipywidgets else ["--no-ipywidgets"])], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ran top to bottom and printed what it shows" in done.stdout
