"""One ad-hoc statement in a process of its own (`zeckdb sql`): the operating system bounds its
memory (an address-space limit) and it is killed at its deadline, so a statement cannot take
from the caller what no limit of DuckDB's covers. Its rows are rendered in the child and handed
on piece by piece, so neither process holds them all. (The service's pool of such processes
is zeckdb.sqlworkers.)"""

from __future__ import annotations

import multiprocessing
from multiprocessing.connection import Connection
import os
from pathlib import Path
import threading
import time
from typing import Any

from .errors import QueryLimitError, ZeckdbError
from .executor import Limits, Params, check_params
from .settings import DEFAULTS, Settings, memory_bytes

TEXT_BYTES = 1 << 16  # rendered text is sent to the parent in pieces of about this size
# DuckDB's parser takes time that grows faster than a statement's length, and this process has
# no time limit: only statements this short are checked here, longer ones in the child alone
CHECK_HERE_CHARS = 20_000
# the child killed by the operating system, or out of memory for an object or a thread's stack
TOO_MUCH_MEMORY = "the query needs more memory than its limit: narrow it (e.g. a WHERE on variant and n, fewer columns)"


def run_in_child(db: Path, sql: str, limits: Limits, fmt: str, write: Any, memory_limit: str,
                 params: Params = None, settings: Settings = DEFAULTS) -> tuple[int, int | None]:
    """Run one statement in a child process with an address-space limit, killed at its deadline,
    its rows rendered there (render.StreamedRender) and handed to `write` piece by piece as they
    come (so that neither process holds them all); returns (rows shown, every row's count, None
    where counting the rest hit the time limit). Errors come back as the child raised them."""
    params = check_params(params)
    if len(sql) <= CHECK_HERE_CHARS:
        check_here(sql)
    # A fork of the fork server: a fresh interpreter that has imported what the child runs and
    # nothing else (no copy of this process's DuckDB or threads), so that a statement after the
    # first starts without an interpreter's start-up. The child is handed this call's settings,
    # not the environment the server started with.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["zeckdb.apart", "zeckdb.store", "zeckdb.render"])
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_run_one, args=(child, os.path.abspath(db), sql, params, limits, fmt,
                                                     memory_limit, settings), name="zeckdb-sql", daemon=True)
    process.start()
    child.close()
    started = time.monotonic()
    deadline: float | None = None  # set once the child is ready: its start-up is not the query's time
    try:
        while True:
            until = (started + settings.worker_start_seconds) if deadline is None else deadline
            if not parent.poll(max(until - time.monotonic(), 0.0)):
                raise QueryLimitError(f"the query was stopped at its time limit of {limits.timeout:g} s: narrow it "
                                      "(e.g. a WHERE on variant and n) or raise the limit (--timeout)"
                                      if deadline is not None else "the SQL process did not start: try again")
            try:
                kind, *value = parent.recv()
            except (EOFError, OSError):  # killed by the operating system: what no other limit caught
                raise QueryLimitError(TOO_MUCH_MEMORY) from None
            if kind == "ready":
                deadline = time.monotonic() + limits.timeout + settings.worker_grace_seconds
            elif kind == "text":
                write(value[0])
            elif kind == "done":
                return value[0], value[1]
            else:
                raise value[0]
    finally:
        if process.is_alive():
            process.kill()
        process.join(5)
        parent.close()


def check_here(sql: str) -> Any:
    """The statement's checks that need only DuckDB's parser, in this process: a short statement
    refused by its kind or its names is refused at once, without a process started for it. The
    child checks it again, on the database's sandboxed connection, and that connection refuses
    what reading would reach outside the database. What passes: DuckDB's parsed statement
    (executor.check_statement)."""
    from .executor import check_statement

    return check_statement(_parser(), sql)


_parsers = threading.local()  # (the process it was made in, a cursor of that process's parser database)
_parser_database: tuple[int, Any] | None = None
_parser_lock = threading.Lock()


def _parser() -> Any:
    """This thread's cursor of one in-memory DuckDB, nothing attached, that only ever parses:
    opening a database for every check cost far more than the check, and the service checks
    every statement it is sent on its event loop, refused ones included. Made anew in a forked
    child (a DuckDB database does not survive a fork)."""
    import duckdb

    global _parser_database
    mine = getattr(_parsers, "cursor", None)
    if mine is not None and mine[0] == os.getpid():
        return mine[1]
    with _parser_lock:
        if _parser_database is None or _parser_database[0] != os.getpid():
            _parser_database = (os.getpid(), duckdb.connect(config={"threads": 1}))
        cursor = _parser_database[1].cursor()
    _parsers.cursor = (os.getpid(), cursor)
    return cursor


def _run_one(conn: Connection, db: str, sql: str, params: Params, limits: Limits, fmt: str, memory_limit: str,
             settings: Settings) -> None:
    """The child of run_in_child: open the database under the parent's settings, limit its own
    address space, stream the rows."""
    import resource
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops it; a Ctrl-C goes to both
    from .render import StreamedRender
    from .store import Store

    pending: list[str] = []
    size = 0

    def send(text: str) -> None:
        nonlocal size
        pending.append(text)
        size += len(text)
        if size >= TEXT_BYTES:
            flush()

    def flush() -> None:
        nonlocal size
        if pending:
            conn.send(("text", "".join(pending)))
            pending.clear()
            size = 0

    try:
        with Store.open_read(db, memory_limit=memory_limit, settings=settings) as store:
            limit = address_space() + 2 * memory_bytes(memory_limit)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            conn.send(("ready",))
            rendered = StreamedRender(fmt, send)
            _, shown, total = store.stream(sql, params, limits, rendered.emit)
            rendered.finish()
            flush()
        conn.send(("done", shown, total))
    except ZeckdbError as exc:
        conn.send(("error", exc))
    except (MemoryError, RuntimeError):  # no memory for an object, or for a thread's stack
        conn.send(("error", QueryLimitError(TOO_MUCH_MEMORY)))
    finally:
        conn.close()


def address_space() -> int:
    """This process's address space in bytes (its VmSize; 0 where /proc does not say)."""
    with open(f"/proc/{os.getpid()}/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0
