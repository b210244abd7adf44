"""Alembic owns the schema: migrations build it on an empty file, and the code knows the head."""

from __future__ import annotations

import json
from pathlib import Path
import subprocess
import sys

from alembic.script import ScriptDirectory
import duckdb
import pytest

from zeckdb.store import SCHEMA_HEAD, StoreWriter, alembic_config, migrate, upgrade

from .conftest import as_games

ROOT = Path(__file__).resolve().parent.parent

# the columns of positions before revision 0015 (teams): the older revisions' tests compare them
BEFORE_0015 = "COLUMNS(lambda c: c <> 'teams')"


def test_schema_head_constant_is_alembics_head(tmp_path):
    assert ScriptDirectory.from_config(alembic_config(tmp_path / "x.duckdb")).get_current_head() == SCHEMA_HEAD


def _exported(path, folder):
    """DuckDB's export of a file's schema, and every row of its tables."""
    con = duckdb.connect(str(path), read_only=True)
    con.execute(f"EXPORT DATABASE '{folder}'")
    tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY table_name").fetchall()]
    rows = {table: con.execute(f'SELECT * FROM "{table}" ORDER BY ALL').fetchall() for table in tables}
    con.close()
    return (folder / "schema.sql").read_text(), rows


def test_a_new_file_gets_the_schema_the_migrations_write(tmp_path):
    """New files take migrations/head.sql; it must be what Alembic's revisions write, object
    for object and row for row (and every existing file is still migrated by Alembic)."""
    created, migrated = tmp_path / "created.duckdb", tmp_path / "migrated.duckdb"
    StoreWriter.open_write(created).close()
    migrate(migrated, migrated)
    stale = ("migrations/head.sql differs from what the migrations write: regenerate it with "
             "`python -c \"import zeckdb.store as s; s.write_head_schema()\"`")
    schema, rows = _exported(created, tmp_path / "created")
    want_schema, want_rows = _exported(migrated, tmp_path / "migrated")
    assert schema == want_schema, stale
    assert rows == want_rows, stale
    assert rows["alembic_version"] == [(SCHEMA_HEAD,)] and len(rows["fibonacci"]) == 180


def test_head_schema_orders_each_statement_after_what_it_names():
    from zeckdb.store import in_dependency_order

    statements = ["CREATE VIEW v AS SELECT f(x) AS y FROM t", "CREATE MACRO f(a) AS g(a) + 1",
                  "CREATE MACRO g(a) AS a * 2", "CREATE TABLE t(x INTEGER)"]
    ordered = in_dependency_order(statements)
    assert sorted(ordered) == sorted(statements)
    assert ordered.index("CREATE MACRO g(a) AS a * 2") < ordered.index("CREATE MACRO f(a) AS g(a) + 1") \
        < ordered.index("CREATE VIEW v AS SELECT f(x) AS y FROM t")
    assert ordered.index("CREATE TABLE t(x INTEGER)") < ordered.index("CREATE VIEW v AS SELECT f(x) AS y FROM t")
    with pytest.raises(RuntimeError, match="names what it never creates"):
        in_dependency_order(["CREATE VIEW w AS SELECT * FROM missing"])


def test_a_new_file_is_created_without_alembic_or_sqlalchemy(tmp_path):
    """Their imports and the replay of every revision were most of a new file's start-up."""
    script = ("import sys; from pathlib import Path; from zeckdb.store import StoreWriter; "
              f"StoreWriter.open_write(Path({str(tmp_path / 'new.duckdb')!r})).close(); "
              "print(sorted(m for m in ('alembic', 'sqlalchemy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert (tmp_path / "new.duckdb").exists()


def test_migrations_build_the_documented_schema_on_an_empty_file(tmp_path):
    path = tmp_path / "empty.duckdb"
    assert upgrade(path) == (None, SCHEMA_HEAD)
    con = duckdb.connect(str(path), read_only=True)
    tables = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables").fetchall())
    assert tables == {"alembic_version": "BASE TABLE", "variants": "BASE TABLE", "move_names": "BASE TABLE",
                      "builds": "BASE TABLE", "graph_layers": "BASE TABLE", "positions": "VIEW",
                      "position_rows": "BASE TABLE", "position_rows_wide": "BASE TABLE",  # 0011
                      "edges": "VIEW", "edge_rows": "BASE TABLE", "edge_rows_across": "BASE TABLE",  # 0009
                      "graph_ids": "BASE TABLE", "variant_ids": "BASE TABLE",  # 0013
                      "moves": "VIEW", "fibonacci": "BASE TABLE",
                      "length_distribution": "BASE TABLE", "random_play": "BASE TABLE", "length_moments": "VIEW",
                      "variant_columns": "BASE TABLE", "position_texts": "VIEW"}
    cols = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'positions' "
                                      "ORDER BY ordinal_position").fetchall()]
    assert cols[:3] == ["variant", "n", "id"] and "c16" in cols
    assert cols[-15:] == ["outcome", "remoteness", "min_remaining", "max_remaining", "games_to_end",
                          "expected_remaining", "grundy", "winning_moves", "is_start", "is_terminal",
                          "in_winning_strategies", "legal_moves", "entries",  # entries: migration 0006
                          "forcing_seat",  # migration 0007
                          "teams"]  # migration 0015
    macros = {r[0] for r in con.execute("SELECT function_name FROM duckdb_functions() WHERE function_type = 'macro' "
                                        "AND database_name = 'empty'").fetchall()}
    assert {"fib", "fib_list", "phi", "zeckendorf", "zeckendorf_indices", "z", "z_i", "position_text", "game_text"} <= macros
    assert [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'moves' "
                                      "ORDER BY ordinal_position").fetchall()] == \
        ["variant", "n", "src", "dst", "code", "move", "dst_n"]
    con.close()
    assert upgrade(path) == (SCHEMA_HEAD, SCHEMA_HEAD)  # idempotent


