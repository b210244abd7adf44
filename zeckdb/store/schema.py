"""The schema: Alembic's migrations and the revision a file is at, the head schema a new
file gets (migrations/head.sql), and a file's creation in one step.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
import time
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

import duckdb

from ..errors import DatabaseError, opt, printable
from ..executor import quieted
from ..locking import Gate
from ..settings import DEFAULTS, Settings
from . import catalog
from .connections import REBUILD_HINT, _connect, _open_error, transaction, close_connection
from .paths import CREATION_MARK, suggested

if TYPE_CHECKING:
    pass


SCHEMA_HEAD = "0018"  # tests check this equals Alembic's head revision
HEAD_SCHEMA_FILE = "head.sql"  # a new file's schema (_write_head_schema)


def alembic_config(path: Path) -> Any:
    from alembic.config import Config

    from ..resources import migrations_dir

    import sqlalchemy as sa

    cfg = Config()
    # configparser reads a % as the start of an interpolation: a folder's or a file's own % is doubled
    cfg.set_main_option("script_location", str(migrations_dir()).replace("%", "%%"))
    # the file as a URL object, never parsed from text: a name holding ?, # or % is the file's name
    cfg.attributes["url"] = sa.engine.URL.create("duckdb", database=str(path))
    return cfg


# What the head revision holds; a file missing any of them was damaged by hand.
SCHEMA_OBJECTS = ["alembic_version", "variants", "variant_ids", "move_names", "builds", "graph_layers", "positions",
                  "position_rows", "position_rows_wide", "edges", "edge_rows", "edge_rows_across", "graph_ids", "moves",
                  "fibonacci", "variant_columns", "length_distribution", "random_play", "length_moments"]


def _schema_state(con: duckdb.DuckDBPyConnection) -> tuple[str | None, set[str]]:
    """The Alembic revision ("base": migrated down to nothing; None: no alembic_version table)
    and the names of the tables and views."""
    names = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database()").fetchall()}
    if "alembic_version" not in names:
        return None, names
    row = con.execute("SELECT version_num FROM alembic_version").fetchone()
    return (row[0] if row else "base"), names


def _check_schema(path: Path, revision: str | None, names: set[str], settings: Settings = DEFAULTS) -> None:
    """A one-line error for a file that is not a complete zeckdb database of the head revision."""
    if not names:
        raise DatabaseError(f"{path} holds no tables: a build was interrupted while it created the schema; "
                            f"run {suggested('build', path, settings)} again to finish it")
    if revision is None:
        if names & {"builds", "positions", "edges"}:
            raise DatabaseError(f"{path} is damaged: its table alembic_version is missing (dropped by hand?); "
                                f"{REBUILD_HINT}")
        raise DatabaseError(f"{path} is a DuckDB file but not a zeckdb database: pass {opt('db')} with a zeckdb database")
    if revision != SCHEMA_HEAD:
        raise DatabaseError(f"{printable(str(path))} has schema revision {revision}, this zeckdb needs {SCHEMA_HEAD}: "
                            f"run {suggested('db upgrade', path, settings)}")
    missing = [name for name in SCHEMA_OBJECTS if name not in names]
    if missing:
        raise DatabaseError(f"{path} is damaged: {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
                            f"missing (dropped by hand?); {REBUILD_HINT}")


def _connect_checked(path: Path, read_only: bool, deadline: float | None = 0.0,
                     on_wait: Callable[[], None] | None = None, memory_limit: str | None = None,
                     settings: Settings = DEFAULTS,
                     clean: Callable[[str], None] | None = None) -> duckdb.DuckDBPyConnection:
    """A connection to a complete zeckdb database of the head revision whose whole catalog is
    zeckdb's (catalog.check), else a one-line error. A writer's first puts back zeckdb's own
    views and macros (_restore_definitions); with `clean` (`zeckdb db upgrade`: told each thing
    it removes), it removes what else is not zeckdb's (catalog.remove_foreign)."""
    con = _connect(path, read_only, deadline, on_wait, memory_limit, settings)
    try:
        _check_schema(path, *_schema_state(con), settings)
        if not read_only:
            if clean is None:  # refused before anything is written; what the restore puts back passes
                catalog.check(con, path, settings, restorable=True)
            _restore_definitions(con, path, SCHEMA_HEAD, clean)
            if clean is not None:
                catalog.remove_foreign(con, path, clean, settings)
        catalog.check(con, path, settings)
    except BaseException:
        close_connection(con)
        raise
    return con


