"""The one numba policy of zeckdb's compiled loops (the engine's generic kernels and the
games' own): compiled on first use and cached on disk, and without the GIL, so that the
builder can compute one layer while another is written. Imports nothing of zeckdb.

A Ctrl-C while numba compiles (or loads a kernel from its cache) is held until that
compile ends: LLVM calls back into Python through ctypes meanwhile, and a
KeyboardInterrupt raised inside such a callback can only be printed and dropped, so the
program would run on as if no Ctrl-C had come.

Processes that share a cache take turns to compile (see _TurnsAcrossProcesses)."""

from __future__ import annotations

import logging
import os
import signal
import tempfile
import threading
import time
from types import FrameType
from typing import Any
from collections.abc import Callable

from numba import njit
from numba.core import event

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX (Windows): no turns, as numba alone
    fcntl = None  # type: ignore[assignment]

jit = njit(cache=True, nogil=True)
# a helper called from other kernels' inner loops: compiled into each of them
inline_jit = njit(cache=True, nogil=True, inline="always")


class _CtrlCHeld:
    """Holds the main thread's Ctrl-C while it is inside numba's compiler lock (nested when
    one kernel compiles another). Only the main thread receives a KeyboardInterrupt, and
    only while Python's own handler is in place is it replaced."""

    def __init__(self) -> None:
        self._depth = 0  # of the main thread's compiler lock
        self.held = False
        self._replaced: Any = None

    def enter(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self._depth += 1
        if self._depth == 1 and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._replaced = signal.signal(signal.SIGINT, self._hold)

    def leave(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self._depth -= 1
        if self._depth == 0 and self._replaced is not None:
            signal.signal(signal.SIGINT, self._replaced)
            self._replaced = None
            if self.held:
                self.held = False
                raise KeyboardInterrupt

    def _hold(self, signum: int, frame: FrameType | None) -> None:
        self.held = True


class _TurnsAcrossProcesses:
    """Numba writes a kernel's cache index before the data file it names, so a process that
    reads the index in between loads whatever that file held before: another numba's
    compile ("LLVM bitcode parsing error") or an older source's code. So a process holds a
    lock file of its user's while any of its threads compiles or loads from the cache; a
    second process waits, then loads what the first compiled instead of compiling it again.

    The wait ends (and the compile goes on unlocked, as numba alone would) once a Ctrl-C is
    held, or after `wait_s`: a process stopped while it compiles (Ctrl-Z) keeps its turn, so
    after one such wait this process stops waiting for turns at all."""

    wait_s = 30.0
    say_after_s = 2.0  # a wait this long is said (a warning of the "zeckdb" logger), once

    def __init__(self, ctrl_c: _CtrlCHeld) -> None:
        self._ctrl_c = ctrl_c
        self._mutex = threading.Lock()
        self._wanting = 0  # this process's threads inside (or waiting for) numba's compiler lock
        self._fd: int | None = None

    @staticmethod
    def path() -> str:
        """One lock file per cache: numba's NUMBA_CACHE_DIR where set, else the __pycache__
        folders beside this package's sources. Another checkout (or install) has caches of its
        own, and its compiles never wait for this one's."""
        import hashlib

        cache = os.environ.get("NUMBA_CACHE_DIR") or os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
        key = hashlib.sha256(os.path.realpath(cache).encode()).hexdigest()[:12]
        return os.path.join(tempfile.gettempdir(), f"zeckdb-compile-{os.getuid()}-{key}.lock")

    def enter(self) -> None:
        with self._mutex:
            if self._wanting == 0:
                self._fd = self._take()
            self._wanting += 1

    def leave(self) -> None:
        with self._mutex:
            self._wanting -= 1
            if self._wanting == 0 and self._fd is not None:
                os.close(self._fd)  # which lets the lock go
                self._fd = None

    def _take(self) -> int | None:
        """The lock file, locked; None where there is none to take, or the wait gave up."""
        if fcntl is None:
            return None
        try:
            fd = os.open(self.path(), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError:
            return None  # nowhere to lock: compile as numba alone would
        try:
            # another user's file: not theirs to hold us up
            if os.fstat(fd).st_uid == os.getuid() and self._wait_for_turn(fd):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        return None

    def _wait_for_turn(self, fd: int) -> bool:
        start = time.monotonic()
        said = False
        pause = 0.001  # doubling to 50 ms: a turn of a cache load is milliseconds, of a compile seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                pass
            waited = time.monotonic() - start
            if waited >= self.wait_s:
                self.wait_s = 0.0
                return False
            if self._ctrl_c.held:
                return False
            if not said and waited >= self.say_after_s:
                said = True
                logging.getLogger("zeckdb").warning(
                    "zeckdb: waiting for another zeckdb process to finish compiling the kernels "
                    "(at most %.0f s more; Ctrl-C interrupts)", self.wait_s - waited)
            time.sleep(pause)
            pause = min(2 * pause, 0.05)


class _WhileCompiling(event.Listener):
    """Listens to numba's compiler lock, which is taken around every compile and cache load:
    the Ctrl-C is held first, so that it cannot break the wait for a turn, and the turn is
    given back before a held Ctrl-C is raised."""

    def __init__(self) -> None:
        self.ctrl_c = _CtrlCHeld()
        self.turns = _TurnsAcrossProcesses(self.ctrl_c)

    def on_start(self, ev: event.Event) -> None:
        self.ctrl_c.enter()
        try:
            self.turns.enter()
        except BaseException:  # numba takes no compiler lock now, so it will not end this
            self.ctrl_c.leave()
            raise

    def on_end(self, ev: event.Event) -> None:
        self.turns.leave()
        self.ctrl_c.leave()


while_compiling = _WhileCompiling()
# numba's event API is untyped: its signature as the documentation gives it
_register_listener: Callable[[str, event.Listener], None] = event.register
_register_listener("numba:compiler_lock", while_compiling)


def compiled_before(kernel: Any) -> bool:
    """Whether a cached kernel has been compiled before (its cache index exists), so that the
    next build does not wait for the compiler; True where numba does not say."""
    import os

    try:
        return os.path.exists(kernel._cache._cache_file._index_path)
    except AttributeError:  # another numba's internals: nothing to say
        return True
