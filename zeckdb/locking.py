"""Reads while a build writes: one writer and many readers taking turns on a database file.

DuckDB lets a process open a file for writing only while no other process has
it open at all. So a build holds the file only while it commits, and readers
open it between commits. They take turns through advisory locks (flock) on
small files in a folder beside the database, `<database>.locks/`:

- `build`: held (exclusive) by a build for its whole run. `zeckdb status` and
  the service probe it to say that a build is running; a second build is refused.
- `gate`: exclusive while the writer has the database open, shared while a
  reader has.
- `turn`: held by the writer while it waits for `gate` and while it writes;
  readers only pass through it, so a stream of readers cannot starve a writer.
- `want`: shared by every reader waiting to get in. The writer probes it after
  each committed layer and, if a reader waits, closes the file until its next
  layer: a reader waits for at most one layer's commit.

Only a writer creates the folder; where it does not exist nobody has built
here with locking, and readers open the file directly (DuckDB's own lock still
refuses a writer then, and both sides retry). Where flock is missing (Windows)
every lock is a no-op.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
from pathlib import Path
import time
from collections import Counter
from collections.abc import Callable
from typing import ClassVar

try:
    import fcntl

    SHARED, EXCLUSIVE = fcntl.LOCK_SH, fcntl.LOCK_EX
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]
    SHARED = EXCLUSIVE = 0

from .errors import DatabaseError, opt

POLL_SECONDS = 0.005  # between tries of a lock; the longest a waiting side sleeps past its turn


def _once(call: Callable[[], None]) -> Callable[[], None]:
    """`call`, made to run at most once however many waits share it."""
    done = False

    def first_time() -> None:
        nonlocal done
        if not done:
            done = True
            call()
    return first_time


def lock_dir(db: Path) -> Path:
    return db.with_name(db.name + ".locks")


class Gate:
    """One holder's view of a database's locks: each Gate has its own open files, so two
    Gates conflict with each other like two processes do, threads included."""

    # this process's readers holding each database: a build here would wait for them forever
    # when they are its own caller's (zeckdb.open then zeckdb.build in one thread)
    _reading_here: ClassVar[Counter[Path]] = Counter()

    def __init__(self, db: Path, create: bool = False):
        self.db = db
        self.dir = lock_dir(db)
        self.create = create
        self._fds: dict[str, int] = {}
        self.reading = self.writing = self.building = False
        self.created_dir = False
        if fcntl is None:
            return
        try:
            found = os.lstat(self.dir)  # a link is not the folder: its target could be anywhere
        except FileNotFoundError:
            found = None
        except OSError as exc:
            raise self._tampered(f"it cannot be read ({exc.strerror})") from None
        if found is not None and not stat.S_ISDIR(found.st_mode):
            raise self._tampered("it is not a folder (a file or a link?)")
        if found is None and create:
            try:
                self.dir.mkdir()
                self.created_dir = True
            except FileExistsError:  # made meanwhile by another writer: checked as it is opened
                pass
            except OSError as exc:
                raise DatabaseError(f"cannot create the lock folder {self.dir}: {exc.strerror}; pass {opt('db')} with "
                                    "a file in a folder you can write") from None

    def _tampered(self, what: str) -> DatabaseError:
        return DatabaseError(f"{self.dir} is not zeckdb's lock folder as it left it: {what}; remove it while no "
                             "zeckdb command uses the database, and try again")

    # -- files -------------------------------------------------------------
    def _fd(self, name: str) -> int | None:
        """The open lock file, or None where there is no lock folder (nothing to take turns with).
        Never a link (it could point anywhere), never anything but a regular file (a FIFO would
        block), opened without waiting."""
        if fcntl is None:
            return None
        fd = self._fds.get(name)
        if fd is None:
            flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            try:
                try:
                    fd = os.open(self.dir / name, flags | ((os.O_RDWR | os.O_CREAT) if self.create else os.O_RDONLY),
                                 0o644)
                except PermissionError:  # a reader of someone else's database: a read-only file locks as well
                    fd = os.open(self.dir / name, flags | os.O_RDONLY)
            except FileNotFoundError:
                return None
            except OSError as exc:
                raise self._tampered(f"its {name} cannot be opened as a lock file ({exc.strerror})") from None
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise self._tampered(f"its {name} is not a plain file")
            self._fds[name] = fd
        return fd

    def _try(self, name: str, mode: int) -> bool:
        fd = self._fd(name)
        if fd is None:
            return True
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _unlock(self, name: str) -> None:
        fd = self._fd(name)
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _wait(self, name: str, mode: int, deadline: float | None, on_wait: Callable[[], None] | None = None,
              patience: float = 2.0) -> bool:
        """Take a lock, trying until the deadline (None: forever); on_wait is called once after `patience` s."""
        started = time.monotonic()
        while not self._try(name, mode):
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return False
            if on_wait is not None and now - started >= patience:
                on_wait()
                on_wait = None
            time.sleep(POLL_SECONDS)
        return True

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)  # closing the file drops its locks
        self._fds.clear()
        self._stop_reading()
        self.writing = self.building = False

    def abandon(self) -> None:
        """Close, and remove the lock folder if this Gate made it: a writer that failed
        to open the database (damaged, not zeckdb's) leaves nothing behind."""
        self.close()
        if self.created_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    # -- probes ------------------------------------------------------------
    def build_running(self) -> bool:
        """Whether a build (this process's included) holds the database."""
        if self.building:
            return True
        if not self._try("build", SHARED):
            return True
        self._unlock("build")
        return False

    def writer_waiting(self) -> bool:
        """Whether a writer waits for the file or has it (a reader holding it should let go)."""
        if not self._try("turn", SHARED):
            return True
        self._unlock("turn")
        return False

    def readers_waiting(self) -> bool:
        """Whether a reader waits for the writer to let go of the file."""
        if not self._try("want", EXCLUSIVE):
            return True
        self._unlock("want")
        return False

    # -- readers -----------------------------------------------------------
    def acquire_read(self, timeout: float) -> None:
        """Wait (at most `timeout` s) until no writer has the file, and keep it from taking it."""
        if fcntl is None:
            return
        deadline = time.monotonic() + timeout
        say = _once(lambda: logging.getLogger("zeckdb").warning(
            "zeckdb: waiting for the build writing %s to commit its current layer (at most %.0f s more)",
            self.db.name, max(0.0, deadline - time.monotonic())))
        self._wait("want", SHARED, deadline, say)  # only ever held exclusively for an instant
        try:
            got_in = self._wait("turn", SHARED, deadline, say)
            if got_in:
                self._unlock("turn")  # passed: a writer waiting behind it now keeps later readers out
                got_in = self._wait("gate", SHARED, deadline, say)
            if not got_in:
                raise DatabaseError(f"{self.db} is busy: a build has been writing it for {timeout:.0f} s; "
                                    "try again in a moment")
        finally:
            self._unlock("want")
        self.reading = True
        Gate._reading_here[self.db] += 1

    def _stop_reading(self) -> None:
        if self.reading:
            self.reading = False
            Gate._reading_here[self.db] -= 1

    # -- the writer --------------------------------------------------------
    def start_build(self) -> None:
        """Become the database's only writer, or say that a build already is."""
        if Gate._reading_here[self.db] > 0:
            raise DatabaseError(f"{self.db} is open for reading in this process (zeckdb.open()): close it first "
                                "(leave its `with` block), then build")
        if fcntl is not None and not self._try("build", EXCLUSIVE):
            raise DatabaseError(f"{self.db} is being written by another build: wait for it to finish "
                                "(its progress is committed layer by layer; `zeckdb status` shows what is done)")
        self.building = True

    def acquire_write(self, on_wait: Callable[[], None] | None = None) -> None:
        """Wait (as long as it takes) until no reader has the file; new readers wait meanwhile."""
        if fcntl is None or self.writing:
            return
        # Readers waiting since the last commit go first (both sides poll, so without this the
        # writer could take the file back before they wake); a reader stuck there cannot stall
        # a build for more than a second.
        deadline = time.monotonic() + 1.0
        while self.readers_waiting() and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
        say = _once(on_wait) if on_wait is not None else None
        self._wait("turn", EXCLUSIVE, None, say)  # a reader passing through it (or stuck there)
        self._wait("gate", EXCLUSIVE, None, say)
        self.writing = True

    def release_write(self) -> None:
        if self.writing:
            self._unlock("gate")
            self._unlock("turn")
            self.writing = False
