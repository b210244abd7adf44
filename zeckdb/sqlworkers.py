"""The service's SQL, named queries and plots run in worker processes, apart from its lookups.

DuckDB's memory limit bounds what its buffer manager holds, not every allocation: one
query can still build a vector of huge strings, and every query of a process shares the
one limit, so a greedy query would starve the lookups beside it. DuckDB's own security
guide recommends process isolation for untrusted SQL; here it is:

- serve_max_heavy worker processes (the service's heavy-request slots), at a lower CPU priority
  than the service (so lookups keep their pace), each with its own DuckDB
  instance opened read-only per job (so it takes turns with a build through
  zeckdb.locking like any reader), its memory limit, and an address-space limit set by
  the operating system: an allocation past it fails inside DuckDB (an out-of-memory
  error, answered 408) instead of growing the server.
- A job waits for a free worker at most the service's queue time (a burst of cheap queries is served in
  turn), then is refused (BusyError, 429): expensive SQL from many clients cannot pile up.
  Every wait (for a worker, for a new worker to start) counts against the request's time limit;
  the service waits for its first workers before it answers anything (wait_ready).
- A worker renders its answer (the response's JSON or CSV): the rows of a large answer are
  turned into text there, not in the service, whose lookups would wait for it.
- The parent enforces the time limit too: a worker that has not answered by the deadline
  plus a grace period is killed and replaced, and a worker that dies is replaced (in the
  background: the request is answered at once).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
import multiprocessing
from multiprocessing.connection import Connection
import os
from pathlib import Path
import queue
import threading
import time
from typing import Any, cast
import weakref

from .errors import BusyError, QueryLimitError, ZeckdbError
from .executor import Limits, Params
from .apart import address_space
from .children import die_with_parent, end_group, lead_group
from .settings import DEFAULTS, Settings, memory_bytes



class WorkerStopped(QueryLimitError):
    """A worker that did not answer by its deadline (stopped, and replaced) or died."""


@dataclass(eq=False)  # each worker is itself (hashable by identity)
class _Worker:
    process: Any  # multiprocessing.Process
    conn: Connection
    started: float = dataclasses.field(default_factory=time.monotonic)
    ready: bool = False


class SqlWorkers:
    """A pool of SQL worker processes over the database at `db`: settings.serve_max_heavy of
    them (`count`, when given), each with DuckDB's limit settings.serve_memory_limit; the
    queue's wait and the worker_* settings are the same object's (the service's). Each worker
    leads a process group of its own and dies with the service (zeckdb.children); a worker is
    stopped by group, without its cooperation."""

    def __init__(self, db: Path, settings: Settings = DEFAULTS, count: int | None = None):
        self.db = db
        self.settings = settings
        self.count = count or self.settings.serve_max_heavy
        self.memory_limit = self.settings.serve_memory_limit
        self.context = multiprocessing.get_context("spawn")  # no copy of the server's threads and DuckDB
        self.idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self.all: set[_Worker] = set()
        self.lock = threading.Lock()
        self.closed = False
        _pools.add(self)
        for _ in range(self.count):
            self.idle.put(self._start())

    def _start(self) -> _Worker:
        parent, child = self.context.Pipe()
        process = self.context.Process(target=_work, args=(child, str(self.db), self.memory_limit, self.settings,
                                                           os.getpid()), name="zeckdb-sql", daemon=True)
        process.start()
        child.close()
        worker = _Worker(process, parent)
        with self.lock:
            self.all.add(worker)
        return worker

    def wait_ready(self) -> None:
        """Wait for the workers started with the pool (a request meanwhile would wait for a start)."""
        with self.lock:
            workers = list(self.all)
        for worker in workers:
            if not worker.ready:
                self._ready(worker, worker.started + self.settings.worker_start_seconds)

    def run_sql(self, sql: str, limits: Limits, fmt: str = "json", extra: dict[str, Any] | None = None,
                params: Params = None) -> bytes:
        """The answer's body as render.result_body gives it (fmt: json or csv; extra: more JSON
        fields); params bound to the statement's ? or $name."""
        return self._run(("sql", fmt, extra, sql, params), limits)

    def run_query(self, name: str, variant: str | None, ns: list[int] | None, params: dict[str, str],
                  limits: Limits, fmt: str = "json") -> bytes:
        return self._run(("query", fmt, None, name, variant, ns, params), limits)

    def plot(self, kind: str, variant: str, ns: list[int] | None, measure: str, limits: Limits) -> bytes:
        """A figure of `zeckdb plot` as SVG, drawn by a worker (matplotlib's CPU and memory are not the service's)."""
        return self._run(("plot", "svg", None, kind, variant, ns, measure), limits)

    def play(self, variant: str, position: str | None, start: int | None, p1: str, p2: str, distribution: bool,
             limits: Limits) -> bytes:
        """`zeckdb play --json`'s object, computed by a worker (a whole layer's arithmetic)."""
        return self._run(("play", "json", None, variant, position, start, p1, p2, distribution), limits)

    def lookup(self, kind: str, variant: str, value: str | int | None, limits: Limits) -> bytes:
        """A lookup's JSON (lookup(), its kind: position, start, line, line-start, summary), answered
        by a worker: the lookups of a plugin's game, whose code never runs in the service."""
        return self._run(("lookup", "json", None, kind, variant, value), limits)

    def _run(self, job: tuple[Any, ...], limits: Limits) -> bytes:
        deadline = time.monotonic() + limits.timeout  # the request's time limit covers every wait
        try:
            worker = self.idle.get(timeout=min(self.settings.serve_queue_seconds, limits.timeout / 2))
        except queue.Empty:
            raise BusyError(f"the service is running its limit of {self.count} SQL and query requests at once: "
                            "try again in a moment") from None
        healthy = False
        try:
            if not worker.ready and not self._ready(worker, deadline - limits.timeout / 4):
                healthy = True  # still starting: it goes back to the pool
                raise BusyError("the service's SQL workers are starting: try again in a moment")
            # the worker stops early enough for its rows to be turned into the response in time
            budget = max(deadline - time.monotonic() - min(self.settings.worker_response_seconds, limits.timeout / 4), 0.01)
            worker.conn.send((job, dataclasses.replace(limits, budget=budget)))
            if not worker.conn.poll(budget + self.settings.worker_grace_seconds):
                raise WorkerStopped(f"the query was stopped at its time limit of {limits.timeout:g} s: narrow it "
                                    "(e.g. a WHERE on variant and n)")
            kind, value, retired = worker.conn.recv()
            healthy = not retired
        except (EOFError, OSError):  # the worker died: the operating system stopped what no limit caught
            raise WorkerStopped("the query needs more memory than the service allows: narrow it (e.g. a WHERE "
                                "on variant and n, fewer columns)") from None
        finally:
            self._give_back(worker, healthy)
        if kind == "error":
            raise value
        return cast(bytes, value)  # the worker sends its answer as bytes

    def _ready(self, worker: _Worker, until: float) -> bool:
        """Wait for a new worker to be ready, at most until `until` (a request leaves its query some
        of its time): False if it is still starting; QueryLimitError if it never will be."""
        if worker.conn.poll(max(until - time.monotonic(), 0.0)):
            try:
                worker.ready = worker.conn.recv() == "ready"
            except (EOFError, OSError):  # it died starting
                worker.ready = False
        elif time.monotonic() - worker.started < self.settings.worker_start_seconds:
            return False
        if not worker.ready:
            raise QueryLimitError("the service's SQL worker did not start: try again in a moment")
        return True

    def _give_back(self, worker: _Worker, healthy: bool) -> None:
        if healthy and not self.closed:
            self.idle.put(worker)
            return
        # dead, stuck, or retired: stopped and replaced in the background, so that the request
        # is answered at its time limit, not after a process's end and another's start
        threading.Thread(target=self._replace, args=(worker,), name="zeckdb-sql-replace", daemon=True).start()

    def _replace(self, worker: _Worker) -> None:
        self._stop(worker)
        if self.closed:
            return
        new = self._start()
        if self.closed:  # closed meanwhile: close() may not have seen it
            self._stop(new)
        else:
            self.idle.put(new)

    def _stop(self, worker: _Worker) -> None:
        with self.lock:
            self.all.discard(worker)
        if worker.process.pid is not None:
            end_group(worker.process.pid)  # the worker and what it started (a plugin's probe, its children)
        worker.process.kill()
        worker.process.join(5)
        worker.conn.close()

    def close(self) -> None:
        self.closed = True
        _pools.discard(self)
        with self.lock:
            workers = list(self.all)
        for worker in workers:
            self._stop(worker)


