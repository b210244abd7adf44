"""Misère play as a value: what a terminal position is worth, and which game a twin is of.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-29

Revision 0016 named each game's convention and derived the lean rows' outcome from its name
('misere'), and the queries that compare a game with its misère twin paired them by a
pattern on their names. Two columns now say the facts those rules read:

- variants.terminal_wins: whether a terminal position (no move) is won by the player to move
  there: true under misère play, false under normal play. The view positions derives the
  outcome of a lean row from it: a win where some move wins, or where no move is left and
  terminal positions win.
- variants.normal_of: the normal-play game a misère twin is made of (its name without
  "-misere", and the same graph), else NULL; a game misère by nature (a plugin's) is no
  twin. The queries join a twin to its game on it.

A file of 0016 gets both from what it stores; no row of a layer changes.
"""

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

LEAN_BINS = 11
COUNT_COLUMNS = 16
COUNTS = ", ".join(f"c{i}" for i in range(1, LEAN_BINS + 1))
NULL_COUNTS = ", ".join(f"NULL::INTEGER AS c{i}" for i in range(LEAN_BINS + 1, COUNT_COLUMNS + 1))
OUTCOME = "ENUM('win', 'loss')"


def positions_view(terminal: str) -> str:
    """The view positions, a lean row's outcome a win where some move wins or where no move is
    left and `terminal` (SQL over the joined variants row v) says terminal positions win."""
    return f"""
    CREATE OR REPLACE VIEW positions AS
    SELECT i.variant, p.n, p.id, {COUNTS}, {NULL_COUNTS},
           CASE WHEN winning_moves > 0 OR (legal_moves = 0 AND {terminal})
                THEN 'win'::{OUTCOME} ELSE 'loss'::{OUTCOME} END AS outcome,
           min_remaining + remoteness_over_min AS remoteness, min_remaining,
           min_remaining + max_over_min AS max_remaining, games_to_end, expected_remaining, grundy, winning_moves,
           is_start, legal_moves = 0 AS is_terminal, in_winning_strategies, legal_moves,
           NULL::SMALLINT[] AS entries, NULL::TINYINT AS forcing_seat, NULL::UBIGINT AS teams
    FROM position_rows p JOIN variant_ids i USING (variant_id) LEFT JOIN variants v ON v.variant = i.variant
    UNION ALL
    SELECT * FROM position_rows_wide"""


def upgrade() -> None:
    op.execute("ALTER TABLE variants ADD COLUMN terminal_wins BOOLEAN DEFAULT false")
    op.execute("UPDATE variants SET terminal_wins = (convention = 'misere')")
    op.execute("ALTER TABLE variants ADD COLUMN normal_of VARCHAR")
    # a twin as zeckdb makes them: misère play, named after a normal game of the file, on its graph
    op.execute("""UPDATE variants SET normal_of = b.variant FROM variants b
                  WHERE variants.convention = 'misere' AND b.convention = 'normal'
                    AND variants.variant = b.variant || '-misere' AND variants.graph = b.graph""")
    op.execute(positions_view("v.terminal_wins"))


def downgrade() -> None:
    op.execute(positions_view("v.convention = 'misere'"))
    op.execute("ALTER TABLE variants DROP COLUMN normal_of")
    op.execute("ALTER TABLE variants DROP COLUMN terminal_wins")