def _top_level(text: str, separator: str = ",") -> list[str]:
    """text split at the separators outside parentheses and quotes."""
    parts, current, depth, quoted = [], "", 0, False
    for ch in text:
        quoted ^= ch == "'"
        depth += 0 if quoted else (ch == "(") - (ch == ")")
        if ch == separator and depth == 0 and not quoted:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    return [*parts, current.strip()]


def _restore_definitions(con: duckdb.DuckDBPyConnection, path: Path, revision: str,
                         say: Callable[[str], None] | None = None) -> None:
    """Put back zeckdb's views and macros as `revision` defines them, in one transaction, before
    the writer or a migration reads through them: a file someone else made may hold views of
    its own under zeckdb's names, or macros that shadow DuckDB's functions (its tables are its
    data; its views and macros would be code run by us). Views of other names are left: zeckdb
    never reads them."""
    definitions = own_definitions(revision)
    ours = {statement.split()[4] for statement in definitions if statement.split()[3] == "MACRO"}
    try:
        with transaction(con):
            for name, kind in con.execute(
                    "SELECT function_name, function_type FROM duckdb_functions() WHERE NOT internal AND "
                    "function_type IN ('macro', 'table_macro') AND database_name = current_database()").fetchall():
                if name not in ours:  # a macro may shadow a built-in function (hash, sum) in zeckdb's own SQL
                    if say is not None:
                        say(f"removing macro {printable(name)[:60]}, which is not zeckdb's")
                    con.execute(f'DROP MACRO {"TABLE " if kind == "table_macro" else ""}"{name.replace(chr(34), 2 * chr(34))}"')
            for statement in definitions:
                con.execute(statement)
    except duckdb.Error as exc:  # a view's name taken by a table, a missing table it reads
        raise DatabaseError(f"{path} is damaged: its views cannot be restored as zeckdb defines them "
                            f"({str(exc).strip().splitlines()[0][:160]}); {REBUILD_HINT}") from None


@functools.cache
def own_definitions(revision: str) -> tuple[str, ...]:
    """zeckdb's views and macros at `revision`, as CREATE OR REPLACE statements: the head's from
    migrations/head.sql, an older revision's from a scratch file the migrations take to it
    (DuckDB's own export of its schema). Each replaces an object of that name, which a file of
    that revision holds already: what one names exists when it is made."""
    import tempfile

    from ..resources import migrations_dir

    if revision == SCHEMA_HEAD:  # a statement a line, as DuckDB's export writes them (read as text: a reader
        # asks for them, and DuckDB's parser would make an in-memory database in its address space)
        script = (migrations_dir() / HEAD_SCHEMA_FILE).read_text(encoding="utf-8")
        return tuple(f"CREATE OR REPLACE {line[len('CREATE '):]}" for line in script.splitlines()
                     if line.startswith(("CREATE VIEW ", "CREATE MACRO ")))
    from alembic import command

    with tempfile.TemporaryDirectory(prefix="zeckdb-definitions-") as tmp:
        scratch = Path(tmp) / "scratch.duckdb"
        command.upgrade(alembic_config(scratch), revision)
        with duckdb.connect(str(scratch)) as exporter:
            exporter.execute(f"EXPORT DATABASE '{Path(tmp) / 'export'}'")
        script = (Path(tmp) / "export" / "schema.sql").read_text(encoding="utf-8")
    kept = []
    for statement in duckdb.extract_statements(script):
        text = statement.query.strip()
        for kind in ("VIEW", "MACRO"):
            if text.upper().startswith(f"CREATE {kind} "):
                kept.append(f"CREATE OR REPLACE {kind} {text[len(f'CREATE {kind} '):]}")
    return tuple(kept)


