"""One settings object: every limit defined once, set by the environment or an option, listed
in docs/commands.md, and refused in one line when out of range."""

from __future__ import annotations

from dataclasses import fields
import sys
from pathlib import Path

import pytest

from zeckdb.settings import DEFAULTS, Settings, markdown

from .conftest import run

ROOT = Path(__file__).resolve().parent.parent


def test_docs_list_every_setting():
    text = (ROOT / "docs" / "commands.md").read_text()
    assert markdown() in text
    for f in fields(Settings):
        assert f"| `{f.name}` |" in text and f"`ZECKDB_{f.name.upper()}`" in text


def test_every_default_is_in_its_own_range():
    """A default outside the range a setting declares would be refused when set by hand."""
    for f in fields(Settings):
        if f.default is not None:
            assert DEFAULTS.changed(**{f.name: f.default}) == DEFAULTS, f.name


def test_every_option_named_by_a_setting_is_the_commands(capsys):
    for f in fields(Settings):
        option = f.metadata["option"]
        if option is None:
            continue
        *commands, flag = option.split()
        for command in (commands[0].split("/") if commands else ["status"]):
            code, out, _ = run(capsys, command, "--help")
            assert code == 0 and flag in out, (f.name, command, flag)


@pytest.mark.parametrize("env, value, message", [
    ("ZECKDB_SQL_MAX_ROWS", "many", "ZECKDB_SQL_MAX_ROWS='many' is not a whole number from 0 to 1,000,000,000,000"),
    ("ZECKDB_SQL_TIMEOUT", "0", "ZECKDB_SQL_TIMEOUT='0' is not a number from 0.1 to 86400"),
    ("ZECKDB_READ_WAIT_SECONDS", "-1", "ZECKDB_READ_WAIT_SECONDS='-1' is not a number from 0 to 3600"),
    ("ZECKDB_MEMORY_LIMIT", "lots", "ZECKDB_MEMORY_LIMIT='lots' is not a memory size: give e.g. 2GB or 512MB"),
    ("ZECKDB_SERVE_MAX_HEAVY", "1.5", "ZECKDB_SERVE_MAX_HEAVY='1.5' is not a whole number from 1 to 64"),
    # digits as the command line reads them: Python's int() takes an Arabic-Indic three and "5_0"
    ("ZECKDB_THREADS", "\u0663", "ZECKDB_THREADS='\u0663' is not a whole number from 1 to 4,096"),
    ("ZECKDB_SERVE_MAX_HEAVY", "5_0", "ZECKDB_SERVE_MAX_HEAVY='5_0' is not a whole number from 1 to 64"),
    ("ZECKDB_SQL_TIMEOUT", "1_0", "ZECKDB_SQL_TIMEOUT='1_0' is not a number from 0.1 to 86400"),
])
def test_a_bad_environment_value_is_one_line(capsys, monkeypatch, small_db, env, value, message):
    monkeypatch.setenv(env, value)
    code, out, err = run(capsys, "sql", "SELECT 1 AS x", "--db", str(small_db))
    assert code == 2 and not out and err == f"zeckdb: error: {message}\n"


@pytest.mark.parametrize("args, message", [
    (["serve", "--max-heavy", "0"], "--max-heavy 0 is not a whole number from 1 to 64"),
    (["serve", "--queue-seconds", "601"], "--queue-seconds 601 is not a number from 0 to 600"),
    (["serve", "--memory-limit", "2 potatoes"], "--memory-limit 2 potatoes is not a memory size"),
    (["serve", "--header-timeout", "0"], "--header-timeout 0 is not a number from 0.1 to 3600"),
    (["sql", "SELECT 1", "--timeout", "-3"], "--timeout -3 is not a number from 0.1 to 86400"),
    (["query", "winners", "--max-rows", "-1"], "--max-rows -1 is not a whole number from 0 to 1,000,000,000,000"),
    (["serve", "--sql-max-rows", "0"], "--sql-max-rows 0 is not a whole number from 1 to 10,000,000"),
])
def test_a_bad_option_value_is_one_line(capsys, tmp_path, args, message):
    code, out, err = run(capsys, *args, "--db", str(tmp_path / "none.duckdb"))
    assert code == 2 and not out and message in err and err.count("\n") == 1, err
    assert not list(tmp_path.iterdir())


