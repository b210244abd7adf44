"""The Store: a database open for reading or writing under the locks (zeckdb.locking), what
is built, the writes of layers and summaries, and zeckdb's own reads.
"""

from __future__ import annotations

from contextlib import contextmanager
import os
from pathlib import Path
import time
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
import contextlib

import duckdb
import numpy as np

from .. import interrupts
from ..errors import DatabaseError, NotBuiltError, opt
from ..version import ENGINE_VERSION
from ..executor import Limits, Params, Result, run as execute, stream as execute_streaming
from ..locking import Gate
from ..settings import current
from ..tuning import CHECKPOINT_ROWS, STAGED_ROWS
from .layout import (LAYER_TABLES, LEAN_DERIVED, MOVE_COLUMNS, POSITIONS_TABLES, PROBE_COLUMNS, lean_holds, lean_rows,
                     lean_stored, lean_values, lean_wins_sql, name_id, stored_misere, variant_key)
from .connections import _connect, _rollback, _transaction, close_connection
from .checksummed import layer_checksum, layer_checksums, summary_rows_checksum
from .paths import resolve_db_path
from .schema import SCHEMA_HEAD, _check_writable, _connect_checked, _upgrade
from .records import GameRecord, LayerCache, LayerTables, SummaryRecord, _Staged, _done, positions_table

if TYPE_CHECKING:
    from concurrent.futures import Executor


def _hashed(layer: LayerTables, kind: str, hasher: Executor, hash_rows: Callable[..., int], *rows: Any) -> Future[int]:
    """A layer's checksum of one `kind`: the one it came with (LayerTables.checksums), or else
    hash_rows(*rows) on the hasher's thread."""
    if layer.checksums is not None and kind in layer.checksums:
        return _done(layer.checksums[kind])
    with interrupts.ctrl_c_held():  # the main thread's, in a distributed build (zeckdb.interrupts)
        return hasher.submit(hash_rows, *rows)