_pools: weakref.WeakSet[SqlWorkers] = weakref.WeakSet()  # the pools of this process not closed yet


def close_all() -> None:
    """Stop every worker of every pool of this process (the service ending, however it ends)."""
    for pool in list(_pools):
        pool.close()


def failure(exc: Exception) -> ZeckdbError:
    """An exception no check of zeckdb's foresaw, as the one line a client is answered (503): the
    database failing (a damaged file), or a game's code failing (a plugin's)."""
    import duckdb

    from .errors import DatabaseError, printable

    said = printable(str(exc).strip().split("\n")[0])[:200]
    if isinstance(exc, duckdb.Error):
        return DatabaseError(f"the database failed: {said}; the file may be damaged: `zeckdb verify` names what, "
                             "or rebuild it into a new file")
    return ZeckdbError(f"the game's code failed: {type(exc).__name__}: {said}")


def _work(conn: Connection, db: str, memory_limit: str, settings: Settings, parent: int) -> None:
    """A worker: run jobs until the pipe closes (the service gone: quietly). Each job opens the
    database read-only."""
    die_with_parent(parent)
    lead_group()
    try:
        _serve_jobs(conn, db, memory_limit, settings)
    except (EOFError, OSError, KeyboardInterrupt):  # the service stopped meanwhile (its pipe closed): nothing to say
        os._exit(0)


