"""Summary rows that keep only the winner (`zeckdb build --summary-only --winner-only`).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01

Summary mode's winner-only state is one byte a position, whether it is won: enough for the
start's winner and the layer's counts, not for its shortest and longest game. Such a row
leaves builds.min_length and builds.max_length NULL (as it leaves start_remoteness, already
nullable since 0007), so they become nullable. No stored row changes.
"""

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

NULLABLE = ["min_length", "max_length"]


def upgrade() -> None:
    for column in NULLABLE:
        op.execute(f"ALTER TABLE builds ALTER COLUMN {column} DROP NOT NULL")


def downgrade() -> None:
    # a winner-only row has no lengths to keep: the layer goes (its random-play row is none)
    op.execute("DELETE FROM builds WHERE min_length IS NULL OR max_length IS NULL")
    for column in NULLABLE:
        op.execute(f"ALTER TABLE builds ALTER COLUMN {column} SET NOT NULL")
