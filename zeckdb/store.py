"""The storage layer: the database file, its schema, its connections under the locks, and
zeckdb's own writes and reads. A user's statement runs through zeckdb.executor on a
connection opened here (zeckdb.apart: in a process of its own).

Alembic owns the schema (migrations/); writers bring the file to the head
revision before writing, readers only check the revision, so that lookups do
not pay for importing Alembic and SQLAlchemy.
"""

from __future__ import annotations

from contextlib import contextmanager, suppress
from dataclasses import dataclass
import glob
import operator
import os
from pathlib import Path
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future
import contextlib

import duckdb
import numpy as np

from . import interrupts
from .errors import DatabaseError, NotBuiltError, interrupted_statement, opt
from .version import ENGINE_VERSION
from .executor import Limits, Params, Result, quieted, run as execute, sandbox_config, stream as execute_streaming
from .locking import POLL_SECONDS, Gate
from .settings import current
from .tuning import CHECKPOINT_ROWS, CHECKSUM_READ_ROWS, STAGED_ROWS

if TYPE_CHECKING:
    from concurrent.futures import Executor

SCHEMA_HEAD = "0015"  # tests check this equals Alembic's head revision
HEAD_SCHEMA_FILE = "head.sql"  # a new file's schema (_write_head_schema)
POSITION_COLUMNS = ["outcome", "remoteness", "min_remaining", "max_remaining", "games_to_end",
                    "expected_remaining", "grundy", "winning_moves", "is_start", "is_terminal",
                    "in_winning_strategies", "legal_moves"]
# What a lookup reads: fewer columns scanned is what keeps a probe within a few milliseconds.
PROBE_COLUMNS = ["outcome", "remoteness", "min_remaining", "max_remaining", "games_to_end",
                 "expected_remaining", "grundy", "is_start", "is_terminal", "forcing_seat", "teams"]
# what a lookup reads of the positions its moves lead to (forcing_seat: games of three or more players)
MOVE_COLUMNS = ["outcome", "remoteness", "forcing_seat"]
# The view `positions` shows two tables (migration 0011): position_rows stores the layers of
# two-player count-vector games of at most LEAN_BINS bins, with their columns only (DuckDB
# appends a column an INSERT leaves out at the cost of a written one); position_rows_wide
# stores the other layers, with every column.
POSITIONS_TABLES = ("position_rows", "position_rows_wide")
# Tables holding rows of one (variant, n); a layer counts as built when all were written.
LAYER_TABLES = [*POSITIONS_TABLES, "builds", "random_play", "length_distribution"]
LEAN_BINS = 11
LEAN_COLUMNS = frozenset(["id", *(f"c{i}" for i in range(1, LEAN_BINS + 1)), *POSITION_COLUMNS])


class Derived(NamedTuple):
    """A column of the view positions that position_rows stores by others (revision 0013)."""

    sql: str  # as the view computes it
    stored: tuple[str, ...]  # the stored columns it is computed from
    value: Callable[..., Any]  # the same in Python, for a lookup's few rows: a query plans expressions slowly


# position_rows stores a variant as its variant_ids.variant_id and these columns by others
LEAN_DERIVED = {
    "outcome": Derived("CASE WHEN winning_moves > 0 THEN 'win'::ENUM('win', 'loss') ELSE 'loss'::ENUM('win', 'loss') END",
                       ("winning_moves",), lambda winning: "win" if winning > 0 else "loss"),
    "remoteness": Derived("min_remaining + remoteness_over_min", ("min_remaining", "remoteness_over_min"), operator.add),
    "max_remaining": Derived("min_remaining + max_over_min", ("min_remaining", "max_over_min"), operator.add),
    "is_terminal": Derived("legal_moves = 0", ("legal_moves",), lambda moves: moves == 0),
}


@contextmanager
def _transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """The statements of the block in one transaction, rolled back if anything fails; a
    statement DuckDB stopped for Ctrl-C is raised as the KeyboardInterrupt it was."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
        con.execute("COMMIT")
    except BaseException as exc:
        _rollback(con)
        if interrupted_statement(exc):
            raise KeyboardInterrupt from exc
        raise


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction, if one is still open (a failed COMMIT leaves none)."""
    with suppress(duckdb.TransactionException):
        con.execute("ROLLBACK")


def layer_checksum(con: duckdb.DuckDBPyConnection, table: str, name: str, n: int) -> int:
    """The checksum (zeckdb.checksums, revision 0012) of a layer's rows of the view `table`
    ('positions' of a variant, 'edges' of a graph) as stored (layer_checksums)."""
    return layer_checksums(con, table, name, [n])[n]


def layer_checksums(con: duckdb.DuckDBPyConnection, table: str, name: str, ns: list[int]) -> dict[int, int]:
    """The checksums of layers ns, read back together a batch at a time from the tables behind
    the view (one query per table, not per layer: a query costs more than hashing a small
    layer's rows): a column the view shows as NULL for a table's rows is left out, as the
    hash allows (reading the view cost more than hashing what it read). A layer with no rows
    has the checksum of none."""
    from .checksums import COLUMNS, checksum, checksums_by_layer

    if table == "positions":
        variant_id = name_id(con, "variant", name)
        sources = [(t, *variant_key(t, name, variant_id), [shown_column(t, c) for c in COLUMNS[table]
                                                           if t == "position_rows_wide" or c in LEAN_COLUMNS])
                   for t in POSITIONS_TABLES]
    else:
        graph_id = name_id(con, "graph", name)
        sources = [("edge_rows", "graph_id", graph_id, ["src", "dst", "code"]),
                   ("edge_rows_across", "graph_id", graph_id, ["src", "dst", "code", "dst_n"])]

    def batches() -> Generator[Any, None, None]:  # one table's result at a time: a connection has one open
        for source, column, key, columns in sources:
            if key is None:  # nothing of it was ever stored in this table
                continue
            reader = con.sql(f"SELECT n, {', '.join(columns)} FROM {source} WHERE {column} = $key "
                             "AND n BETWEEN $lo AND $hi AND list_contains($ns, n)",
                             params={"key": key, "ns": ns, "lo": min(ns), "hi": max(ns)}
                             ).to_arrow_reader(CHECKSUM_READ_ROWS)
            try:
                yield from reader
            finally:  # a result left open would refuse the connection's next statement
                reader.close()

    read = batches()
    try:
        sums = checksums_by_layer(read, table, name)
    finally:
        read.close()
    return {n: sums[n] if n in sums else checksum([], table, name, n) for n in ns}


def variant_key(table: str, variant: str, variant_id: int | None) -> tuple[str, Any]:
    """The column and value naming a variant's rows in one of the tables behind the view
    positions: position_rows stores its variant_ids.variant_id (revision 0013)."""
    return ("variant_id", variant_id) if table == "position_rows" else ("variant", variant)


def name_id(con: duckdb.DuckDBPyConnection, kind: str, name: str) -> int | None:
    """The small integer a variant (variant_ids) or a graph (graph_ids) is stored by; None
    when it has none, so has no rows stored by it."""
    found = con.execute(f"SELECT {kind}_id FROM {kind}_ids WHERE {kind} = ?", [name]).fetchall()
    return found[0][0] if found else None


def shown_column(table: str, column: str) -> str:
    """SQL reading the column `column` of the view positions from one of the tables behind it."""
    if table == "position_rows_wide":
        return column
    if column not in LEAN_COLUMNS:
        return f"NULL AS {column}"
    return f"{LEAN_DERIVED[column].sql} AS {column}" if column in LEAN_DERIVED else column


