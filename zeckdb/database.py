"""The library's face: a database object with the verbs a user needs, and a build.

    import zeckdb
    zeckdb.build("zeckdb.duckdb", ["zeckendorf", "reversed"], "1..20")
    with zeckdb.open("zeckdb.duckdb") as db:
        info = db.position("reversed", "3,1,0,2")          # or start=15
        db.line("zeckendorf", start=7)
        db.query("winners", variant="reversed").rows        # .columns, .arrow(), .df()
        db.sql("SELECT count(*) FROM positions").arrow()

Each method is one call of zeckdb.api (the command line's and the service's calls), so its
answers and its one-line errors (zeckdb.errors.ZeckdbError) are theirs. A range of n is
written as the command line writes it ("1..20,30"), or given as an int or a list of ints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
import os
from pathlib import Path
from typing import Any

from . import api
from .executor import Limits, Result
from .verify import Report

NRange = str | int | Iterable[int] | None


def _ns(n: NRange) -> list[int] | None:
    if n is None:
        return None
    if isinstance(n, str):
        return api.parse_ns(n)
    if isinstance(n, int):
        return [n]
    return sorted({int(x) for x in n})


class Database:
    """An open database, read-only (zeckdb.open); close it, or use it as a context manager."""

    def __init__(self, path: str | os.PathLike | None = None):
        self._store = api.open_db(path)
        self.path = self._store.path

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._store.close()

    def position(self, variant: str, position: str | tuple[int, ...] | None = None, *,
                 start: int | None = None) -> api.PositionInfo:
        """A position (as the game writes it, or a tuple) or the start of n: its values and ranked moves."""
        return api.probe(self._store, variant, position, start)

    def line(self, variant: str, position: str | tuple[int, ...] | None = None, *,
             start: int | None = None) -> list[tuple[str | None, api.PositionInfo]]:
        """The principal line: [(the move that led there, the position)], the first move None."""
        return api.principal_line(self._store, variant, position, start)

    def query(self, name: str, *, variant: str | None = None, n: NRange = None, **params: Any) -> Result:
        """A named query (sql/NAME.sql); its own parameters as keywords, e.g. position="3,1,0,2"."""
        return api.run_query(self._store, name, variant, _ns(n), {k: str(v) for k, v in params.items()})

    def sql(self, text: str, *, timeout: float | None = None, max_rows: int | None = None) -> Result:
        """One read-only statement through the sandboxed executor: every row (or max_rows of
        them) within `timeout` seconds (default: the sql_timeout setting, zeckdb.settings)."""
        limits = Limits(max_rows=max_rows) if timeout is None else Limits(timeout=timeout, max_rows=max_rows)
        return api.run_sql(self._store, text, limits)

    def status(self) -> dict[str, Any]:
        return api.status(self._store)

    def summary(self, variant: str, n: NRange = None) -> list[dict[str, Any]]:
        """The per-n summary rows (`builds`) of a game."""
        return api.summary(self._store, variant, _ns(n))

    def verify(self, variant: str | list[str] | None = None, n: NRange = None) -> Report:
        """Every stored row checked against the others (zeckdb.verify); .ok, .checks."""
        return api.verify(self._store, variant, _ns(n))

    def plot(self, kind: str, variant: str, n: NRange = None, *, measure: str = "P", out: str | Path | None = None,
             data: str | Path | None = None, force: bool = False) -> Any:
        """A figure (zeckdb.plots), written to `out` (.png, .svg) and its numbers to `data` (.csv) if given."""
        return api.plot(self._store, kind, variant, _ns(n), measure, out=None if out is None else Path(out),
                        data=None if data is None else Path(data), force=force)

    def draw(self, variant: str, n: int, fmt: str = "dot", *, strategy_only: bool = False, max_nodes: int = 500,
             out: str | Path | None = None, force: bool = False) -> bytes:
        """The game graph of layer n (DOT, SVG or PNG)."""
        return api.draw(self._store, variant, n, fmt, strategy_only=strategy_only, max_nodes=max_nodes,
                        out=None if out is None else Path(out), force=force)

    def export(self, folder: str | Path, *, fmt: str = "parquet", variants: list[str] | None = None,
               n: NRange = None) -> dict[str, Any]:
        """The built layers as Parquet or CSV files in a new or empty folder; the manifest."""
        return api.export(self._store, Path(folder), fmt, variants, _ns(n))


def open(path: str | os.PathLike | None = None) -> Database:  # noqa: A001 (the library's verb, as in zeckdb.open)
    """Open a built database read-only (default: $ZECKDB_DB, else ./zeckdb.duckdb)."""
    return Database(path)


def build(path: str | os.PathLike | None, variants: list[str] | None = None, n: NRange = "1..150", *,
          force: bool = False, summary_only: bool = False, lean: bool = False, executor: str = "local",
          address: str | None = None, notify: Callable[[str], None] | None = None) -> api.BuildResult:
    """Build every position, move and outcome of `variants` (default: every game, each to its
    limit) for n into the database at `path`, as `zeckdb build` does."""
    ns = _ns(n)
    assert ns is not None
    return api.build(path, variants, ns, force=force, summary_only=summary_only, lean=lean, executor=executor,
                     address=address, notify=notify)
