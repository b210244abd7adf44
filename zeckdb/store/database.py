"""The Store: a database open under the locks (zeckdb.locking), its lifecycle, what is built
and zeckdb's own reads. Its writing half, the build's one writer, is zeckdb.store.writer's
StoreWriter (StoreWriter.open_write opens one).
"""

from __future__ import annotations

import contextlib
from contextlib import contextmanager
import os
from pathlib import Path
import time
from typing import Any
from collections.abc import Callable, Iterator

import duckdb
import numpy as np

from ..errors import DatabaseError, NotBuiltError, opt, printable
from ..executor import Limits, Params, Result, run as execute, stream as execute_streaming
from ..locking import Gate
from ..settings import DEFAULTS, Settings
from .layout import MOVE_COLUMNS, PROBE_COLUMNS
from .connections import close_connection
from .checksummed import layer_checksums
from .paths import resolve_db_path, suggested
from .schema import _connect_checked
from .probing import PositionProbe
from .records import GameRecord, LayerCache

# what a game is, in the facts of its variants row: a registration that changes one of them
# under stored layers makes them another game's (Store.check_same_game)
IDENTITY_FACTS = ("graph", "reversed", "players", "convention", "bins", "text_width")


class OpenFile:
    """A database file open on one connection, with the gate (zeckdb.locking) it was opened
    under and the settings of the door that opened it: what a Store reads through. A
    reader's stays open until it is closed; the writer's lets go of the file between its
    writes and opens it again (store.writer.WriterFile)."""

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection | None, gate: Gate | None,
                 settings: Settings = DEFAULTS):
        self.path = path
        self.settings = settings  # the door's: its limits, and which file its advice may leave unnamed
        self.gate = gate
        self._con = con

    def connection(self) -> duckdb.DuckDBPyConnection:
        """The open connection."""
        if self._con is None:
            raise DatabaseError(f"{self.path} is closed")
        return self._con

    def interrupt(self) -> None:
        """Stop the statement the connection runs now, from another thread (DuckDB raises
        duckdb.InterruptException in the one that runs it)."""
        con = self._con
        if con is not None:
            with contextlib.suppress(duckdb.Error):  # closed meanwhile: nothing runs on it to stop
                con.interrupt()

    def close(self) -> None:
        try:
            if self._con is not None:
                con, self._con = self._con, None
                close_connection(con)
        finally:
            if self.gate is not None:
                self.gate.close()