def schema_revision(path: Path, settings: Settings = DEFAULTS) -> str | None:
    """The Alembic revision of an existing database file ("base": migrated down to nothing,
    None: not a zeckdb database, or an empty one), read between a build's commits (waiting for
    one at most the settings' read_wait_seconds)."""
    gate = Gate(path)
    try:
        gate.acquire_read(settings.read_wait_seconds)
        return _file_schema_state(path, time.monotonic() + settings.read_wait_seconds, settings)[0]
    finally:
        gate.close()


def _file_schema_state(path: Path, deadline: float | None = 0.0,
                       settings: Settings = DEFAULTS) -> tuple[str | None, set[str]]:
    """_schema_state of an existing file, through a connection of its own (the caller takes turns)."""
    con = _connect(path, read_only=True, deadline=deadline, settings=settings)
    try:
        return _schema_state(con)
    finally:
        close_connection(con)



def _upgrade(path: Path, deadline: float | None, settings: Settings = DEFAULTS) -> str | None:
    """Bring the database at `path` (created if missing) to the head revision and return the
    revision it had. An empty DuckDB file (a build killed while it created the schema) gets
    the schema; a damaged one is refused. The caller holds the writer's turn (StoreWriter.open_write)."""
    if not path.exists():
        _create(path)
        return None
    before, names = _file_schema_state(path, deadline, settings)
    if names and before is None:
        _check_schema(path, before, names, settings)  # tables, but not from Alembic: damaged, or not zeckdb's
    if before != SCHEMA_HEAD:
        if before not in (None, "base"):
            con = _connect(path, read_only=False, deadline=deadline, settings=settings)
            try:
                _restore_definitions(con, path, before)
            finally:
                close_connection(con)
        migrate(path, path)
    return before