def lean_stored(columns: Iterable[str]) -> list[str]:
    """The columns of position_rows that hold these columns of the view positions."""
    stored = (LEAN_DERIVED[c].stored if c in LEAN_DERIVED else (c,) for c in columns if c in LEAN_COLUMNS)
    return list(dict.fromkeys(s for group in stored for s in group))


def lean_values(columns: Iterable[str], stored: dict[str, Any]) -> dict[str, Any]:
    """These columns of the view positions from a row of position_rows (lean_stored's columns)."""
    return {c: (LEAN_DERIVED[c].value(*(stored[s] for s in LEAN_DERIVED[c].stored)) if c in LEAN_DERIVED
                else stored[c] if c in LEAN_COLUMNS else None) for c in columns}


def lean_rows(positions: Any) -> Any:
    """A layer's positions (a pyarrow.Table of the view's columns) as position_rows stores them."""
    import pyarrow.compute as pc

    least = positions["min_remaining"]
    stored = positions.drop_columns(list(LEAN_DERIVED))
    return stored.append_column("remoteness_over_min", pc.subtract(positions["remoteness"], least)) \
        .append_column("max_over_min", pc.subtract(positions["max_remaining"], least))


# The SQL types of the summary checksum's columns (zeckdb.checksums.SUMMARY_COLUMNS), as the rows
# are read back: a value is coded by its type (DOUBLE, text, whole number).
SUMMARY_TYPES = {"builds": {"start_position": "string", "games": "string", "games_approx": "float64",
                            "expected_length": "float64", "summary_only": "bool_", "teams": "uint64"},
                 "random_play": {"p1_wins_random": "float64", "p1_wins_p1_perfect": "float64",
                                 "p1_wins_p2_perfect": "float64"}}


def summary_rows_checksum(variant: str, n: int, build: dict[str, Any], random_play: dict[str, Any] | None,
                          lengths: Any) -> int:
    """The summary checksum (zeckdb.checksums.summary_checksum) of a layer's rows as they are
    written: its builds row's values (`build`), its random_play row, its length rows (Arrow)."""
    import pyarrow as pa

    from .checksums import SUMMARY_COLUMNS, summary_checksum

    def table(name: str, row: dict[str, Any]) -> Any:
        types = SUMMARY_TYPES[name]
        return pa.table({c: pa.array([row.get(c, False if c == "summary_only" else None)],
                                     getattr(pa, types.get(c, "int64"))()) for c in SUMMARY_COLUMNS[name]})

    tables = {"builds": table("builds", build), "length_distribution": lengths}
    if random_play is not None:
        tables["random_play"] = table("random_play", random_play)
    return summary_checksum(tables, variant, n)


def resolve_db_path(db: str | os.PathLike | None) -> Path:
    """The database's real path: --db if given, else $ZECKDB_DB, else ./zeckdb.duckdb, its
    symbolic links resolved, as DuckDB resolves them, so that its side files (the write-ahead
    log, the lock folder) are the ones DuckDB and every other zeckdb process use. Refused: what
    exists and is no regular file (a folder, a FIFO, a device), and the name of a side file of
    a database that exists (`X.duckdb.wal` beside X.duckdb)."""
    import stat

    from .outputs import DATABASE_SIDE_FILES

    given = Path(db or current().db)
    shown = str(given)[:200]
    path = Path(os.path.realpath(given))
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise DatabaseError(f"cannot use {shown} as the database: {exc.strerror}; pass {opt('db')} with a database "
                            "file") from None
    if mode is not None and not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
        raise DatabaseError(f"{shown} is {kind}, not a database file: pass {opt('db')} with a database file "
                            "(or a new file name)")
    if mode is not None:
        _check_one_name(path, shown)
    for place in [path, *path.parents]:
        for suffix in (*DATABASE_SIDE_FILES, ".locks"):
            owner = place.with_name(place.name.removesuffix(suffix)) if place.name.endswith(suffix) else None
            if owner is not None and owner.name and owner.is_file():
                where = f"inside the {suffix} folder" if place != path else f"the {suffix} file"
                raise DatabaseError(f"{shown} is {where} of the database {owner.name}: pass {opt('db')} {owner.name} "
                                    "to use that database, or name a database file of its own")
    return path


def _check_one_name(path: Path, shown: str) -> None:
    """DuckDB keeps a database's write-ahead log, and zeckdb its lock folder, beside the name it
    was opened by: through two names of one file (a hard link) a build and a reader would not
    take turns, and a log written through one name would be stranded at the other's. A file
    with more than one name is refused."""
    try:
        names = os.stat(path).st_nlink
    except OSError:
        return
    if names > 1:
        _drop_creation_leftovers(path)
        names = os.stat(path).st_nlink
    if names > 1:
        raise DatabaseError(f"{shown} has {names} names (hard links): DuckDB's log and zeckdb's locks go beside each "
                            "name, so two names of one database would damage it; give it one name (copy it with "
                            f"`cp {path.name} NEW.duckdb`, or remove the other link) and pass {opt('db')} with it")


def _drop_creation_leftovers(path: Path) -> None:
    """The second name a creation killed between its link and its cleanup left (_create): the
    file's name inside zeckdb's own folder `.NAME.new-XXXXXXXX/` beside it, removed with it."""
    try:
        mine = os.stat(path)
        leftovers = [p for p in path.parent.glob(f".{glob.escape(path.name)}.new-*") if p.is_dir() and not p.is_symlink()]
    except OSError:
        return
    for folder in leftovers:
        inside = folder / path.name
        try:
            if os.path.samestat(os.stat(inside, follow_symlinks=False), mine):
                inside.unlink()
                folder.rmdir()
        except OSError:
            continue


def _alembic_config(path: Path):
    from alembic.config import Config

    from .resources import migrations_dir

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.set_main_option("sqlalchemy.url", f"duckdb:///{path}")
    return cfg


# What the head revision holds; a file missing any of them was damaged by hand.
SCHEMA_OBJECTS = ["alembic_version", "variants", "variant_ids", "move_names", "builds", "graph_layers", "positions",
                  "position_rows", "position_rows_wide", "edges", "edge_rows", "edge_rows_across", "graph_ids", "moves",
                  "fibonacci", "variant_columns", "length_distribution", "random_play", "length_moments"]
REBUILD_HINT = "rebuild it into a new file (`zeckdb build --db NEW_FILE` with the same --variant and --n)"


