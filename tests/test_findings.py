"""docs/findings.md's generated tables (bench/findings.py) are tied to the data: its data section
agrees with games built anew here at small n, and every table is what the program computes from
that data section."""

from __future__ import annotations

import importlib.util
from pathlib import Path
import sys

import pytest

from .conftest import run

ROOT = Path(__file__).resolve().parent.parent
TOP = 40  # the n built here, of games from every family
GAMES = ["nacci-2-2", "reversed-nacci-3-3", "nacci-1-3", "zeckendorf-p3", "nacci-2-2-p4", "nacci-4-2-p6",
         "nacci-1-4-p5"]


@pytest.fixture(scope="module")
def findings():
    spec = importlib.util.spec_from_file_location("findings", ROOT / "bench" / "findings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["findings"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def doc() -> str:
    return (ROOT / "docs" / "findings.md").read_text()


def test_the_data_section_is_what_zeckdb_computes(tmp_path, capsys, findings, doc):
    db = str(tmp_path / "small.duckdb")
    variants = [arg for game in [*GAMES, "accelerated"] for arg in ("--variant", game)]
    code, _, err = run(capsys, "build", "--summary-only", "--lean", *variants, "--n", f"1..{TOP}", "--db", db)
    assert code == 0, err
    built = findings.collect(db).restricted(TOP)
    written = findings.parse_data(doc).restricted(TOP)
    assert sorted(built.winners) == sorted(GAMES)
    for game in GAMES:
        assert built.winners[game] == written.winners[game], game
        assert built.teams.get(game) == written.teams.get(game), game
    assert built.accelerated == written.accelerated and built.accelerated[0] == (1, 1, 2)  # n = 1: no move


def test_the_profile_data_is_what_zeckdb_computes(small_db, findings, doc):
    """The Zeckendorf game's deterministic games and best responses, from the small build (n <= 40)."""
    built = findings.Data()
    findings.collect_profiles(small_db, built)
    written = findings.parse_data(doc).restricted(len(built.extremes))
    assert len(built.extremes) == 40 and len(built.deterministic) == 16
    assert built.deterministic == written.deterministic
    assert built.extremes == written.extremes and built.best_response == written.best_response


def test_every_table_is_computed_from_the_data_section(findings, doc):
    data = findings.parse_data(doc)
    assert len(data.winners) == 22 + 48 and len(data.teams) == 48  # every game of the families
    for name, text in findings.sections(data).items():
        assert findings.section(doc, name) == text, name


def test_runs_round_trip(findings):
    runs = findings.runs_of([(1, 2), (2, 2), (3, None), (4, 1), (6, 1)])
    assert runs == [(1, 2, 2), (3, 3, None), (4, 4, 1), (6, 6, 1)]
    assert findings.parse_runs(findings.runs_text(runs)) == runs
    teams = [(1, 5, 0xE8), (6, 9, None)]
    assert findings.parse_runs(findings.runs_text(teams, hexadecimal=True), hexadecimal=True) == teams