def test_downgrade_to_base_and_back(tmp_path):
    from alembic import command

    path = tmp_path / "d.duckdb"
    upgrade(path)
    command.downgrade(alembic_config(path), "base")
    con = duckdb.connect(str(path), read_only=True)
    assert [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()] == ["alembic_version"]
    con.close()
    StoreWriter.open_write(path).close()  # brings it back to head


def test_sql_helpers_agree_with_python(tmp_path):
    from .reference import fib, z_count, z_index_sum, zeckendorf_indices

    path = tmp_path / "h.duckdb"
    upgrade(path)
    con = duckdb.connect(str(path), read_only=True)
    ns = list(range(0, 300)) + [10**6 + 7, 2**62]
    got = con.execute("SELECT n, zeckendorf_indices(n), z(n), z_i(n) FROM unnest(?::BIGINT[]) t(n) ORDER BY n",
                      [ns]).fetchall()
    assert got == [(n, zeckendorf_indices(n), z_count(n), z_index_sum(n)) for n in ns]
    assert con.execute("SELECT list(fib(i)) FROM range(1, 90) t(i)").fetchone()[0] == [fib(i) for i in range(1, 90)]
    assert con.execute("SELECT zeckendorf(16), round(phi(), 12)").fetchone() == ([13, 3], 1.618033988750)
    assert con.execute("SELECT position_text([3, 1, 0, 2, 0, NULL]), position_text([0, 0]), position_text([7])"
                       ).fetchone() == ("(3,1,0,2)", "()", "(7)")
    con.close()


def test_older_database_is_upgraded_and_its_layers_rebuilt(tmp_path):
    """A file at revision 0001 gains the new schema on build, and layers missing the new data are rebuilt."""
    from alembic import command

    from zeckdb.builder import build

    path = tmp_path / "old.duckdb"
    command.upgrade(alembic_config(path), "0001")
    with StoreWriter.open_write(path) as store:  # upgrades to head
        build(store, as_games(["zeckendorf"]), [1, 2, 3, 4, 5])
    with duckdb.connect(str(path)) as con:
        con.execute("DELETE FROM random_play WHERE n >= 4")  # as if built before the query layer existed
    with StoreWriter.open_write(path) as store:
        report = build(store, as_games(["zeckendorf"]), [1, 2, 3, 4, 5])
    assert report.built == [("zeckendorf", 4), ("zeckendorf", 5)]
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT count(*) FROM builds WHERE variant = 'zeckendorf'").fetchone()[0] == 5
    assert con.execute("SELECT count(*) FROM positions WHERE n = 5").fetchone()[0] == 6
    assert con.execute("SELECT count(*) FROM random_play").fetchone()[0] == 5


def test_layers_built_at_0002_keep_their_moves_after_0003(tmp_path):
    """0003 adds edges.dst_n; edges written before it stay in their layer (NULL), the moves view says so."""
    from alembic import command

    path = tmp_path / "at0002.duckdb"
    command.upgrade(alembic_config(path), "0002")
    con = duckdb.connect(str(path))
    con.execute("INSERT INTO variants VALUES ('zeckendorf', 't', 's', 'zeckendorf', false, 200, 11)")
    con.execute("INSERT INTO move_names VALUES ('zeckendorf', 0, 'merge 2F1')")
    con.execute("INSERT INTO edges VALUES ('zeckendorf', 2, 0, 1, 0)")
    con.close()
    command.upgrade(alembic_config(path), "head")
    con = duckdb.connect(str(path))
    assert con.execute("SELECT variant, n, src, dst, move, dst_n FROM moves").fetchall() == \
        [("zeckendorf", 2, 0, 1, "merge 2F1", 2)]
    con.close()
    command.downgrade(alembic_config(path), "0002")
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT * FROM moves").fetchall() == [("zeckendorf", 2, 0, 1, 0, "merge 2F1")]
    con.close()


