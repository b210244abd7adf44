"""Each game's convention, and the lean positions' outcome by it.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28

Every game was played under normal play (the last mover wins); a game may now declare misère
play (the last mover loses: docs/games.md). variants.convention names it, 'normal' or 'misere'
('normal' for every game registered before).

position_rows stores a two-player layer's outcome by its winning moves: a win where some move
wins. Under misère play a terminal position (no move) is a win for the player to move, so the
view positions now derives the outcome as "some move wins, or, under misère play, there is no
move", from the game's convention; for every game registered before, nothing changes.
"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

LEAN_BINS = 11
COUNT_COLUMNS = 16
COUNTS = ", ".join(f"c{i}" for i in range(1, LEAN_BINS + 1))
NULL_COUNTS = ", ".join(f"NULL::INTEGER AS c{i}" for i in range(LEAN_BINS + 1, COUNT_COLUMNS + 1))
OUTCOME = "ENUM('win', 'loss')"


def positions_view(by_convention: bool) -> str:
    wins = ("winning_moves > 0 OR (legal_moves = 0 AND v.convention = 'misere')" if by_convention
            else "winning_moves > 0")
    joined = " LEFT JOIN variants v ON v.variant = i.variant" if by_convention else ""
    return f"""
    CREATE OR REPLACE VIEW positions AS
    SELECT i.variant, p.n, p.id, {COUNTS}, {NULL_COUNTS},
           CASE WHEN {wins} THEN 'win'::{OUTCOME} ELSE 'loss'::{OUTCOME} END AS outcome,
           min_remaining + remoteness_over_min AS remoteness, min_remaining,
           min_remaining + max_over_min AS max_remaining, games_to_end, expected_remaining, grundy, winning_moves,
           is_start, legal_moves = 0 AS is_terminal, in_winning_strategies, legal_moves,
           NULL::SMALLINT[] AS entries, NULL::TINYINT AS forcing_seat, NULL::UBIGINT AS teams
    FROM position_rows p JOIN variant_ids i USING (variant_id){joined}
    UNION ALL
    SELECT * FROM position_rows_wide"""


def upgrade() -> None:
    op.execute("ALTER TABLE variants ADD COLUMN convention VARCHAR DEFAULT 'normal'")
    op.execute("UPDATE variants SET convention = 'normal'")
    op.execute(positions_view(by_convention=True))


MISERE = "(SELECT variant FROM variants WHERE convention = 'misere')"


def downgrade() -> None:
    # the previous release knows no misère game, and would read its lean rows as normal play's:
    # its layers go (a rebuild with the release that knows them brings them back)
    op.execute(f"DELETE FROM position_rows WHERE variant_id IN (SELECT variant_id FROM variant_ids "
               f"WHERE variant IN {MISERE})")
    for table in ("position_rows_wide", "builds", "random_play", "length_distribution", "move_names",
                  "variant_columns"):
        op.execute(f"DELETE FROM {table} WHERE variant IN {MISERE}")
    op.execute(f"DELETE FROM variants WHERE variant IN {MISERE}")
    op.execute(positions_view(by_convention=False))
    op.execute("ALTER TABLE variants DROP COLUMN convention")
