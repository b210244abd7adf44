"""Connections to a database file: readers sharing one sandboxed root connection per file
and process, writers, DuckDB's lock and damage named as such, transactions.
"""

from __future__ import annotations

from contextlib import contextmanager, suppress
from pathlib import Path
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator

import duckdb

from ..errors import DatabaseError, interrupted_statement, opt
from ..executor import quieted, sandbox_config
from ..locking import POLL_SECONDS
from ..settings import DEFAULTS, Settings, thread_count

if TYPE_CHECKING:
    pass


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
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


REBUILD_HINT = "rebuild it into a new file (`zeckdb build --db NEW_FILE` with the same --variant and --n)"


def _connect(path: Path, read_only: bool, deadline: float | None = 0.0, on_wait: Callable[[], None] | None = None,
             memory_limit: str | None = None, settings: Settings = DEFAULTS) -> duckdb.DuckDBPyConnection:
    """A connection to a whole DuckDB file; every read-only one is sandboxed
    (zeckdb.executor.sandbox_config), and all of them share that one configuration,
    so that DuckDB lets them share the open file within a process.

    While another process holds DuckDB's own lock on the file (one not taking turns
    through zeckdb.locking), it is tried again until `deadline` (time.monotonic();
    None: for as long as it takes), calling on_wait once after two seconds. memory_limit:
    a reader's DuckDB memory limit (e.g. "2GB"; the settings' memory_limit when None); the
    writer runs the settings' threads."""

    if path.is_file() and path.stat().st_size == 0:
        raise DatabaseError(f"{path} is an empty file (0 bytes), not a database: delete it (or pass {opt('db')} with "
                            "another file) and run `zeckdb build`")
    started = time.monotonic()
    while True:
        try:
            con = (_open_reader(path, memory_limit or settings.memory_limit) if read_only
                   else _open_writer(path, thread_count(settings)))
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


# The writer's DuckDB: no access to anything but the file itself (no file functions, COPY,
# extensions, ATTACH): a view or macro stored in a file someone else made cannot read or
# write the user's files through it. zeckdb's rows reach it as registered Arrow tables.
WRITER_CONFIG = {"enable_external_access": False}


def _open_writer(path: Path, threads: int) -> duckdb.DuckDBPyConnection:
    con = quieted(duckdb.connect(str(path), config=dict(WRITER_CONFIG)))
    try:
        con.execute(f"SET threads = {int(threads)}")  # the threads setting governs DuckDB's writer too
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
_releases: dict[int, weakref.finalize[Any, Any]] = {}  # id of each live cursor handed out -> its release
_roots_lock = threading.RLock()  # a release may run in the collector, inside a holder of the lock


def _open_reader(path: Path, memory_limit: str) -> duckdb.DuckDBPyConnection:
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


def _check_same_settings(path: Path, root: duckdb.DuckDBPyConnection, memory_limit: str) -> None:
    """A second reader of a file open here shares its settings: one asking for another memory
    limit is refused, as DuckDB refuses a second configuration of one open file."""
    wanted = duckdb.connect(config={"memory_limit": memory_limit})
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