def test_revision_0007_keeps_checksums_honest(tmp_path, capsys):
    """0007 adds a column to positions, which changes every row's hash: the upgrade recomputes
    a layer's checksum only where it matched, so an edit made before the upgrade is still caught."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import as_games, run

    path = tmp_path / "six.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed", "zeckendorf-p3"]), list(range(1, 13)))
    command.downgrade(alembic_config(path), "0006")  # as the previous release wrote it
    with duckdb.connect(str(path)) as con:
        assert con.execute("SELECT count(*) FROM variants WHERE variant = 'zeckendorf-p3'").fetchone() == (0,)
        con.execute("UPDATE positions SET remoteness = remoteness + 2 WHERE variant = 'reversed' AND n = 9 AND id = 1")
    assert upgrade(path) == ("0006", SCHEMA_HEAD)
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 1 and "checksums: reversed n=9: the positions rows do not hash" in err
    assert err.count("checksums:") == 1  # every other layer's checksum was carried over
    code, out, err = run(capsys, "query", "lengths", "--variant", "zeckendorf", "--n", "12", "--format", "json",
                         "--db", str(path))
    assert code == 0 and '"terms": 3' in out and '"min_is_n_minus_z": true' in out  # the facts filled in


def test_revision_0009_keeps_every_move_and_checksum(tmp_path, capsys):
    """0009 moves the edges table's rows into edge_rows and edge_rows_across behind the view
    edges: every move stays, every layer's checksum still matches, an edit made before the
    upgrade is still caught, and a downgrade gives the table back."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import run

    path = tmp_path / "nine.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed", "black-hole-3"]), list(range(1, 13)))
    everything = "SELECT * FROM moves ORDER BY ALL"
    with duckdb.connect(str(path)) as con:
        moves = con.execute(everything).fetchall()
    command.downgrade(alembic_config(path), "0008")  # as the previous release wrote it
    with duckdb.connect(str(path)) as con:
        assert con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'edges'").fetchone() == \
            ("BASE TABLE",)
        assert con.execute(everything).fetchall() == moves
        con.execute("DELETE FROM edges WHERE graph = 'zeckendorf' AND n = 9 AND src = 0")
        edited = con.execute(everything).fetchall()
    assert len(edited) == len(moves) - 2  # the move in the Zeckendorf game and the reversed one
    assert upgrade(path) == ("0008", SCHEMA_HEAD)
    with duckdb.connect(str(path)) as con:
        assert con.execute(everything).fetchall() == edited
        assert con.execute("SELECT count(*) FROM edge_rows_across").fetchone()[0] > 0  # Black Hole's drops
        assert con.execute("SELECT count(*) FROM edge_rows_across e JOIN graph_ids USING (graph_id) "
                           "WHERE graph <> 'black-hole-3'").fetchone() == (0,)
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 1 and "checksums: zeckendorf n=9: the moves rows do not hash" in err
    assert "checksums: reversed n=9: the moves rows do not hash" in err  # the same graph layer
    assert err.count("checksums:") == 2  # every other layer's checksum still holds
    command.downgrade(alembic_config(path), "0008")
    with duckdb.connect(str(path)) as con:
        assert con.execute(everything).fetchall() == edited


