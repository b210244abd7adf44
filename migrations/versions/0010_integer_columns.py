"""Whole-number columns of positions and of the edges stored as INTEGER.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24

DuckDB appends a SMALLINT column to a file markedly slower than an INTEGER one and
stores both in the same few bits (bit packing), so the columns of positions and of
edge_rows / edge_rows_across that were SMALLINT are now INTEGER: the values are the same,
only their type is wider. A row's hash depends on its columns' types, so each layer's
checksums are recomputed, but only where they matched the rows before: a layer edited by
hand before the upgrade keeps a checksum that `zeckdb verify` rejects.
"""

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

COUNT_COLUMNS = 16
WIDENED = {
    "positions": ["n", *(f"c{i}" for i in range(1, COUNT_COLUMNS + 1)), "remoteness", "min_remaining",
                  "max_remaining", "grundy", "winning_moves", "legal_moves"],
    "edge_rows": ["graph_id", "n", "code"],  # graph_ids.graph_id stays SMALLINT: a join key, not appended
    "edge_rows_across": ["graph_id", "n", "code", "dst_n"],
}
CHECKSUM = "(coalesce(sum(hash(r)), 0) % 18446744073709551616)::UBIGINT"


def _edges_view(dst_n_type: str) -> str:
    return f"""
        CREATE OR REPLACE VIEW edges AS
        SELECT g.graph, e.n, e.src, e.dst, e.code, NULL::{dst_n_type} AS dst_n
        FROM edge_rows e JOIN graph_ids g USING (graph_id)
        UNION ALL
        SELECT g.graph, e.n, e.src, e.dst, e.code, e.dst_n
        FROM edge_rows_across e JOIN graph_ids g USING (graph_id)"""


def _checksums(into: str) -> None:
    """Each layer's checksums as its rows hash now, into the temporary table `into`."""
    op.execute(f"""
        CREATE TEMPORARY TABLE {into} AS
        SELECT b.variant, b.n, p.checksum AS positions_checksum, e.checksum AS edges_checksum
        FROM builds b JOIN variants v USING (variant)
        LEFT JOIN (SELECT variant, n, {CHECKSUM} AS checksum FROM positions r GROUP BY variant, n) p
            ON p.variant = b.variant AND p.n = b.n
        LEFT JOIN (SELECT graph, n, {CHECKSUM} AS checksum FROM edges r GROUP BY graph, n) e
            ON e.graph = v.graph AND e.n = b.n""")


def _retype(to: str) -> None:
    """Every column of WIDENED to the type `to`; a layer's recorded checksum follows its rows
    only where it matched them before."""
    _checksums("before_retype")
    for table, columns in WIDENED.items():
        for column in columns:
            op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE {to}")
    op.execute(_edges_view(to))
    _checksums("after_retype")
    for column in ("positions_checksum", "edges_checksum"):
        op.execute(f"""
            UPDATE builds SET {column} = coalesce(a.{column}, 0)
            FROM after_retype a JOIN before_retype b USING (variant, n)
            WHERE builds.variant = a.variant AND builds.n = a.n
              AND builds.{column} = coalesce(b.{column}, 0)""")
    op.execute("DROP TABLE before_retype")
    op.execute("DROP TABLE after_retype")


def upgrade() -> None:
    _retype("INTEGER")


def downgrade() -> None:
    _retype("SMALLINT")
