"""The zeckdb command line: a thin layer over zeckdb.api (cli/main.py)."""

import signal
import sys


def main() -> None:
    """The `zeckdb` command. A Ctrl-C exits 130 without Python's traceback, also while the
    modules load (NumPy, numba, DuckDB take a noticeable moment) and while typer sets up.
    Once the command is over, a Ctrl-C changes nothing: Python puts back the default
    handler as it shuts down, and a late Ctrl-C would otherwise kill a finished run by
    the signal instead of letting it exit with its own status."""
    from zeckdb.errors import caused_by_ctrl_c  # a light module: the heavy ones load below

    try:
        _load_duckdb()
        from .main import main as run

        run()
    except Exception as exc:  # a C extension interrupted while it loads raises an ImportError
        if not caused_by_ctrl_c(exc):
            raise
        _interrupted()
    except KeyboardInterrupt:
        _interrupted()
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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

