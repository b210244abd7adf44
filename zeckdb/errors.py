"""The one error hierarchy of zeckdb.

Every error a user can cause derives from ZeckdbError and from the matching
built-in, so library callers can catch either; the CLI turns any ZeckdbError
into one line on stderr and a non-zero exit status.
"""

from __future__ import annotations

from collections.abc import Callable
import html
import re

_MARK = "\x1f"
_OPTION = re.compile("\x1f([^\x1f]*)\x1f")


def opt(name: str) -> str:
    """A parameter named inside an error message, worded by each surface when shown: the API
    keyword (`n`, `max_rows`, `force`; `parameter position` for a named query's own) for the
    library and over HTTP, the flag (`--n`, `--max-rows`, `--param position`) on the command
    line. `name`: the API keyword, or `param:NAME` for a named query's parameter."""
    return f"{_MARK}{name}{_MARK}"


def did_you_mean(given: str, known: list[str]) -> str:
    """ "did you mean X? " for the known name closest to a mistyped one (as Click suggests for an
    option), or nothing when none is close."""
    import difflib

    close = difflib.get_close_matches(given, known, n=1, cutoff=0.75)
    return f"did you mean {close[0]}? " if close else ""


def as_keyword(name: str) -> str:
    return f"parameter {name[6:]}" if name.startswith("param:") else name


def as_flag(name: str) -> str:
    if name.startswith("param:"):
        return f"--param {name[6:]}"
    return {"fmt": "--format", "params": "--param"}.get(name, "--" + name.replace("_", "-"))


def word(text: str, spell: Callable[[str], str] = as_keyword) -> str:
    """A text with opt() marks, its parameters named as `spell` names them."""
    return _OPTION.sub(lambda m: spell(m[1]), text)


# what a terminal acts on rather than shows: the C0 and C1 controls (escape sequences, a
# carriage return that overwrites the line) and the marks that reorder text (U+202E shows
# what follows backwards), besides the line and paragraph separators
_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def printable(text: str, keep: str = "") -> str:
    """`text` with every character a terminal would act on written as its escape (\\x1b,
    \\u202e): what a file, a plugin or a user typed can then never move the cursor, set the
    clipboard or reorder a line. `keep`: controls left as they are (a table's "\\n")."""
    def escaped(m: re.Match[str]) -> str:
        c = m[0]
        return c if c in keep else f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
    return _UNSHOWN.sub(escaped, text)


def html_text(text: str) -> str:
    """`text` for an HTML display: markup escaped, and what printable() escapes written as its
    escape (a notebook shows U+202E's reversal as a terminal does)."""
    return html.escape(printable(text))


class ZeckdbError(Exception):
    """Base class of every error zeckdb reports to a user."""

    #: exit status the CLI uses for this error (2: the command was used wrongly)
    exit_code: int = 1

    def worded(self, spell: Callable[[str], str] = as_keyword) -> str:
        """The message with its parameters named as `spell` names them (as_flag: the command line's)."""
        return word(str(self.args[0]) if self.args else "", spell)

    def __str__(self) -> str:
        return self.worded()


class UsageError(ZeckdbError, ValueError):
    """The input was malformed: a bad position, variant name or n range."""

    exit_code = 2


class OutputError(UsageError):
    """zeckdb may not write there: the open database's own files, an existing file without
    force, a missing or read-only folder (zeckdb.outputs)."""


class UnknownVariantError(UsageError, KeyError):
    """No variant of that name is registered (ZeckdbError's __str__: KeyError's would quote it)."""


class UnknownQueryError(UsageError, LookupError):
    """No named query of that name."""


class DatabaseError(ZeckdbError, OSError):
    """The database file is missing, unreadable, read-only or not DuckDB."""


class NotBuiltError(ZeckdbError, LookupError):
    """The database does not hold what was asked for (that variant and n)."""


class QueryLimitError(ZeckdbError):
    """A query ran into its time or memory limit."""


class BusyError(ZeckdbError):
    """The service runs its limit of a kind of request: try again in a moment (HTTP 429)."""


class ClusterError(ZeckdbError, RuntimeError):
    """A task of a distributed build failed on the cluster (a worker died, a shard was unreadable)."""


def interrupted_statement(error: BaseException) -> bool:
    """Whether DuckDB stopped a statement for Ctrl-C: its Python client takes the
    KeyboardInterrupt itself and raises this RuntimeError in its place (a statement stopped
    by `interrupt()` raises duckdb.InterruptException instead)."""
    return type(error) is RuntimeError and str(error) == "Query interrupted"


def caused_by_ctrl_c(error: BaseException) -> bool:
    """Whether Ctrl-C raised `error` or an exception it follows from. Native code reports a
    KeyboardInterrupt in its own words: numba, one raised while its compiled code called back
    into Python, as a SystemError caused by it; DuckDB, one during a statement, as a
    RuntimeError (interrupted_statement); a C extension, one while it loaded, as an ImportError."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt) or interrupted_statement(seen):
            return True
        # the exception it was raised from, else the one it was raised while handling (unless `from None`)
        seen = seen.__cause__ if seen.__cause__ is not None else (
            None if seen.__suppress_context__ else seen.__context__)
    return False
