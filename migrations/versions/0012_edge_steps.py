"""A move that stays in its layer stores its step, dst - src, instead of dst.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25

edge_rows are stored by (graph, n, code, src). For the chip games a move code is a
fixed change of the key, and ids rank the keys, so within one code the target's id
moves in step with the source's: dst - src stays constant over long runs, which DuckDB
stores as a few runs (RLE) where dst itself needs several bits a row. The view `edges`
gives dst back as src + step, the same INTEGER value, so `moves`, the named queries and
each layer's edges_checksum are unchanged. edge_rows_across (moves into another layer)
keep dst: there src and dst number different layers.
"""

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

MOVES_VIEW = """
    CREATE VIEW moves AS
    SELECT v.variant, e.n, e.src, e.dst, e.code, m.name AS move, coalesce(e.dst_n, e.n) AS dst_n
    FROM edges e
    JOIN variants v ON v.graph = e.graph AND NOT v.reversed
    JOIN move_names m ON m.variant = v.variant AND m.code = e.code
    UNION ALL
    SELECT v.variant, e.n, e.dst AS src, e.src AS dst, e.code, m.name AS move, e.n AS dst_n
    FROM edges e
    JOIN variants v ON v.graph = e.graph AND v.reversed
    JOIN move_names m ON m.variant = v.variant AND m.code = e.code"""


def _edges_view(dst: str) -> str:
    return f"""
        CREATE VIEW edges AS
        SELECT g.graph, e.n, e.src, {dst} AS dst, e.code, NULL::INTEGER AS dst_n
        FROM edge_rows e JOIN graph_ids g USING (graph_id)
        UNION ALL
        SELECT g.graph, e.n, e.src, e.dst, e.code, e.dst_n
        FROM edge_rows_across e JOIN graph_ids g USING (graph_id)"""


def _rewrite(column: str, value: str, dst: str) -> None:
    """edge_rows with its third value column `column` computed as `value`, the views over it anew."""
    op.execute("DROP VIEW moves")
    op.execute("DROP VIEW edges")
    op.execute(f"""
        CREATE TABLE edge_rows_new (
            graph_id INTEGER NOT NULL,
            n INTEGER NOT NULL,
            src INTEGER NOT NULL,
            {column} INTEGER NOT NULL,
            code INTEGER NOT NULL
        )""")
    op.execute(f"INSERT INTO edge_rows_new SELECT graph_id, n, src, {value}, code FROM edge_rows")  # in stored order
    op.execute("DROP TABLE edge_rows")
    op.execute("ALTER TABLE edge_rows_new RENAME TO edge_rows")
    op.execute(_edges_view(dst))
    op.execute(MOVES_VIEW)


def upgrade() -> None:
    _rewrite("step", "dst - src", "e.src + e.step")


def downgrade() -> None:
    _rewrite("dst", "src + step", "e.dst")