def test_revision_0010_widens_columns_and_keeps_checksums_honest(tmp_path, capsys):
    """0010 stores the whole-number columns of positions and of the edges as INTEGER: every
    value stays, every untouched layer still verifies, and edits made before the upgrade (a
    position's remoteness, a move) are still caught; a downgrade gives SMALLINT back."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import run

    path = tmp_path / "ten.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed", "black-hole-3"]), list(range(1, 12)))
    tables = {"positions": f"SELECT {BEFORE_0015} FROM positions ORDER BY ALL", "moves": "SELECT * FROM moves ORDER BY ALL"}
    types = ("SELECT table_name, column_name, data_type FROM information_schema.columns "
             "WHERE column_name IN ('n', 'c1', 'remoteness', 'legal_moves', 'code', 'dst_n') "
             "AND table_name IN ('positions', 'edges', 'edge_rows_across') ORDER BY ALL")
    command.downgrade(alembic_config(path), "0009")  # as the previous release wrote it
    with duckdb.connect(str(path)) as con:
        assert {t for _, _, t in con.execute(types).fetchall()} == {"SMALLINT"}
        con.execute("UPDATE positions SET remoteness = remoteness + 2 WHERE variant = 'reversed' AND n = 9 AND id = 1")
        assert con.execute("DELETE FROM edge_rows_across WHERE n = 7 AND src = 1").fetchone() == (1,)  # a drop
        rows = {name: con.execute(sql).fetchall() for name, sql in tables.items()}
    assert upgrade(path) == ("0009", SCHEMA_HEAD)
    with duckdb.connect(str(path)) as con:
        assert {t for _, _, t in con.execute(types).fetchall()} == {"INTEGER"}
        assert {name: con.execute(sql).fetchall() for name, sql in tables.items()} == rows
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 1 and "checksums: reversed n=9: the positions rows do not hash" in err
    assert "checksums: black-hole-3 n=7: the moves rows do not hash" in err
    assert err.count("checksums:") == 2  # every other layer's checksum was carried over
    command.downgrade(alembic_config(path), "0009")
    with duckdb.connect(str(path)) as con:
        assert {t for _, _, t in con.execute(types).fetchall()} == {"SMALLINT"}
        assert {name: con.execute(sql).fetchall() for name, sql in tables.items()} == rows


def test_revision_0011_keeps_positions_and_checksums(tmp_path, capsys):
    """0011 puts the view positions over position_rows (two-player count-vector games of at
    most eleven bins) and position_rows_wide (the old table, renamed): every row, column and
    type the view shows stays, every untouched layer still verifies, an edit made before the
    upgrade is still caught, new layers go to the table of their shape, and a downgrade gives
    the one table back with every row."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import run

    path = tmp_path / "eleven.duckdb"
    games = ["zeckendorf", "reversed", "quilt", "zeckendorf-p3"]
    with StoreWriter.open_write(path) as store:
        build(store, as_games(games), list(range(1, 11)))
    everything = f"SELECT {BEFORE_0015} FROM positions ORDER BY ALL"
    types = ("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'positions' "
             "AND column_name <> 'teams' "
             "ORDER BY ordinal_position")
    command.downgrade(alembic_config(path), "0010")  # as the previous release wrote it
    with duckdb.connect(str(path)) as con:
        assert con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'positions'").fetchone() \
            == ("BASE TABLE",)
        con.execute("UPDATE positions SET remoteness = remoteness + 2 WHERE variant = 'reversed' AND n = 9 AND id = 1")
        rows, columns = con.execute(everything).fetchall(), con.execute(types).fetchall()
    assert upgrade(path) == ("0010", SCHEMA_HEAD)
    with duckdb.connect(str(path)) as con:
        assert con.execute(everything).fetchall() == rows
        assert con.execute(types).fetchall() == columns
        assert con.execute("SELECT count(*) FROM position_rows").fetchone() == (0,)  # the upgrade moves no row
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 1 and "checksums: reversed n=9: the positions rows do not hash" in err
    assert err.count("checksums:") == 1  # every other layer's checksum still holds
    with StoreWriter.open_write(path) as store:
        build(store, as_games(games), [11])
    with duckdb.connect(str(path)) as con:
        where = {table: dict(con.execute(f"SELECT variant, count(*) FROM {source} GROUP BY variant").fetchall())
                 for table, source in (("position_rows", "position_rows JOIN variant_ids USING (variant_id)"),
                                       ("position_rows_wide", "position_rows_wide"))}
        assert set(where["position_rows"]) == {"zeckendorf", "reversed"}  # n = 11 only
        assert where["position_rows"]["zeckendorf"] == con.execute(
            "SELECT positions FROM builds WHERE variant = 'zeckendorf' AND n = 11").fetchone()[0]
        assert set(where["position_rows_wide"]) == set(games)
        rows = con.execute(everything).fetchall()
    code, out, err = run(capsys, "verify", "--db", str(path), "--n", "11")
    assert code == 0, err
    # lookups read the two tables themselves: a layer in either, moves into layers in both
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["fibonacci-nim"]), list(range(1, 10)))
    command.downgrade(alembic_config(path), "0010")
    upgrade(path)
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["fibonacci-nim"]), [10, 11])
    with duckdb.connect(str(path)) as con:
        assert con.execute("SELECT DISTINCT n FROM position_rows_wide WHERE variant = 'fibonacci-nim' "
                           "ORDER BY n").fetchall() == [(n,) for n in range(10)]  # layer 0 too
        rows = con.execute(everything).fetchall()
    for variant, n in [("fibonacci-nim", 11), ("fibonacci-nim", 9), ("zeckendorf", 11), ("zeckendorf", 10),
                       ("quilt", 11)]:
        code, out, err = run(capsys, "position", variant, "--start", str(n), "--json", "--db", str(path))
        shown = json.loads(out)
        assert code == 0 and shown["outcome"] in ("win", "loss"), err
        assert shown["moves"] and all(m["outcome"] in ("win", "loss") for m in shown["moves"]), (variant, n)
    command.downgrade(alembic_config(path), "0010")
    with duckdb.connect(str(path)) as con:
        assert con.execute(everything).fetchall() == rows
        assert con.execute(types).fetchall() == columns


