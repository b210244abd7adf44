"""Layer checksums: each summary row records a checksum of its layer's rows.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22

`zeckdb verify` recomputes them, so that a row deleted or edited by hand is
caught. A checksum is the sum, modulo 2^64, of DuckDB's hash of every row:
independent of row order. (Revision 0012 replaced DuckDB's hash with zeckdb's own,
zeckdb.checksums.)
Layers built before this revision have NULL checksums until rebuilt.
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE builds ADD COLUMN positions_checksum UBIGINT")  # the layer's rows of positions
    op.execute("ALTER TABLE builds ADD COLUMN edges_checksum UBIGINT")  # the rows of edges of its graph layer


def downgrade() -> None:
    op.execute("ALTER TABLE builds DROP COLUMN edges_checksum")
    op.execute("ALTER TABLE builds DROP COLUMN positions_checksum")
