"""The one error hierarchy of zeckdb.

Every error a user can cause derives from ZeckdbError and from the matching
built-in, so library callers can catch either; the CLI turns any ZeckdbError
into one line on stderr and a non-zero exit status.
"""

from __future__ import annotations


class ZeckdbError(Exception):
    """Base class of every error zeckdb reports to a user."""

    #: exit status the CLI uses for this error (2: the command was used wrongly)
    exit_code: int = 1


class UsageError(ZeckdbError, ValueError):
    """The input was malformed: a bad position, variant name or n range."""

    exit_code = 2


class OutputError(UsageError):
    """zeckdb may not write there: the open database's own files, an existing file without
    force, a missing or read-only folder (zeckdb.outputs)."""


class UnknownVariantError(UsageError, KeyError):
    """No variant of that name is registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class UnknownQueryError(UsageError, LookupError):
    """No named query of that name."""


class DatabaseError(ZeckdbError, OSError):
    """The database file is missing, unreadable, read-only or not DuckDB."""


class NotBuiltError(ZeckdbError, LookupError):
    """The database does not hold what was asked for (that variant and n)."""


class QueryLimitError(ZeckdbError):
    """A query ran into its time or memory limit."""


class ClusterError(ZeckdbError, RuntimeError):
    """A task of a distributed build failed on the cluster (a worker died, a shard was unreadable)."""
