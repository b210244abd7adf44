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
from .layout import (LEAN_DERIVED, MOVE_COLUMNS, POSITIONS_TABLES, PROBE_COLUMNS, lean_stored, lean_values,
                     OUTCOME, name_id, stored_terminal_wins, variant_key)
from .connections import close_connection
from .checksummed import layer_checksums
from .paths import resolve_db_path, suggested
from .schema import _connect_checked
from .records import GameRecord, LayerCache

# what a game is, in the facts of its variants row: a registration that changes one of them
# under stored layers makes them another game's (Store.check_same_game)
IDENTITY_FACTS = ("graph", "reversed", "players", "convention", "bins", "text_width")


class Store:
    """An open zeckdb database. Use `Store.open_read` (a writer: `StoreWriter.open_write`).

    A reader holds the file from open to close. A writer holds it only while it
    writes: `let_go` closes the file so that readers can open it (zeckdb.locking),
    and its next read or write waits for them and opens it again."""

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection | None, gate: Gate | None = None,
                 move_values: LayerCache | None = None, settings: Settings = DEFAULTS):
        self.path = path
        self.settings = settings  # the door's: its limits, and which file its advice may leave unnamed
        self.move_values = move_values  # a long-lived reader's cache of the moves' values
        self._con = con
        self.gate = gate
        self._positions_table: dict[str, str] = {}  # per variant, the table its rows were last found in
        self._ids: dict[tuple[str, str], int] = {}  # ids of variants and graphs found so far (Store._stored_id)
        self._terminal: dict[str, bool] = {}  # per variant, its stored terminal_wins (Store._terminal_wins)

    def _connection_waiting(self) -> duckdb.DuckDBPyConnection:
        """The open connection (a writer that has let go opens it again here: StoreWriter)."""
        if self._con is None:
            raise DatabaseError(f"{self.path} is closed")
        return self._con

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
        return cls(path, con, gate=gate, settings=settings)

    def suggested(self, words: str) -> str:
        """`zeckdb WORDS` to suggest for this database, with its --db unless the door finds it by itself."""
        return suggested(words, self.path, self.settings)

    def build_running(self) -> bool:
        """Whether a build is writing this database (this store's own build included)."""
        if self.gate is not None:
            return self.gate.build_running()
        probe = Gate(self.path)
        try:
            return probe.build_running()
        finally:
            probe.close()

    def close(self) -> None:
        try:
            if self._con is not None:
                con, self._con = self._con, None
                close_connection(con)
        finally:
            if self.gate is not None:
                self.gate.close()

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
        (`summary_ns`), and the positions and moves of the layers stored in full."""
        rows = self.rows(
            """SELECT b.variant, list(b.n ORDER BY b.n), list(b.n ORDER BY b.n) FILTER (summary_only),
                      coalesce(sum(b.positions) FILTER (NOT summary_only), 0),
                      coalesce(sum(b.edges) FILTER (NOT summary_only), 0), sum(b.seconds)
               FROM builds b GROUP BY b.variant ORDER BY b.variant""")
        return [dict(variant=v, ns=ns, summary_ns=summary or [], positions=int(p), edges=int(e), seconds=float(s))
                for v, ns, summary, p, e, s in rows]

    # -- reading -----------------------------------------------------------
    def run(self, sql: str, params: Params = None, limits: Limits | None = None,
            relations: dict[str, Any] | None = None) -> Result:
        """A user's statement (or a named query's), through the sandboxed executor within `limits`;
        `relations` (name -> pyarrow.Table, a named query's computed rows) are seen by this statement
        alone, on a cursor of its own."""
        if not relations:
            return execute(self._connection_waiting(), sql, params, limits or Limits.of(self.settings))
        cursor = self._connection_waiting().cursor()
        try:
            for name, table in relations.items():
                cursor.register(name, table)
            return execute(cursor, sql, params, limits or Limits.of(self.settings))
        finally:
            cursor.close()

    def stream(self, sql: str, params: Params, limits: Limits,
               emit: Callable[[list[str], list[tuple[Any, ...]]], None]) -> tuple[list[str], int, int | None]:
        """A user's statement through the sandboxed executor, its rows handed to `emit` a block at a time."""
        return execute_streaming(self._connection_waiting(), sql, params, limits, emit)

    def rows(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """The rows of zeckdb's own SQL (never a user's text: that goes through `run`)."""
        return self._connection_waiting().execute(sql, params).fetchall()

    def arrow(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> Any:
        """zeckdb's own SQL as a pyarrow.Table, read on a cursor of its own (a thread may call it)."""
        cursor = self._connection_waiting().cursor()
        try:
            return cursor.sql(sql, params=params).to_arrow_table()
        finally:
            cursor.close()

    @contextmanager
    def arrow_batches(self, sql: str, params: list[Any] | dict[str, Any] | None = None,
                      rows: int = 1 << 18) -> Iterator[Any]:
        """zeckdb's own SQL as a pyarrow.RecordBatchReader of `rows` rows at a time, on a cursor of
        its own (a thread may call it): what reads it holds one batch, not the whole answer."""
        cursor = self._connection_waiting().cursor()
        try:
            yield cursor.sql(sql, params=params).to_arrow_reader(rows)
        finally:
            cursor.close()

    def layer_checksums(self, table: str, name: str, ns: list[int]) -> dict[int, int]:
        """The checksums of layers ns' rows of `positions` (of variant `name`) or `edges` (of
        graph `name`) as stored now."""
        cursor = self._connection_waiting().cursor()
        try:
            return layer_checksums(cursor, table, name, ns)
        finally:
            cursor.close()

    def reader(self) -> Store:
        """A reader of this open database with a connection of its own (for another thread),
        sharing the moves' cache; close it when done."""
        reader = Store(self.path, self._connection_waiting().cursor(), move_values=self.move_values,
                       settings=self.settings)
        # what the file says of where a variant's rows are holds while it is open: ids are never reused
        reader._ids, reader._positions_table = self._ids, self._positions_table
        return reader

    def interrupt(self) -> None:
        """Stop the statement this reader's connection runs now, from another thread (DuckDB
        raises duckdb.InterruptException in the one that runs it)."""
        con = self._con
        if con is not None:
            with contextlib.suppress(duckdb.Error):  # closed meanwhile: nothing runs on it to stop
                con.interrupt()

    def build_rows(self, variant: str, ns: list[int] | None = None) -> list[dict[str, Any]]:
        """The builds rows (but the checksums) of a variant, of every n or of `ns`, by n."""
        cur = self._connection_waiting().execute(
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
        cur = self._connection_waiting().execute("SELECT * FROM builds WHERE variant = ? AND n = ?", [variant, n])
        names = [d[0] for d in cur.description]
        return dict(zip(names, cur.fetchone() or (), strict=False))

    def probe(self, variant: str, places: list[tuple[int, int]],
              columns: list[str] = PROBE_COLUMNS) -> dict[tuple[int, int], dict[str, Any]]:
        """`columns` of the positions at these (n, id), by (n, id) (absent ones are left out)."""
        by_layer: dict[int, list[int]] = {}
        for n, i in places:
            by_layer.setdefault(n, []).append(i)
        if len(by_layer) <= 4:  # an id list per layer: the zone maps find them in a few milliseconds
            found = {}
            for n, ids in by_layer.items():
                found.update(self._probe(f"n = ? AND id IN ({', '.join('?' * len(ids))})", [variant, n, *ids],
                                         columns, len(set(ids))))
            return found
        # moves into many layers (Fibonacci nim: one per move): one join
        return self._probe("(n, id) IN (SELECT (unnest(?::INTEGER[]), unnest(?::INTEGER[])))",
                           [variant, [n for n, _ in places], [i for _, i in places]], columns, len(set(places)))

    def layer_moves(self, graph: str, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """A graph layer's stored moves in the graph's direction: (src, dst, code) as arrays, and
        whether some move leaves the layer (those are not among them)."""
        graph_id = self._stored_id("graph", graph)
        if graph_id is None:
            empty = np.empty(0, dtype=np.int64)
            return empty, empty, empty, False
        within = self.arrow("SELECT src, dst, code FROM edge_rows WHERE graph_id = ? AND n = ?", [graph_id, n])
        across = self.rows("SELECT count(*) FROM edge_rows_across WHERE graph_id = ? AND n = ?", [graph_id, n])[0][0]
        src, dst, code = (within.column(c).to_numpy().astype(np.int64) for c in ("src", "dst", "code"))
        return src, dst, code, across > 0

    def layer_values(self, variant: str, n: int) -> tuple[np.ndarray, ...] | None:
        """MOVE_COLUMNS by id of a complete layer as arrays, NULL as -1 (win: 1, loss: 0);
        None if the layer is not built (yet). Read from the table behind the view that holds
        the layer, its stored columns only: the view's expressions and an ORDER BY cost more
        than computing the columns here and placing each row at its id."""
        found = self.rows("SELECT positions FROM builds WHERE variant = ? AND n = ?", [variant, n])
        if not found:
            return None
        size = found[0][0]
        win = np.full(size, -1, dtype=np.int8)
        remoteness = np.full(size, -1, dtype=np.int32)
        seat = np.full(size, -1, dtype=np.int8)
        for table in self._tables_first(variant):
            lean = table == "position_rows"
            column, key = variant_key(table, variant, self._stored_id("variant", variant) if lean else None)
            if key is None:
                continue
            # LEAN_DERIVED's rules (the outcome's as a flag: its ENUM expression costs more)
            read = ([f"({OUTCOME.sql(self._terminal_wins(variant))})::TINYINT", LEAN_DERIVED["remoteness"].sql]
                    if lean else ["coalesce((outcome = 'win')::TINYINT, -1)", "coalesce(remoteness, -1)",
                                  "coalesce(forcing_seat, -1)"])
            rows = self._connection_waiting().execute(
                f"SELECT id, {', '.join(read)} FROM {table} WHERE {column} = ? AND n = ?", [key, n]).fetchnumpy()
            ids, *values = (np.asarray(rows[name]) for name in rows)
            if not len(ids):
                continue
            self._positions_table[variant] = table
            if ids.min() < 0 or ids.max() >= size:  # rows edited by hand out of their layer's ids are not looked up
                inside = (ids >= 0) & (ids < size)
                ids, values = ids[inside], [v[inside] for v in values]
            for array, column_values in zip((win, remoteness, seat), values, strict=False):
                array[ids] = column_values
            if len(ids) == size:  # the whole layer is in this table
                break
        return win, remoteness, seat

    def probe_moves(self, variant: str, places: list[tuple[int, int]]) -> dict[tuple[int, int], dict[str, Any]]:
        """MOVE_COLUMNS of the positions at these (n, id), from the cache where there is one."""
        if self.move_values is None:
            return self.probe(variant, places, MOVE_COLUMNS)
        found = {}
        for n, i in places:
            arrays = self.move_values.layer(variant, n, self.layer_values)
            if arrays is not None and 0 <= i < len(arrays[0]):
                win, remoteness, seat = (int(a[i]) for a in arrays)
                found[n, i] = {"n": n, "id": i, "outcome": {1: "win", 0: "loss"}.get(win),
                               "remoteness": remoteness if remoteness >= 0 else None,
                               "forcing_seat": seat if seat >= 0 else None}
        return found

    def _terminal_wins(self, variant: str) -> bool:
        """Whether the variant is stored with terminal positions that win for the player to move
        (variants.terminal_wins: misère play): the outcome of its position_rows follows it (layout.OUTCOME)."""
        if variant not in self._terminal:
            self._terminal[variant] = stored_terminal_wins(self._connection_waiting(), variant)
        return self._terminal[variant]

    def _stored_id(self, kind: str, name: str) -> int | None:
        """The id a variant or graph is stored by (name_id), kept once found: an id is never
        reused (register_variant)."""
        if (kind, name) not in self._ids:
            found = name_id(self._connection_waiting(), kind, name)
            if found is None:
                return None
            self._ids[kind, name] = found
        return self._ids[kind, name]

    def _tables_first(self, variant: str) -> list[str]:
        """The tables behind the view positions, the one the variant's rows were last found in
        first (a layer's rows are in one of them: a file upgraded to revision 0011 keeps its
        older layers in position_rows_wide)."""
        first = self._positions_table.get(variant, "position_rows")
        return [first, *(t for t in POSITIONS_TABLES if t != first)]

    def _probe(self, where: str, params: list[Any], columns: list[str],
               wanted: int) -> dict[tuple[int, int], dict[str, Any]]:
        """The rows found, read from the tables behind the view positions: planning a query on
        the view (a union of two tables) costs a lookup more than the scan itself. The second
        table (_tables_first) is read only for the `wanted` positions not found in the first."""
        variant = params[0]
        found: dict[tuple[int, int], dict[str, Any]] = {}
        for table in self._tables_first(variant):
            lean = table == "position_rows"
            column, key = variant_key(table, variant, self._stored_id("variant", variant) if lean else None)
            if key is None:  # no row of the variant was ever stored there
                continue
            read = lean_stored(columns) if lean else columns
            cur = self._connection_waiting().execute(
                f"SELECT {', '.join(['n', 'id', *read])} FROM {table} WHERE {column} = ? AND {where}", [key, *params[1:]])
            rows = cur.fetchall()
            if rows:
                self._positions_table[variant] = table
            for row in rows:
                values = dict(zip(read, row[2:], strict=True))
                found[row[0], row[1]] = {"n": row[0], "id": row[1],
                                         **(lean_values(columns, values, self._terminal_wins(variant)) if lean else values)}
            if len(found) == wanted:
                break
        return found
