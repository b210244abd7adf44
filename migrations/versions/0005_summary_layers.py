"""Summary layers: builds rows without positions, from `zeckdb build --summary-only`.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23

Summary mode solves a layer in one pass and keeps only its builds row (and its
random_play row where the random-play odds fit its memory budget): no positions,
no moves, no length distribution. builds.summary_only marks such rows; the
columns summary mode may not compute (the exact game count, the float columns
past the budget) become nullable.
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

NULLABLE = ["games", "games_approx", "expected_length"]


def upgrade() -> None:
    op.execute("ALTER TABLE builds ADD COLUMN summary_only BOOLEAN NOT NULL DEFAULT false")
    for column in NULLABLE:
        op.execute(f"ALTER TABLE builds ALTER COLUMN {column} DROP NOT NULL")


def downgrade() -> None:
    op.execute("DELETE FROM random_play WHERE EXISTS (SELECT 1 FROM builds b WHERE b.summary_only "
               "AND b.variant = random_play.variant AND b.n = random_play.n)")
    op.execute("DELETE FROM builds WHERE summary_only")
    for column in NULLABLE:
        op.execute(f"ALTER TABLE builds ALTER COLUMN {column} SET NOT NULL")
    op.execute("ALTER TABLE builds DROP COLUMN summary_only")
