"""Alembic owns the schema: migrations build it on an empty file, and the code knows the head."""

from __future__ import annotations

from alembic.script import ScriptDirectory
import duckdb

from zeckdb.store import SCHEMA_HEAD, Store, _alembic_config, upgrade


def test_schema_head_constant_is_alembics_head(tmp_path):
    assert ScriptDirectory.from_config(_alembic_config(tmp_path / "x.duckdb")).get_current_head() == SCHEMA_HEAD


def test_migrations_build_the_documented_schema_on_an_empty_file(tmp_path):
    path = tmp_path / "empty.duckdb"
    assert upgrade(path) == (None, SCHEMA_HEAD)
    con = duckdb.connect(str(path), read_only=True)
    tables = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables").fetchall())
    assert tables == {"alembic_version": "BASE TABLE", "variants": "BASE TABLE", "move_names": "BASE TABLE",
                      "builds": "BASE TABLE", "graph_layers": "BASE TABLE", "positions": "BASE TABLE",
                      "edges": "BASE TABLE", "moves": "VIEW"}
    cols = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'positions' "
                                      "ORDER BY ordinal_position").fetchall()]
    assert cols[:3] == ["variant", "n", "id"] and "c16" in cols
    assert cols[-10:] == ["outcome", "remoteness", "min_remaining", "max_remaining", "games_to_end",
                          "expected_remaining", "grundy", "winning_moves", "is_start", "is_terminal"]
    assert [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'moves' "
                                      "ORDER BY ordinal_position").fetchall()] == ["variant", "n", "src", "dst", "code", "move"]
    con.close()
    assert upgrade(path) == (SCHEMA_HEAD, SCHEMA_HEAD)  # idempotent


def test_downgrade_to_base_and_back(tmp_path):
    from alembic import command

    path = tmp_path / "d.duckdb"
    upgrade(path)
    command.downgrade(_alembic_config(path), "base")
    con = duckdb.connect(str(path), read_only=True)
    assert [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()] == ["alembic_version"]
    con.close()
    Store.open_write(path).close()  # brings it back to head
