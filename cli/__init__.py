"""The zeckdb command line: a thin layer over zeckdb.api (cli/main.py runs the app of cli/app.py,
whose commands live in building.py, lookups.py, querying.py, figures.py and serving.py)."""

import errno
import io
import os
import signal
import sys
from typing import Any


def main(held_ctrl_c: list[int] | None = None) -> None:
    """The `zeckdb` command. A Ctrl-C exits 130 without Python's traceback, also while the
    modules load (NumPy, numba, DuckDB take a noticeable moment) and while typer sets up.
    Once the command is over, a Ctrl-C changes nothing: Python puts back the default
    handler as it shuts down, and a late Ctrl-C would otherwise kill a finished run by
    the signal instead of letting it exit with its own status. held_ctrl_c: the Ctrl-Cs
    zeckdb.launch held while this module loaded (its handler is in place until here)."""
    from zeckdb.children import become_reaper, end_descendants
    from zeckdb.errors import caused_by_ctrl_c  # light modules: the heavy ones load below
    from zeckdb.interrupts import keep_ctrl_c_from_vanishing

    become_reaper()
    keep_ctrl_c_from_vanishing()
    _guard_standard_streams()
    watcher = _second_ctrl_c_ends_the_command()
    try:
        if held_ctrl_c is not None:
            signal.signal(signal.SIGINT, signal.default_int_handler)  # a Ctrl-C raises, caught below
            if held_ctrl_c:
                raise KeyboardInterrupt
        _load_duckdb()
        from .main import main as run

        try:
            run()
        finally:
            sys.stdout.flush()  # here, where a failure is still ours to report, not at shutdown
    except StandardOutputFailed as exc:
        _output_failed(exc)
    except Exception as exc:  # a C extension interrupted while it loads raises an ImportError
        if not caused_by_ctrl_c(exc):
            raise
        _interrupted()
    except KeyboardInterrupt:
        _interrupted()
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if watcher is not None:  # its pipe closed: it ends
            signal.set_wakeup_fd(-1)
            os.close(watcher)
        end_descendants()  # what the command started and left (a plugin's daemon) ends with it


# The watcher: it reads the signal numbers Python's C-level handler writes to the wakeup pipe
# (signal.set_wakeup_fd), one byte a signal, even while another thread holds the GIL and no
# Python runs; at the second byte it ends the command. It ignores the terminal's Ctrl-C itself.
_WATCHER = ('trap "" INT; n=$(dd bs=1 count=2 2>/dev/null | wc -c); if [ "$n" -eq 2 ]; then '
            'echo "zeckdb: stopped at once (a second Ctrl-C); what was committed is kept" >&2; kill -KILL $PPID; fi')


def _second_ctrl_c_ends_the_command() -> int | None:
    """A second Ctrl-C ends the command at once, whatever it runs: a game plugin's code that
    sleeps in a thread the build waits for, or loops holding the GIL so that Python's own
    handler never runs, ignored the first and the second. A small shell process (the watcher)
    is started; the descriptor to close when the command ends is returned (None where there is
    no shell or dd, or for `serve`, whose own signal handling ends it and what it started)."""
    import shutil
    import subprocess

    import threading

    if "serve" in sys.argv[1:] or not (shutil.which("sh") and shutil.which("dd")) or not hasattr(signal, "SIGKILL") \
            or threading.current_thread() is not threading.main_thread():  # a wakeup pipe is the main thread's
        return None
    read, write = os.pipe()  # neither end is inherited by the processes zeckdb starts
    try:
        subprocess.Popen(["sh", "-c", _WATCHER], stdin=read, stdout=subprocess.DEVNULL, close_fds=True)
    except OSError:
        os.close(write)
        return None
    finally:
        os.close(read)
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    return write


class StandardOutputFailed(OSError):
    """A write to standard output failed (a full disk, /dev/full, a reader gone)."""


class _GuardedStdout(io.RawIOBase):
    """File descriptor 1, whose write errors are told from every other file's: whatever layer
    writes (click, rich, print, a text or binary buffer), the bytes pass through here."""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        try:
            return os.write(1, data)
        except OSError as exc:
            raise StandardOutputFailed(exc.errno, exc.strerror) from None

    def fileno(self) -> int:
        return 1

    def isatty(self) -> bool:
        return os.isatty(1)


def _guard_standard_streams() -> None:
    """Standard output closed (`>&-`) would let the next file zeckdb opens (the database!) take
    descriptor 1, and whatever is printed would land in it: refuse, before opening anything.
    Otherwise standard output goes through _GuardedStdout, so that a failed write is one line."""
    if not _is_open(2):
        os.open(os.devnull, os.O_WRONLY)  # takes descriptor 2: nothing of ours lands there
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    if not _is_open(1):
        os.open(os.devnull, os.O_WRONLY)  # takes descriptor 1, for the same reason
        print("zeckdb: error: standard output is closed: run the command with its output going somewhere "
              "(a terminal, a file, a pipe or >/dev/null)", file=sys.stderr)
        sys.exit(1)
    old = sys.stdout
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_GuardedStdout()), encoding=old.encoding if old else "utf-8",
                                  errors=old.errors if old else "strict", line_buffering=os.isatty(1),
                                  write_through=False)


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def _output_failed(exc: StandardOutputFailed) -> None:
    """One line, exit 1; for a reader that left (`zeckdb sql ... | head`) not even that."""
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - nothing more may reach the failed stream at exit
    if exc.errno != errno.EPIPE:
        print(f"zeckdb: error: cannot write to standard output: {exc.strerror}; free space where it goes, "
              "or send it elsewhere", file=sys.stderr)
    sys.exit(1)


def _load_duckdb() -> None:
    """DuckDB's module calls Python code (its enums) while it initialises, and a
    KeyboardInterrupt met there aborts the whole process (nanobind's "Critical error",
    SIGABRT): a Ctrl-C while it loads is held until it has loaded, then raised."""
    from zeckdb.interrupts import ctrl_c_held

    with ctrl_c_held():
        import duckdb  # noqa: F401


def _interrupted() -> None:
    print("zeckdb: interrupted", file=sys.stderr)
    sys.exit(130)

