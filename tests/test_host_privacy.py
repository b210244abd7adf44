"""The SQL surface and the service tell strangers nothing about the host: not the database's
path, its WAL's, the allowed paths, the home or secret folders, nor the Python version.
Every catalog function, view and table macro DuckDB offers is run to find out, so a new
DuckDB release that adds one is caught here. Plain catalog questions keep working."""

from __future__ import annotations

import os
from pathlib import Path
import platform

import pytest

import zeckdb
from zeckdb.errors import ZeckdbError
from zeckdb.executor import Limits
from zeckdb.store import Store

from .http import get, post_sql, serving


@pytest.fixture(scope="module")
def hidden(tmp_path_factory) -> Path:
    """A database in a folder whose name is a secret of the host."""
    folder = tmp_path_factory.mktemp("host-secret-folder")
    db = folder / "z.duckdb"
    zeckdb.build(db, ["zeckendorf"], "1..7")
    return db


def secrets(db: Path) -> list[str]:
    """What must not be shown: the folders, the Python version in DuckDB's user agent."""
    return [str(db.resolve().parent), os.path.expanduser("~"), "host-secret-folder", "stored_secrets",
            f"python/{platform.python_version_tuple()[0]}.{platform.python_version_tuple()[1]}"]


def leaks(text: str, db: Path) -> list[str]:
    return [s for s in secrets(db) if s in text]


def answer(store: Store, sql: str) -> str:
    try:
        result = store.run(sql, limits=Limits(timeout=20, max_rows=None))
        return repr(result.rows)
    except ZeckdbError as exc:
        return str(exc)


def test_no_catalog_function_view_or_macro_shows_the_host(hidden):
    with Store.open_read(hidden) as store:
        tables = store.rows("SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type IN "
                             "('table', 'table_macro') AND parameters = [] ORDER BY 1")
        views = store.rows("SELECT schema_name, view_name FROM duckdb_views() WHERE internal")
        scalars = store.rows("SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type = "
                              "'scalar' AND parameters = [] AND function_name NOT LIKE '%random%' "
                              "AND function_name NOT IN ('nextval', 'currval') ORDER BY 1")
        settings = [r[0] for r in store.rows("SELECT name FROM duckdb_settings()")]
        assert len(tables) > 30 and len(views) > 20 and len(settings) > 100  # the enumeration itself works
        shown = {f"FROM {name}()": answer(store, f"SELECT * FROM {name}()") for (name,) in tables}
        shown |= {f"FROM {s}.{v}": answer(store, f'SELECT * FROM {s}."{v}"') for s, v in views}
        shown |= {f"SELECT {name}()": answer(store, f"SELECT {name}()") for (name,) in scalars}
        shown |= {f"current_setting({s})": answer(store, f"SELECT current_setting('{s}')") for s in settings}
    found = {what: leaks(text, hidden) for what, text in shown.items() if leaks(text, hidden)}
    assert not found, found
    # the direct questions of the attacker's notes are refused by name, in every spelling
    for sql in ["SELECT * FROM duckdb_settings()", 'SELECT * FROM "DuckDB_Databases"()', "SELECT path FROM "
                "duckdb_databases", "SELECT * FROM main.pragma_database_list", "SELECT * FROM pg_catalog.pg_settings",
                "SELECT current_setting('home_directory')", "SELECT * FROM pragma_user_agent()",
                "SELECT * FROM query('SELECT * FROM duckdb_settings()')", "SELECT * FROM query_table('builds')",
                "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
                "EXPLAIN SELECT * FROM duckdb_extensions()", "SUMMARIZE SELECT * FROM duckdb_temporary_files()",
                # the versions and the memory limit the service says it hides
                "SELECT version()", "SELECT * FROM pragma_version()", "PRAGMA version",
                "SELECT memory_limit FROM pragma_database_size()", "SELECT * FROM duckdb_memory()"]:
        with Store.open_read(hidden) as store:
            text = answer(store, sql)
        assert "is refused" in text, (sql, text)


@pytest.mark.parametrize("sql, want", [
    ("SELECT table_name FROM duckdb_tables() ORDER BY 1", "builds"),
    ("SELECT column_name FROM duckdb_columns() WHERE table_name = 'positions'", "remoteness"),
    ("SELECT view_name FROM duckdb_views() WHERE NOT internal", "moves"),
    ("SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_name = 'duckdb_settings'", "duckdb_settings"),
    ("SELECT table_name FROM information_schema.tables", "positions"),
    ("SELECT 'query' AS query, 1 AS current", "query"),
    ("SHOW TABLES", "positions"),
])
def test_catalog_questions_still_answer(hidden, sql, want):
    with Store.open_read(hidden) as store:
        result = store.run(sql, limits=Limits(timeout=20, max_rows=None))
    assert any(want in map(str, row) for row in result.rows), result.rows


def test_the_service_names_nothing_of_the_host(hidden):
    attempts = ["SELECT * FROM duckdb_settings()", "SELECT path FROM duckdb_databases()", "SELECT * FROM "
                "pragma_database_list", "SELECT * FROM read_text('~/.bashrc')", "SELECT * FROM duckdb_secrets()",
                "SELECT * FROM read_csv('secret_directory/x.csv')", "SELECT * FROM no_such_table",
                "SELECT * FROM query('SELECT 1')", "SELECT * FROM duckdb_extensions()"]
    with serving(hidden) as base:
        answers = [post_sql(base, {"sql": sql}) for sql in attempts]
        answers += [get(base + path) for path in ("/v1/status", "/v1/variants", "/v1/reversed/summary",
                                                  "/v1/zeckendorf/starts/99", "/v1/queries/winners?variant=quilt",
                                                  "/v1/zeckendorf/positions/9,9,9", "/openapi.json")]
    for _, _, text in answers:
        assert not leaks(text, hidden), text
    status = answers[len(attempts)]
    assert status[0] == 200 and status[1]["database"] == "z.duckdb"
    assert all(code == 400 and "is refused" in text for code, _, text in answers[:3])


SHOW_SPELLINGS = ["SHOW {s}", 'SHOW "{s}"', "show {S}", "SHOW /* comment */ {s}", "FROM (SHOW {s})",
                  "SELECT * FROM (SHOW {s})", "WITH x AS (SHOW {s}) SELECT * FROM x", "SUMMARIZE (SHOW {s})",
                  "DESCRIBE (SHOW {s})", "SELECT unnest([1]), * FROM (SHOW {s})", "EXPLAIN SHOW {s}",
                  "SELECT * FROM (SELECT * FROM (SHOW {s}))", "(SHOW {s}) UNION ALL (SHOW {s})"]


def test_show_of_every_setting_is_refused_in_every_spelling(hidden):
    """`SHOW <setting>` reads a setting's value (allowed_paths holds the database's path,
    secret_directory the home folder, duckdb_api the Python version): every setting DuckDB
    has, in every spelling, is refused, and nothing of the host comes back."""
    with Store.open_read(hidden) as store:
        settings = [r[0] for r in store.rows("SELECT name FROM duckdb_settings()")]
        assert len(settings) > 100 and "allowed_paths" in settings
        for setting in settings:
            for spelling in SHOW_SPELLINGS:
                sql = spelling.format(s=setting, S=setting.upper())
                text = answer(store, sql)
                assert "is refused" in text and not leaks(text, hidden), (sql, text)
        assert "is refused" in answer(store, "SHOW databases")
        assert "positions" in answer(store, "SHOW TABLES") and "remoteness" in answer(store, "SHOW positions")
