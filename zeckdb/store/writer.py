"""The build's one writer (StoreWriter.open_write opens it). It commits layers and summaries,
registers games, and lets the file go to readers between commits; it reads through a Store
of its own (`reads`) on the same file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterable
from concurrent.futures import Future
import contextlib

import duckdb
import numpy as np

from .. import interrupts
from ..version import ENGINE_VERSION
from ..locking import Gate
from ..settings import DEFAULTS, Settings
from ..tuning import CHECKPOINT_ROWS, STAGED_ROWS
from .layout import LAYER_TABLES, lean_holds, lean_rows, variant_key
from .connections import _connect, _rollback, transaction
from .checksummed import layer_checksum, summary_rows_checksum
from .paths import resolve_db_path
from .schema import SCHEMA_HEAD, _check_writable, _connect_checked, _upgrade
from .records import GameRecord, LayerTables, SummaryRecord, _Staged, _done, positions_table
from .database import OpenFile, Store

if TYPE_CHECKING:
    from concurrent.futures import Executor


def _hashed(layer: LayerTables, kind: str, hasher: Executor, hash_rows: Callable[..., int], *rows: Any) -> Future[int]:
    """A layer's checksum of one `kind`: the one it came with (LayerTables.checksums), or else
    hash_rows(*rows) on the hasher's thread."""
    if layer.checksums is not None and kind in layer.checksums:
        return _done(layer.checksums[kind])
    with interrupts.ctrl_c_held():  # the main thread's, in a distributed build (zeckdb.interrupts)
        return hasher.submit(hash_rows, *rows)