def _connect(path: Path, read_only: bool, deadline: float | None = 0.0,
             on_wait: Callable[[], None] | None = None, memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """A connection to a whole DuckDB file; every read-only one is sandboxed
    (zeckdb.executor.sandbox_config), and all of them share that one configuration,
    so that DuckDB lets them share the open file within a process.

    While another process holds DuckDB's own lock on the file (one not taking turns
    through zeckdb.locking), it is tried again until `deadline` (time.monotonic();
    None: for as long as it takes), calling on_wait once after two seconds. memory_limit:
    a reader's DuckDB memory limit (e.g. "2GB"; the sandbox's default when None)."""

    if path.is_file() and path.stat().st_size == 0:
        raise DatabaseError(f"{path} is an empty file (0 bytes), not a database: delete it (or pass {opt('db')} with "
                            "another file) and run `zeckdb build`")
    started = time.monotonic()
    while True:
        try:
            con = _open_reader(path, memory_limit) if read_only else _open_writer(path)
            break
        except duckdb.Error as exc:
            error = _open_error(path, exc)
            now = time.monotonic()
            if not _is_lock_error(exc) or (deadline is not None and now >= deadline):
                raise error from None
            if on_wait is not None and now - started >= 2:
                on_wait()
                on_wait = None
            time.sleep(POLL_SECONDS * 10)
    try:
        _check_not_truncated(path, con)
    except BaseException:
        close_connection(con)
        raise
    return con


def _open_writer(path: Path) -> duckdb.DuckDBPyConnection:
    from .settings import thread_count

    con = quieted(duckdb.connect(str(path)))
    try:
        con.execute(f"SET threads = {int(thread_count())}")  # the threads setting governs DuckDB's writer too
    except BaseException:
        con.close()
        raise
    return con


# This process's read-only files: one root connection each, never used itself, and every
# reader a cursor of it. DuckDB shares one open file between a process's connections and the
# sandbox locks its settings; the progress bar (a session setting, refused in `config`) can
# only be turned off before the lock, and a cursor keeps its root's session settings. A root
# closes with its last cursor, closed or collected.
_roots: dict[str, tuple[duckdb.DuckDBPyConnection, int]] = {}
_releases: dict[int, weakref.finalize] = {}  # id of each live cursor handed out -> its release
_roots_lock = threading.RLock()  # a release may run in the collector, inside a holder of the lock


def _open_reader(path: Path, memory_limit: str | None) -> duckdb.DuckDBPyConnection:
    key = str(path)
    with _roots_lock:
        root, users = _roots.get(key, (None, 0))
        if root is None:
            config = sandbox_config(memory_limit)
            locked = config.pop("lock_configuration")
            root = duckdb.connect(key, read_only=True, config=config)
            try:
                quieted(root).execute(f"SET lock_configuration = {locked}")
            except BaseException:
                root.close()
                raise
        else:
            _check_same_settings(path, root, memory_limit)
        con = root.cursor()
        _roots[key] = (root, users + 1)
        _releases[id(con)] = weakref.finalize(con, _release, key, id(con))
    return con


def _release(key: str, cursor_id: int) -> None:
    with _roots_lock:
        _releases.pop(cursor_id, None)
        root, users = _roots[key]
        if users > 1:
            _roots[key] = (root, users - 1)
        else:
            del _roots[key]
            root.close()


def _check_same_settings(path: Path, root: duckdb.DuckDBPyConnection, memory_limit: str | None) -> None:
    """A second reader of a file open here shares its settings: one asking for another memory
    limit is refused, as DuckDB refuses a second configuration of one open file."""
    wanted = duckdb.connect(config={"memory_limit": memory_limit or current().memory_limit})
    try:
        same = wanted.execute("SELECT current_setting('memory_limit')").fetchone() == \
            root.execute("SELECT current_setting('memory_limit')").fetchone()
    finally:
        wanted.close()
    if not same:
        raise _configured_otherwise(path)


def _configured_otherwise(path: Path) -> DatabaseError:
    return DatabaseError(f"{path} is open in this process already, with other settings (another Database's "
                         "memory limit?): open it with the same settings, or close the other first")


def open_sandboxed(path: Path) -> duckdb.DuckDBPyConnection:
    """A sandboxed read-only connection to a database file, as every reader of zeckdb's has
    (a scripting or testing door below Store; close it with close_connection)."""
    return _connect(Path(path), read_only=True)


def close_connection(con: duckdb.DuckDBPyConnection) -> None:
    """Close a connection of _connect's; a file's root closes with its last reader."""
    con.close()
    with _roots_lock:
        release = _releases.get(id(con))
    if release is not None:
        release()  # runs once: never again when `con` is collected


# DuckDB's words when another process holds its lock on the file, the one open error worth
# waiting out; everything else (a damaged block, a memory limit) is answered at once
_LOCK_CONFLICT = ("Could not set lock on file", "Conflicting lock is held")


def _is_lock_error(exc: Exception) -> bool:
    return isinstance(exc, duckdb.IOException) and any(words in str(exc) for words in _LOCK_CONFLICT)


def _open_error(path: Path, exc: Exception) -> DatabaseError:
    text = str(exc)
    if _is_lock_error(exc):
        return DatabaseError(f"{path} is in use by another process (a build writing it?): "
                             "wait for it to finish and try again")
    if isinstance(exc, duckdb.OutOfMemoryException):
        return DatabaseError(f"opening {path} needs more memory than the limit allows (ZECKDB_MEMORY_LIMIT?): "
                             "raise the limit and try again")
    if "Corrupt database file" in text or "checksum" in text.lower():
        return DatabaseError(f"{path} is damaged ({text.strip().splitlines()[0][:160]}): {REBUILD_HINT}, "
                             "or restore a copy")
    if "different configuration than existing connections" in text:  # DuckDB's one open file per process
        return _configured_otherwise(path)
    if "not a valid DuckDB database file" in text or "database file" in text.lower() or "magic" in text.lower():
        return DatabaseError(f"{path} is not a DuckDB database file: pass {opt('db')} with a zeckdb database "
                             "(or a new file name)")
    return DatabaseError(f"cannot open {path}: {text.strip().splitlines()[0]}")


def _check_not_truncated(path: Path, con: duckdb.DuckDBPyConnection) -> None:
    """DuckDB opens a truncated file and fails only when it reads a missing block: compare the
    file's size with the blocks in use, so that the damage is named at once. (Free blocks at
    the end may be cut off by DuckDB itself, so only used blocks count; a cut no longer than
    the free blocks inside the file passes, and is named by the read of a missing block. Blocks
    still in the write-ahead log are not in the file yet: no check while one exists.)"""
    if path.with_name(path.name + ".wal").exists():
        return
    row = con.execute("SELECT block_size, used_blocks FROM pragma_database_size() "
                      "WHERE database_name = current_database()").fetchone()
    size = path.stat().st_size
    if row and size < row[0] * row[1]:
        raise DatabaseError(f"{path} is truncated ({size:,} bytes, its blocks need {row[0] * row[1]:,}): "
                            f"the file is damaged; {REBUILD_HINT}, or restore a copy")


def _schema_state(con: duckdb.DuckDBPyConnection) -> tuple[str | None, set[str]]:
    """The Alembic revision ("base": migrated down to nothing; None: no alembic_version table)
    and the names of the tables and views."""
    names = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database()").fetchall()}
    if "alembic_version" not in names:
        return None, names
    row = con.execute("SELECT version_num FROM alembic_version").fetchone()
    return (row[0] if row else "base"), names


def _check_schema(path: Path, revision: str | None, names: set[str]) -> None:
    """A one-line error for a file that is not a complete zeckdb database of the head revision."""
    if not names:
        raise DatabaseError(f"{path} holds no tables: a build was interrupted while it created the schema; "
                            "run `zeckdb build` again to finish it")
    if revision is None:
        if names & {"builds", "positions", "edges"}:
            raise DatabaseError(f"{path} is damaged: its table alembic_version is missing (dropped by hand?); "
                                f"{REBUILD_HINT}")
        raise DatabaseError(f"{path} is a DuckDB file but not a zeckdb database: pass {opt('db')} with a zeckdb database")
    if revision != SCHEMA_HEAD:
        raise DatabaseError(f"{path} has schema revision {revision}, this zeckdb needs {SCHEMA_HEAD}: "
                            "run `zeckdb db upgrade`")
    missing = [name for name in SCHEMA_OBJECTS if name not in names]
    if missing:
        raise DatabaseError(f"{path} is damaged: {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
                            f"missing (dropped by hand?); {REBUILD_HINT}")


def _connect_checked(path: Path, read_only: bool, deadline: float | None = 0.0,
                     on_wait: Callable[[], None] | None = None,
                     memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """A connection to a complete zeckdb database of the head revision, else a one-line error."""
    con = _connect(path, read_only, deadline, on_wait, memory_limit)
    try:
        _check_schema(path, *_schema_state(con))
    except BaseException:
        close_connection(con)
        raise
    return con


def schema_revision(path: Path) -> str | None:
    """The Alembic revision of an existing database file ("base": migrated down to nothing,
    None: not a zeckdb database, or an empty one), read between a build's commits."""
    gate = Gate(path)
    try:
        gate.acquire_read()
        return _file_schema_state(path, time.monotonic() + current().read_wait_seconds)[0]
    finally:
        gate.close()


def _file_schema_state(path: Path, deadline: float | None = 0.0) -> tuple[str | None, set[str]]:
    """_schema_state of an existing file, through a connection of its own (the caller takes turns)."""
    con = _connect(path, read_only=True, deadline=deadline)
    try:
        return _schema_state(con)
    finally:
        close_connection(con)


def upgrade(path: Path) -> tuple[str | None, str]:
    """Bring the database at `path` (created if missing) to the head revision, as its writer:
    (the revision it had, the head revision)."""
    with Store.open_write(path) as store:
        return store.upgraded_from, SCHEMA_HEAD


def _upgrade(path: Path, deadline: float | None) -> str | None:
    """Bring the database at `path` (created if missing) to the head revision and return the
    revision it had. An empty DuckDB file (a build killed while it created the schema) gets
    the schema; a damaged one is refused. The caller holds the writer's turn (Store.open_write)."""
    if not path.exists():
        _create(path)
        return None
    before, names = _file_schema_state(path, deadline)
    if names and before is None:
        _check_schema(path, before, names)  # tables, but not from Alembic: damaged, or not zeckdb's
    if before != SCHEMA_HEAD:
        _migrate(path, path)
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
    from .resources import migrations_dir

    script = (migrations_dir() / HEAD_SCHEMA_FILE).read_text(encoding="utf-8")
    con = quieted(duckdb.connect(str(target)))
    try:
        with _transaction(con):
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
        _migrate(path, path)
        con = duckdb.connect(str(path))
        try:
            con.execute(f"EXPORT DATABASE '{Path(tmp) / 'export'}'")
            tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY table_name").fetchall()]
            inserts = [_insert_statement(table, con.execute(f'SELECT * FROM "{table}"').fetchall()) for table in tables]
        finally:
            con.close()
        schema = (Path(tmp) / "export" / "schema.sql").read_text(encoding="utf-8")
    statements = _in_dependency_order([st.query.strip() for st in duckdb.extract_statements(schema)])
    header = (f"-- The schema of revision {SCHEMA_HEAD} as zeckdb's Alembic migrations write it into an empty file,\n"
              "-- which is how zeckdb creates a new database. Generated: never edit by hand; after adding a\n"
              "-- migration run `python -c \"import zeckdb.store as s; s.write_head_schema()\"` (a test compares).\n")
    return header + "\n".join(statements) + "\n" + "".join(inserts)


def _in_dependency_order(statements: list[str]) -> list[str]:
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
    from .resources import migrations_dir

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


def _migrate(target: Path, shown: Path) -> None:
    """Alembic's upgrade of `target` to the head revision; errors name `shown`."""
    from alembic import command

    try:
        command.upgrade(_alembic_config(target), "head")
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


@dataclass(frozen=True)
class GameRecord:
    """A game as the store registers it: its variants row (`facts`: the table's columns but
    `variant`), its move names by code and its count columns' (name, weight), by position.
    The builder makes it from the game (builder.game_record)."""

    variant: str
    graph: str
    facts: dict[str, Any]
    move_names: list[str]
    columns: list[tuple[str, int]]


@dataclass(frozen=True)
class SummaryRecord:
    """A summary-only layer as the store writes it: its builds row but the checksum, the
    version and the timing (`build`), its random-play odds (None: not computed), its seconds.
    The builder makes it from the solved Summary (builder.summary_record)."""

    variant: str
    n: int
    build: dict[str, Any]
    random_play: dict[str, Any] | None
    seconds: float


@dataclass
class LayerTables:
    """One (variant, n) layer as plain rows, what the store writes: the builder makes them
    from its solution (builder.layer_tables); nothing here reads the engine's objects."""

    variant: str
    graph: str
    n: int
    positions: Any  # pyarrow.Table: id, the count columns, then POSITION_COLUMNS (outcome as 'win'/'loss')
    build: dict[str, Any]  # the builds row but its checksums (the store computes them from the rows written)
    random_play: dict[str, Any] | None  # p1_wins_random, p1_wins_p1_perfect, p1_wins_p2_perfect
    edges: Any = None  # pyarrow.Table src, dst, code[, dst_n]: the graph layer's edges, when it is written with this
    graph_size: tuple[int, int] | None = None  # (positions, edges) of that graph layer
    # pyarrow.Table measure, length, probability, games, games_exact; or a function returning it, called
    # when the store comes to it (a build writes positions and edges while the distribution is computed)
    lengths: Any = None
    replace: bool = True  # rows of this layer (or of its graph layer, for `edges`) may exist: delete them first

    def length_rows(self) -> Any:
        """The length_distribution rows (None for a layer without them)."""
        return self.lengths() if callable(self.lengths) else self.lengths


@dataclass(eq=False)
class _Staged:
    """A layer Store.write_layers has made room for, its rows not yet inserted."""

    layer: LayerTables
    variant_id: int
    graph_id: int | None  # when the layer brings its graph layer's edges
    positions_checksum: Future[int]

    @property
    def rows(self) -> int:
        """Its positions and the edges it brings."""
        return self.layer.positions.num_rows + (self.layer.edges.num_rows if self.layer.edges is not None else 0)


def _done(value: int) -> Future[int]:
    """A future already holding value."""
    done: Future[int] = Future()
    done.set_result(value)
    return done


def positions_table(columns: Iterable[str]) -> str:
    """The table behind the view `positions` that stores a layer of these columns."""
    return "position_rows" if set(columns) <= LEAN_COLUMNS else "position_rows_wide"


class LayerCache(Protocol):
    """A long-lived reader's cache of what lookups read of their moves' positions (the
    service's MoveValues): Store.layer_values of a whole layer, loaded with `load`."""

    def layer(self, variant: str, n: int,
              load: Callable[[str, int], tuple[np.ndarray, ...] | None]) -> tuple[np.ndarray, ...] | None:
        ...


class Store:
    """An open zeckdb database. Use `Store.open_read` or `Store.open_write`.

    A reader holds the file from open to close. A writer holds it only while it
    writes: `let_go` closes the file so that readers can open it (zeckdb.locking),
    and its next read or write waits for them and opens it again."""

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection | None, writable: bool,
                 gate: Gate | None = None, on_wait: Callable[[], None] | None = None,
                 move_values: LayerCache | None = None):
        self.path = path
        self.move_values = move_values  # a long-lived reader's cache of the moves' values
        self._con = con
        self.writable = writable
        self.gate = gate
        self.on_wait = on_wait  # a writer's: called once when it waits long for readers
        self.upgraded_from: str | None = None
        self._rows_since_checkpoint = 0  # a writer's: rows committed since its last checkpoint
        self._positions_table: dict[str, str] = {}  # per variant, the table its rows were last found in
        self._ids: dict[tuple[str, str], int] = {}  # ids of variants and graphs found so far (Store._stored_id)

    def _connection_waiting(self) -> duckdb.DuckDBPyConnection:
        """The open connection; a writer that has let go waits here for the readers to leave
        and opens the file again (for as long as they take)."""
        if self._con is None:
            if not self.writable or self.gate is None:
                raise DatabaseError(f"{self.path} is closed")
            self.gate.acquire_write(self.on_wait)
            self._con = _connect(self.path, read_only=False, deadline=None, on_wait=self.on_wait)
        return self._con

    # -- opening -----------------------------------------------------------
    @classmethod
    def open_read(cls, db: str | os.PathLike | None = None, timeout: float | None = None,
                  memory_limit: str | None = None) -> Store:
        """Open a built database read-only; while a build writes it, wait for its current
        commit (at most `timeout` s, default the read_wait_seconds setting) and read what is
        committed. memory_limit: DuckDB's for this process's readers (e.g. "2GB"), default the
        memory_limit setting."""
        path = resolve_db_path(db)
        timeout = current().read_wait_seconds if timeout is None else timeout
        if not path.exists():
            raise DatabaseError(
                f"no database at {path}: build one with `zeckdb build` (or pass {opt('db')} PATH / set ZECKDB_DB)"
            )
        gate = Gate(path)
        try:
            gate.acquire_read(timeout)
            con = _connect_checked(path, read_only=True, deadline=time.monotonic() + timeout,
                                   memory_limit=memory_limit)
        except BaseException:
            gate.close()
            raise
        return cls(path, con, writable=False, gate=gate)

    @classmethod
    def open_write(cls, db: str | os.PathLike | None = None, on_wait: Callable[[], None] | None = None) -> Store:
        """Open (creating or upgrading) a database as its only writer; a second writer is
        refused, readers are waited for (on_wait is called once when that takes long)."""
        path = resolve_db_path(db)
        _check_writable(path)
        gate = Gate(path, create=True)
        try:
            gate.start_build()
            gate.acquire_write(on_wait)
            before = _upgrade(path, deadline=None)
            con = _connect_checked(path, read_only=False, deadline=None, on_wait=on_wait)
        except BaseException:
            gate.abandon()
            raise
        store = cls(path, con, writable=True, gate=gate, on_wait=on_wait)
        store.upgraded_from = before
        return store

    def let_go(self) -> None:
        """A writer's: close the file until the next write, so that readers can open it."""
        if self._con is not None:
            con, self._con = self._con, None  # forgotten first: Ctrl-C can land during the close
            self._rows_since_checkpoint = 0
            con.close()  # a checkpoint: what readers open is the file, not a write-ahead log
        if self.gate is not None:
            self.gate.release_write()

    def let_readers_in(self) -> None:
        """A writer's: let go of the file if a reader is waiting for it."""
        if self.gate is not None and self.gate.readers_waiting():
            self.let_go()

    def build_running(self) -> bool:
        """Whether a build is writing this database (this store's own build included)."""
        if self.gate is not None:
            return self.gate.build_running()
        probe = Gate(self.path)
        try:
            return probe.build_running()
        finally:
            probe.close()

    def close(self) -> None:
        try:
            if self._con is not None:
                con, self._con = self._con, None
                close_connection(con)
        finally:
            if self.gate is not None:
                self.gate.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what is built -----------------------------------------------------
    def built_ns(self, variant: str) -> set[int]:
        """The n whose layer is complete, positions and moves (layers from an older schema miss
        random_play and are not; summary layers are not either)."""
        rows = self.rows("SELECT n FROM builds JOIN random_play USING (variant, n) "
                         "WHERE variant = ? AND NOT summary_only", [variant])
        return {r[0] for r in rows}

    def summary_ns(self, variant: str) -> set[int]:
        """The n built with --summary-only: a builds row, no positions."""
        rows = self.rows("SELECT n FROM builds WHERE variant = ? AND summary_only", [variant])
        return {r[0] for r in rows}

    def present_ns(self, variant: str) -> set[int]:
        """The n with any row of the variant (complete or from an older schema): rewriting them must delete first."""
        return {r[0] for r in self.rows("SELECT n FROM builds WHERE variant = ?", [variant])}

    def graph_ns(self, graph: str) -> set[int]:
        rows = self.rows("SELECT n FROM graph_layers WHERE graph = ?", [graph])
        return {r[0] for r in rows}

    def status(self) -> list[dict[str, Any]]:
        """Per variant: every n with a summary row (`ns`), those of them built with --summary-only
        (`summary_ns`), and the positions and moves of the layers stored in full."""
        rows = self.rows(
            """SELECT b.variant, list(b.n ORDER BY b.n), list(b.n ORDER BY b.n) FILTER (summary_only),
                      coalesce(sum(b.positions) FILTER (NOT summary_only), 0),
                      coalesce(sum(b.edges) FILTER (NOT summary_only), 0), sum(b.seconds)
               FROM builds b GROUP BY b.variant ORDER BY b.variant""")
        return [dict(variant=v, ns=ns, summary_ns=summary or [], positions=int(p), edges=int(e), seconds=float(s))
                for v, ns, summary, p, e, s in rows]

    # -- writing -----------------------------------------------------------
    def register_variant(self, game: GameRecord) -> None:
        """Store a game's description (its row, move names and columns, and ids for it and
        its graph); a registration that would change nothing writes nothing."""
        con = self._connection_waiting()
        described = {"variant": game.variant, **game.facts}
        move_names = [dict(variant=game.variant, code=code, name=name) for code, name in enumerate(game.move_names)]
        columns = [dict(variant=game.variant, position=i + 1, name=name, weight=w)
                   for i, (name, w) in enumerate(game.columns)]
        if self._registered_as(con, described, move_names, columns):
            return
        with _transaction(con):
            con.execute("DELETE FROM move_names WHERE variant = ?", [game.variant])
            con.execute("DELETE FROM variant_columns WHERE variant = ?", [game.variant])
            con.execute("DELETE FROM variants WHERE variant = ?", [game.variant])
            for kind, name in (("graph", game.graph), ("variant", game.variant)):  # ids are never reused
                con.execute(f"""INSERT INTO {kind}_ids
                                SELECT $name, (SELECT coalesce(max({kind}_id) + 1, 0) FROM {kind}_ids)
                                WHERE NOT EXISTS (SELECT 1 FROM {kind}_ids WHERE {kind} = $name)""", {"name": name})
            self._insert_values(con, "variants", [described])
            self._insert_values(con, "move_names", move_names)
            self._insert_values(con, "variant_columns", columns)

    @staticmethod
    def _registered_as(con: duckdb.DuckDBPyConnection, described: dict[str, Any],
                       move_names: list[dict[str, Any]], columns: list[dict[str, Any]]) -> bool:
        """Whether the file already holds exactly this registration (ids included)."""
        def stored(table: str, names: Iterable[str], order: str = "") -> list[tuple[Any, ...]]:
            return con.execute(f"SELECT {', '.join(names)} FROM {table} WHERE variant = ? {order}",
                               [described["variant"]]).fetchall()

        return (stored("variants", described) == [tuple(described.values())]
                and stored("move_names", ["variant", "code", "name"], "ORDER BY code")
                == [tuple(r.values()) for r in move_names]
                and stored("variant_columns", ["variant", "position", "name", "weight"], "ORDER BY position")
                == [tuple(r.values()) for r in columns]
                and con.execute("SELECT count(*) FROM variant_ids WHERE variant = ?",
                                [described["variant"]]).fetchone() == (1,)
                and con.execute("SELECT count(*) FROM graph_ids WHERE graph = ?",
                                [described["graph"]]).fetchone() == (1,))

    def write_layers(self, records: Iterable[LayerTables]) -> None:
        """Write (replacing) (variant, n) layers in one transaction, all or nothing; when a
        reader waits for the file, the layers written so far are committed and it gets the
        file before the rest (a commit per layer always cost the writer of the default build
        of n = 1..100 117 s against 105 s). Consecutive small layers go into each table in one
        INSERT (a statement's own cost was most of a small layer's write). A layer's positions
        and edges go in before its length distribution is asked for (LayerTables.lengths may
        still be computing it)."""
        from concurrent.futures import ThreadPoolExecutor

        con = self._connection_waiting()
        con.execute("BEGIN TRANSACTION")
        in_transaction = True
        # a layer's rows are hashed on a thread of their own while DuckDB inserts them
        hasher = ThreadPoolExecutor(1, thread_name_prefix="zeckdb-checksums")
        edges_checksums: dict[tuple[str, int], Future[int]] = {}  # variants sharing a graph layer hash its edges once
        staged: list[_Staged] = []  # layers whose old rows are deleted, their new ones not yet inserted
        written = 0  # positions and edges
        try:
            for i, record in enumerate(records):
                if i and self.gate is not None and self.gate.readers_waiting():
                    self._insert_staged(con, staged, edges_checksums)
                    staged = []
                    con.execute("COMMIT")
                    in_transaction = False
                    self.let_go()  # its close checkpoints what was written
                    written = 0
                    con = self._connection_waiting()
                    con.execute("BEGIN TRANSACTION")
                    in_transaction = True
                staged.append(self._stage_layer(con, record, edges_checksums, hasher))
                written += staged[-1].rows
                if sum(s.rows for s in staged) >= STAGED_ROWS:  # a large layer is inserted at once
                    self._insert_staged(con, staged, edges_checksums)
                    staged = []
            self._insert_staged(con, staged, edges_checksums)
            con.execute("COMMIT")
        except BaseException:
            if in_transaction:
                _rollback(con)
            raise
        finally:
            with interrupts.ctrl_c_held():
                hasher.shutdown(cancel_futures=True)
        # Left to the connection's close, one checkpoint would take every layer committed
        # since the writer was last idle and merge their row groups, rewriting much of them
        # and leaving the old blocks free inside the file; checkpointing once CHECKPOINT_ROWS
        # rows were committed keeps the merges to the newest, small row groups. (After every
        # commit, the checkpoints of the many small layers cost more than writing them.)
        self._rows_since_checkpoint += written
        if self._rows_since_checkpoint >= CHECKPOINT_ROWS:
            con.execute("CHECKPOINT")
            self._rows_since_checkpoint = 0

    def _stage_layer(self, con: duckdb.DuckDBPyConnection, layer: LayerTables,
                     edges_checksums: dict[tuple[str, int], Future[int]], hasher: Executor) -> _Staged:
        """Delete what a layer replaces and start hashing its rows; its rows wait for
        _insert_staged."""
        from .checksums import checksum

        name, n = layer.variant, layer.n
        # the checksums of the rows as inserted, by zeckdb's own hash (zeckdb.checksums)
        with interrupts.ctrl_c_held():  # the main thread's, in a distributed build (zeckdb.interrupts)
            positions_checksum = hasher.submit(checksum, [layer.positions], "positions", name, n)
            if layer.edges is not None:
                edges_checksums[layer.graph, n] = hasher.submit(checksum, [layer.edges], "edges", layer.graph, n)
        variant_id = self._registered_id("variant", name)
        if layer.replace:  # a scan per table: on a big file, skipping it for new layers saves the writer seconds
            for table in LAYER_TABLES:
                column, key = variant_key(table, name, variant_id)
                con.execute(f"DELETE FROM {table} WHERE {column} = ? AND n = ?", [key, n])
        graph_id = None
        if layer.edges is not None:
            graph_id = self._registered_id("graph", layer.graph)
            if layer.replace:
                for table in ("edge_rows", "edge_rows_across"):
                    con.execute(f"DELETE FROM {table} WHERE graph_id = ? AND n = ?", [graph_id, n])
                con.execute("DELETE FROM graph_layers WHERE graph = ? AND n = ?", [layer.graph, n])
        return _Staged(layer, variant_id, graph_id, positions_checksum)

    def _insert_staged(self, con: duckdb.DuckDBPyConnection, staged: list[_Staged],
                       edges_checksums: dict[tuple[str, int], Future[int]]) -> None:
        """Insert the rows of staged layers, one INSERT per table: positions and edges, then
        (once computed) the length distributions, then the builds rows with their checksums."""
        import pyarrow.compute as pc

        if not staged:
            return
        lean = [positions_table(s.layer.positions.column_names) == "position_rows" for s in staged]
        self._insert_layers(con, "position_rows", [(lean_rows(s.layer.positions), {"variant_id": s.variant_id,
                                                                                   "n": s.layer.n})
                                                   for s, is_lean in zip(staged, lean, strict=True) if is_lean])
        self._insert_layers(con, "position_rows_wide", [(s.layer.positions, {"variant": s.layer.variant,
                                                                             "n": s.layer.n})
                                                        for s, is_lean in zip(staged, lean, strict=True) if not is_lean])
        within, across = [], []  # a layer's moves staying in it (edge_rows), and leaving it (migration 0009)
        graph_layers = []
        for s in staged:
            edges = s.layer.edges
            if edges is None:
                continue
            assert s.layer.graph_size is not None  # edges come with their graph layer's size
            graph_layers.append({"graph": s.layer.graph, "n": s.layer.n, "positions": s.layer.graph_size[0],
                                 "edges": s.layer.graph_size[1]})
            constants = {"graph_id": s.graph_id, "n": s.layer.n}
            if "dst_n" not in edges.column_names:
                within.append((edges, constants))
                continue
            leaves = pc.is_valid(edges["dst_n"])
            within.append((edges.filter(pc.invert(leaves)).select(["src", "dst", "code"]), constants))
            across.append((edges.filter(leaves), constants))
        self._insert_layers(con, "edge_rows", within)
        self._insert_layers(con, "edge_rows_across", across)
        self._insert_values(con, "graph_layers", graph_layers)
        # the length distributions last of the rows, as they may still be computed meanwhile
        lengths = [s.layer.length_rows() for s in staged]
        self._insert_layers(con, "length_distribution", [
            (rows, {"variant": s.layer.variant, "n": s.layer.n})
            for s, rows in zip(staged, lengths, strict=True) if rows is not None])
        builds, played = [], []
        for s, rows in zip(staged, lengths, strict=True):
            layer = s.layer
            edges_checksum = edges_checksums.get((layer.graph, layer.n))
            if edges_checksum is None:  # the graph layer was written before
                edges_checksum = edges_checksums[layer.graph, layer.n] = _done(
                    layer_checksum(con, "edges", layer.graph, layer.n))
            builds.append({"variant": layer.variant, "n": layer.n, **layer.build,
                           "positions_checksum": interrupts.result(s.positions_checksum),
                           "edges_checksum": interrupts.result(edges_checksum),
                           "summary_checksum": summary_rows_checksum(layer.variant, layer.n, layer.build,
                                                                     layer.random_play, rows)})
            if layer.random_play is not None:
                played.append({"variant": layer.variant, "n": layer.n, **layer.random_play})
        self._insert_values(con, "builds", builds)
        self._insert_values(con, "random_play", played)

    def _registered_id(self, kind: str, name: str) -> int:
        found = self._stored_id(kind, name)
        if found is None:
            raise RuntimeError(f"{kind} {name!r} has no id: Store.register_variant comes before its layers")
        return found

    @classmethod
    def _insert_layers(cls, con: duckdb.DuckDBPyConnection, table: str,
                       layers: list[tuple[Any, dict[str, Any]]]) -> None:
        """INSERT the rows of several layers (Arrow tables, each with the values of its
        constant columns) in one statement; one layer's constants are bound as parameters."""
        import pyarrow as pa

        layers = [(rows, constants) for rows, constants in layers if rows.num_rows]
        if len(layers) == 1:
            cls._insert_rows(con, table, *layers[0])
        elif layers:
            tables = []
            for rows, constants in layers:
                for column, value in reversed(constants.items()):
                    values = (pa.array(np.full(rows.num_rows, value, dtype=np.int32)) if isinstance(value, int)
                              else pa.array([value] * rows.num_rows, pa.string()))
                    rows = rows.add_column(0, column, values)
                tables.append(rows)
            cls._insert_rows(con, table, pa.concat_tables(tables, promote_options="permissive"), {})

    @staticmethod
    def _insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Any, constants: dict[str, Any]) -> None:
        """INSERT an Arrow table's columns (by name) with the same `constants` on every row."""
        con.register("incoming", rows)
        names = list(constants) + rows.column_names
        selected = [f"${k}" for k in constants] + rows.column_names
        try:
            con.execute(f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(selected)} FROM incoming",
                        constants)
        except BaseException:
            with contextlib.suppress(duckdb.Error):  # an aborted transaction refuses it: the first error stands
                con.unregister("incoming")
            raise
        con.unregister("incoming")

    @staticmethod
    def _insert_values(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]]) -> None:
        """INSERT rows given as dicts, one statement for the rows of the same keys."""
        by_columns: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for row in rows:
            by_columns.setdefault(tuple(row), []).append(row)
        for columns, same in by_columns.items():
            values = ", ".join(["(" + ", ".join("?" * len(columns)) + ")"] * len(same))
            con.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values}",
                        [row[c] for row in same for c in columns])

    def write_summary(self, layer: SummaryRecord, replace: bool) -> None:
        """Write one summary-only layer: its builds row and, where the random-play odds were
        computed, its random_play row; one transaction."""
        con = self._connection_waiting()
        with _transaction(con):
            if replace:
                for table in ("builds", "random_play"):
                    con.execute(f"DELETE FROM {table} WHERE variant = ? AND n = ?", [layer.variant, layer.n])
            checksum = summary_rows_checksum(layer.variant, layer.n, layer.build, layer.random_play, None)
            self._insert_values(con, "builds", [{"variant": layer.variant, "n": layer.n, **layer.build,
                                                 "seconds": layer.seconds, "engine_version": ENGINE_VERSION,
                                                 "summary_checksum": checksum}])
            if layer.random_play is not None:
                self._insert_values(con, "random_play", [{"variant": layer.variant, "n": layer.n,
                                                          **layer.random_play}])

    # -- reading -----------------------------------------------------------
    def run(self, sql: str, params: Params = None, limits: Limits | None = None,
            relations: dict[str, Any] | None = None) -> Result:
        """A user's statement (or a named query's), through the sandboxed executor within `limits`;
        `relations` (name -> pyarrow.Table, a named query's computed rows) are seen by this statement
        alone, on a cursor of its own."""
        if not relations:
            return execute(self._connection_waiting(), sql, params, limits or Limits())
        cursor = self._connection_waiting().cursor()
        try:
            for name, table in relations.items():
                cursor.register(name, table)
            return execute(cursor, sql, params, limits or Limits())
        finally:
            cursor.close()

    def stream(self, sql: str, params: Params, limits: Limits,
               emit: Callable[[list[str], list[tuple]], None]) -> tuple[list[str], int, int | None]:
        """A user's statement through the sandboxed executor, its rows handed to `emit` a block at a time."""
        return execute_streaming(self._connection_waiting(), sql, params, limits, emit)

    def rows(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """The rows of zeckdb's own SQL (never a user's text: that goes through `run`)."""
        return self._connection_waiting().execute(sql, params).fetchall()

    def arrow(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> Any:
        """zeckdb's own SQL as a pyarrow.Table, read on a cursor of its own (a thread may call it)."""
        cursor = self._connection_waiting().cursor()
        try:
            return cursor.sql(sql, params=params).to_arrow_table()
        finally:
            cursor.close()

    @contextmanager
    def arrow_batches(self, sql: str, params: list[Any] | dict[str, Any] | None = None,
                      rows: int = 1 << 18) -> Iterator[Any]:
        """zeckdb's own SQL as a pyarrow.RecordBatchReader of `rows` rows at a time, on a cursor of
        its own (a thread may call it): what reads it holds one batch, not the whole answer."""
        cursor = self._connection_waiting().cursor()
        try:
            yield cursor.sql(sql, params=params).to_arrow_reader(rows)
        finally:
            cursor.close()

    def layer_checksums(self, table: str, name: str, ns: list[int]) -> dict[int, int]:
        """The checksums of layers ns' rows of `positions` (of variant `name`) or `edges` (of
        graph `name`) as stored now."""
        cursor = self._connection_waiting().cursor()
        try:
            return layer_checksums(cursor, table, name, ns)
        finally:
            cursor.close()

    def reader(self) -> Store:
        """A reader of this open database with a connection of its own (for another thread),
        sharing the moves' cache; close it when done."""
        reader = Store(self.path, self._connection_waiting().cursor(), writable=False, move_values=self.move_values)
        # what the file says of where a variant's rows are holds while it is open: ids are never reused
        reader._ids, reader._positions_table = self._ids, self._positions_table
        return reader

    def build_rows(self, variant: str, ns: list[int] | None = None) -> list[dict[str, Any]]:
        """The builds rows (but the checksums) of a variant, of every n or of `ns`, by n."""
        cur = self._connection_waiting().execute(
            "SELECT * EXCLUDE (positions_checksum, edges_checksum) FROM builds "
            "WHERE variant = $variant AND ($ns IS NULL OR list_contains($ns, n)) ORDER BY n",
            {"variant": variant, "ns": ns})
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def require_built(self, variant: str, n: int, positions: bool = True) -> None:
        """Raise NotBuiltError unless layer n is built (with `positions`: in full, not --summary-only)."""
        found = self.rows("SELECT summary_only FROM builds WHERE variant = ? AND n = ?", [variant, n])
        row = found[0] if found else None
        if row and row[0] and positions:
            raise NotBuiltError(f"n = {n} was built with --summary-only: build it in full to look up positions "
                                f"(`zeckdb build --variant {variant} --n {n}`)")
        if not row:
            if self.build_running():
                raise NotBuiltError(f"n = {n} is not built yet: {self.path} holds no {variant} positions for n = {n}, "
                                    "and a build is writing it; try again once it has committed that n")
            raise NotBuiltError(
                f"{self.path} holds no {variant} positions for n = {n}: run `zeckdb build --variant {variant} --n {n}`"
            )

    def summary(self, variant: str, n: int) -> dict[str, Any]:
        self.require_built(variant, n, positions=False)
        cur = self._connection_waiting().execute("SELECT * FROM builds WHERE variant = ? AND n = ?", [variant, n])
        names = [d[0] for d in cur.description]
        return dict(zip(names, cur.fetchone() or (), strict=False))

    def probe(self, variant: str, places: list[tuple[int, int]],
              columns: list[str] = PROBE_COLUMNS) -> dict[tuple[int, int], dict[str, Any]]:
        """`columns` of the positions at these (n, id), by (n, id) (absent ones are left out)."""
        by_layer: dict[int, list[int]] = {}
        for n, i in places:
            by_layer.setdefault(n, []).append(i)
        if len(by_layer) <= 4:  # an id list per layer: the zone maps find them in a few milliseconds
            found = {}
            for n, ids in by_layer.items():
                found.update(self._probe(f"n = ? AND id IN ({', '.join('?' * len(ids))})", [variant, n, *ids],
                                         columns, len(set(ids))))
            return found
        # moves into many layers (Fibonacci nim: one per move): one join
        return self._probe("(n, id) IN (SELECT (unnest(?::INTEGER[]), unnest(?::INTEGER[])))",
                           [variant, [n for n, _ in places], [i for _, i in places]], columns, len(set(places)))

    def layer_moves(self, graph: str, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """A graph layer's stored moves in the graph's direction: (src, dst, code) as arrays, and
        whether some move leaves the layer (those are not among them)."""
        graph_id = self._stored_id("graph", graph)
        if graph_id is None:
            empty = np.empty(0, dtype=np.int64)
            return empty, empty, empty, False
        within = self.arrow("SELECT src, dst, code FROM edge_rows WHERE graph_id = ? AND n = ?", [graph_id, n])
        across = self.rows("SELECT count(*) FROM edge_rows_across WHERE graph_id = ? AND n = ?", [graph_id, n])[0][0]
        src, dst, code = (within.column(c).to_numpy().astype(np.int64) for c in ("src", "dst", "code"))
        return src, dst, code, across > 0

    def layer_values(self, variant: str, n: int) -> tuple[np.ndarray, ...] | None:
        """MOVE_COLUMNS by id of a complete layer as arrays, NULL as -1 (win: 1, loss: 0);
        None if the layer is not built (yet). Read from the table behind the view that holds
        the layer, its stored columns only: the view's expressions and an ORDER BY cost more
        than computing the columns here and placing each row at its id."""
        found = self.rows("SELECT positions FROM builds WHERE variant = ? AND n = ?", [variant, n])
        if not found:
            return None
        size = found[0][0]
        win = np.full(size, -1, dtype=np.int8)
        remoteness = np.full(size, -1, dtype=np.int32)
        seat = np.full(size, -1, dtype=np.int8)
        for table in self._tables_first(variant):
            lean = table == "position_rows"
            column, key = variant_key(table, variant, self._stored_id("variant", variant) if lean else None)
            if key is None:
                continue
            # LEAN_DERIVED's rules (the outcome's as a flag: its ENUM expression costs more)
            read = (["(winning_moves > 0)::TINYINT", LEAN_DERIVED["remoteness"].sql]
                    if lean else ["coalesce((outcome = 'win')::TINYINT, -1)", "coalesce(remoteness, -1)",
                                  "coalesce(forcing_seat, -1)"])
            rows = self._connection_waiting().execute(
                f"SELECT id, {', '.join(read)} FROM {table} WHERE {column} = ? AND n = ?", [key, n]).fetchnumpy()
            ids, *values = (np.asarray(rows[name]) for name in rows)
            if not len(ids):
                continue
            self._positions_table[variant] = table
            if ids.min() < 0 or ids.max() >= size:  # rows edited by hand out of their layer's ids are not looked up
                inside = (ids >= 0) & (ids < size)
                ids, values = ids[inside], [v[inside] for v in values]
            for array, column_values in zip((win, remoteness, seat), values, strict=False):
                array[ids] = column_values
            if len(ids) == size:  # the whole layer is in this table
                break
        return win, remoteness, seat

    def probe_moves(self, variant: str, places: list[tuple[int, int]]) -> dict[tuple[int, int], dict[str, Any]]:
        """MOVE_COLUMNS of the positions at these (n, id), from the cache where there is one."""
        if self.move_values is None:
            return self.probe(variant, places, MOVE_COLUMNS)
        found = {}
        for n, i in places:
            arrays = self.move_values.layer(variant, n, self.layer_values)
            if arrays is not None and 0 <= i < len(arrays[0]):
                win, remoteness, seat = (int(a[i]) for a in arrays)
                found[n, i] = {"n": n, "id": i, "outcome": {1: "win", 0: "loss"}.get(win),
                               "remoteness": remoteness if remoteness >= 0 else None,
                               "forcing_seat": seat if seat >= 0 else None}
        return found

    def _stored_id(self, kind: str, name: str) -> int | None:
        """The id a variant or graph is stored by (name_id), kept once found: an id is never
        reused (register_variant)."""
        if (kind, name) not in self._ids:
            found = name_id(self._connection_waiting(), kind, name)
            if found is None:
                return None
            self._ids[kind, name] = found
        return self._ids[kind, name]

    def _tables_first(self, variant: str) -> list[str]:
        """The tables behind the view positions, the one the variant's rows were last found in
        first (a layer's rows are in one of them: a file upgraded to revision 0011 keeps its
        older layers in position_rows_wide)."""
        first = self._positions_table.get(variant, "position_rows")
        return [first, *(t for t in POSITIONS_TABLES if t != first)]

    def _probe(self, where: str, params: list[Any], columns: list[str],
               wanted: int) -> dict[tuple[int, int], dict[str, Any]]:
        """The rows found, read from the tables behind the view positions: planning a query on
        the view (a union of two tables) costs a lookup more than the scan itself. The second
        table (_tables_first) is read only for the `wanted` positions not found in the first."""
        variant = params[0]
        found: dict[tuple[int, int], dict[str, Any]] = {}
        for table in self._tables_first(variant):
            lean = table == "position_rows"
            column, key = variant_key(table, variant, self._stored_id("variant", variant) if lean else None)
            if key is None:  # no row of the variant was ever stored there
                continue
            read = lean_stored(columns) if lean else columns
            cur = self._connection_waiting().execute(
                f"SELECT {', '.join(['n', 'id', *read])} FROM {table} WHERE {column} = ? AND {where}", [key, *params[1:]])
            rows = cur.fetchall()
            if rows:
                self._positions_table[variant] = table
            for row in rows:
                values = dict(zip(read, row[2:], strict=True))
                found[row[0], row[1]] = {"n": row[0], "id": row[1],
                                         **(lean_values(columns, values) if lean else values)}
            if len(found) == wanted:
                break
        return found
