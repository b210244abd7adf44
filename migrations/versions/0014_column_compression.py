"""The big tables name each column's compression: DuckDB no longer tries every method on every
column it writes.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26

Before DuckDB writes a column segment it analyses the values with each compression method that
applies (bit packing, run lengths, ...) and keeps the smallest. For position_rows, edge_rows and
edge_rows_across that analysis was a fifth of a core build's CPU. The method each column gets is
the one DuckDB chose for nearly all of its segments in every game it was measured on (the core
games, Fibonacci nim, the build-up and Black Hole games, n = 1..150): run lengths where a value
repeats for a whole layer or for long runs (the variant, the graph, n, the move code by which a
layer's moves are sorted, the layer a move reaches, the higher bins, the start flag), bit packing
where it changes from row to row (ids, the lowest bins, the solved numbers). Columns whose
segments took either method in some game (c3, c4, the legal moves, the longest game), the
booleans of the strategies and the floats are left to DuckDB. No value and no type changes;
the tables are rewritten with their rows in the same order.
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

RUNS, PACKED = "rle", "bitpacking"
COMPRESSION = {
    "position_rows": {
        "variant_id": RUNS, "n": RUNS, "id": PACKED, "c1": PACKED, "c2": PACKED,
        **{f"c{i}": RUNS for i in range(5, 12)},
        "remoteness_over_min": PACKED, "min_remaining": PACKED, "grundy": PACKED, "winning_moves": PACKED,
        "is_start": RUNS,
    },
    "edge_rows": {"graph_id": RUNS, "n": RUNS, "src": PACKED, "dst": PACKED, "code": RUNS},
    "edge_rows_across": {"graph_id": RUNS, "n": RUNS, "src": PACKED, "dst": PACKED, "code": RUNS, "dst_n": RUNS},
}
# the tables as revision 0013 left them, column by column
COLUMNS = {
    "position_rows": [
        ("variant_id", "SMALLINT NOT NULL"), ("n", "INTEGER NOT NULL"), ("id", "INTEGER NOT NULL"),
        *((f"c{i}", "INTEGER") for i in range(1, 12)),
        ("remoteness_over_min", "INTEGER NOT NULL"), ("min_remaining", "INTEGER NOT NULL"),
        ("max_over_min", "INTEGER NOT NULL"), ("games_to_end", "DOUBLE NOT NULL"),
        ("expected_remaining", "FLOAT NOT NULL"), ("grundy", "INTEGER NOT NULL"), ("winning_moves", "INTEGER NOT NULL"),
        ("is_start", "BOOLEAN NOT NULL"), ("in_winning_strategies", "BOOLEAN NOT NULL"),
        ("legal_moves", "INTEGER NOT NULL"),
    ],
    "edge_rows": [("graph_id", "INTEGER NOT NULL"), ("n", "INTEGER NOT NULL"), ("src", "INTEGER NOT NULL"),
                  ("dst", "INTEGER NOT NULL"), ("code", "INTEGER NOT NULL")],
    "edge_rows_across": [("graph_id", "INTEGER NOT NULL"), ("n", "INTEGER NOT NULL"), ("src", "INTEGER NOT NULL"),
                         ("dst", "INTEGER NOT NULL"), ("code", "INTEGER NOT NULL"), ("dst_n", "INTEGER NOT NULL")],
}


def _rewrite(table: str, compressed: bool) -> None:
    """The table created again, each column with its compression (or none named), and its rows
    copied in their order. The views name the table, not the object, so they read the new one."""
    methods = COMPRESSION[table] if compressed else {}
    columns = []
    for name, definition in COLUMNS[table]:
        kind, _, rest = definition.partition(" ")
        using = f" USING COMPRESSION {methods[name]}" if name in methods else ""
        columns.append(f"{name} {kind}{using} {rest}".rstrip())
    op.execute(f"ALTER TABLE {table} RENAME TO {table}_before")
    op.execute(f"CREATE TABLE {table} ({', '.join(columns)})")
    op.execute(f"INSERT INTO {table} SELECT * FROM {table}_before")
    op.execute(f"DROP TABLE {table}_before")


def upgrade() -> None:
    for table in COMPRESSION:
        _rewrite(table, compressed=True)


def downgrade() -> None:
    for table in COMPRESSION:
        _rewrite(table, compressed=False)
