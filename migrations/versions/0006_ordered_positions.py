"""Positions that are ordered lists: positions.entries.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23

In the ordered Zeckendorf game a position is a list of Fibonacci numbers whose
order matters, so its counts (c1, c2, ...: how many of each F_i) no longer say
which position it is. positions.entries holds the entries left to right for
variants whose positions are ordered (NULL for the count-vector games, so their
rows need no rewrite).
"""

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE positions ADD COLUMN entries SMALLINT[]")


def downgrade() -> None:
    op.execute("DELETE FROM positions WHERE entries IS NOT NULL")
    op.execute("ALTER TABLE positions DROP COLUMN entries")
