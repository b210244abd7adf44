"""The one numba policy of zeckdb's compiled loops (the engine's generic kernels and the
games' own): compiled on first use and cached on disk, and without the GIL, so that the
builder can compute one layer while another is written. Imports nothing of zeckdb.

A Ctrl-C while numba compiles (or loads a kernel from its cache) is held until that
compile ends: LLVM calls back into Python through ctypes meanwhile, and a
KeyboardInterrupt raised inside such a callback can only be printed and dropped, so the
program would run on as if no Ctrl-C had come."""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

from numba import njit
from numba.core import event

jit = njit(cache=True, nogil=True)
# a helper called from other kernels' inner loops: compiled into each of them
inline_jit = njit(cache=True, nogil=True, inline="always")


class _CtrlCHeldWhileCompiling(event.Listener):
    """Listens to numba's compiler lock, which is held around every compile and cache
    load (nested when one kernel compiles another). Only the main thread receives a
    KeyboardInterrupt, and only while Python's own handler is in place is it replaced."""

    def __init__(self) -> None:
        self._depth = 0  # of the main thread's compiler lock
        self._held = False
        self._replaced: Any = None

    def on_start(self, ev: event.Event) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self._depth += 1
        if self._depth == 1 and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._replaced = signal.signal(signal.SIGINT, self._hold)

    def on_end(self, ev: event.Event) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self._depth -= 1
        if self._depth == 0 and self._replaced is not None:
            signal.signal(signal.SIGINT, self._replaced)
            self._replaced = None
            if self._held:
                self._held = False
                raise KeyboardInterrupt

    def _hold(self, signum: int, frame: FrameType | None) -> None:
        self._held = True


event.register("numba:compiler_lock", _CtrlCHeldWhileCompiling())


def compiled_before(kernel: Any) -> bool:
    """Whether a cached kernel has been compiled before (its cache index exists), so that the
    next build does not wait for the compiler; True where numba does not say."""
    import os

    try:
        return os.path.exists(kernel._cache._cache_file._index_path)
    except AttributeError:  # another numba's internals: nothing to say
        return True
