"""The zeckdb command line: a thin layer over zeckdb.api (cli/main.py)."""

import sys


def main() -> None:
    """The `zeckdb` command. A Ctrl-C exits 130 without Python's traceback, also while the
    modules load (NumPy, numba, DuckDB take a noticeable moment) and while typer sets up."""
    from zeckdb.errors import caused_by_ctrl_c  # a light module: the heavy ones load below

    try:
        from .main import main as run

        run()
    except Exception as exc:  # a C extension interrupted while it loads raises an ImportError
        if not caused_by_ctrl_c(exc):
            raise
        _interrupted()
    except KeyboardInterrupt:
        _interrupted()


def _interrupted() -> None:
    print("zeckdb: interrupted", file=sys.stderr)
    sys.exit(130)