class Store:
    """A zeckdb database open to read, through an OpenFile: what is built, and zeckdb's reads.
    Open it with `Store.open_read`; the build's writer (`StoreWriter.open_write`) holds one
    reading through its own file, which it lets go between writes."""

    def __init__(self, file: OpenFile, move_values: LayerCache | None = None):
        self.file = file
        self.path = file.path
        self.settings = file.settings
        self.move_values = move_values  # a long-lived reader's cache of the moves' values
        self.positions = PositionProbe(self._connection)  # positions by (n, id), across the two layouts

    def _connection(self) -> duckdb.DuckDBPyConnection:
        return self.file.connection()

    # -- opening -----------------------------------------------------------
    @classmethod
    def open_read(cls, db: str | os.PathLike[str] | None = None, timeout: float | None = None,
                  memory_limit: str | None = None, settings: Settings = DEFAULTS) -> Store:
        """Open a built database read-only; while a build writes it, wait for its current
        commit (at most `timeout` s, default the settings' read_wait_seconds) and read what is
        committed. memory_limit: DuckDB's for this process's readers (e.g. "2GB"), default the
        settings' memory_limit."""
        path = resolve_db_path(db, settings=settings)
        timeout = settings.read_wait_seconds if timeout is None else timeout
        if not path.exists():
            raise DatabaseError(
                f"no database at {printable(str(path))}: build one with {suggested('build', path, settings)} (or pass "
                f"{opt('db')} PATH / set ZECKDB_DB)"
            )
        gate = Gate(path)
        try:
            gate.acquire_read(timeout)
            con = _connect_checked(path, read_only=True, deadline=time.monotonic() + timeout,
                                   memory_limit=memory_limit, settings=settings)
        except BaseException:
            gate.close()
            raise
        return cls(OpenFile(path, con, gate, settings))

    def suggested(self, words: str) -> str:
        """`zeckdb WORDS` to suggest for this database, with its --db unless the door finds it by itself."""
        return suggested(words, self.path, self.settings)

    def build_running(self) -> bool:
        """Whether a build is writing this database (this store's own build included)."""
        if self.file.gate is not None:
            return self.file.gate.build_running()
        probe = Gate(self.path)
        try:
            return probe.build_running()
        finally:
            probe.close()

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what is registered ------------------------------------------------
    def registered_as(self, game: GameRecord) -> bool:
        """Whether the file holds exactly this registration of the game (ids included)."""
        def stored(table: str, names: list[str], order: str = "") -> list[tuple[Any, ...]]:
            return self.rows(f"SELECT {', '.join(names)} FROM {table} WHERE variant = ? {order}", [game.variant])

        described = {"variant": game.variant, **game.facts}
        return (stored("variants", list(described)) == [tuple(described.values())]
                and stored("move_names", ["code", "name"], "ORDER BY code") == list(enumerate(game.move_names))
                and stored("variant_columns", ["position", "name", "weight"], "ORDER BY position")
                == [(i + 1, name, weight) for i, (name, weight) in enumerate(game.columns)]
                and self.rows("SELECT count(*) FROM variant_ids WHERE variant = ?", [game.variant]) == [(1,)]
                and self.rows("SELECT count(*) FROM graph_ids WHERE graph = ?", [game.graph]) == [(1,)])

    def check_same_game(self, game: GameRecord) -> None:
        """Refuse a registration that makes the stored game of that name, whose layers are
        stored, another game: what its rows mean (its graph, direction of play, players,
        convention, bins, moves, columns) would change under them."""
        if not self.rows("SELECT 1 FROM builds WHERE variant = ? LIMIT 1", [game.variant]):
            return
        facts = [f for f in IDENTITY_FACTS if f in game.facts]
        row = self.rows(f"SELECT {', '.join(facts)} FROM variants WHERE variant = ?", [game.variant])
        moves = [name for (name,) in self.rows("SELECT name FROM move_names WHERE variant = ? ORDER BY code",
                                                [game.variant])]
        columns = self.rows("SELECT name, weight FROM variant_columns WHERE variant = ? ORDER BY position",
                            [game.variant])
        differ = [f for f, stored in zip(facts, row[0] if row else [None] * len(facts), strict=True)
                  if stored != game.facts[f]]
        differ += ["its moves"] * (moves != game.move_names) + ["its columns"] * (columns != list(game.columns))
        if differ:
            shown = printable(game.variant)
            raise DatabaseError(
                f"{printable(str(self.path))} holds layers of a game {shown} that is not this {shown} (they differ in "
                f"{', '.join(differ)}: a game plugin of that name?): zeckdb never rewrites what a stored game is; build "
                f"this one into another file ({opt('db')})")

    # -- what is built -----------------------------------------------------
    def built_ns(self, variant: str) -> set[int]:
        """The n whose layer is complete, positions and moves (layers from an older schema miss
        random_play and are not; summary layers are not either)."""
        rows = self.rows("SELECT n FROM builds JOIN random_play USING (variant, n) "
                         "WHERE variant = ? AND NOT summary_only", [variant])
        return {r[0] for r in rows}

    def summary_ns(self, variant: str) -> set[int]:
        """The n built with --summary-only: a builds row, no positions."""
        rows = self.rows("SELECT n FROM builds WHERE variant = ? AND summary_only", [variant])
        return {r[0] for r in rows}

    def present_ns(self, variant: str) -> set[int]:
        """The n with any row of the variant (complete or from an older schema): rewriting them must delete first."""
        return {r[0] for r in self.rows("SELECT n FROM builds WHERE variant = ?", [variant])}

    def graph_ns(self, graph: str) -> set[int]:
        rows = self.rows("SELECT n FROM graph_layers WHERE graph = ?", [graph])
        return {r[0] for r in rows}

    def status(self) -> list[dict[str, Any]]:
        """Per variant: every n with a summary row (`ns`), those of them built with --summary-only
        (`summary_ns`), and the positions and moves of the layers stored in full (a full layer's
        summary row without its positions is left out: `zeckdb verify` names it)."""
        rows = self.rows(
            """WITH stored AS (SELECT DISTINCT v.variant, p.n FROM position_rows p JOIN variant_ids v USING (variant_id)
                               UNION SELECT DISTINCT variant, n FROM position_rows_wide),
                    built AS (SELECT b.* FROM builds b LEFT JOIN stored s USING (variant, n)
                              WHERE b.summary_only OR s.n IS NOT NULL)  -- a full layer's row without its positions is no layer
               SELECT b.variant, list(b.n ORDER BY b.n), list(b.n ORDER BY b.n) FILTER (summary_only),
                      coalesce(sum(b.positions) FILTER (NOT summary_only), 0),
                      coalesce(sum(b.edges) FILTER (NOT summary_only), 0), sum(b.seconds)
               FROM built b GROUP BY b.variant ORDER BY b.variant""")
        return [dict(variant=v, ns=ns, summary_ns=summary or [], positions=int(p), edges=int(e), seconds=float(s))
                for v, ns, summary, p, e, s in rows]

    # -- reading -----------------------------------------------------------
    def run(self, sql: str, params: Params = None, limits: Limits | None = None,
            relations: dict[str, Any] | None = None) -> Result:
        """A user's statement (or a named query's), through the sandboxed executor within `limits`;
        `relations` (name -> pyarrow.Table, a named query's computed rows) are seen by this statement
        alone, on a cursor of its own."""
        if not relations:
            return execute(self._connection(), sql, params, limits or Limits.of(self.settings))
        cursor = self._connection().cursor()
        try:
            for name, table in relations.items():
                cursor.register(name, table)
            return execute(cursor, sql, params, limits or Limits.of(self.settings))
        finally:
            cursor.close()

    def stream(self, sql: str, params: Params, limits: Limits,
               emit: Callable[[list[str], list[tuple[Any, ...]]], None]) -> tuple[list[str], int, int | None]:
        """A user's statement through the sandboxed executor, its rows handed to `emit` a block at a time."""
        return execute_streaming(self._connection(), sql, params, limits, emit)

    def rows(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """The rows of zeckdb's own SQL (never a user's text: that goes through `run`)."""
        return self._connection().execute(sql, params).fetchall()

    def arrow(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> Any:
        """zeckdb's own SQL as a pyarrow.Table, read on a cursor of its own (a thread may call it)."""
        cursor = self._connection().cursor()
        try:
            return cursor.sql(sql, params=params).to_arrow_table()
        finally:
            cursor.close()

    @contextmanager
    def arrow_batches(self, sql: str, params: list[Any] | dict[str, Any] | None = None,
                      rows: int = 1 << 18) -> Iterator[Any]:
        """zeckdb's own SQL as a pyarrow.RecordBatchReader of `rows` rows at a time, on a cursor of
        its own (a thread may call it): what reads it holds one batch, not the whole answer."""
        cursor = self._connection().cursor()
        try:
            yield cursor.sql(sql, params=params).to_arrow_reader(rows)
        finally:
            cursor.close()

    def layer_checksums(self, table: str, name: str, ns: list[int]) -> dict[int, int]:
        """The checksums of layers ns' rows of `positions` (of variant `name`) or `edges` (of
        graph `name`) as stored now."""
        cursor = self._connection().cursor()
        try:
            return layer_checksums(cursor, table, name, ns)
        finally:
            cursor.close()

    def reader(self) -> Store:
        """A reader of this open database with a connection of its own (for another thread),
        sharing the moves' cache; close it when done."""
        reader = Store(OpenFile(self.path, self._connection().cursor(), None, self.settings), self.move_values)
        reader.positions = self.positions.sharing(reader._connection)  # what it learned holds while the file is open
        return reader

    def interrupt(self) -> None:
        """Stop the statement this reader's connection runs now, from another thread."""
        self.file.interrupt()

    def build_rows(self, variant: str, ns: list[int] | None = None) -> list[dict[str, Any]]:
        """The builds rows (but the checksums) of a variant, of every n or of `ns`, by n."""
        cur = self._connection().execute(
            "SELECT * EXCLUDE (positions_checksum, edges_checksum) FROM builds "
            "WHERE variant = $variant AND ($ns IS NULL OR list_contains($ns, n)) ORDER BY n",
            {"variant": variant, "ns": ns})
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def require_built(self, variant: str, n: int, positions: bool = True) -> None:
        """Raise NotBuiltError unless layer n is built (with `positions`: in full, not --summary-only)."""
        found = self.rows("SELECT summary_only FROM builds WHERE variant = ? AND n = ?", [variant, n])
        row = found[0] if found else None
        if row and row[0] and positions:
            raise NotBuiltError(f"n = {n} was built with --summary-only: build it in full to look up positions "
                                f"({self.suggested(f'build --variant {variant} --n {n}')})")
        if not row:
            if self.build_running():
                raise NotBuiltError(f"n = {n} is not built yet: {self.path} holds no {variant} positions for n = {n}, "
                                    "and a build is writing it; try again once it has committed that n")
            raise NotBuiltError(f"{printable(str(self.path))} holds no {variant} positions for n = {n}: run "
                                f"{self.suggested(f'build --variant {variant} --n {n}')}")

    def summary(self, variant: str, n: int) -> dict[str, Any]:
        self.require_built(variant, n, positions=False)
        cur = self._connection().execute("SELECT * FROM builds WHERE variant = ? AND n = ?", [variant, n])
        names = [d[0] for d in cur.description]
        return dict(zip(names, cur.fetchone() or (), strict=False))

    def layer_moves(self, graph: str, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """A graph layer's stored moves in the graph's direction: (src, dst, code) as arrays, and
        whether some move leaves the layer (those are not among them)."""
        graph_id = self.positions.stored_id("graph", graph)
        if graph_id is None:
            empty = np.empty(0, dtype=np.int64)
            return empty, empty, empty, False
        within = self.arrow("SELECT src, dst, code FROM edge_rows WHERE graph_id = ? AND n = ?", [graph_id, n])
        across = self.rows("SELECT count(*) FROM edge_rows_across WHERE graph_id = ? AND n = ?", [graph_id, n])[0][0]
        src, dst, code = (within.column(c).to_numpy().astype(np.int64) for c in ("src", "dst", "code"))
        return src, dst, code, across > 0

    def probe(self, variant: str, places: list[tuple[int, int]],
              columns: list[str] = PROBE_COLUMNS) -> dict[tuple[int, int], dict[str, Any]]:
        """`columns` of the positions at these (n, id), by (n, id) (absent ones are left out)."""
        return self.positions.probe(variant, places, columns)

    def probe_moves(self, variant: str, places: list[tuple[int, int]]) -> dict[tuple[int, int], dict[str, Any]]:
        """MOVE_COLUMNS of the positions at these (n, id), from the cache where there is one."""
        if self.move_values is None:
            return self.positions.probe(variant, places, MOVE_COLUMNS)
        found = {}
        for n, i in places:
            arrays = self.move_values.layer(variant, n, self.positions.layer_values)
            if arrays is not None and 0 <= i < len(arrays[0]):
                win, remoteness, seat = (int(a[i]) for a in arrays)
                found[n, i] = {"n": n, "id": i, "outcome": {1: "win", 0: "loss"}.get(win),
                               "remoteness": remoteness if remoteness >= 0 else None,
                               "forcing_seat": seat if seat >= 0 else None}
        return found
