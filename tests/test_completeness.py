"""Never silent: a layer that lacks rows its game gives it is named (verify, db upgrade) with the
build that fills it, and that build fills it; a query or a plot whose data is not there refuses
in one line naming the build that makes it; a build with nothing to do touches nothing."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
import shutil

import duckdb
import pytest

import zeckdb

from .conftest import run

CORE_AND_TWINS = ["zeckendorf", "reversed", "zeckendorf-misere", "reversed-misere"]


@pytest.fixture(scope="module")
def four_games(tmp_path_factory) -> Path:
    """The two core games and their misère twins, n = 1..12, as one command builds them."""
    path = tmp_path_factory.mktemp("four") / "four.duckdb"
    zeckdb.build(path, CORE_AND_TWINS, "1..12")
    return path


def as_zeckdb_030_left_it(source: Path, folder: Path) -> Path:
    """The file zeckdb 0.3.0 wrote for the same command: no length rows for either twin, and the
    summary checksums computed over what it stored (so they match: no checksum sees the hole)."""
    from zeckdb.checksums import SUMMARY_COLUMNS, by_layer, summary_checksum

    path = folder / "zeckdb-0.3.0.duckdb"
    shutil.copy(source, path)
    con = duckdb.connect(str(path))
    con.execute("DELETE FROM length_distribution WHERE variant LIKE '%-misere'")
    for twin in CORE_AND_TWINS[2:]:
        rows = {table: by_layer(con.sql(f"SELECT n, {', '.join(columns)} FROM {table} WHERE variant = $twin "
                                        "ORDER BY n", params={"twin": twin}).to_arrow_table())
                for table, columns in SUMMARY_COLUMNS.items()}
        for n in range(1, 13):
            value = summary_checksum({table: layers.get(n) for table, layers in rows.items()}, twin, n)
            con.execute("UPDATE builds SET summary_checksum = ? WHERE variant = ? AND n = ?", [value, twin, n])
    con.close()
    return path


def test_verify_and_an_upgrade_name_the_hole_0_3_0_left_and_the_build_fills_it(capsys, four_games, tmp_path,
                                                                               monkeypatch):
    path = as_zeckdb_030_left_it(four_games, tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "verify", "--db", path.name)
    assert code == 1 and "every check passed" not in out
    counted = {" ".join(line.split()[:-2]): line.split()[-2:] for line in out.splitlines()[2:]}
    assert counted["complete layers"] == ["48", "24"] and counted["summary checksums"][1] == "0"
    from . import reference as ref

    _, games = ref.remaining_lengths("reversed", ref.start("reversed", 5))  # random play: the twin's are the game's
    lengths = max(games) - min(games) + 1
    assert (f"complete layers: reversed-misere n=5: length rows under P: 0 stored, its game gives it {lengths}; length "
            f"rows under mu: 0 stored, its game gives it {lengths}") in err
    fill = "`zeckdb build --variant reversed-misere --variant zeckendorf-misere --n 1..12 --db zeckdb-0.3.0.duckdb`"
    assert err.splitlines()[-1] == f"zeckdb: 24 built layers lack rows their game gives them (reversed-misere n = 1: " \
        f"length rows under P: 0 stored, its game gives it 1; length rows under mu: 0 stored, its game gives it 1, " \
        f"...): {fill} fills them"
    code, out, err = run(capsys, "db", "upgrade", "--db", path.name)
    assert code == 0 and out.strip() == f"{path} is at the newest schema revision ({zeckdb.api.SCHEMA_HEAD})"
    assert fill in err
    code, out, err = run(capsys, "build", "--variant", "reversed-misere", "--variant", "zeckendorf-misere", "--n",
                         "1..12", "--db", path.name)
    assert code == 0 and out.startswith("built reversed-misere, zeckendorf-misere for n = 1..12"), out + err
    code, out, err = run(capsys, "verify", "--db", path.name)
    assert code == 0 and out.strip().endswith("every check passed"), err
    assert _rows(path, "length_distribution") == _rows(four_games, "length_distribution")


def _rows(path: Path, table: str) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("edit, lacks", [
    ("DELETE FROM random_play WHERE variant = 'reversed' AND n = 9", "random_play: 0 stored, its game gives it 1"),
    ("DELETE FROM length_distribution WHERE variant = 'zeckendorf' AND n = 11 AND measure = 'mu' AND length = 9",
     "length rows under mu: 6 stored, its game gives it 7"),
    ("DELETE FROM length_distribution WHERE variant = 'zeckendorf-misere' AND n = 4 AND measure = 'P'",
     "length rows under P: 0 stored, its game gives it 2"),
])
def test_every_table_a_layer_should_have_is_counted(capsys, four_games, tmp_path, edit, lacks):
    path = tmp_path / "edited.duckdb"
    shutil.copy(four_games, path)
    con = duckdb.connect(str(path))
    con.execute(edit)
    con.close()
    code, _, err = run(capsys, "verify", "--db", str(path))
    assert code == 1 and lacks in err, err


def test_which_layers_get_a_distribution_is_what_the_build_gives(capsys, tmp_path, monkeypatch):
    """Fibonacci nim's games run through every layer below n: past DISTRIBUTION_MAX_EDGES moves there
    a layer has no length rows, by design. The rule verify counts by (engine.solve.with_distribution)
    agrees with what the build stores, layer by layer, and verify passes such a file."""
    from zeckdb.engine import solve

    monkeypatch.setattr(solve, "DISTRIBUTION_MAX_EDGES", 150)
    path = tmp_path / "nim.duckdb"
    zeckdb.build(path, "fibonacci-nim", "0..30")
    con = duckdb.connect(str(path), read_only=True)
    with_rows = {n for (n,) in con.execute("SELECT DISTINCT n FROM length_distribution").fetchall()}
    moves = dict(con.execute("SELECT n, edges FROM builds").fetchall())
    con.close()
    assert 0 < len(with_rows) < 31  # some have, some have not: the case is the one named
    expected = solve.with_distribution(zeckdb.api.get_variant("fibonacci-nim"), list(range(31)), moves.get)
    assert {n for n, has in expected.items() if has} == with_rows
    with zeckdb.open(path) as db:
        report = db.verify()
        assert report.ok and not report.holes, [c.examples for c in report.checks]
        stored = db.query("length-moments", variant="fibonacci-nim", max_rows=None)
    assert "fibonacci-nim has no length rows for n = " in (stored.notice or "") and "docs/schema.md" in stored.notice
    last = max(n for n in range(31) if n not in with_rows)
    code, _, err = run(capsys, "query", "length-distribution", "--variant", "fibonacci-nim", "--n", str(last), "--db",
                       str(path))
    assert code == 1 and f"fibonacci-nim has no length rows for n = {last}: a game from there runs through" in err


def test_queries_and_plots_refuse_where_their_data_is_not_built(capsys, four_games, tmp_path, monkeypatch):
    """conventions compares a game with its twin: where the twin is not built it refused nothing
    and printed an empty table. Length queries and plots over a hole name the build that fills it."""
    monkeypatch.chdir(tmp_path)
    core = Path("core.duckdb")
    zeckdb.build(core, ["zeckendorf", "reversed"], "1..6")
    for query in ("conventions", "misere-positions"):
        code, out, err = run(capsys, "query", query, "--variant", "zeckendorf", "--db", str(core))
        assert (code, out) == (1, "") and err.strip() == (
            f"zeckdb: error: query {query} compares zeckendorf with its misère twin zeckendorf-misere, and "
            f"zeckendorf-misere is not built in {core.resolve()}: run `zeckdb build --variant zeckendorf-misere --db "
            "core.duckdb`")
        code, out, err = run(capsys, "query", query, "--db", str(core))
        assert code == 1 and "no game is built with its twin" in err
    zeckdb.build(core, ["zeckendorf-misere"], "1..4")
    code, out, err = run(capsys, "query", "conventions", "--variant", "zeckendorf-misere", "--n", "5", "--db", str(core))
    assert code == 1 and "`zeckdb build --variant zeckendorf --variant zeckendorf-misere --n 5 --db core.duckdb`" in err
    code, out, _ = run(capsys, "query", "conventions", "--variant", "zeckendorf", "-f", "csv", "--db", str(core))
    assert code == 0 and out.splitlines()[1:] == ["zeckendorf,1,2,1,False,0,1,0",  # n = 1: no move, Player 2 moved last
                                                  "zeckendorf,2,1,2,False,0.5,0.5,0",  # (2) -> (0,1): one move
                                                  "zeckendorf,3,2,1,False,0.3333333333,0.6666666667,0",
                                                  "zeckendorf,4,2,2,True,0.25,0.5,0.25"]
    holed = as_zeckdb_030_left_it(four_games, tmp_path)
    fill = f"`zeckdb build --variant reversed-misere --n 9 --db {holed.name}`"
    for args in (["query", "length-moments", "--variant", "reversed-misere", "--n", "9"],
                 ["plot", "length-distribution", "--variant", "reversed-misere", "--n", "9", "--out", "x.png"]):
        code, out, err = run(capsys, *args, "--db", holed.name)
        assert code == 1 and err.strip() == f"zeckdb: error: reversed-misere has no length rows for n = 9: a build " \
                                            f"left them out: {fill} fills them", err
    assert not Path("x.png").exists()


def test_a_build_with_nothing_to_do_touches_nothing(capsys, tmp_path):
    path = tmp_path / "same.duckdb"
    zeckdb.build(path, ["zeckendorf", "reversed"], "1..8")
    shutil.rmtree(tmp_path / "same.duckdb.locks")
    before = hashlib.sha256(path.read_bytes()).hexdigest(), os.stat(path).st_mtime_ns
    for args in (["--variant", "zeckendorf", "--variant", "reversed", "--n", "1..8"],
                 ["--variant", "reversed", "--n", "3..5"], ["--summary-only", "--variant", "zeckendorf", "--n", "2"]):
        code, out, _ = run(capsys, "build", *args, "--db", str(path))
        assert code == 0 and out.startswith("nothing to build")
        assert (hashlib.sha256(path.read_bytes()).hexdigest(), os.stat(path).st_mtime_ns) == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["same.duckdb"]


def test_upgrading_nothing_is_an_error_and_creates_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "db", "upgrade")
    assert (code, out) == (1, "") and err.strip() == (f"zeckdb: error: no database at {tmp_path / 'zeckdb.duckdb'}: "
                                                      "nothing to upgrade (`zeckdb build` creates one)")
    assert list(tmp_path.iterdir()) == []


def test_advice_names_the_file_it_is_about(capsys, tmp_path, monkeypatch):
    """An older file given by --db: the advice, typed as given in the user's folder, upgrades that
    file (it upgraded or created ./zeckdb.duckdb and left the old one as it was)."""
    from alembic import command

    from zeckdb.store import alembic_config

    old = tmp_path / "old.duckdb"
    command.upgrade(alembic_config(old), "0015")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "status", "--db", "old.duckdb")
    advice = "`zeckdb db upgrade --db old.duckdb`"
    assert code == 1 and err.strip().endswith(f"has schema revision 0015, this zeckdb needs "
                                              f"{zeckdb.api.SCHEMA_HEAD}: run {advice}"), err
    code, out, _ = run(capsys, *advice.strip("`").split()[1:])
    assert code == 0 and "upgraded from 0015" in out and sorted(p.name for p in tmp_path.iterdir() if
                                                                  p.suffix == ".duckdb") == ["old.duckdb"]
    monkeypatch.setenv("ZECKDB_DB", str(old))  # the database a command finds by itself: no --db in the advice
    code, _, err = run(capsys, "query", "winners", "--variant", "zeckendorf")
    assert code == 1 and err.rstrip().endswith("run `zeckdb build --variant zeckendorf`"), err  # the door's settings
    from zeckdb.settings import Settings
    from zeckdb.store import suggested

    assert suggested("verify", old, Settings(db=str(old))) == "`zeckdb verify`"
    shown = "`zeckdb verify --db 'other \\x1b]52;c;x\\x07.duckdb'`"  # a terminal shows it, and acts on nothing
    assert suggested("verify", tmp_path / "other \x1b]52;c;x\x07.duckdb", Settings(db=str(old))) == shown


def test_a_file_whose_views_or_macros_are_not_zeckdbs_is_refused_until_upgraded(capsys, four_games, tmp_path):
    """The attack: the start of zeckendorf n = 9 given 5 more moves in its table, the file's own
    `positions` view taking them off again, so that verify (which read the view) passed while
    lookups (which read the table) said 13. And macros run by every command's SQL."""
    path = tmp_path / "crafted.duckdb"
    shutil.copy(four_games, path)
    con = duckdb.connect(str(path))
    con.execute("UPDATE position_rows SET remoteness_over_min = remoteness_over_min + 5 WHERE variant_id = (SELECT "
                "variant_id FROM variant_ids WHERE variant = 'zeckendorf') AND n = 9 AND is_start")
    (view,) = con.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'positions' AND NOT internal").fetchone()
    shown = "(min_remaining + remoteness_over_min)"
    assert shown in view
    con.execute(view.replace("CREATE VIEW", "CREATE OR REPLACE VIEW", 1).replace(
        shown, f"({shown} - CASE WHEN i.variant = 'zeckendorf' AND p.n = 9 AND is_start THEN 5 ELSE 0 END)"))
    con.close()
    refused = "holds what zeckdb's schema does not (a changed view positions)"
    for args in (["verify"], ["position", "zeckendorf", "--start", "9"], ["sql", "SELECT 1"], ["status"]):
        code, out, err = run(capsys, *args, "--db", str(path))
        assert (code, out) == (1, "") and refused in err and err.strip().endswith(
            f"`zeckdb db upgrade --db {path}` mends it"), (args, err)
    assert run(capsys, "db", "upgrade", "--db", str(path))[0] == 0  # zeckdb's view back: the edit shows
    code, _, err = run(capsys, "verify", "--variant", "zeckendorf", "--n", "9", "--db", str(path))
    assert code == 1 and "solved columns: zeckendorf n=9 (9): remoteness" in err
    for macro in ("CREATE MACRO hash(x) AS 42", "CREATE OR REPLACE MACRO phi() AS 2.0"):
        shutil.copy(four_games, path)
        con = duckdb.connect(str(path))
        con.execute(macro)
        con.close()
        code, out, err = run(capsys, "query", "winners", "--variant", "reversed", "--db", str(path))
        name = macro.split("MACRO ")[1].split("(")[0]
        kind = "a changed" if name == "phi" else "an extra"
        assert (code, out) == (1, "") and f"holds what zeckdb's schema does not ({kind} macro {name})" in err, err
        assert run(capsys, "db", "upgrade", "--db", str(path))[0] == 0
        code, out, err = run(capsys, "sql", "SELECT phi() < 1.62 AND hash(1) <> 42 AS ours", "-f", "csv", "--db",
                             str(path))
        assert (code, out.split()) == (0, ["ours", "True"]), err


def test_a_build_never_makes_a_stored_game_another(tmp_path):
    """A registration that changes what a stored game is (here its convention, as a plugin that
    took a twin's name did) is refused: the layers stored under it would read otherwise."""
    from dataclasses import replace

    from zeckdb.builder import game_record
    from zeckdb.errors import DatabaseError
    from zeckdb.store import StoreWriter
    from zeckdb.variants import get_variant

    path = tmp_path / "twin.duckdb"
    zeckdb.build(path, "zeckendorf-misere", "1..5")
    record = game_record(get_variant("zeckendorf-misere"))
    normal = replace(record, facts={**record.facts, "convention": "normal"})
    with StoreWriter.open_write(path) as store:
        with pytest.raises(DatabaseError, match="holds layers of a game zeckendorf-misere that is not this "
                                                "zeckendorf-misere \\(they differ in convention"):
            store.register_variant(normal)
        store.register_variant(replace(record, facts={**record.facts, "title": "a new title"}))  # words may change
    with zeckdb.open(path) as db:
        assert db.position("zeckendorf-misere", "1").outcome == "win"  # a terminal wins under misère play
