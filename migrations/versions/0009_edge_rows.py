"""Edges stored lean: edge_rows and edge_rows_across behind the view edges.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24

A stored edge used to repeat its graph's name and a dst_n that is NULL for every
move staying in its layer. DuckDB appends every column of every row, constant or
not, at about the same cost, so those columns cost the build a third of its edge
writing. Now a graph is a small integer (graph_ids), the moves that stay in their
layer go to edge_rows (no dst_n) and those that leave it to edge_rows_across; the
view `edges` shows them as before, column for column, so `moves`, the named
queries and each layer's edges_checksum (DuckDB's hash of the view's rows, the same
values as the old table's) are unchanged. Rows are stored by (graph, n, code,
src): within one move code the targets rise with the source for the chip games, so
they compress to a few bits each.
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

MOVES_VIEW = """
    CREATE OR REPLACE VIEW moves AS
    SELECT v.variant, e.n, e.src, e.dst, e.code, m.name AS move, coalesce(e.dst_n, e.n) AS dst_n
    FROM edges e
    JOIN variants v ON v.graph = e.graph AND NOT v.reversed
    JOIN move_names m ON m.variant = v.variant AND m.code = e.code
    UNION ALL
    SELECT v.variant, e.n, e.dst AS src, e.src AS dst, e.code, m.name AS move, e.n AS dst_n
    FROM edges e
    JOIN variants v ON v.graph = e.graph AND v.reversed
    JOIN move_names m ON m.variant = v.variant AND m.code = e.code"""


def upgrade() -> None:
    op.execute("CREATE TABLE graph_ids (graph VARCHAR PRIMARY KEY, graph_id SMALLINT NOT NULL UNIQUE)")
    op.execute("""
        INSERT INTO graph_ids
        SELECT graph, (row_number() OVER (ORDER BY graph) - 1)::SMALLINT
        FROM (SELECT graph FROM variants UNION SELECT DISTINCT graph FROM edges)""")
    op.execute("""
        CREATE TABLE edge_rows (
            graph_id SMALLINT NOT NULL,
            n        SMALLINT NOT NULL,
            src      INTEGER NOT NULL,
            dst      INTEGER NOT NULL,
            code     SMALLINT NOT NULL
        )""")
    op.execute("""
        CREATE TABLE edge_rows_across (
            graph_id SMALLINT NOT NULL,
            n        SMALLINT NOT NULL,
            src      INTEGER NOT NULL,
            dst      INTEGER NOT NULL,
            code     SMALLINT NOT NULL,
            dst_n    SMALLINT NOT NULL
        )""")
    for table, where, extra in (("edge_rows", "e.dst_n IS NULL", ""), ("edge_rows_across", "e.dst_n IS NOT NULL", ", e.dst_n")):
        op.execute(f"""
            INSERT INTO {table}
            SELECT g.graph_id, e.n, e.src, e.dst, e.code{extra}
            FROM edges e JOIN graph_ids g USING (graph)
            WHERE {where}
            ORDER BY g.graph_id, e.n, e.code, e.src""")
    op.execute("DROP VIEW moves")
    op.execute("DROP TABLE edges")
    op.execute("""
        CREATE VIEW edges AS
        SELECT g.graph, e.n, e.src, e.dst, e.code, NULL::SMALLINT AS dst_n
        FROM edge_rows e JOIN graph_ids g USING (graph_id)
        UNION ALL
        SELECT g.graph, e.n, e.src, e.dst, e.code, e.dst_n
        FROM edge_rows_across e JOIN graph_ids g USING (graph_id)""")
    op.execute(MOVES_VIEW)


def downgrade() -> None:
    op.execute("DROP VIEW moves")
    op.execute("""
        CREATE TABLE edge_table (graph VARCHAR NOT NULL, n SMALLINT NOT NULL, src INTEGER NOT NULL,
                                 dst INTEGER NOT NULL, code SMALLINT NOT NULL, dst_n SMALLINT)""")
    op.execute("INSERT INTO edge_table SELECT * FROM edges ORDER BY graph, n, src")
    op.execute("DROP VIEW edges")
    op.execute("ALTER TABLE edge_table RENAME TO edges")
    op.execute("DROP TABLE edge_rows")
    op.execute("DROP TABLE edge_rows_across")
    op.execute("DROP TABLE graph_ids")
    op.execute(MOVES_VIEW)
