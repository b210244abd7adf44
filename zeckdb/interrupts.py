"""Ctrl-C at safe points. Python raises a KeyboardInterrupt in the main thread between any two
bytecodes, also inside the standard library's threading code: one raised just after a lock
was taken leaves it taken for ever, and the next call that needs it (a thread pool's submit,
a future's result) waits for ever. The main thread's calls into thread pools and futures
therefore hold a Ctrl-C until they return, and wait for futures in short turns between
which it is raised. Imports nothing of zeckdb."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import contextmanager
import _thread
import signal
import sys
import threading
from typing import Any, TypeVar

T = TypeVar("T")
TURN_SECONDS = 0.1  # the longest a held Ctrl-C waits while a future is waited for


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Hold a Ctrl-C that comes inside the block and raise it as the block ends. Only the main
    thread receives signals, and only while Python's own handler is in place is it replaced
    (an outer holder, or a program's own handler, is left alone)."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    held: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if held:
        raise KeyboardInterrupt


def keep_ctrl_c_from_vanishing() -> None:
    """A Ctrl-C that lands while Python runs a finaliser or a weak reference's callback (the
    garbage collector may run one between any two bytecodes) cannot propagate: Python prints
    "Exception ignored" with a traceback and goes on, so the Ctrl-C is lost. Deliver it again
    instead, to be raised where it can propagate; once Python's own handler is gone (the
    command is over, or shutting down) a late Ctrl-C changes nothing and prints nothing."""
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous(unraisable)
        elif signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            # From a new thread: a signal sent here would be raised here, inside the hook, and
            # the thread cannot run before the hook has returned and released the GIL.
            _thread.start_new_thread(_signal_main_thread, (threading.main_thread().ident,))

    sys.unraisablehook = hook


def _signal_main_thread(main_thread: int | None) -> None:
    """A real signal, not only a pending one, so that a wait the main thread is in ends."""
    if main_thread is not None and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.pthread_kill(main_thread, signal.SIGINT)


def result(future: Future[T]) -> T:
    """future.result(), with a Ctrl-C raised between turns of the wait, never inside it."""
    wait_first([future])
    with ctrl_c_held():
        return future.result()


def made_ahead(pool: Executor, calls: Iterable[Callable[[], T]], ahead: int) -> Iterator[T]:
    """The calls' results in order, each computed on `pool` while those before it are used,
    never more than `ahead` beyond the one last taken; those not taken when the iteration
    ends early are cancelled."""
    made: deque[Future[T]] = deque()
    try:
        for call in calls:
            with ctrl_c_held():
                made.append(pool.submit(call))
            if len(made) > ahead:
                yield result(made.popleft())
        while made:
            yield result(made.popleft())
    finally:
        for future in made:
            future.cancel()


def wait_first(futures: Iterable[Future[Any]]) -> set[Future[Any]]:
    """The futures done once at least one is, as concurrent.futures.wait(FIRST_COMPLETED)
    gives them, with a Ctrl-C raised between turns of the wait."""
    futures = list(futures)
    while True:
        with ctrl_c_held():
            done, _ = wait(futures, timeout=TURN_SECONDS, return_when=FIRST_COMPLETED)
        if done or not futures:
            return done
