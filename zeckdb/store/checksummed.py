"""A layer's checksums as its stored rows give them (zeckdb.checksums defines the hash), and
the summary checksum of the rows a layer writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Generator

import duckdb

from ..tuning import CHECKSUM_READ_ROWS
from .layout import LEAN_COLUMNS, POSITIONS_TABLES, name_id, shown_column, stored_terminal_wins, variant_key

if TYPE_CHECKING:
    from .records import LayerTables


def layer_checksum(con: duckdb.DuckDBPyConnection, table: str, name: str, n: int) -> int:
    """The checksum (zeckdb.checksums, revision 0012) of a layer's rows of the view `table`
    ('positions' of a variant, 'edges' of a graph) as stored (layer_checksums)."""
    return layer_checksums(con, table, name, [n])[n]


def layer_checksums(con: duckdb.DuckDBPyConnection, table: str, name: str, ns: list[int]) -> dict[int, int]:
    """The checksums of layers ns, read back together a batch at a time from the tables behind
    the view (one query per table, not per layer: a query costs more than hashing a small
    layer's rows): a column the view shows as NULL for a table's rows is left out, as the
    hash allows (reading the view cost more than hashing what it read). A layer with no rows
    has the checksum of none."""
    from ..checksums import COLUMNS, checksum, checksums_by_layer

    if table == "positions":
        variant_id = name_id(con, "variant", name)
        terminal = stored_terminal_wins(con, name)
        sources = [(t, *variant_key(t, name, variant_id), [shown_column(t, c, terminal) for c in COLUMNS[table]
                                                           if t == "position_rows_wide" or c in LEAN_COLUMNS])
                   for t in POSITIONS_TABLES]
    else:
        graph_id = name_id(con, "graph", name)
        sources = [("edge_rows", "graph_id", graph_id, ["src", "dst", "code"]),
                   ("edge_rows_across", "graph_id", graph_id, ["src", "dst", "code", "dst_n"])]

    def batches() -> Generator[Any, None, None]:  # one table's result at a time: a connection has one open
        for source, column, key, columns in sources:
            if key is None:  # nothing of it was ever stored in this table
                continue
            reader = con.sql(f"SELECT n, {', '.join(columns)} FROM {source} WHERE {column} = $key "
                             "AND n BETWEEN $lo AND $hi AND list_contains($ns, n)",
                             params={"key": key, "ns": ns, "lo": min(ns), "hi": max(ns)}
                             ).to_arrow_reader(CHECKSUM_READ_ROWS)
            try:
                yield from reader
            finally:  # a result left open would refuse the connection's next statement
                reader.close()

    read = batches()
    try:
        sums = checksums_by_layer(read, table, name)
    finally:
        read.close()
    return {n: sums[n] if n in sums else checksum([], table, name, n) for n in ns}


# The SQL types of the summary checksum's columns (zeckdb.checksums.SUMMARY_COLUMNS), as the rows
# are read back: a value is coded by its type (DOUBLE, text, whole number).
SUMMARY_TYPES = {"builds": {"start_position": "string", "games": "string", "games_approx": "float64",
                            "expected_length": "float64", "summary_only": "bool_", "teams": "uint64"},
                 "random_play": {"p1_wins_random": "float64", "p1_wins_p1_perfect": "float64",
                                 "p1_wins_p2_perfect": "float64"}}


def summary_rows_checksum(variant: str, n: int, build: dict[str, Any], random_play: dict[str, Any] | None,
                          lengths: Any) -> int:
    """The summary checksum (zeckdb.checksums.summary_checksum) of a layer's rows as they are
    written: its builds row's values (`build`), its random_play row, its length rows (Arrow)."""
    import pyarrow as pa

    from ..checksums import SUMMARY_COLUMNS, summary_checksum

    def table(name: str, row: dict[str, Any]) -> Any:
        types = SUMMARY_TYPES[name]
        return pa.table({c: pa.array([row.get(c, False if c == "summary_only" else None)],
                                     getattr(pa, types.get(c, "int64"))()) for c in SUMMARY_COLUMNS[name]})

    tables = {"builds": table("builds", build), "length_distribution": lengths}
    if random_play is not None:
        tables["random_play"] = table("random_play", random_play)
    return summary_checksum(tables, variant, n)


def rows_checksums(layer: LayerTables) -> dict[str, int]:
    """A layer's checksums from its rows as made (LayerTables.checksums): what the store
    computes from them as it writes them, computed where the rows are made instead (a
    cluster's worker, so that the driver does not hash every row it ingests)."""
    from ..checksums import checksum

    sums = {"positions": checksum([layer.positions], "positions", layer.variant, layer.n),
            "summary": summary_rows_checksum(layer.variant, layer.n, layer.build, layer.random_play,
                                             layer.length_rows())}
    if layer.edges is not None:
        sums["edges"] = checksum([layer.edges], "edges", layer.graph, layer.n)
    return sums