def test_revision_0012_moves_checksums_to_zeckdbs_hash_and_keeps_them_honest(tmp_path, capsys):
    """0012 records each layer's checksums by zeckdb's own hash instead of DuckDB's: a file the
    previous release wrote (DuckDB's hash) comes back with the checksums a build writes now, an
    edit made before the upgrade is still caught, and a downgrade gives DuckDB's hash back."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import run

    path = tmp_path / "twelve.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed", "black-hole-3", "ordered", "zeckendorf-p3"]), list(range(1, 11)))
    recorded = "SELECT variant, n, positions_checksum, edges_checksum FROM builds ORDER BY variant, n"
    duckdb_hash = """
        SELECT b.variant, b.n,
               (SELECT (coalesce(sum(hash(p)), 0) % 18446744073709551616)::UBIGINT FROM positions p
                WHERE p.variant = b.variant AND p.n = b.n),
               (SELECT (coalesce(sum(hash(e)), 0) % 18446744073709551616)::UBIGINT FROM edges e
                WHERE e.graph = v.graph AND e.n = b.n)
        FROM builds b JOIN variants v USING (variant) ORDER BY b.variant, b.n"""
    with duckdb.connect(str(path)) as con:
        own = con.execute(recorded).fetchall()
    command.downgrade(alembic_config(path), "0011")  # as the previous release wrote it
    with duckdb.connect(str(path)) as con:
        assert con.execute(recorded).fetchall() == con.execute(duckdb_hash).fetchall() != own
        con.execute("UPDATE position_rows SET in_winning_strategies = NOT in_winning_strategies "
                    "WHERE variant = 'reversed' AND n = 9 AND id = 1")
    assert upgrade(path) == ("0011", SCHEMA_HEAD)
    with duckdb.connect(str(path)) as con:
        now = con.execute(recorded).fetchall()
    # the downgrade below 0015 dropped the three-player layers' teams, and their checksums with
    # them: those hash the rows left (verify's checksums hold for them below)
    def kept(rows: list) -> list:
        return [row for row in rows if row[:2] != ("reversed", 9) and row[0] != "zeckendorf-p3"]

    assert kept(now) == kept(own)
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 1 and "checksums: reversed n=9: the positions rows do not hash" in err
    assert err.count("checksums:") == 1  # only the checksums catch that edit; every other layer's holds
    command.downgrade(alembic_config(path), "0011")
    with duckdb.connect(str(path)) as con:
        back = {row[:2]: row for row in con.execute(recorded).fetchall()}
        hashed = {row[:2]: row for row in con.execute(duckdb_hash).fetchall()}
    assert back.pop(("reversed", 9)) != hashed.pop(("reversed", 9)) and back == hashed


def test_revision_0013_stores_lean_rows_and_keeps_every_value(tmp_path, capsys):
    """0013 stores a variant of position_rows as a small integer and four columns by others:
    the view shows every row, column and type as before; a layer edited before the upgrade
    so that a dropped column disagrees with the others moves whole to position_rows_wide and
    is still caught, as is an edit of a column kept; a downgrade gives the old table back."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import run

    path = tmp_path / "thirteen.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed", "black-hole-3", "quilt"]), list(range(1, 11)))
    everything = f"SELECT {BEFORE_0015} FROM positions ORDER BY ALL"
    types = ("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'positions' "
             "AND column_name <> 'teams' "
             "ORDER BY ordinal_position")
    command.downgrade(alembic_config(path), "0012")  # as the previous release wrote it
    with duckdb.connect(str(path)) as con:
        assert "variant" in [r[0] for r in con.execute("DESCRIBE position_rows").fetchall()]
        con.execute("UPDATE position_rows SET outcome = 'win' WHERE variant = 'reversed' AND n = 9 AND outcome = 'loss' "
                    "AND id = (SELECT min(id) FROM position_rows WHERE variant = 'reversed' AND n = 9 "
                    "AND outcome = 'loss')")
        con.execute("UPDATE position_rows SET remoteness = remoteness + 2 WHERE variant = 'zeckendorf' AND n = 8 "
                    "AND id = 3")
        rows, columns = con.execute(everything).fetchall(), con.execute(types).fetchall()
        lean = con.execute("SELECT count(*) FROM position_rows WHERE NOT (variant = 'reversed' AND n = 9)").fetchone()
    assert upgrade(path) == ("0012", SCHEMA_HEAD)
    with duckdb.connect(str(path)) as con:
        assert con.execute(everything).fetchall() == rows
        assert con.execute(types).fetchall() == columns
        assert con.execute("SELECT count(*) FROM position_rows").fetchone() == lean
        assert con.execute("SELECT DISTINCT variant, n FROM position_rows_wide WHERE variant <> 'quilt'").fetchall() \
            == [("reversed", 9)]
        stored = [r[0] for r in con.execute("DESCRIBE position_rows").fetchall()]
        assert "variant" not in stored and "outcome" not in stored and "remoteness_over_min" in stored
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 1 and "checksums: reversed n=9: the positions rows do not hash" in err
    assert "checksums: zeckendorf n=8: the positions rows do not hash" in err
    assert err.count("checksums:") == 2  # every other layer's checksum still holds
    for variant in ("zeckendorf", "reversed"):  # lookups read both tables
        code, out, err = run(capsys, "position", variant, "--start", "10", "--json", "--db", str(path))
        assert code == 0 and json.loads(out)["moves"], err
    command.downgrade(alembic_config(path), "0012")
    with duckdb.connect(str(path)) as con:
        assert con.execute(everything).fetchall() == rows
        assert con.execute(types).fetchall() == columns