def test_the_environment_sets_a_limit_and_an_option_overrides_it(capsys, monkeypatch, small_db):
    sql = "SELECT range AS x FROM range(10)"
    monkeypatch.setenv("ZECKDB_SQL_MAX_ROWS", "3")
    code, out, err = run(capsys, "sql", sql, "--format", "csv", "--db", str(small_db))
    assert code == 0 and out.splitlines() == ["x", "0", "1", "2"] and "there are more" in err
    code, out, _ = run(capsys, "sql", sql, "--format", "csv", "--max-rows", "5", "--db", str(small_db))
    assert code == 0 and out.splitlines() == ["x", "0", "1", "2", "3", "4"]
    monkeypatch.setenv("ZECKDB_DB", str(small_db))
    code, out, _ = run(capsys, "status")
    assert code == 0 and small_db.name in out


def test_the_service_reads_the_same_settings(small_db):
    """The environment sets the service's limits as it sets the command line's; its options win."""
    from .http import post_sql, serving

    sql = {"sql": "SELECT range AS x FROM range(10)"}
    with serving(small_db, env={"ZECKDB_SERVE_SQL_MAX_ROWS": "3", "ZECKDB_SERVE_SQL_TIMEOUT": "7"}) as base:
        code, body, _ = post_sql(base, sql)
        assert code == 200 and body["rows"] == [[0], [1], [2]] and body["limits"] == {"timeout_s": 7, "max_rows": 3}
    with serving(small_db, "--sql-max-rows", "5", env={"ZECKDB_SERVE_SQL_MAX_ROWS": "3"}) as base:
        code, body, _ = post_sql(base, sql)
        assert code == 200 and len(body["rows"]) == 5 and body["limits"]["max_rows"] == 5


