"""The service's log, written off its event loop.

uvicorn writes its access log line on the event loop: with standard error going to a pipe
nobody reads (`zeckdb serve 2>&1 | less`, a stuck log shipper) the pipe filled, the loop
blocked in `write` and the service answered no one, SIGTERM included. Here every log record
of uvicorn and of zeckdb is put on a bounded queue without waiting (QueueHandler), and one
thread of its own writes them out. While the stream does not take them, the records that do
not fit the queue are dropped and counted, and the count is written once the stream takes
lines again: a stalled or closed stream costs log lines, never answers.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import queue
import threading

LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "zeckdb")
CAPACITY = 1_000  # records waiting for the stream, at most (a burst, some 100 kB); more are dropped and counted


class _Dropping(logging.handlers.QueueHandler):
    """A QueueHandler that never waits: a record the full queue cannot take is counted."""

    def __init__(self, records: queue.Queue[logging.LogRecord | None]):
        super().__init__(records)
        self.dropped = 0
        self.count_lock = threading.Lock()  # held for an addition, never across a write

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        return record  # formatted by the writer's thread, not here on the loop

    def enqueue(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            self.more_dropped(1)

    def more_dropped(self, count: int) -> None:
        with self.count_lock:
            self.dropped += count

    def take_dropped(self) -> int:
        with self.count_lock:
            dropped, self.dropped = self.dropped, 0
        return dropped


class LogWriter:
    """The thread that writes the log records to a file descriptor (standard error)."""

    def __init__(self, fd: int = 2, capacity: int = CAPACITY):
        self.fd = fd
        self.records: queue.Queue[logging.LogRecord | None] = queue.Queue(capacity)
        self.handler = _Dropping(self.records)
        self.format = logging.Formatter("%(levelname)s: %(message)s").format
        self.thread = threading.Thread(target=self._run, name="zeckdb-log", daemon=True)
        self.thread.start()

    def attach(self) -> None:
        """uvicorn's loggers and zeckdb's write through this writer alone (uvicorn is then run
        with log_config=None, so that it installs no handler of its own)."""
        for name in LOGGERS:
            logger = logging.getLogger(name)
            logger.handlers = [self.handler]
            logger.propagate = False
            logger.setLevel(logging.INFO)

    def _run(self) -> None:
        while (record := self.records.get()) is not None:
            lines = []
            dropped = self.handler.take_dropped()
            if dropped:
                lines.append(f"WARNING: zeckdb: {dropped:,} log line{'s' if dropped != 1 else ''} dropped while the "
                             "log was not read (its pipe full, or its reader gone); the service answered meanwhile")
            try:
                lines.append(self.format(record))
            except Exception:  # noqa: BLE001 (a record a library made badly: one line less, never the thread)
                self.handler.more_dropped(1)
            if not self._write("".join(line + "\n" for line in lines).encode("utf-8", "replace")):
                self.handler.more_dropped(len(lines) - (1 if dropped else 0) + dropped)

    def _write(self, data: bytes) -> bool:
        """All of data to the descriptor (it may block: only this thread waits); False if it failed."""
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.fd, view):]
        except OSError:  # closed, or its reader gone (EPIPE): the lines are counted as dropped
            return False
        return True

    def stop(self, seconds: float = 1.0) -> None:
        """Let the writer end once it has written what waits, waiting at most `seconds` (a stream
        that does not take them holds only the writer's thread, which dies with the process)."""
        try:
            self.records.put_nowait(None)
        except queue.Full:
            return
        self.thread.join(seconds)