def test_revision_0014_names_each_columns_compression_and_keeps_every_row(tmp_path, capsys):
    """0014 rewrites the big tables with each column's compression named: every row of the
    views, in every column and type, and every checksum stay; a downgrade names none again."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import run

    path = tmp_path / "fourteen.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed", "black-hole-3", "fibonacci-nim"]), list(range(1, 13)))
    command.downgrade(alembic_config(path), "0013")  # as the previous release wrote it

    def state():
        with duckdb.connect(str(path), read_only=True) as con:
            views = {view: (con.execute(f"SELECT {BEFORE_0015} FROM {view} ORDER BY ALL").fetchall(),
                            con.execute("SELECT column_name, data_type FROM information_schema.columns "
                                        f"WHERE table_name = '{view}' AND column_name <> 'teams' "
                                        "ORDER BY ordinal_position").fetchall())
                     for view in ("positions", "edges", "moves")}
            named = {table: con.execute(f"SELECT sql FROM duckdb_tables() WHERE table_name = '{table}'").fetchone()[0]
                     .count("USING COMPRESSION") for table in ("position_rows", "edge_rows", "edge_rows_across")}
        return views, named

    before, named = state()
    assert named == {"position_rows": 0, "edge_rows": 0, "edge_rows_across": 0}
    assert upgrade(path) == ("0013", SCHEMA_HEAD)
    after, named = state()
    assert after == before and len(before["edges"][0]) > 500
    assert named == {"position_rows": 17, "edge_rows": 5, "edge_rows_across": 6}
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 0, err
    command.downgrade(alembic_config(path), "0013")
    again, named = state()
    assert again == before and set(named.values()) == {0}


def test_revision_0015_adds_teams_and_keeps_checksums_honest(tmp_path, capsys):
    """0015 adds the teams of the games of P players: layers built before have none (verify says
    to rebuild them, their checksums still hold), a rebuild fills them; a downgrade drops them
    and rewrites the checksums that hashed them."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import run

    path = tmp_path / "fifteen.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "zeckendorf-p3"]), list(range(1, 9)))
    command.downgrade(alembic_config(path), "0014")  # as the previous release wrote it
    code, _, err = run(capsys, "db", "upgrade", "--db", str(path))
    assert code == 0, err
    with duckdb.connect(str(path)) as con:
        assert con.execute("SELECT count(*) FROM positions WHERE teams IS NOT NULL").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM builds WHERE teams IS NOT NULL").fetchone() == (0,)
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 1 and "no teams stored (built before schema revision 0015)" in err and "checksums:" not in err
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf-p3"]), list(range(1, 9)), force=True)
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 0, err
    with duckdb.connect(str(path)) as con:
        # every team of two, and the three together (tests/test_players.py: the plain solver)
        assert con.execute("SELECT teams FROM builds WHERE variant = 'zeckendorf-p3' AND n = 5").fetchone() == (
            (1 << 0b011) + (1 << 0b101) + (1 << 0b110) + (1 << 0b111),)


