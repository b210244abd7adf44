"""A long-lived reader shared by the threads of one process (the service's): one read-only
connection, each request on a cursor of its own, let go whenever a build waits to commit
(zeckdb.locking), and a cache of the layers its lookups' moves lead to."""

from __future__ import annotations

from collections import OrderedDict
import heapq
from collections.abc import Callable, Iterator
from contextlib import contextmanager
import os
import threading
import time

import numpy as np

from .errors import DatabaseError
from .locking import Gate
from .settings import DEFAULTS, Settings
from .store import Store, resolve_db_path


class MoveValues:
    """What lookups read of the positions their moves lead to (PositionProbe.layer_values), kept
    for whole layers as arrays indexed by id, at most `max_bytes` of them (least recently used
    go first). For a long-lived reader (the service): a lookup's moves lead all over a layer,
    and each costs DuckDB a block of every column read, while an array costs one index.
    Valid while the file stays open: a reader that reopens it after a build's commit starts a new one."""

    def __init__(self, max_bytes: int = 256 << 20):
        self.max_bytes = max_bytes
        self.layers: OrderedDict[tuple[str, int], tuple[np.ndarray, ...]] = OrderedDict()
        self.bytes = 0
        self.lock = threading.Lock()

    def layer(self, variant: str, n: int,
              load: Callable[[str, int], tuple[np.ndarray, ...] | None]) -> tuple[np.ndarray, ...] | None:
        """PositionProbe.layer_values of a complete layer, None if it is not built."""
        key = (variant, n)
        with self.lock:
            if key in self.layers:
                self.layers.move_to_end(key)
                return self.layers[key]
        arrays = load(variant, n)
        if arrays is None:
            return None  # not committed yet: asked again next time
        size = sum(a.nbytes for a in arrays)
        with self.lock:
            if key not in self.layers:
                self.layers[key] = arrays
                self.bytes += size
                while self.bytes > self.max_bytes and len(self.layers) > 1:
                    _, old = self.layers.popitem(last=False)
                    self.bytes -= sum(a.nbytes for a in old)
        return arrays


class Deadlines:
    """Calls due at their deadlines, made by one thread for every request (a timer thread per
    lookup cost the service a thread's start on every request)."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, Callable[[], None]]] = []
        self.live: set[int] = set()  # the keys in the heap
        self.cancelled: set[int] = set()  # of those, the ones not to call
        self.count = 0
        self.changed = threading.Condition()
        threading.Thread(target=self._run, name="zeckdb-deadlines", daemon=True).start()

    def add(self, seconds: float, call: Callable[[], None]) -> int:
        with self.changed:
            self.count += 1
            heapq.heappush(self.heap, (time.monotonic() + seconds, self.count, call))
            self.live.add(self.count)
            self.changed.notify()
            return self.count

    def cancel(self, key: int) -> None:
        """The call is not made (if it has been, nothing changes)."""
        with self.changed:
            if key in self.live:
                self.cancelled.add(key)

    def _run(self) -> None:
        while True:
            with self.changed:
                while self.heap and self.heap[0][1] in self.cancelled:
                    key = heapq.heappop(self.heap)[1]
                    self.cancelled.discard(key)
                    self.live.discard(key)
                if not self.heap:
                    self.changed.wait()
                    continue
                due, key, call = self.heap[0]
                if due > time.monotonic():
                    self.changed.wait(due - time.monotonic())
                    continue
                heapq.heappop(self.heap)
                self.live.discard(key)
            call()  # outside the lock: it interrupts a connection


class SharedReader:
    """A read-only connection shared by a process's requests (each on a cursor of its
    own), and let go whenever a build waits to commit a layer (zeckdb.locking).

    A watcher notices a waiting writer within WATCH_SECONDS; new requests then wait while
    those running finish, the file is closed, and the next request opens it again once
    the writer has committed its layer: a request waits for at most one commit."""

    WATCH_SECONDS = 0.05

    def __init__(self, db: str | os.PathLike[str] | None, wait: float | None = None, memory_limit: str | None = None,
                 settings: Settings = DEFAULTS):
        self.settings = settings
        self.path = resolve_db_path(db, settings=settings)
        self.wait = settings.read_wait_seconds if wait is None else wait
        self.memory_limit = memory_limit
        self.probe = Gate(self.path)  # only looks: whether a writer waits
        self.changed = threading.Condition()
        self.current: Store | None = self._open(self.wait)
        self.running = 0
        self.opening = self.draining = False
        self.stopped = threading.Event()
        self.watcher = threading.Thread(target=self._watch, name="zeckdb-writer-watch", daemon=True)
        self.watcher.start()
        self.deadlines = Deadlines()

    @contextmanager
    def store(self, seconds: float | None = None) -> Iterator[Store]:
        """A reader of its own for the block; with `seconds`, a statement it runs past them is
        interrupted (the block raises QueryLimitError naming the limit)."""
        import duckdb

        from .errors import QueryLimitError

        base = self._enter()
        reader = base.reader()
        due = self.deadlines.add(seconds, reader.interrupt) if seconds is not None else None
        try:
            yield reader
        except duckdb.InterruptException:
            raise QueryLimitError(f"the lookup was stopped at its time limit of {seconds:g} s (serve_lookup_seconds): "
                                  "try a smaller one") from None
        finally:
            if due is not None:
                self.deadlines.cancel(due)
            reader.close()
            with self.changed:
                self.running -= 1
                self.changed.notify_all()

    def _enter(self) -> Store:
        deadline = time.monotonic() + self.wait
        with self.changed:
            while self.current is None or self.draining:
                if self.current is None and not self.draining and not self.opening:
                    self.opening = True  # this request opens it; the others wait for it
                    self.changed.release()
                    try:
                        opened = self._open(max(deadline - time.monotonic(), 0.001))
                    finally:
                        self.changed.acquire()
                        self.opening = False
                        self.changed.notify_all()
                    self.current = opened
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DatabaseError(f"{self.path} is busy: a build has been writing it for {self.wait:.0f} s; "
                                        "try again in a moment")
                self.changed.wait(left)
            self.running += 1
            return self.current

    def _open(self, wait: float) -> Store:
        store = Store.open_read(self.path, wait, self.memory_limit, self.settings)
        store.move_values = MoveValues()  # a new file state (a build may have committed): a new cache
        return store

    def _watch(self) -> None:
        while not self.stopped.wait(self.WATCH_SECONDS):
            if self.current is not None and not self.draining and self.probe.writer_waiting():
                self._let_go()

    def _let_go(self) -> None:
        with self.changed:
            self.draining = True
            while self.running:
                self.changed.wait()
            current, self.current = self.current, None
            self.draining = False
            self.changed.notify_all()
        if current is not None:
            current.close()

    def close(self) -> None:
        self.stopped.set()
        self.watcher.join()
        with self.changed:
            if self.current is not None:
                self.current.close()
                self.current = None
        self.probe.close()