def _serve_jobs(conn: Connection, db: str, memory_limit: str, settings: Settings) -> None:
    # below the service's own priority (its start-up too): a greedy query yields the CPU to the lookups
    os.nice(settings.worker_niceness)
    import resource

    from . import api
    from .render import result_body

    # warm: imports, the file's check, and what a statement's check reads once (DuckDB's functions),
    # before the address space this worker may grow to is measured
    with api.Database(db, memory_limit=memory_limit, settings=settings) as database:
        database.sql("SELECT 1 AS warm")
    # what it takes to run at all, plus DuckDB's limit, plus as much again for the rows it returns
    limit = address_space() + 2 * memory_bytes(memory_limit)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn.send("ready")
    while True:
        try:
            job, limits = conn.recv()
        except (EOFError, OSError):
            return
        try:
            with api.Database(db, memory_limit=memory_limit, settings=settings) as database:
                kind, fmt, extra, *what = job
                if kind == "plot":
                    figure, variant, ns, measure = what
                    body = database.plot(figure, variant, ns, measure=measure).image(fmt)
                elif kind == "play":
                    variant, position, start, p1, p2, distribution = what
                    body = json.dumps(database.play(variant, position, start=start, p1=p1, p2=p2,
                                                    distribution=distribution).to_json()).encode()
                elif kind == "sql":
                    body = result_body(database.sql(what[0], what[1], limits=limits), fmt, extra)
                elif kind == "lookup":
                    body = json.dumps(lookup(database, *what)).encode()
                else:
                    name, variant, ns, params = what
                    body = result_body(database.query(name, variant=variant, n=ns, params=params, limits=limits),
                                       fmt, extra)
            answer: tuple[str, Any] = ("ok", body)
        except ZeckdbError as exc:
            answer = ("error", exc)
        except (MemoryError, RuntimeError):  # no memory for an object, or for a thread's stack
            answer = ("error", QueryLimitError("the query needs more memory than the service allows: narrow it "
                                               "(e.g. a WHERE on variant and n, fewer columns)"))
        except Exception as exc:  # a game plugin's own code, or a file damaged past every check: named, not a 500
            answer = ("error", failure(exc))
        # memory freed by a greedy query stays mapped in this process: a worker near its limit
        # answers, then makes way for a fresh one
        retire = address_space() > settings.worker_retire_fraction * limit
        conn.send((*answer, retire))
        if retire:
            return


def lookup(database: Any, kind: str, variant: str, value: str | int | None) -> Any:
    """A lookup's answer as the service sends it (JSON-ready): `position` (value: the position's
    text), `start` (value: n), `line` and `line-start` (the principal line from a position or a
    start), `summary` (value: a range of n or None). The one place these answers are made, for
    the service's own threads and for its workers alike."""
    from .ranges import parse_ns
    from .render import plain

    if kind == "position":
        return database.position(variant, value).to_json()
    if kind == "start":
        return database.position(variant, start=value).to_json()
    if kind in ("line", "line-start"):
        line = database.line(variant, value) if kind == "line" else database.line(variant, start=value)
        return {"from": line[0][1].to_json(), "line": line.to_json()}
    if kind == "summary":
        return plain([layer.to_json() for layer in database.summary(variant, parse_ns(str(value)) if value else None)])
    raise ValueError(f"no lookup {kind!r}")