def test_migrations_hash_with_their_frozen_copy_which_agrees_with_todays(small_db):
    """Revisions 0012 and 0015 take the hash from migrations/frozen_checksums.py, never from
    zeckdb's live code (which may change); today the two give the same checksums."""
    import runpy

    from zeckdb import checksums as live

    for version in sorted((ROOT / "migrations" / "versions").glob("*.py")):
        assert "from zeckdb" not in version.read_text() and "import zeckdb" not in version.read_text(), version.name
    frozen = runpy.run_path(str(ROOT / "migrations" / "frozen_checksums.py"))
    con = duckdb.connect(str(small_db), read_only=True)
    try:
        for variant, n in (("zeckendorf", 12), ("zeckendorf-p3", 9), ("black-hole-4", 20), ("ordered", 8)):
            rows = con.sql(f"SELECT {', '.join(live.COLUMNS['positions'])} FROM positions WHERE variant = ? AND n = ?",
                           params=[variant, n]).to_arrow_table()
            assert rows.num_rows > 0
            want = live.checksum([rows], "positions", variant, n)
            assert frozen["checksum"](rows.to_batches(), "positions", variant, n) == want, (variant, n)
            stored = con.execute("SELECT positions_checksum FROM builds WHERE variant = ? AND n = ?",
                                 [variant, n]).fetchall()
            assert stored == [(want,)]
            edges = con.sql("SELECT src, dst, code, dst_n FROM edges WHERE graph = (SELECT graph FROM variants WHERE "
                            "variant = ?) AND n = ?", params=[variant, n]).to_arrow_table()
            assert frozen["checksum"]([edges], "edges", "g", n) == live.checksum([edges], "edges", "g", n)
            tables = {t: con.sql(f"SELECT {', '.join(c)} FROM {t} WHERE variant = ? AND n = ?",
                                 params=[variant, n]).to_arrow_table() for t, c in live.SUMMARY_COLUMNS.items()}
            assert frozen["summary_checksum"](tables, variant, n) == live.summary_checksum(tables, variant, n)
    finally:
        con.close()


def _craft_views(path: Path, secret: Path) -> None:
    """A file someone else made: zeckdb's positions view replaced by one that reads a file of
    the user's, and a macro that shadows DuckDB's hash with a read of that file."""
    reads = f"(SELECT content FROM read_text('{secret}'))"
    with duckdb.connect(str(path)) as con:
        view = con.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'positions'").fetchone()[0]
        con.execute(view.replace("CREATE VIEW positions AS", "CREATE OR REPLACE VIEW positions AS SELECT * FROM (")
                    .rstrip(";") + f") WHERE n > 0 OR {reads} IS NULL")
        con.execute(f"CREATE MACRO hash(x) AS length({reads})")


def test_a_crafted_file_runs_none_of_its_own_sql_during_an_upgrade_or_a_build(tmp_path, capsys):
    """A file taken back to revision 0011 with its positions view replaced by one that reads a
    user's file made the upgrade read it (migration 0012 reads the views, on the writer's
    connection), print it in an error or fold it into the checksums. zeckdb's views and macros
    are now put back from its own definitions before anything reads them, a foreign macro is
    dropped, and the writer and the migrations cannot reach any file but the database: the
    upgrade succeeds, verify passes, the secret is nowhere. The same holds for a build of a
    file at the head revision whose views someone else wrote."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import run

    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-1234")
    path = tmp_path / "crafted.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed"]), list(range(1, 9)))
    command.downgrade(alembic_config(path), "0011")
    _craft_views(path, secret)
    code, out, err = run(capsys, "db", "upgrade", "--db", str(path))
    assert code == 0 and "TOP-SECRET" not in out + err, err
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 0 and "every check passed" in out, err
    with duckdb.connect(str(path)) as con:
        assert "read_text" not in con.execute("SELECT string_agg(sql, ' ') FROM duckdb_views()").fetchone()[0]
        assert con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'hash' "
                           "AND NOT internal").fetchone()[0] == 0

    _craft_views(path, secret)  # at the head revision: the build puts its own views back first
    code, out, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..10", "--db", str(path))
    assert code == 0 and "TOP-SECRET" not in out + err, err
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 0 and "every check passed" in out, err


def test_the_writer_reaches_no_file_but_the_database(tmp_path):
    (tmp_path / "other.txt").write_text("another file")
    with StoreWriter.open_write(tmp_path / "w.duckdb") as store:
        for statement in (f"SELECT * FROM read_text('{tmp_path / 'other.txt'}')",
                          f"COPY (SELECT 1) TO '{tmp_path / 'out.csv'}'", f"ATTACH '{tmp_path / 'x.duckdb'}' AS x"):
            with pytest.raises(duckdb.PermissionException):
                store.file.connection().execute(statement)


def test_revision_0016_names_each_games_convention_and_keeps_every_row(tmp_path, capsys):
    """0016 adds variants.convention ('normal' for every game before it) and derives the lean
    rows' outcome by it: a file the previous release wrote comes back with every position as
    it was; a downgrade drops the misère games' layers (that release would read their lean
    rows as normal play's) and keeps the others whole."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import run

    path = tmp_path / "sixteen.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed", "zeckendorf-misere"]), list(range(1, 11)))
    every = "SELECT variant, n, id, outcome, remoteness, winning_moves FROM positions ORDER BY ALL"
    with duckdb.connect(str(path)) as con:
        before = con.execute(every).fetchall()
        assert con.execute("SELECT count(*) FROM position_rows_wide").fetchone() == (0,)  # the twin's rows lean too
    command.downgrade(alembic_config(path), "0015")  # as the previous release reads it
    with duckdb.connect(str(path)) as con:
        assert con.execute(every).fetchall() == [r for r in before if r[0] != "zeckendorf-misere"]
        assert con.execute("SELECT count(*) FROM builds WHERE variant = 'zeckendorf-misere'").fetchone() == (0,)
    assert upgrade(path) == ("0015", SCHEMA_HEAD)
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 0 and "every check passed" in out, err
    with duckdb.connect(str(path)) as con:
        assert con.execute("SELECT DISTINCT convention FROM variants").fetchall() == [("normal",)]
        assert con.execute(every).fetchall() == [r for r in before if r[0] != "zeckendorf-misere"]


