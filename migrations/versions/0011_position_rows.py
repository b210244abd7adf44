"""Positions stored lean: position_rows and position_rows_wide behind the view positions.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25

DuckDB appends a column left out of an INSERT (NULL) at about the cost of a written one,
so every row of the Zeckendorf and reversed games paid for seven columns they never use:
the count columns c12..c16, `entries` (ordered lists) and `forcing_seat` (games of three
or more players). Now the layers of two-player count-vector games of at most eleven bins
(every game but the quilt game, the ordered game, black-hole-empty-board-12 and the games
of P players) go to position_rows, which has only their columns; the others go to
position_rows_wide, which is the old table under a new name (so the upgrade moves no row).
The view `positions` shows both as before, column for column and type for type, so the
named queries and each layer's positions_checksum (DuckDB's hash of the view's rows, the
same values of the same types as the old table's) are unchanged.
"""

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

LEAN_BINS = 11
COUNT_COLUMNS = 16
SOLVED = ["outcome", "remoteness", "min_remaining", "max_remaining", "games_to_end", "expected_remaining", "grundy",
          "winning_moves", "is_start", "is_terminal", "in_winning_strategies", "legal_moves"]
LEAN_COUNTS = ", ".join(f"c{i}" for i in range(1, LEAN_BINS + 1))
NULL_COUNTS = ", ".join(f"NULL::INTEGER AS c{i}" for i in range(LEAN_BINS + 1, COUNT_COLUMNS + 1))
POSITIONS_VIEW = f"""
    CREATE VIEW positions AS
    SELECT variant, n, id, {LEAN_COUNTS}, {NULL_COUNTS}, {', '.join(SOLVED)},
           NULL::SMALLINT[] AS entries, NULL::TINYINT AS forcing_seat
    FROM position_rows
    UNION ALL
    SELECT * FROM position_rows_wide"""


def upgrade() -> None:
    op.execute("ALTER TABLE positions RENAME TO position_rows_wide")
    counts = ", ".join(f"c{i} INTEGER" for i in range(1, LEAN_BINS + 1))
    op.execute(f"""
        CREATE TABLE position_rows (
            variant VARCHAR NOT NULL,
            n INTEGER NOT NULL,
            id INTEGER NOT NULL,
            {counts},
            outcome ENUM('win', 'loss') NOT NULL,
            remoteness INTEGER NOT NULL,
            min_remaining INTEGER NOT NULL,
            max_remaining INTEGER NOT NULL,
            games_to_end DOUBLE NOT NULL,
            expected_remaining FLOAT NOT NULL,
            grundy INTEGER NOT NULL,
            winning_moves INTEGER NOT NULL,
            is_start BOOLEAN NOT NULL,
            is_terminal BOOLEAN NOT NULL,
            in_winning_strategies BOOLEAN NOT NULL,
            legal_moves INTEGER NOT NULL
        )""")
    op.execute(POSITIONS_VIEW)


def downgrade() -> None:
    op.execute("DROP VIEW positions")
    op.execute("INSERT INTO position_rows_wide BY NAME SELECT * FROM position_rows ORDER BY variant, n, id")
    op.execute("DROP TABLE position_rows")
    op.execute("ALTER TABLE position_rows_wide RENAME TO positions")
