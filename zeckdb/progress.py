"""Progress as lines of text (zeckdb.api.Progress): for a log file of the command line, and a
notebook's cell, where a build called from the library shows its progress as it goes."""

from __future__ import annotations

from collections.abc import Callable
import threading
import time


class Lines:
    """A line at each tenth of the work, and at least every LOG_SECONDS while the work goes on
    (a log of a long build shows it alive, even inside one long layer), each written by `write`."""

    LOG_SECONDS = 30.0

    def __init__(self, write: Callable[[str], object]):
        self.write = write
        self.lock = threading.Lock()
        self.stopped: threading.Event | None = None

    def start(self, total: int, verb: str) -> None:
        self.total, self.verb, self.done, self.logged_tenth = total, verb, 0, 0
        self.began = self.logged_at = time.monotonic()
        self.description = ""
        self.stopped = threading.Event()
        threading.Thread(target=self._heartbeat, args=(self.stopped,), name="zeckdb-progress", daemon=True).start()

    def advance(self, positions: int, description: str) -> None:
        with self.lock:
            self.done += positions
            self.description = description
            tenth = self.done * 10 >= (self.logged_tenth + 1) * self.total
            if tenth or time.monotonic() - self.logged_at >= self.LOG_SECONDS:
                self.logged_tenth = self.done * 10 // max(self.total, 1)
                self._log()

    def _log(self, still: bool = False) -> None:
        """One line (the caller holds the lock)."""
        self.logged_at = time.monotonic()
        elapsed = f", {int(self.logged_at - self.began) // 60}:{int(self.logged_at - self.began) % 60:02d} elapsed"
        where = f" {self.description}" if self.description else ""
        self.write(f"{self.verb}{where}: {100 * self.done // max(self.total, 1)}% of the work done"
                   + (f"{elapsed}, still working" if still else ""))

    def _heartbeat(self, stopped: threading.Event) -> None:
        while not stopped.wait(self.LOG_SECONDS / 3):
            with self.lock:
                if time.monotonic() - self.logged_at >= self.LOG_SECONDS:
                    self._log(still=True)

    def stop(self) -> None:
        if self.stopped is not None:
            self.stopped.set()


def in_a_notebook() -> bool:
    """Whether this process is a Jupyter kernel (IPython's, with a kernel attached)."""
    import sys

    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    running = get() if get is not None else None
    return running is not None and getattr(running, "kernel", None) is not None
