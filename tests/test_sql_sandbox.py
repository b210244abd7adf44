"""The SQL surface is read-only and sandboxed: hostile statements are refused with one line,
nothing is written (the database stays byte-identical, no file appears), and every
allowed kind of statement still answers. Time, memory and printed rows are bounded."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
import subprocess
import sys

import pytest

import zeckdb
from zeckdb.store import Store

from .conftest import run

# {DB}: the database file; {W}: a watched folder (the working directory of the test)
HOSTILE = [
    # writing files, the database file itself included
    "COPY (SELECT 1) TO '{W}/out.csv'",
    "COPY positions TO '{DB}'",
    "COPY (SELECT 'import os') TO '{W}/evil.py' (HEADER false)",
    "EXPLAIN ANALYZE COPY (SELECT 1) TO '{DB}'",
    "EXPLAIN ANALYZE COPY (SELECT 'import os') TO '{W}/0004_evil.py'",
    "EXPLAIN (ANALYZE) COPY (SELECT 1) TO '{W}/out2.csv'",
    "explain /* hidden */ analyse select 1",
    "EXPLAIN ANALYZE SELECT count(*) FROM positions",
    "EXPLAIN INSERT INTO builds SELECT * FROM builds",
    "EXPLAIN COPY (SELECT 1) TO '{W}/out3.csv'",
    "EXPORT DATABASE '{W}/export'",
    "IMPORT DATABASE '{W}'",
    "COPY builds FROM '{W}/in.csv'",
    # changing the database
    "INSERT INTO builds SELECT * FROM builds",
    "UPDATE positions SET outcome = 'win'",
    "DELETE FROM builds",
    "DROP TABLE builds",
    "DROP VIEW moves",
    "TRUNCATE builds",
    "ALTER TABLE builds ADD COLUMN x INTEGER",
    "CREATE TABLE x (a INTEGER)",
    "CREATE TEMP TABLE x AS SELECT 1",
    "CREATE MACRO m() AS 1",
    "CREATE SECRET (TYPE s3, KEY_ID 'x', SECRET 'y')",
    "CHECKPOINT",
    "VACUUM",
    "ANALYZE",
    "BEGIN TRANSACTION",
    "PREPARE p AS SELECT 1",
    # other databases and files
    "ATTACH '{W}/other.duckdb' AS other",
    "ATTACH ':memory:' AS scratch",
    "DETACH other",
    "USE memory",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_csv_auto('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_blob('/etc/passwd')",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM read_json_auto('/etc/hostname')",
    "SELECT * FROM sniff_csv('/etc/passwd')",
    "SELECT * FROM parquet_metadata('{W}/x.parquet')",
    "SELECT * FROM read_csv(['/etc/passwd', '/etc/hostname'])",
    "SELECT * FROM '/etc/passwd'",
    "FROM read_text('{W}/../*')",
    "WITH t AS (SELECT * FROM read_text('/etc/passwd')) SELECT * FROM t",
    "SUMMARIZE SELECT * FROM read_text('/etc/passwd')",
    "DESCRIBE SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM query('SELECT * FROM read_text(''/etc/passwd'')')",
    # the database's own files, which DuckDB lets its connection read whatever external access says
    "SELECT * FROM read_blob('{DB}')",
    "SELECT * FROM read_blob('{DB}.wal')",
    "SELECT count(*) FROM glob('{DB}')",
    "SELECT * FROM read_duckdb('{DB}')",
    "SELECT * FROM '{DB}'",
    'SELECT * FROM "{DB}"',
    "SELECT * FROM builds, '{DB}'",
    "WITH t AS (SELECT 1) SELECT * FROM t JOIN glob('{DB}') ON true",
    "SELECT * FROM checkpoint()",
    "SELECT * FROM force_checkpoint()",
    # the network and extensions
    "SELECT * FROM read_parquet('https://example.com/x.parquet')",
    "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')",
    "INSTALL httpfs",
    "LOAD httpfs",
    "FORCE INSTALL json",
    "UPDATE EXTENSIONS",
    "SELECT * FROM duckdb_secrets()",
    # settings and pragmas
    "SET threads = 64",
    "SET enable_external_access = true",
    "RESET memory_limit",
    "SET VARIABLE x = 1",
    "PRAGMA import_database('{W}')",
    "PRAGMA memory_limit = '100GB'",
    "PRAGMA show_tables",
    "CALL enable_logging(storage = 'file', storage_path = '{W}/log')",
    "CALL pragma_version()",
    # several statements
    "SELECT 1; SELECT 2",
    "SELECT 1; DELETE FROM builds",
    "PIVOT builds ON winner USING count(*)",
]

ALLOWED = {
    "SELECT count(*) AS c FROM builds": "c",
    "WITH t AS (SELECT n FROM builds) SELECT max(n) AS top FROM t": "top",
    "VALUES (1, 2)": "col0",
    "FROM builds SELECT n LIMIT 1": "n",
    "TABLE fibonacci": "f",
    "DESCRIBE builds": "column_name",
    "SUMMARIZE builds": "column_name",
    "SHOW TABLES": "name",
    "SHOW builds": "column_name",
    "EXPLAIN SELECT * FROM builds": "explain_key",
    "SELECT * FROM read_text('/etc/passwd') WHERE false": None,  # refused even when it would read nothing
}


@pytest.fixture(scope="module")
def watched(tmp_path_factory):
    """A small database inside a watched folder; the tests run with it as working directory."""
    folder = tmp_path_factory.mktemp("watched")
    db = folder / "z.duckdb"
    zeckdb.build(db, ["zeckendorf", "reversed"], "1..12")
    return folder, db


def snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_hostile_statements_are_refused_and_write_nothing(capsys, watched, monkeypatch):
    folder, db = watched
    monkeypatch.chdir(folder)
    assert len(HOSTILE) >= 40
    before = snapshot(folder)
    for template in HOSTILE:
        sql = template.format(W=folder, DB=db)
        code, out, err = run(capsys, "sql", sql, "--db", str(db))
        assert code != 0, sql
        assert out == "" and err.startswith("zeckdb: error: ") and len(err.strip().splitlines()) == 1, (sql, err)
        assert "Traceback" not in err
    assert snapshot(folder) == before  # the database byte-identical, no file created, none changed


def test_every_hostile_statement_is_refused_by_what_it_is_before_it_runs(watched):
    """Refused by the parser's checks alone (no database, no process, no time limit): a busy
    machine cannot turn a refusal into a time-out, and an answer cannot tell a path that
    exists from one that does not."""
    from zeckdb.errors import UsageError

    folder, db = watched
    for template in HOSTILE:
        for where in (db, "/no/such/file.duckdb"):
            with pytest.raises(UsageError) as refused:
                zeckdb.api.check_sql(template.format(W=folder, DB=where))
            assert "\n" not in str(refused.value), template


@pytest.mark.parametrize("sql", ["SELECT 1; DELETE FROM builds", "PRAGMA import_database('/tmp')",
                                 "EXPLAIN ANALYZE COPY (SELECT 1) TO 'x.csv'", "CALL pragma_table_info('builds')"])
def test_refusals_name_the_statement_kind(capsys, watched, sql):
    code, _, err = run(capsys, "sql", sql, "--db", str(watched[1]))
    kind = {"S": "2 statements given: run one statement at a time", "P": "a PRAGMA statement is refused",
            "E": "an EXPLAIN ANALYZE statement is refused", "C": "a CALL statement is refused"}[sql[0]]
    assert code == 2 and kind in err


def test_every_function_and_catalog_view_of_duckdb_is_classified():
    """The allow-list is data reviewed once (zeckdb/sql_functions.tsv): a function or catalog view
    that a new DuckDB adds fails here until someone classifies it."""
    import duckdb

    from zeckdb.executor import CALLABLE_KINDS, REFUSALS, catalog

    known = catalog()
    con = duckdb.connect()
    functions = {name.lower() for (name,) in con.execute(
        "SELECT DISTINCT function_name FROM duckdb_functions() WHERE list_contains($1, function_type)",
        [list(CALLABLE_KINDS)]).fetchall()}
    views = {name.lower() for (name,) in con.execute("SELECT view_name FROM duckdb_views() WHERE internal").fetchall()}
    unclassified = sorted({f for f in functions if (f, False) not in known.classes}
                          | {v for v in views if (v, True) not in known.classes})
    assert not unclassified, f"classify these in zeckdb/sql_functions.tsv: {unclassified}"
    assert set(known.classes.values()) <= {"allowed", *REFUSALS}
    refused = {name for (name, view), klass in known.classes.items() if klass != "allowed"}
    assert {"read_text", "glob", "duckdb_settings", "current_setting", "query", "nextval", "pg_settings"} <= refused


def test_a_function_nobody_classified_is_refused(monkeypatch):
    """Fail closed: a function of the running DuckDB that the list does not name is refused, the
    same as a known bad one, naming the list."""
    import dataclasses

    import zeckdb.executor as executor
    from zeckdb.api import check_sql
    from zeckdb.errors import UsageError

    known = executor.catalog()
    without = {key: klass for key, klass in known.classes.items() if key != ("abs", False)}
    monkeypatch.setattr(executor, "_catalog", dataclasses.replace(known, classes=without))
    with pytest.raises(UsageError) as refused:
        check_sql("SELECT abs(-1) AS a")
    assert str(refused.value).startswith("abs(...) is refused: zeckdb has not reviewed DuckDB ")
    assert "zeckdb/sql_functions.tsv" in str(refused.value)
    check_sql("SELECT sign(-1) AS s, t.abs FROM (SELECT 1 AS abs) t")  # a column of that name stays open


def test_a_refusal_names_the_statement_by_its_first_keyword():
    """DuckDB files INSTALL under LOAD, CHECKPOINT under CALL, ANALYZE under VACUUM and IMPORT
    under PRAGMA; the writer of the statement reads its first word, with its article."""
    from zeckdb.api import check_sql
    from zeckdb.errors import UsageError

    named = {"INSTALL httpfs": "an INSTALL", "  /* why */ CHECKPOINT": "a CHECKPOINT", "ATTACH 'x.db'": "an ATTACH",
             "-- a comment\nANALYZE": "an ANALYZE", "IMPORT DATABASE 'x'": "an IMPORT", "USE main": "a USE",
             "UPDATE builds SET n = 1": "an UPDATE", "WITH a AS (SELECT 1) DELETE FROM builds": "a DELETE",
             "EXPORT DATABASE 'x'": "an EXPORT", "EXPLAIN UPDATE builds SET n = 1": "EXPLAIN of an UPDATE"}
    for sql, says in named.items():
        with pytest.raises(UsageError) as refused:
            check_sql(sql)
        assert str(refused.value).startswith(says + " statement is refused"), (sql, str(refused.value))


def test_reading_outside_the_database_is_refused_by_the_connection_itself(watched):
    """Defence in depth: the sandbox holds even for a statement the classifier would pass."""
    import duckdb

    with Store.open_read(watched[1]) as store:
        for sql in ["SELECT * FROM read_text('/etc/passwd')", "COPY (SELECT 1) TO 'x.csv'", "SET threads = 9",
                    "ATTACH 'y.duckdb'", "INSTALL httpfs"]:
            with pytest.raises(duckdb.Error):
                store.rows(sql)  # the store's own reads skip the classifier, not the connection's settings


@pytest.mark.parametrize("sql, column", ALLOWED.items())
def test_each_allowed_kind_still_reads(capsys, watched, sql, column):
    code, out, err = run(capsys, "sql", sql, "-f", "json", "--db", str(watched[1]))
    if column is None:
        assert code == 2 and "refused" in err
    else:
        assert code == 0, err
        import json

        rows = json.loads(out)
        assert rows and column in rows[0]


def test_rows_beyond_the_limit_are_cut_with_a_notice(capsys, watched):
    code, out, err = run(capsys, "sql", "SELECT * FROM range(25)", "--max-rows", "10", "-f", "csv",
                         "--db", str(watched[1]))
    assert code == 0 and out.splitlines()[1:] == [str(i) for i in range(10)]
    assert err.strip() == ("zeckdb: showing the first 10 rows, and there are more (not computed): --max-rows N shows "
                           "more, --max-rows 0 all of them")
    code, out, err = run(capsys, "sql", "SELECT * FROM range(25)", "--max-rows", "0", "-f", "csv",
                         "--db", str(watched[1]))
    assert code == 0 and len(out.splitlines()) == 26 and err == ""


def test_the_row_limit_is_part_of_the_statement(capsys, watched):
    """A first look at a huge result computes only the rows shown: a trillion rows, three shown,
    well within a time limit that computing them all would need days for."""
    code, out, err = run(capsys, "sql", "SELECT range AS i, range * 2 AS j FROM range(1000000000000)", "--max-rows",
                         "3", "--timeout", "60", "-f", "csv", "--db", str(watched[1]))
    assert code == 0 and out.splitlines() == ["i,j", "0,0", "1,2", "2,4"], err
    assert "there are more" in err
    # the statement's own order and column names, repeated ones included
    code, out, _ = run(capsys, "sql", "SELECT range AS a, -range AS a FROM range(25) ORDER BY range DESC", "--max-rows",
                       "2", "-f", "csv", "--db", str(watched[1]))
    assert code == 0 and out.splitlines() == ["a,a", "24,-24", "23,-23"]
    # exactly as many rows as the limit: nothing more to say
    code, out, err = run(capsys, "sql", "SELECT * FROM range(3)", "--max-rows", "3", "--db", str(watched[1]))
    assert code == 0 and err == ""
    with zeckdb.open(watched[1]) as db:  # statements DuckDB cannot wrap still run, limited by their fetch
        for sql in ("DESCRIBE builds", "SHOW TABLES", "EXPLAIN SELECT 1", "SUMMARIZE fibonacci"):
            result = db.sql(sql, max_rows=2)
            assert len(result.rows) <= 2 and result.columns, sql


def test_a_query_stopped_at_its_time_limit_says_so(capsys, watched):
    sql = "SELECT sum(a.range * b.range) FROM range(200000) a, range(200000) b"
    code, out, err = run(capsys, "sql", sql, "--timeout", "0.5", "--db", str(watched[1]))
    assert code == 1 and out == ""
    assert err.strip() == ("zeckdb: error: the query was stopped at its time limit of 0.5 s: narrow it "
                           "(e.g. a WHERE on variant and n) or raise the limit (--timeout)")


def test_a_query_over_its_memory_limit_fails_cleanly(watched, tmp_path):
    env = {**os.environ, "ZECKDB_MEMORY_LIMIT": "100MB"}
    proc = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "sql",
                           "SELECT list(range) FROM range(100000000)", "--db", str(watched[1])],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 1 and proc.stdout == "" and list(tmp_path.iterdir()) == []
    assert proc.stderr.strip() == ("zeckdb: error: the query needs more memory than its limit: narrow it "
                                   "(e.g. a WHERE on variant and n, fewer columns)")


def test_overwriting_the_database_through_explain_analyze_fails_in_a_real_process(watched):
    folder, db = watched
    before = snapshot(folder)
    proc = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "sql",
                           f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{db}'", "--db", str(db)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "an EXPLAIN ANALYZE statement is refused" in proc.stderr
    assert snapshot(folder) == before


def test_every_row_is_printed_as_it_comes(capsys, watched):
    """--max-rows 0 prints every row, a block at a time (the rows are never all held)."""
    code, out, err = run(capsys, "sql", "SELECT range AS x FROM range(123457)", "--max-rows", "0", "-f", "csv",
                         "--db", str(watched[1]))
    lines = out.splitlines()
    assert code == 0 and not err and lines[0] == "x" and len(lines) == 123458 and lines[-1] == "123456"


def test_the_statement_is_held_to_its_memory_by_the_operating_system(tmp_path, watched):
    """DuckDB's memory limit does not cover the Python objects of the rows: the statement's own
    process does, so a list of 10^8 is refused in one line instead of growing the command."""
    env = {**os.environ, "ZECKDB_MEMORY_LIMIT": "200MB"}
    out = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "sql", "SELECT range(100000000) AS x",
                          "--db", str(watched[1])], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 1 and "needs more memory than its limit" in out.stderr and out.stderr.count("\n") == 1


def test_a_short_refused_statement_starts_no_process_and_a_long_one_is_refused_by_its_process(
        capsys, watched, monkeypatch):
    """`zeckdb sql` checks a statement's kind and names before it starts the statement's process
    (a refusal is then immediate); a statement too long to parse here without a time limit is
    refused by its process, with the same one line."""
    import zeckdb.apart

    def no_process(*args, **kwargs):
        raise AssertionError("a process was started")

    db = str(watched[1])
    with monkeypatch.context() as patched:
        patched.setattr(zeckdb.apart.multiprocessing, "get_context", no_process)
        for sql in ("DELETE FROM builds", "SELECT * FROM duckdb_settings()", "SELECT 1; SELECT 2"):
            code, out, err = run(capsys, "sql", sql, "--db", db)
            assert code == 2 and out == "" and err.startswith("zeckdb: error: ") and err.count("\n") == 1, err
    long = "DELETE FROM builds WHERE " + " OR ".join(f"n = {i}" for i in range(3000))
    assert len(long) > zeckdb.apart.CHECK_HERE_CHARS
    code, out, err = run(capsys, "sql", long, "--db", db)
    assert code == 2 and out == "" and "a DELETE statement is refused" in err and err.count("\n") == 1, err


LONG_QUERY = "SELECT sum(hash(i)) AS s FROM range(600000000) t(i)"  # seconds: DuckDB draws its bar past 2 s


def bar_shown_by_plain_duckdb(db: Path) -> bool:
    """Whether DuckDB's own connection draws its progress bar for LONG_QUERY on this machine
    (a fast machine may finish within the bar's two seconds: the test then proves nothing)."""
    script = ("import duckdb, sys; con = duckdb.connect(sys.argv[1], read_only=True); "
              f"con.execute({LONG_QUERY!r}).fetchall()")
    done = subprocess.run([sys.executable, "-c", script, str(db)], capture_output=True, text=True, timeout=600)
    return "%" in done.stdout


def test_duckdbs_progress_bar_never_reaches_standard_output(capfd, watched):
    _, db = watched
    if not bar_shown_by_plain_duckdb(db):
        pytest.skip("DuckDB finished the query before its progress bar appears on this machine")
    for fmt in ("csv", "json"):
        done = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "sql", LONG_QUERY, "--format", fmt,
                               "--db", str(db)], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        assert "%" not in done.stdout and "%" not in done.stderr, done.stdout[:200]
        if fmt == "json":
            import json

            assert len(json.loads(done.stdout)) == 1
        else:
            assert done.stdout.splitlines()[0] == "s" and len(done.stdout.splitlines()) == 2
    capfd.readouterr()
    with zeckdb.open(db) as first, zeckdb.open(db) as second:  # the second shares the first's file
        for database in (first, second):
            assert len(database.sql(LONG_QUERY).rows) == 1
    out, err = capfd.readouterr()
    assert "%" not in out and "%" not in err, out[:200]


def test_a_refused_statement_opens_no_database(monkeypatch):
    """The service checks every statement it is sent on its event loop: a crowd of refused ones
    opened an in-memory database each and left the lookups no turn. The parser's database is
    made once per process."""
    import duckdb

    from zeckdb import api

    opened = []
    real = duckdb.connect
    monkeypatch.setattr(duckdb, "connect", lambda *a, **k: opened.append(1) or real(*a, **k))
    for _ in range(50):
        with pytest.raises(api.UsageError, match="is refused"):
            api.check_sql("SELECT * FROM read_text('/etc/passwd')")
        api.check_sql("SELECT 1")
    assert len(opened) <= 1, len(opened)
