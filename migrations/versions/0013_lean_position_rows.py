"""position_rows stores no column another gives: a variant is a small integer, and the
outcome, the remoteness, the longest game and is_terminal follow from other columns.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25

Every row of position_rows (the two-player count-vector games, most of a file) carried its
variant's name as text, and four columns the view can compute from others:

    outcome        'win' exactly when winning_moves > 0 (a position is won when a move wins)
    is_terminal    legal_moves = 0
    remoteness     stored as remoteness - min_remaining (remoteness_over_min)
    max_remaining  stored as max_remaining - min_remaining (max_over_min)

The two differences are smaller numbers than the values, so they take fewer bits. The view
`positions` shows every column as before, type for type, so the named queries and each
layer's checksums (zeckdb.checksums hashes the view's values) are unchanged. A variant is
now variant_ids.variant_id, as a graph is graph_ids.graph_id (revision 0009).

A layer whose stored outcome or is_terminal disagrees with its other columns (an edit made
by hand before the upgrade) is moved to position_rows_wide, which stores every column, so
that the edit is kept and `zeckdb verify` still catches it. The downgrade computes the
dropped columns back.
"""

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

LEAN_BINS = 11
COUNT_COLUMNS = 16
COUNTS = ", ".join(f"c{i}" for i in range(1, LEAN_BINS + 1))
COUNT_DEFINITIONS = ", ".join(f"c{i} INTEGER" for i in range(1, LEAN_BINS + 1))
NULL_COUNTS = ", ".join(f"NULL::INTEGER AS c{i}" for i in range(LEAN_BINS + 1, COUNT_COLUMNS + 1))
OUTCOME = "ENUM('win', 'loss')"
# what the view shows of each column position_rows stores by others
OUTCOME_SQL = f"CASE WHEN winning_moves > 0 THEN 'win'::{OUTCOME} ELSE 'loss'::{OUTCOME} END"
REMOTENESS_SQL = "min_remaining + remoteness_over_min"
MAX_REMAINING_SQL = "min_remaining + max_over_min"
IS_TERMINAL_SQL = "legal_moves = 0"
DERIVED = "(outcome = 'win') <> (winning_moves > 0) OR is_terminal <> (legal_moves = 0)"

POSITIONS_VIEW = f"""
    CREATE OR REPLACE VIEW positions AS
    SELECT i.variant, p.n, p.id, {COUNTS}, {NULL_COUNTS},
           {OUTCOME_SQL} AS outcome, {REMOTENESS_SQL} AS remoteness, min_remaining,
           {MAX_REMAINING_SQL} AS max_remaining, games_to_end, expected_remaining, grundy, winning_moves,
           is_start, {IS_TERMINAL_SQL} AS is_terminal, in_winning_strategies, legal_moves,
           NULL::SMALLINT[] AS entries, NULL::TINYINT AS forcing_seat
    FROM position_rows p JOIN variant_ids i USING (variant_id)
    UNION ALL
    SELECT * FROM position_rows_wide"""

# revision 0011's view, over the table the downgrade brings back
OLD_POSITIONS_VIEW = f"""
    CREATE OR REPLACE VIEW positions AS
    SELECT variant, n, id, {COUNTS}, {NULL_COUNTS}, outcome, remoteness, min_remaining, max_remaining,
           games_to_end, expected_remaining, grundy, winning_moves, is_start, is_terminal,
           in_winning_strategies, legal_moves, NULL::SMALLINT[] AS entries, NULL::TINYINT AS forcing_seat
    FROM position_rows
    UNION ALL
    SELECT * FROM position_rows_wide"""


def upgrade() -> None:
    op.execute("CREATE TABLE variant_ids (variant VARCHAR PRIMARY KEY, variant_id SMALLINT NOT NULL UNIQUE)")
    op.execute("""
        INSERT INTO variant_ids
        SELECT variant, (row_number() OVER (ORDER BY variant) - 1)::SMALLINT
        FROM (SELECT variant FROM variants UNION SELECT DISTINCT variant FROM position_rows)""")
    op.execute("ALTER TABLE position_rows RENAME TO position_rows_0012")
    op.execute(f"""
        CREATE TABLE position_rows (
            variant_id SMALLINT NOT NULL,
            n INTEGER NOT NULL,
            id INTEGER NOT NULL,
            {COUNT_DEFINITIONS},
            remoteness_over_min INTEGER NOT NULL,
            min_remaining INTEGER NOT NULL,
            max_over_min INTEGER NOT NULL,
            games_to_end DOUBLE NOT NULL,
            expected_remaining FLOAT NOT NULL,
            grundy INTEGER NOT NULL,
            winning_moves INTEGER NOT NULL,
            is_start BOOLEAN NOT NULL,
            in_winning_strategies BOOLEAN NOT NULL,
            legal_moves INTEGER NOT NULL
        )""")
    edited = f"SELECT DISTINCT variant, n FROM position_rows_0012 WHERE {DERIVED}"
    op.execute(f"""
        INSERT INTO position_rows_wide BY NAME
        SELECT * FROM position_rows_0012 WHERE (variant, n) IN ({edited}) ORDER BY variant, n, id""")
    op.execute(f"""
        INSERT INTO position_rows
        SELECT i.variant_id, p.n, p.id, {COUNTS}, remoteness - min_remaining, min_remaining,
               max_remaining - min_remaining, games_to_end, expected_remaining, grundy, winning_moves, is_start,
               in_winning_strategies, legal_moves
        FROM position_rows_0012 p JOIN variant_ids i USING (variant)
        WHERE (p.variant, p.n) NOT IN ({edited})
        ORDER BY i.variant_id, p.n, p.id""")
    op.execute("DROP TABLE position_rows_0012")
    op.execute(POSITIONS_VIEW)


def downgrade() -> None:
    op.execute("ALTER TABLE position_rows RENAME TO position_rows_0013")
    op.execute(f"""
        CREATE TABLE position_rows (
            variant VARCHAR NOT NULL,
            n INTEGER NOT NULL,
            id INTEGER NOT NULL,
            {COUNT_DEFINITIONS},
            outcome {OUTCOME} NOT NULL,
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
    op.execute(f"""
        INSERT INTO position_rows
        SELECT i.variant, p.n, p.id, {COUNTS}, {OUTCOME_SQL}, {REMOTENESS_SQL}, min_remaining, {MAX_REMAINING_SQL},
               games_to_end, expected_remaining, grundy, winning_moves, is_start, {IS_TERMINAL_SQL},
               in_winning_strategies, legal_moves
        FROM position_rows_0013 p JOIN variant_ids i USING (variant_id)
        ORDER BY i.variant, p.n, p.id""")
    op.execute("DROP TABLE position_rows_0013")
    op.execute("DROP TABLE variant_ids")
    op.execute(OLD_POSITIONS_VIEW)
