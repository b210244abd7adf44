"""Positions read by (n, id) from the two tables behind the view positions (store.layout: the
lean position_rows, the wide position_rows_wide), straight from the tables: planning a query
on the view (a union of two tables) costs a lookup more than the scan itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import duckdb
import numpy as np

from .layout import (LEAN_DERIVED, OUTCOME, POSITIONS_TABLES, PROBE_COLUMNS, lean_stored, lean_values, name_id,
                     stored_terminal_wins, variant_key)


class PositionProbe:
    """A Store's reads of positions across the lean and wide layouts, on the connection
    `connection()` gives. It keeps what it learns of the file while the file is open (ids are
    never reused, a layer's rows stay in their table): the table each variant's rows were last
    found in, the ids names are stored by, each variant's terminal_wins. A reader of the same
    open file for another thread shares them (`sharing`)."""

    def __init__(self, connection: Callable[[], duckdb.DuckDBPyConnection]):
        self._connection = connection
        self._positions_table: dict[str, str] = {}  # per variant, the table its rows were last found in
        self._ids: dict[tuple[str, str], int] = {}  # ids of variants and graphs found so far (stored_id)
        self._terminal: dict[str, bool] = {}  # per variant, its stored terminal_wins

    def sharing(self, connection: Callable[[], duckdb.DuckDBPyConnection]) -> PositionProbe:
        """A probe on another connection of the same open file, sharing what this one learned."""
        other = PositionProbe(connection)
        other._positions_table, other._ids, other._terminal = self._positions_table, self._ids, self._terminal
        return other

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

    def layer_values(self, variant: str, n: int) -> tuple[np.ndarray, ...] | None:
        """MOVE_COLUMNS by id of a complete layer as arrays, NULL as -1 (win: 1, loss: 0);
        None if the layer is not built (yet). Read from the table behind the view that holds
        the layer, its stored columns only: the view's expressions and an ORDER BY cost more
        than computing the columns here and placing each row at its id."""
        found = self._rows("SELECT positions FROM builds WHERE variant = ? AND n = ?", [variant, n])
        if not found:
            return None
        size = found[0][0]
        win = np.full(size, -1, dtype=np.int8)
        remoteness = np.full(size, -1, dtype=np.int32)
        seat = np.full(size, -1, dtype=np.int8)
        for table in self._tables_first(variant):
            lean = table == "position_rows"
            column, key = variant_key(table, variant, self.stored_id("variant", variant) if lean else None)
            if key is None:
                continue
            # LEAN_DERIVED's rules (the outcome's as a flag: its ENUM expression costs more)
            read = ([f"({OUTCOME.sql(self.terminal_wins(variant))})::TINYINT", LEAN_DERIVED["remoteness"].sql]
                    if lean else ["coalesce((outcome = 'win')::TINYINT, -1)", "coalesce(remoteness, -1)",
                                  "coalesce(forcing_seat, -1)"])
            rows = self._connection().execute(
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

    def terminal_wins(self, variant: str) -> bool:
        """Whether the variant is stored with terminal positions that win for the player to move
        (variants.terminal_wins: misère play): the outcome of its position_rows follows it (layout.OUTCOME)."""
        if variant not in self._terminal:
            self._terminal[variant] = stored_terminal_wins(self._connection(), variant)
        return self._terminal[variant]

    def stored_id(self, kind: str, name: str) -> int | None:
        """The id a variant or graph is stored by (name_id), kept once found: an id is never
        reused (register_variant)."""
        if (kind, name) not in self._ids:
            found = name_id(self._connection(), kind, name)
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
            column, key = variant_key(table, variant, self.stored_id("variant", variant) if lean else None)
            if key is None:  # no row of the variant was ever stored there
                continue
            read = lean_stored(columns) if lean else columns
            cur = self._connection().execute(
                f"SELECT {', '.join(['n', 'id', *read])} FROM {table} WHERE {column} = ? AND {where}", [key, *params[1:]])
            rows = cur.fetchall()
            if rows:
                self._positions_table[variant] = table
            for row in rows:
                values = dict(zip(read, row[2:], strict=True))
                found[row[0], row[1]] = {"n": row[0], "id": row[1],
                                         **(lean_values(columns, values, self.terminal_wins(variant)) if lean else values)}
            if len(found) == wanted:
                break
        return found

    def _rows(self, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        return self._connection().execute(sql, params).fetchall()
