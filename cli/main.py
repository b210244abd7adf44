"""`zeckdb`: build, inspect and query the Zeckendorf game-family database.

Each command parses its arguments, calls one library function, and renders the
result; the commands live in groups (cli/building.py, lookups.py, querying.py,
figures.py, serving.py) on one app (cli/app.py). Errors are turned into one line on
stderr in `main`, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
import sys
from typing import Any

from zeckdb.errors import ZeckdbError, as_flag, caused_by_ctrl_c, printable

# each registers its commands on app, in the order --help lists them
from . import building, lookups, querying, figures, serving  # noqa: F401
from .app import _echo_err, app


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning zeckdb errors into one line and an exit status."""
    import contextvars

    try:  # in a context of its own: the settings an option before the command sets end with it
        with _one_line_usage_errors():
            contextvars.copy_context().run(app, args=argv, prog_name="zeckdb", standalone_mode=True)
    except ZeckdbError as exc:
        _echo_err(f"zeckdb: error: {printable(exc.worded(as_flag))}")  # it may quote what a file or a user gave
        sys.exit(exc.exit_code)
    except SystemExit as exc:
        if exc.code == 130 and caused_by_ctrl_c(exc):  # typer's silent exit for a Ctrl-C while it parsed
            _echo_err("zeckdb: interrupted")
        raise
    except Exception as exc:  # the last net: DuckDB failing on a file damaged in a way no check foresaw
        if caused_by_ctrl_c(exc):  # e.g. while DuckDB ran a statement
            _echo_err("zeckdb: interrupted")
            sys.exit(130)
        cause = getattr(exc, "orig", None) or exc  # SQLAlchemy wraps DuckDB's errors
        if type(cause).__module__.split(".")[0] not in ("duckdb", "_duckdb"):
            raise
        first = printable(str(cause).strip().split("\n")[0])
        if _may_be_damage(cause):
            _echo_err(f"zeckdb: error: the database failed: {first}; the file may be damaged: "
                      "check it with `zeckdb verify`, or rebuild it into a new file")
        else:  # DuckDB refused a statement zeckdb wrote: a bug, of zeckdb or of a game plugin
            _echo_err(f"zeckdb: error: DuckDB refused a statement: {first}; what it was writing was rolled back. "
                      "A bug of zeckdb or of a game plugin: please report it with the command")
        sys.exit(1)


@contextmanager
def _one_line_usage_errors() -> Iterator[None]:
    """Click's own errors (an unknown option or command, a value of the wrong type) in zeckdb's
    form, one line with Click's suggestion kept, instead of its three (Usage, Try, Error). Click
    shows them through UsageError.show, which typer calls: it is replaced while the app runs."""
    import importlib

    import typer.core

    click = getattr(typer.core, "_click", None) or importlib.import_module("click")  # typer vendors it since 0.29
    usage_error = click.exceptions.UsageError
    no_such_option = click.exceptions.NoSuchOption
    original = usage_error.show

    def show(self: Any, file: Any = None) -> None:
        command = self.ctx.command_path if self.ctx is not None else "zeckdb"
        if isinstance(self, no_such_option):  # worded and matched differently by each Click: zeckdb does both once
            close = _nearest_options(self.option_name, self.ctx)
            message = f"no such option: {self.option_name}" + (f" (did you mean {' or '.join(close)}?)" if close else "")
        else:
            message = self.format_message().rstrip(".")
        message = message[:1].lower() + message[1:]
        _echo_err(printable(f"zeckdb: error: {message} (`{command} --help` says what it takes)"))

    usage_error.show = show
    try:
        yield
    finally:
        usage_error.show = original


def _nearest_options(name: str, ctx: Any) -> list[str]:
    """The command's options a mistyped one most likely meant: those it begins (`--v`:
    `--variant`), else the closest in spelling (`--varient`)."""
    import difflib

    if ctx is None:
        return []
    options = sorted(o for param in ctx.command.params for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
    begun = [o for o in options if len(name) > 2 and o.startswith(name)]
    return begun[:3] or difflib.get_close_matches(name, options, n=1)


def _may_be_damage(error: BaseException) -> bool:
    """Whether DuckDB's error may come from a damaged file (reading or writing it failed, or
    DuckDB's own consistency checks), rather than from a statement it refused."""
    import duckdb

    refused = (duckdb.BinderException, duckdb.CatalogException, duckdb.ConversionException,
               duckdb.ConstraintException, duckdb.ParserException, duckdb.InvalidInputException,
               duckdb.NotImplementedException, duckdb.TypeMismatchException)
    return not isinstance(error, refused)


if __name__ == "__main__":  # `python -m zeckdb.cli.main`: a process of its own, as `zeckdb` is
    from zeckdb.children import become_reaper, end_descendants

    become_reaper()
    try:
        main()
    finally:
        end_descendants()