def test_an_sql_process_reads_the_environment_as_it_is_now(capsys, monkeypatch, small_db):
    """`zeckdb sql`'s process is a fork of a server started by the first statement; a setting
    changed after that start must still reach it. Here the reader's wait for a file another
    process writes: set to half a second, the statement is refused as the file is in use, where a
    server's stale wait would outlast the time its process has to start."""
    import subprocess
    import sys

    monkeypatch.setenv("ZECKDB_READ_WAIT_SECONDS", "600")
    assert run(capsys, "sql", "SELECT 1", "--db", str(small_db))[0] == 0  # the server starts, if not started yet
    monkeypatch.setenv("ZECKDB_READ_WAIT_SECONDS", "0.5")
    monkeypatch.setenv("ZECKDB_WORKER_START_SECONDS", "15")
    holder = subprocess.Popen([sys.executable, "-c", f"import duckdb, time; con = duckdb.connect({str(small_db)!r}); "
                               "print('holding', flush=True); time.sleep(120)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        code, out, err = run(capsys, "sql", "SELECT 2", "--db", str(small_db))
    finally:
        holder.kill()
        holder.wait()
    assert code != 0 and "is in use by another process" in err, err


def test_a_library_users_settings_govern_the_calls_not_the_environment(small_db, tmp_path, monkeypatch):
    import zeckdb
    from zeckdb.errors import UsageError

    from zeckdb.errors import QueryLimitError

    monkeypatch.setenv("ZECKDB_SQL_TIMEOUT", "3600")
    slow = "SELECT sum(a.range * b.range) FROM range(300000) a, range(300000) b"  # minutes of work
    with zeckdb.open(small_db, settings=zeckdb.Settings().changed(sql_timeout=0.2)) as db:
        with pytest.raises(QueryLimitError, match="time limit of 0.2 s"):
            db.sql(slow)
        assert db.sql("SELECT 1").rows == [(1,)]
    monkeypatch.setenv("ZECKDB_SQL_TIMEOUT", "0.3")
    with zeckdb.open(small_db) as db, pytest.raises(QueryLimitError, match="time limit of 0.3 s"):
        db.sql(slow)  # without settings: the environment's
    tiny = zeckdb.Settings().changed(build_memory=0.01)  # 10 MiB: a layer of n = 100 needs more
    with pytest.raises(UsageError, match="the limit is 0.01 GiB, which a full build reaches to n = 73"):
        zeckdb.build(tmp_path / "b.duckdb", "zeckendorf", "100", settings=tiny)
    assert not (tmp_path / "b.duckdb").exists()
    built = zeckdb.build(tmp_path / "b.duckdb", "zeckendorf", "1..8", settings=zeckdb.Settings().changed(threads=1))
    assert built.built == [("zeckendorf", n) for n in range(1, 9)]
    with pytest.raises(UsageError, match="bad settings dict"):
        zeckdb.open(small_db, settings={"sql_max_rows": 5})


def test_with_settings_given_no_call_reads_the_environment(small_db, tmp_path, monkeypatch):
    """Every setting's variable set to what it refuses: a library call given its Settings runs
    through build, lookups, queries, SQL in a process of its own, verify, a plot, the schema
    and the catalogue without reading one (any read would raise, naming the variable)."""
    import dataclasses

    import zeckdb
    from zeckdb import api
    from zeckdb.settings import env_name

    for f in dataclasses.fields(Settings):
        monkeypatch.setenv(env_name(f.name), "\u0663 not a value")
    given = Settings(db=str(tmp_path / "given.duckdb"), threads=1, sql_max_rows=3)
    built = zeckdb.build(None, ["zeckendorf", "zeckendorf-misere"], "1..9", settings=given)
    assert built.path == str(tmp_path / "given.duckdb") and len(built.built) == 18
    with zeckdb.open(given.db, settings=given) as db:
        assert db.position("zeckendorf", start=9).outcome == "loss"  # Player 2 wins from n = 3 on (docs/games.md)
        assert len(db.sql("SELECT * FROM range(10)").rows) == 3  # the given row limit
        assert db.query("winners", variant="zeckendorf").rows
        assert db.verify().ok
        assert db.plot("lengths", "zeckendorf", "3..9").rows
    pieces: list[str] = []
    shown, _ = api.run_sql_apart(None, "SELECT * FROM range(10)", "csv", pieces.append, settings=given)
    assert shown == 3
    assert api.schema_revision(None, settings=given)[2] and api.upgrade(None, settings=given)[1] is not None
    with pytest.raises(zeckdb.errors.UsageError, match="ZECKDB_"):  # and without them, the environment's refusal
        zeckdb.open(given.db)


def test_settings_travel_to_the_processes_zeckdb_starts(small_db):
    from zeckdb.settings import Settings, current, using

    mine = Settings().changed(sql_max_rows=7, memory_limit="1GB", read_wait_seconds=2.5)
    env = mine.as_environment()
    assert env == {"ZECKDB_SQL_MAX_ROWS": "7", "ZECKDB_MEMORY_LIMIT": "1GB", "ZECKDB_READ_WAIT_SECONDS": "2.5"}
    assert Settings.from_env(env) == mine
    with using(mine):
        assert current() is mine
        from zeckdb import api

        pieces: list[str] = []  # the child process runs under the settings handed to it
        shown, _ = api.run_sql_apart(small_db, "SELECT * FROM range(3)", "csv", pieces.append)
    assert shown == 3 and "".join(pieces).splitlines() == ["range", "0", "1", "2"] and current() is not mine


@pytest.mark.skipif(sys.platform != "linux", reason="thread names in /proc are Linux's")
def test_a_pools_threads_carry_their_names_to_the_system():
    """`top -H`, /proc and bench/bench_scaling.py tell the writer from the solvers by name."""
    import threading

    from zeckdb.settings import pool

    with pool(1, "zeckdb-writer") as threads:
        shown = threads.submit(lambda: Path(f"/proc/self/task/{threading.get_native_id()}/comm").read_text()).result()
    assert shown.strip() == "writer_0"


def _observed_threads(monkeypatch) -> dict[str, list[int]]:
    """What a build's parts get: DuckDB's threads on the writer's connection as it writes, and
    the size of each thread pool zeckdb makes (by the pool's name)."""
    from zeckdb import builder, settings
    from zeckdb.store import StoreWriter

    seen: dict[str, list[int]] = {}
    real_write, real_pool = StoreWriter.write_layers, settings.pool

    def write_layers(self, records):
        seen.setdefault("duckdb-writer", []).append(
            int(self.file.connection().execute("SELECT current_setting('threads')").fetchone()[0]))
        return real_write(self, records)

    def pool(workers, name=""):
        seen.setdefault(name, []).append(workers)
        return real_pool(workers, name)

    monkeypatch.setattr(StoreWriter, "write_layers", write_layers)
    monkeypatch.setattr(builder, "named_pool", pool)
    return seen


@pytest.mark.parametrize("how", ["flag", "environment", "settings object", "keyword"])
def test_the_flag_the_environment_and_a_settings_object_configure_the_same_build(tmp_path, monkeypatch, capsys, how):
    """`--threads 3` reached the solver pools but not DuckDB's writer, which sized itself from
    the environment: each way of saying 3 threads now gives the writer's DuckDB, the solvers
    and the analysts the same count."""
    import zeckdb

    seen = _observed_threads(monkeypatch)
    db = str(tmp_path / "t.duckdb")
    if how == "flag":
        code, _, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..6", "--threads", "3", "--db", db)
        assert code == 0, err
    elif how == "environment":
        monkeypatch.setenv("ZECKDB_THREADS", "3")
        code, _, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..6", "--db", db)
        assert code == 0, err
    elif how == "settings object":
        zeckdb.build(db, "zeckendorf", "1..6", settings=Settings(threads=3))
    else:  # an explicit argument beats a Settings object, which beats the environment
        monkeypatch.setenv("ZECKDB_THREADS", "5")
        zeckdb.build(db, "zeckendorf", "1..6", threads=3, settings=Settings(threads=4))
    assert set(seen["duckdb-writer"]) == {3} and seen["zeckdb-solver"] == [3] and seen["zeckdb-analyst"] == [3], seen


def test_a_settings_object_beats_the_environment(tmp_path, monkeypatch):
    import zeckdb

    seen = _observed_threads(monkeypatch)
    monkeypatch.setenv("ZECKDB_THREADS", "5")
    zeckdb.build(str(tmp_path / "t.duckdb"), "zeckendorf", "1..4", settings=Settings(threads=3))
    assert set(seen["duckdb-writer"]) == {3} and seen["zeckdb-solver"] == [3]


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_absurd_thread_counts_are_capped_with_a_notice(tmp_path, monkeypatch, capsys, how):
    """ZECKDB_THREADS=4096 started 4,134 threads for a 147-position build (the flag, 40): both
    are cut to THREADS_PER_CORE a usable core, and the build says so."""
    from zeckdb.settings import THREADS_PER_CORE, usable_cores

    seen = _observed_threads(monkeypatch)
    args = ["build", "--variant", "zeckendorf", "--n", "1..6", "--db", str(tmp_path / "t.duckdb")]
    if how == "flag":
        args += ["--threads", "4096"]
    else:
        monkeypatch.setenv("ZECKDB_THREADS", "4096")
    code, _, err = run(capsys, *args)
    cap = THREADS_PER_CORE * usable_cores()
    assert code == 0 and f"zeckdb: 4096 threads asked for, {cap} used: at most {THREADS_PER_CORE} a core" in err, err
    assert set(seen["duckdb-writer"]) == {cap} and seen["zeckdb-solver"] == [cap]


@pytest.mark.parametrize("values, message", [
    ({"sql_timeout": "5"}, "sql_timeout='5' is not a number from 0.1 to 86400"),
    ({"threads": -3}, "threads=-3 is not a whole number from 1 to 4,096"),
    ({"threads": True}, "threads='True' is not a whole number from 1 to 4,096"),
    ({"sql_max_rows": -1}, "sql_max_rows=-1 is not a whole number from 0 to 1,000,000,000,000"),
    ({"memory_limit": "lots"}, "memory_limit='lots' is not a memory size"),
    ({"sql_timeout": float("nan")}, "sql_timeout=nan is not a number from 0.1 to 86400"),
])
def test_a_settings_object_checks_its_values_when_made(tmp_path, values, message):
    """Settings(sql_timeout='5') failed later with a raw TypeError, Settings(threads=-3) left a
    1 MB file behind, sql_max_rows=-1 removed the cap: each is one UsageError when made."""
    from zeckdb.errors import UsageError

    with pytest.raises(UsageError) as refused:
        Settings(**values)
    assert str(refused.value).startswith(message)
    assert Settings(threads=2, sql_timeout=5).sql_timeout == 5  # an int is a number


def test_a_settings_object_takes_a_path_and_names_what_it_lacks(tmp_path):
    from zeckdb.errors import UsageError

    assert Settings(db=tmp_path / "x.duckdb").db == str(tmp_path / "x.duckdb")
    assert Settings().changed(db=tmp_path / "y.duckdb").db == str(tmp_path / "y.duckdb")
    with pytest.raises(UsageError, match="^no setting is named 'treads': did you mean threads\\?"):
        Settings().changed(treads=2)


def test_the_service_and_its_database_run_under_the_settings_given(small_db):
    """create_app(db, settings) opened its Database without them: its reads ran under the
    environment's."""
    from zeckdb.service import create_app

    app = create_app(small_db, DEFAULTS.changed(read_wait_seconds=7, serve_max_heavy=1))
    try:
        assert app.state.database.settings.read_wait_seconds == 7
    finally:
        for close in app.router.on_shutdown:
            close()


def test_the_library_reads_the_row_limit_the_docs_promise(small_db, monkeypatch):
    """zeckdb.open(p, settings=Settings(sql_max_rows=3)).sql(...) and ZECKDB_SQL_MAX_ROWS=3 returned
    every row (160): only max_rows= capped. The library reads the same setting as the command line."""
    import zeckdb

    with zeckdb.open(small_db, settings=Settings(sql_max_rows=3)) as db:
        result = db.sql("SELECT * FROM range(160)")
        assert len(result.rows) == 3 and result.truncated
        assert len(db.query("winners", variant="zeckendorf").rows) == 3
        assert len(db.sql("SELECT * FROM range(160)", max_rows=0).rows) == 160  # given: every row
    monkeypatch.setenv("ZECKDB_SQL_MAX_ROWS", "3")
    with zeckdb.open(small_db) as db:
        result = db.sql("SELECT * FROM range(160)")
        assert len(result.rows) == 3 and result.truncated


# The doors fold the environment, the options and a library user's Settings into one Settings
# and hand it down; every module below them takes what it needs as a parameter. Each entry:
# why that module may read the environment or the settings context.
DOORS = {
    "cli": "the command line",
    "zeckdb/api.py": "the library",
    "zeckdb/service.py": "the service",
    "zeckdb/settings.py": "where the settings are defined and read",
    "zeckdb/__init__.py": "sets numpy's own variable before numpy loads",
    "zeckdb/engine/jit.py": "numba's own cache variable, not a setting of zeckdb's",
}
CONTEXT = {"current", "using", "activate", "_ACTIVE", "from_env"}  # zeckdb.settings's ambient reads
ENVIRONMENT = {"environ", "environb", "getenv", "getenvb", "putenv"}  # os's


def _ambient_reads(source: str) -> list[str]:
    """Where a module's source reaches the settings context or the environment: a name of
    CONTEXT imported from zeckdb.settings (and each use of it), `settings.current` and the like,
    and os's environment however it is reached."""
    import ast

    tree = ast.parse(source)
    imported: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = (node.module or "").split(".")[-1]
            for alias in node.names:
                if (module == "settings" and alias.name in CONTEXT) or (module == "os" and alias.name in ENVIRONMENT):
                    imported.add(alias.asname or alias.name)
                    found.append(f"import {alias.name} (line {node.lineno})")
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in imported and not isinstance(node.ctx, ast.Store):
            found.append(f"{node.id} (line {node.lineno})")
        elif isinstance(node, ast.Attribute) and (
                node.attr in ENVIRONMENT
                or (node.attr in CONTEXT and isinstance(node.value, ast.Name) and node.value.id in {"settings", "Settings"})):
            found.append(f"{node.attr} (line {node.lineno})")
    return found


def test_the_ambient_check_finds_a_read():
    """The check below can fail: a planted read of each kind is found."""
    assert _ambient_reads("from .settings import current\nx = current().db\n") == [
        "import current (line 1)", "current (line 2)"]
    assert _ambient_reads("import os\nos.environ.get('ZECKDB_DB')\n") == ["environ (line 2)"]
    assert _ambient_reads("from ..settings import using as u\n") == ["import using (line 1)"]
    assert _ambient_reads("from . import settings\nsettings.current().db\n") == ["current (line 2)"]
    assert _ambient_reads("from os import getenv as g\ng('X')\n") == ["import getenv (line 1)", "g (line 2)"]
    assert _ambient_reads("def f(settings):\n    return settings.db, self.current, current\n") == []


def test_below_the_doors_nothing_reads_the_environment_or_the_settings_context():
    offenders = {}
    for path in sorted([*ROOT.glob("zeckdb/**/*.py"), *ROOT.glob("cli/**/*.py"), *ROOT.glob("migrations/**/*.py")]):
        relative = path.relative_to(ROOT).as_posix()
        if relative in DOORS or relative.split("/")[0] in DOORS:
            continue
        reads = _ambient_reads(path.read_text())
        if reads:
            offenders[relative] = reads
    assert not offenders, f"below the doors, read from the air: {offenders}"
