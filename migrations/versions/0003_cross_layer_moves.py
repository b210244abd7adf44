"""Moves that leave their layer: edges.dst_n, carried by the moves view.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22

In the Black Hole games a move can drop the value by F_m, in Fibonacci nim a
move lowers the pile: the child lives in another layer. edges.dst_n names that
layer (NULL: the move stays in the layer, as every move of the older variants
does, so their rows need no rewrite).
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def moves_view(with_dst_n: bool) -> str:
    forward_n, reversed_n = (", coalesce(e.dst_n, e.n) AS dst_n", ", e.n AS dst_n") if with_dst_n else ("", "")
    # Two branches rather than CASE expressions, so that filters on src or dst reach the edges scan.
    # Reversed variants play graphs whose moves stay in the layer (the engine checks it).
    return f"""
    CREATE OR REPLACE VIEW moves AS
    SELECT v.variant, e.n, e.src, e.dst, e.code, m.name AS move{forward_n}
    FROM edges e
    JOIN variants v ON v.graph = e.graph AND NOT v.reversed
    JOIN move_names m ON m.variant = v.variant AND m.code = e.code
    UNION ALL
    SELECT v.variant, e.n, e.dst AS src, e.src AS dst, e.code, m.name AS move{reversed_n}
    FROM edges e
    JOIN variants v ON v.graph = e.graph AND v.reversed
    JOIN move_names m ON m.variant = v.variant AND m.code = e.code"""


def upgrade() -> None:
    op.execute("ALTER TABLE edges ADD COLUMN dst_n SMALLINT")  # layer of dst; NULL = the edge's own n
    op.execute(moves_view(with_dst_n=True))


def downgrade() -> None:
    op.execute(moves_view(with_dst_n=False))
    op.execute("ALTER TABLE edges DROP COLUMN dst_n")