class WriterFile(OpenFile):
    """The file as its one writer holds it: only while it writes. After let_go, the next
    connection() waits for the readers to leave and opens the file again (for as long as they
    take; on_wait is called once when that takes long)."""

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection, gate: Gate, on_wait: Callable[[], None] | None,
                 settings: Settings = DEFAULTS):
        super().__init__(path, con, gate, settings)
        self.gate: Gate = gate  # a writer's file always has its gate
        self.on_wait = on_wait

    def connection(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            self.gate.acquire_write(self.on_wait)
            self._con = _connect(self.path, read_only=False, deadline=None, on_wait=self.on_wait,
                                 settings=self.settings)
        return self._con

    def let_go(self) -> None:
        """Close the file until the next write, so that readers can open it."""
        if self._con is not None:
            con, self._con = self._con, None  # forgotten first: Ctrl-C can land during the close
            con.close()  # a checkpoint: what readers open is the file, not a write-ahead log
        self.gate.release_write()


class StoreWriter:
    """The database open as its only writer: the writes of layers and summaries, and `reads`,
    the Store it reads through on the same file. It holds the file only while it writes
    (let_go, let_readers_in: zeckdb.locking)."""

    def __init__(self, file: WriterFile, upgraded_from: str | None):
        self.file = file
        self.reads = Store(file)
        self.path = file.path
        self.settings = file.settings
        self.upgraded_from = upgraded_from  # the revision the file had before this writer upgraded it
        self._rows_since_checkpoint = 0  # rows committed since its last checkpoint

    @classmethod
    def open_write(cls, db: str | os.PathLike[str] | None = None, on_wait: Callable[[], None] | None = None,
                   settings: Settings = DEFAULTS, clean: Callable[[str], None] | None = None) -> StoreWriter:
        """Open (creating or upgrading) a database as its only writer; a second writer is
        refused, readers are waited for (on_wait is called once when that takes long). DuckDB's
        writer runs the settings' threads. With `clean` (told each thing it removes), what the
        file holds that is not zeckdb's is removed (`zeckdb db upgrade`)."""
        path = resolve_db_path(db, creating=True, settings=settings)
        _check_writable(path)
        gate = Gate(path, create=True)
        try:
            gate.start_build()
            gate.acquire_write(on_wait)
            before = _upgrade(path, deadline=None, settings=settings)
            con = _connect_checked(path, read_only=False, deadline=None, on_wait=on_wait, settings=settings, clean=clean)
        except BaseException:
            gate.abandon()
            raise
        return cls(WriterFile(path, con, gate, on_wait, settings), before)

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def let_go(self) -> None:
        """Close the file until the next write, so that readers can open it."""
        self._rows_since_checkpoint = 0
        self.file.let_go()

    def let_readers_in(self) -> None:
        """Let go of the file if a reader is waiting for it."""
        if self.file.gate.readers_waiting():
            self.let_go()

    # -- writing -----------------------------------------------------------

    def register_variant(self, game: GameRecord) -> None:
        """Store a game's description (its row, move names and columns, and ids for it and
        its graph); a registration that would change nothing writes nothing. A game whose
        layers are stored is never made another game (its graph, direction, players,
        convention, bins, moves or columns changed): that is refused, as a plugin taking the
        name of a game the file holds would corrupt every layer of it."""
        con = self.file.connection()
        described = {"variant": game.variant, **game.facts}
        if self.reads.registered_as(game):
            return
        self.reads.check_same_game(game)
        move_names = [dict(variant=game.variant, code=code, name=name) for code, name in enumerate(game.move_names)]
        columns = [dict(variant=game.variant, position=i + 1, name=name, weight=w)
                   for i, (name, w) in enumerate(game.columns)]
        with transaction(con):
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

    def write_layers(self, records: Iterable[LayerTables]) -> None:
        """Write (replacing) (variant, n) layers in one transaction, all or nothing; when a
        reader waits for the file, the layers written so far are committed and it gets the
        file before the rest (a commit per layer always cost the writer of the default build
        of n = 1..100 117 s against 105 s). Consecutive small layers go into each table in one
        INSERT (a statement's own cost was most of a small layer's write). A layer's positions
        and edges go in before its length distribution is asked for (LayerTables.lengths may
        still be computing it)."""
        from ..settings import pool as named_pool

        con = self.file.connection()
        con.execute("BEGIN TRANSACTION")
        in_transaction = True
        # a layer's rows are hashed on a thread of their own while DuckDB inserts them
        hasher = named_pool(1, "zeckdb-checksums")
        edges_checksums: dict[tuple[str, int], Future[int]] = {}  # variants sharing a graph layer hash its edges once
        staged: list[_Staged] = []  # layers whose old rows are deleted, their new ones not yet inserted
        written = 0  # positions and edges
        try:
            for i, record in enumerate(records):
                if i and self.file.gate.readers_waiting():
                    self._insert_staged(con, staged, edges_checksums, hasher)
                    staged = []
                    con.execute("COMMIT")
                    in_transaction = False
                    self.let_go()  # its close checkpoints what was written
                    written = 0
                    con = self.file.connection()
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
                and lean_holds(s.layer.positions, self.reads.positions.terminal_wins(s.layer.variant)) for s in staged]
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
        found = self.reads.positions.stored_id(kind, name)
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
        """INSERT rows given as dicts, one statement for the rows of the same keys. Every column is
        written: one a row leaves out gets zeckdb's default (head.sql's), never the file's."""
        from .catalog import head_columns

        columns = head_columns(table)
        names = {name for name, _ in columns}
        by_keys: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for row in rows:
            unknown = set(row) - names
            if unknown:
                raise ValueError(f"{table} has no column {sorted(unknown)[0]}")
            by_keys.setdefault(tuple(row), []).append(row)
        for keys, same in by_keys.items():
            given = [name for name, _ in columns if name in keys]
            row_text = "(" + ", ".join("?" if name in keys else default or "NULL" for name, default in columns) + ")"
            con.execute(f"INSERT INTO {table} ({', '.join(f'{chr(34)}{name}{chr(34)}' for name, _ in columns)}) "
                        f"VALUES {', '.join([row_text] * len(same))}", [row[c] for row in same for c in given])

    def write_summary(self, layer: SummaryRecord, replace: bool) -> None:
        """Write one summary-only layer: its builds row and, where the random-play odds were
        computed, its random_play row; one transaction."""
        con = self.file.connection()
        with transaction(con):
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


def upgrade(path: Path, settings: Settings = DEFAULTS, say: Callable[[str], None] | None = None) -> tuple[str | None, str]:
    """Bring the database at `path` (created if missing) to the head revision, as its writer,
    removing what it holds that is not zeckdb's (`say` is told each thing removed): (the revision
    it had, the head revision)."""
    with StoreWriter.open_write(path, settings=settings, clean=say or (lambda _: None)) as store:
        return store.upgraded_from, SCHEMA_HEAD