def test_revision_0017_stores_what_terminals_are_worth_and_which_game_a_twin_is_of(tmp_path, capsys):
    """0017 adds variants.terminal_wins (the view's outcome reads it) and variants.normal_of (the
    comparing queries join on it): a file of 0016 gets both from its conventions and names,
    every position as it was; a downgrade takes them off and keeps every row."""
    from alembic import command

    from zeckdb.builder import build

    from .conftest import run

    path = tmp_path / "seventeen.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed", "zeckendorf-misere"]), list(range(1, 11)))
    every = "SELECT variant, n, id, outcome, remoteness, winning_moves FROM positions ORDER BY ALL"
    facts = "SELECT variant, terminal_wins, normal_of FROM variants ORDER BY variant"
    with duckdb.connect(str(path)) as con:
        before = con.execute(every).fetchall()
        assert con.execute(facts).fetchall() == [("reversed", False, None), ("zeckendorf", False, None),
                                                 ("zeckendorf-misere", True, "zeckendorf")]
    command.downgrade(alembic_config(path), "0016")  # as the previous release reads it
    with duckdb.connect(str(path)) as con:
        assert con.execute(every).fetchall() == before
        assert "terminal_wins" not in {c for (c,) in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'variants'").fetchall()}
    assert upgrade(path) == ("0016", SCHEMA_HEAD)
    with duckdb.connect(str(path)) as con:
        assert con.execute(every).fetchall() == before
        assert con.execute(facts).fetchall() == [("reversed", False, None), ("zeckendorf", False, None),
                                                 ("zeckendorf-misere", True, "zeckendorf")]
    code, out, err = run(capsys, "query", "conventions", "--variant", "zeckendorf", "-f", "csv", "--db", str(path))
    assert code == 0 and len(out.splitlines()) == 1 + 10, err
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 0 and "every check passed" in out, err


def test_the_head_catalog_read_from_head_sql_is_duckdbs():
    """zeckdb.store.catalog reads the head's whole catalog from head.sql as text (a DuckDB made in
    memory for it cost every worker hundreds of MB): what DuckDB reports of a database made from
    head.sql is the same, object by object, so a file zeckdb made passes in one query."""
    from zeckdb.resources import migrations_dir
    from zeckdb.store.catalog import CATALOG_SQL, _normal, expected, head_columns

    with duckdb.connect() as con:
        con.execute((migrations_dir() / "head.sql").read_text())
        made = {(k, s, n): _normal((k, s, n), text) for k, s, n, text in con.execute(CATALOG_SQL).fetchall()}
    assert made == expected()
    kinds = [key[0] for key in expected()]
    assert kinds.count("table") == 15 and kinds.count("macro") == 9 and kinds.count("type") == 1, kinds
    assert head_columns("builds")[:2] == (("variant", None), ("n", None))
    assert ("summary_only", "false") in head_columns("builds")