class Store:
    """An open zeckdb database. Use `Store.open_read` or `Store.open_write`.

    A reader holds the file from open to close. A writer holds it only while it
    writes: `let_go` closes the file so that readers can open it (zeckdb.locking),
    and its next read or write waits for them and opens it again."""

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection | None, writable: bool,
                 gate: Gate | None = None, on_wait: Callable[[], None] | None = None,
                 move_values: LayerCache | None = None):
        self.path = path
        self.move_values = move_values  # a long-lived reader's cache of the moves' values
        self._con = con
        self.writable = writable
        self.gate = gate
        self.on_wait = on_wait  # a writer's: called once when it waits long for readers
        self.upgraded_from: str | None = None
        self._rows_since_checkpoint = 0  # a writer's: rows committed since its last checkpoint
        self._positions_table: dict[str, str] = {}  # per variant, the table its rows were last found in
        self._ids: dict[tuple[str, str], int] = {}  # ids of variants and graphs found so far (Store._stored_id)
        self._conventions: dict[str, bool] = {}  # per variant, whether it is of misère play (Store._misere)

    def _connection_waiting(self) -> duckdb.DuckDBPyConnection:
        """The open connection; a writer that has let go waits here for the readers to leave
        and opens the file again (for as long as they take)."""
        if self._con is None:
            if not self.writable or self.gate is None:
                raise DatabaseError(f"{self.path} is closed")
            self.gate.acquire_write(self.on_wait)
            self._con = _connect(self.path, read_only=False, deadline=None, on_wait=self.on_wait)
        return self._con

    # -- opening -----------------------------------------------------------
    @classmethod
    def open_read(cls, db: str | os.PathLike[str] | None = None, timeout: float | None = None,
                  memory_limit: str | None = None) -> Store:
        """Open a built database read-only; while a build writes it, wait for its current
        commit (at most `timeout` s, default the read_wait_seconds setting) and read what is
        committed. memory_limit: DuckDB's for this process's readers (e.g. "2GB"), default the
        memory_limit setting."""
        path = resolve_db_path(db)
        timeout = current().read_wait_seconds if timeout is None else timeout
        if not path.exists():
            raise DatabaseError(
                f"no database at {path}: build one with `zeckdb build` (or pass {opt('db')} PATH / set ZECKDB_DB)"
            )
        gate = Gate(path)
        try:
            gate.acquire_read(timeout)
            con = _connect_checked(path, read_only=True, deadline=time.monotonic() + timeout,
                                   memory_limit=memory_limit)
        except BaseException:
            gate.close()
            raise
        return cls(path, con, writable=False, gate=gate)

    @classmethod
    def open_write(cls, db: str | os.PathLike[str] | None = None, on_wait: Callable[[], None] | None = None) -> Store:
        """Open (creating or upgrading) a database as its only writer; a second writer is
        refused, readers are waited for (on_wait is called once when that takes long)."""
        path = resolve_db_path(db, creating=True)
        _check_writable(path)
        gate = Gate(path, create=True)
        try:
            gate.start_build()
            gate.acquire_write(on_wait)
            before = _upgrade(path, deadline=None)
            con = _connect_checked(path, read_only=False, deadline=None, on_wait=on_wait)
        except BaseException:
            gate.abandon()
            raise
        store = cls(path, con, writable=True, gate=gate, on_wait=on_wait)
        store.upgraded_from = before
        return store

    def let_go(self) -> None:
        """A writer's: close the file until the next write, so that readers can open it."""
        if self._con is not None:
            con, self._con = self._con, None  # forgotten first: Ctrl-C can land during the close
            self._rows_since_checkpoint = 0
            con.close()  # a checkpoint: what readers open is the file, not a write-ahead log
        if self.gate is not None:
            self.gate.release_write()

    def let_readers_in(self) -> None:
        """A writer's: let go of the file if a reader is waiting for it."""
        if self.gate is not None and self.gate.readers_waiting():
            self.let_go()

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

    # -- writing -----------------------------------------------------------
    def register_variant(self, game: GameRecord) -> None:
        """Store a game's description (its row, move names and columns, and ids for it and
        its graph); a registration that would change nothing writes nothing."""
        con = self._connection_waiting()
        described = {"variant": game.variant, **game.facts}
        move_names = [dict(variant=game.variant, code=code, name=name) for code, name in enumerate(game.move_names)]
        columns = [dict(variant=game.variant, position=i + 1, name=name, weight=w)
                   for i, (name, w) in enumerate(game.columns)]
        if self._registered_as(con, described, move_names, columns):
            return
        with _transaction(con):
            con.execute("DELETE FROM move_names WHERE variant = ?", [game.variant])
            con.execute("DELETE FROM variant_columns WHERE variant = ?", [game.variant])
            con.execute("DELETE FROM variants WHERE variant = ?", [game.variant])
            for kind, name in (("graph", game.graph), ("variant", game.variant)):  # ids are never reused
                con.execute(f"""INSERT INTO {kind}_ids
                                SELECT $name, (SELECT coalesce(max({kind}_id) + 1, 0) FROM {kind}_ids)
                                WHERE NOT EXISTS (SELECT 1 FROM {kind}_ids WHERE {kind} = $name)""", {"name": name})
            self._insert_values(con, "variants", [described])
            self._insert_values(con, "move_names", move_names)
            self._insert_values(con, "variant_columns", columns)

    @staticmethod
    def _registered_as(con: duckdb.DuckDBPyConnection, described: dict[str, Any],
                       move_names: list[dict[str, Any]], columns: list[dict[str, Any]]) -> bool:
        """Whether the file already holds exactly this registration (ids included)."""
        def stored(table: str, names: Iterable[str], order: str = "") -> list[tuple[Any, ...]]:
            return con.execute(f"SELECT {', '.join(names)} FROM {table} WHERE variant = ? {order}",
                               [described["variant"]]).fetchall()

        return (stored("variants", described) == [tuple(described.values())]
                and stored("move_names", ["variant", "code", "name"], "ORDER BY code")
                == [tuple(r.values()) for r in move_names]
                and stored("variant_columns", ["variant", "position", "name", "weight"], "ORDER BY position")
                == [tuple(r.values()) for r in columns]
                and con.execute("SELECT count(*) FROM variant_ids WHERE variant = ?",
                                [described["variant"]]).fetchone() == (1,)
                and con.execute("SELECT count(*) FROM graph_ids WHERE graph = ?",
                                [described["graph"]]).fetchone() == (1,))

    def write_layers(self, records: Iterable[LayerTables]) -> None:
        """Write (replacing) (variant, n) layers in one transaction, all or nothing; when a
        reader waits for the file, the layers written so far are committed and it gets the
        file before the rest (a commit per layer always cost the writer of the default build
        of n = 1..100 117 s against 105 s). Consecutive small layers go into each table in one
        INSERT (a statement's own cost was most of a small layer's write). A layer's positions
        and edges go in before its length distribution is asked for (LayerTables.lengths may
        still be computing it)."""
        from ..settings import pool as settings_pool

        con = self._connection_waiting()
        con.execute("BEGIN TRANSACTION")
        in_transaction = True
        # a layer's rows are hashed on a thread of their own while DuckDB inserts them
        hasher = settings_pool(1, "zeckdb-checksums")
        edges_checksums: dict[tuple[str, int], Future[int]] = {}  # variants sharing a graph layer hash its edges once
        staged: list[_Staged] = []  # layers whose old rows are deleted, their new ones not yet inserted
        written = 0  # positions and edges
        try:
            for i, record in enumerate(records):
                if i and self.gate is not None and self.gate.readers_waiting():
                    self._insert_staged(con, staged, edges_checksums, hasher)
                    staged = []
                    con.execute("COMMIT")
                    in_transaction = False
                    self.let_go()  # its close checkpoints what was written
                    written = 0
                    con = self._connection_waiting()
                    con.execute("BEGIN TRANSACTION")
                    in_transaction = True
                staged.append(self._stage_layer(con, record, edges_checksums, hasher))
                written += staged[-1].rows
                if sum(s.rows for s in staged) >= STAGED_ROWS:  # a large layer is inserted at once
                    self._insert_staged(con, staged, edges_checksums, hasher)
                    staged = []
            self._insert_staged(con, staged, edges_checksums, hasher)
            con.execute("COMMIT")
        except BaseException:
            if in_transaction:
                _rollback(con)
            raise
        finally:
            with interrupts.ctrl_c_held():
                hasher.shutdown(cancel_futures=True)
        # Left to the connection's close, one checkpoint would take every layer committed
        # since the writer was last idle and merge their row groups, rewriting much of them
        # and leaving the old blocks free inside the file; checkpointing once CHECKPOINT_ROWS
        # rows were committed keeps the merges to the newest, small row groups. (After every
        # commit, the checkpoints of the many small layers cost more than writing them.)
        self._rows_since_checkpoint += written
        if self._rows_since_checkpoint >= CHECKPOINT_ROWS:
            con.execute("CHECKPOINT")
            self._rows_since_checkpoint = 0

    def _stage_layer(self, con: duckdb.DuckDBPyConnection, layer: LayerTables,
                     edges_checksums: dict[tuple[str, int], Future[int]], hasher: Executor) -> _Staged:
        """Delete what a layer replaces and start hashing its rows; its rows wait for
        _insert_staged."""
        from ..checksums import checksum

        name, n = layer.variant, layer.n
        # the checksums of the rows as inserted, by zeckdb's own hash (zeckdb.checksums)
        positions_checksum = _hashed(layer, "positions", hasher, checksum, [layer.positions], "positions", name, n)
        if layer.edges is not None:
            edges_checksums[layer.graph, n] = _hashed(layer, "edges", hasher, checksum, [layer.edges], "edges",
                                                      layer.graph, n)
        variant_id = self._registered_id("variant", name)
        if layer.replace:  # a scan per table: on a big file, skipping it for new layers saves the writer seconds
            for table in LAYER_TABLES:
                column, key = variant_key(table, name, variant_id)
                con.execute(f"DELETE FROM {table} WHERE {column} = ? AND n = ?", [key, n])
        graph_id = None
        if layer.edges is not None:
            graph_id = self._registered_id("graph", layer.graph)
            if layer.replace:
                for table in ("edge_rows", "edge_rows_across"):
                    con.execute(f"DELETE FROM {table} WHERE graph_id = ? AND n = ?", [graph_id, n])
                con.execute("DELETE FROM graph_layers WHERE graph = ? AND n = ?", [layer.graph, n])
        return _Staged(layer, variant_id, graph_id, positions_checksum)

    def _insert_staged(self, con: duckdb.DuckDBPyConnection, staged: list[_Staged],
                       edges_checksums: dict[tuple[str, int], Future[int]], hasher: Executor) -> None:
        """Insert the rows of staged layers, one INSERT per table: positions and edges, then
        (once computed) the length distributions, then the builds rows with their checksums."""
        import pyarrow.compute as pc

        if not staged:
            return
        lean = [positions_table(s.layer.positions.column_names) == "position_rows"
                and lean_holds(s.layer.positions, self._misere(s.layer.variant)) for s in staged]
        self._insert_layers(con, "position_rows", [(lean_rows(s.layer.positions), {"variant_id": s.variant_id,
                                                                                   "n": s.layer.n})
                                                   for s, is_lean in zip(staged, lean, strict=True) if is_lean])
        self._insert_layers(con, "position_rows_wide", [(s.layer.positions, {"variant": s.layer.variant,
                                                                             "n": s.layer.n})
                                                        for s, is_lean in zip(staged, lean, strict=True) if not is_lean])
        within, across = [], []  # a layer's moves staying in it (edge_rows), and leaving it (migration 0009)
        graph_layers = []
        for s in staged:
            edges = s.layer.edges
            if edges is None:
                continue
            assert s.layer.graph_size is not None  # edges come with their graph layer's size
            graph_layers.append({"graph": s.layer.graph, "n": s.layer.n, "positions": s.layer.graph_size[0],
                                 "edges": s.layer.graph_size[1]})
            constants = {"graph_id": s.graph_id, "n": s.layer.n}
            if "dst_n" not in edges.column_names:
                within.append((edges, constants))
                continue
            leaves = pc.is_valid(edges["dst_n"])
            within.append((edges.filter(pc.invert(leaves)).select(["src", "dst", "code"]), constants))
            across.append((edges.filter(leaves), constants))
        self._insert_layers(con, "edge_rows", within)
        self._insert_layers(con, "edge_rows_across", across)
        self._insert_values(con, "graph_layers", graph_layers)
        # the length distributions last of the rows, as they may still be computed meanwhile
        lengths = [s.layer.length_rows() for s in staged]
        summary_checksums = [_hashed(s.layer, "summary", hasher, summary_rows_checksum, s.layer.variant, s.layer.n,
                                     s.layer.build, s.layer.random_play, rows)  # while DuckDB inserts them
                             for s, rows in zip(staged, lengths, strict=True)]
        self._insert_layers(con, "length_distribution", [
            (rows, {"variant": s.layer.variant, "n": s.layer.n})
            for s, rows in zip(staged, lengths, strict=True) if rows is not None])
        builds, played = [], []
        for s, summary_checksum in zip(staged, summary_checksums, strict=True):
            layer = s.layer
            edges_checksum = edges_checksums.get((layer.graph, layer.n))
            if edges_checksum is None:  # the graph layer was written before
                edges_checksum = edges_checksums[layer.graph, layer.n] = _done(
                    layer_checksum(con, "edges", layer.graph, layer.n))
            builds.append({"variant": layer.variant, "n": layer.n, **layer.build,
                           "positions_checksum": interrupts.result(s.positions_checksum),
                           "edges_checksum": interrupts.result(edges_checksum),
                           "summary_checksum": interrupts.result(summary_checksum)})
            if layer.random_play is not None:
                played.append({"variant": layer.variant, "n": layer.n, **layer.random_play})
        self._insert_values(con, "builds", builds)
        self._insert_values(con, "random_play", played)

    def _registered_id(self, kind: str, name: str) -> int:
        found = self._stored_id(kind, name)
        if found is None:
            raise RuntimeError(f"{kind} {name!r} has no id: Store.register_variant comes before its layers")
        return found

    @classmethod
    def _insert_layers(cls, con: duckdb.DuckDBPyConnection, table: str,
                       layers: list[tuple[Any, dict[str, Any]]]) -> None:
        """INSERT the rows of several layers (Arrow tables, each with the values of its
        constant columns) in one statement; one layer's constants are bound as parameters."""
        import pyarrow as pa

        layers = [(rows, constants) for rows, constants in layers if rows.num_rows]
        if len(layers) == 1:
            cls._insert_rows(con, table, *layers[0])
        elif layers:
            tables = []
            for rows, constants in layers:
                for column, value in reversed(constants.items()):
                    values = (pa.array(np.full(rows.num_rows, value, dtype=np.int32)) if isinstance(value, int)
                              else pa.array([value] * rows.num_rows, pa.string()))
                    rows = rows.add_column(0, column, values)
                tables.append(rows)
            cls._insert_rows(con, table, pa.concat_tables(tables, promote_options="permissive"), {})

    @staticmethod
    def _insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Any, constants: dict[str, Any]) -> None:
        """INSERT an Arrow table's columns (by name) with the same `constants` on every row."""
        con.register("incoming", rows)
        names = list(constants) + rows.column_names
        selected = [f"${k}" for k in constants] + rows.column_names
        try:
            con.execute(f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(selected)} FROM incoming",
                        constants)
        except BaseException:
            with contextlib.suppress(duckdb.Error):  # an aborted transaction refuses it: the first error stands
                con.unregister("incoming")
            raise
        con.unregister("incoming")

    @staticmethod
    def _insert_values(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]]) -> None:
        """INSERT rows given as dicts, one statement for the rows of the same keys."""
        by_columns: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for row in rows:
            by_columns.setdefault(tuple(row), []).append(row)
        for columns, same in by_columns.items():
            values = ", ".join(["(" + ", ".join("?" * len(columns)) + ")"] * len(same))
            con.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values}",
                        [row[c] for row in same for c in columns])

    def write_summary(self, layer: SummaryRecord, replace: bool) -> None:
        """Write one summary-only layer: its builds row and, where the random-play odds were
        computed, its random_play row; one transaction."""
        con = self._connection_waiting()
        with _transaction(con):
            if replace:
                for table in ("builds", "random_play"):
                    con.execute(f"DELETE FROM {table} WHERE variant = ? AND n = ?", [layer.variant, layer.n])
            checksum = summary_rows_checksum(layer.variant, layer.n, layer.build, layer.random_play, None)
            self._insert_values(con, "builds", [{"variant": layer.variant, "n": layer.n, **layer.build,
                                                 "seconds": layer.seconds, "engine_version": ENGINE_VERSION,
                                                 "summary_checksum": checksum}])
            if layer.random_play is not None:
                self._insert_values(con, "random_play", [{"variant": layer.variant, "n": layer.n,
                                                          **layer.random_play}])

    # -- reading -----------------------------------------------------------
    def run(self, sql: str, params: Params = None, limits: Limits | None = None,
            relations: dict[str, Any] | None = None) -> Result:
        """A user's statement (or a named query's), through the sandboxed executor within `limits`;
        `relations` (name -> pyarrow.Table, a named query's computed rows) are seen by this statement
        alone, on a cursor of its own."""
        if not relations:
            return execute(self._connection_waiting(), sql, params, limits or Limits())
        cursor = self._connection_waiting().cursor()
        try:
            for name, table in relations.items():
                cursor.register(name, table)
            return execute(cursor, sql, params, limits or Limits())
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
        reader = Store(self.path, self._connection_waiting().cursor(), writable=False, move_values=self.move_values)
        # what the file says of where a variant's rows are holds while it is open: ids are never reused
        reader._ids, reader._positions_table = self._ids, self._positions_table
        return reader

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
                                f"(`zeckdb build --variant {variant} --n {n}`)")
        if not row:
            if self.build_running():
                raise NotBuiltError(f"n = {n} is not built yet: {self.path} holds no {variant} positions for n = {n}, "
                                    "and a build is writing it; try again once it has committed that n")
            raise NotBuiltError(
                f"{self.path} holds no {variant} positions for n = {n}: run `zeckdb build --variant {variant} --n {n}`"
            )

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
            read = ([f"({lean_wins_sql(self._misere(variant))})::TINYINT", LEAN_DERIVED["remoteness"].sql]
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

    def _misere(self, variant: str) -> bool:
        """Whether the variant is stored as a game of misère play (variants.convention): the
        outcome of its position_rows follows it (layout.outcome_sql)."""
        if variant not in self._conventions:
            self._conventions[variant] = stored_misere(self._connection_waiting(), variant)
        return self._conventions[variant]

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
                                         **(lean_values(columns, values, self._misere(variant)) if lean else values)}
            if len(found) == wanted:
                break
        return found

def upgrade(path: Path) -> tuple[str | None, str]:
    """Bring the database at `path` (created if missing) to the head revision, as its writer:
    (the revision it had, the head revision)."""
    with Store.open_write(path) as store:
        return store.upgraded_from, SCHEMA_HEAD