def _create(path: Path) -> None:
    """A new database, its schema written in a folder of its own and then linked into place: a
    build killed while creating it leaves no file at `path` (DuckDB's own first write can
    leave an empty one). The folder is made afresh (mkdtemp: a unique name, never a file that
    was there), so nothing zeckdb did not create is ever replaced or deleted; the link fails
    rather than replace a file that appeared at `path` meanwhile."""
    import shutil
    import tempfile

    orphan = path.with_name(path.name + ".wal")
    if orphan.exists():  # DuckDB would replay it into the new file
        raise DatabaseError(f"{orphan} is the write-ahead log of a database file {path.name} that no longer exists: "
                            f"put that file back beside it, or delete {orphan.name} to start a new database")
    try:
        folder = Path(tempfile.mkdtemp(prefix=f".{path.name}.new-", dir=path.parent))
    except OSError as exc:
        raise DatabaseError(f"cannot create {path}: {exc.strerror}") from None
    try:
        (folder / CREATION_MARK).write_bytes(b"")  # known as zeckdb's if a kill leaves it (paths._creation_leftovers)
        partial = folder / path.name
        _write_head_schema(partial, path)
        appeared = DatabaseError(f"{path} appeared while zeckdb created it (another program?): run the command "
                                 "again to use it, or pass another file name")
        try:
            os.link(partial, path)
        except FileExistsError:
            raise appeared from None
        except OSError:  # a file system without hard links: a rename, where nothing is in the way
            if path.exists():
                raise appeared from None
            os.rename(partial, path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _write_head_schema(target: Path, shown: Path) -> None:
    """A new file's schema, in one transaction: the head revision as Alembic's migrations leave
    an empty file, kept in migrations/head.sql (dump_head_schema writes it from them, and a test
    holds the two equal). Replaying every revision through Alembic and SQLAlchemy cost a new
    file more than the rest of its start-up; files that exist are still migrated by Alembic."""
    from ..resources import migrations_dir

    script = (migrations_dir() / HEAD_SCHEMA_FILE).read_text(encoding="utf-8")
    con = quieted(duckdb.connect(str(target)))
    try:
        with transaction(con):
            con.execute(script)
    except duckdb.Error as exc:
        raise _open_error(shown, exc) from None
    finally:
        con.close()  # a clean close checkpoints: nothing is left in a .wal


def dump_head_schema() -> str:
    """migrations/head.sql as Alembic's migrations write it now: DuckDB's own export of the
    schema of a file they created, then the rows they put in it (the revision, the Fibonacci
    table). `python -c "import zeckdb.store as s; s.write_head_schema()"` rewrites the file."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="zeckdb-head-") as tmp:
        path = Path(tmp) / "head.duckdb"
        migrate(path, path)
        con = duckdb.connect(str(path))
        try:
            con.execute(f"EXPORT DATABASE '{Path(tmp) / 'export'}'")
            tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY table_name").fetchall()]
            inserts = [_insert_statement(table, con.execute(f'SELECT * FROM "{table}"').fetchall()) for table in tables]
        finally:
            con.close()
        schema = (Path(tmp) / "export" / "schema.sql").read_text(encoding="utf-8")
    statements = in_dependency_order([st.query.strip() for st in duckdb.extract_statements(schema)])
    header = (f"-- The schema of revision {SCHEMA_HEAD} as zeckdb's Alembic migrations write it into an empty file,\n"
              "-- which is how zeckdb creates a new database. Generated: never edit by hand; after adding a\n"
              "-- migration run `python -c \"import zeckdb.store as s; s.write_head_schema()\"` (a test compares).\n")
    return header + "\n".join(statements) + "\n" + "".join(inserts)


def in_dependency_order(statements: list[str]) -> list[str]:
    """The export's statements, each after those it needs: DuckDB exports macros by name,
    and `fib` calls `fib_list`. Each is tried on an empty database and put back until what it
    names exists."""
    scratch = duckdb.connect()
    ordered: list[str] = []
    try:
        while statements:
            waiting = []
            for statement in statements:
                try:
                    scratch.execute(statement)
                    ordered.append(statement)
                except duckdb.CatalogException:
                    waiting.append(statement)
            if len(waiting) == len(statements):
                raise RuntimeError(f"the exported schema names what it never creates: {waiting[0]}")
            statements = waiting
    finally:
        scratch.close()
    return ordered


def write_head_schema() -> Path:
    """Rewrite migrations/head.sql from the migrations (dump_head_schema)."""
    from ..resources import migrations_dir

    target = migrations_dir() / HEAD_SCHEMA_FILE
    target.write_text(dump_head_schema(), encoding="utf-8")
    return target


def _insert_statement(table: str, rows: list[tuple[Any, ...]]) -> str:
    def literal(value: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise TypeError(f"head.sql holds whole numbers and text only, not {value!r} of table {table}")
        return str(value) if isinstance(value, int) else "'" + value.replace("'", "''") + "'"

    if not rows:
        return ""
    values = ",\n".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows)
    return f'INSERT INTO "{table}" VALUES\n{values};\n'


def migrate(target: Path, shown: Path) -> None:
    """Alembic's upgrade of `target` to the head revision; errors name `shown`."""
    from alembic import command

    try:
        command.upgrade(alembic_config(target), "head")
    except Exception as exc:  # Alembic wraps DuckDB's errors in SQLAlchemy's
        cause = getattr(exc, "orig", None) or exc
        if isinstance(cause, duckdb.Error):
            raise _open_error(shown, cause) from None
        raise


def _check_writable(path: Path) -> None:
    if path.exists():
        if not os.access(path, os.W_OK) or not path.stat().st_mode & 0o222:  # root ignores os.access
            raise DatabaseError(f"{path} is read-only: make it writable (chmod u+w) or pass {opt('db')} with another file")
    else:
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.is_dir():
            raise DatabaseError(f"cannot create {path}: the folder {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise DatabaseError(f"cannot create {path}: the folder {parent} is read-only")
