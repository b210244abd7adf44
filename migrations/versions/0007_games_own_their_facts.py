"""Games of three or more players, and the facts a game declares about itself.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24

- variants.players: how many players move in turn (the last mover wins). For games of
  three or more, positions.forcing_seat says which player, counted from the one to move
  (1 = the player to move, P = the one who just moved), can force being the last mover
  against every joint behaviour of the others (NULL where none can), and builds.winner is
  that seat at the start or NULL. The two-player columns (outcome, remoteness, Grundy
  value, winning moves, strategy graph, the random-play odds of Players 1 and 2) are NULL
  for them, so they become nullable.
- variants.shortest_is_n_minus_terms and variants.longest_bound: the length facts a game
  declares (the shortest game is n minus the terms of n's decomposition; Theorem 1.4's
  bound on the longest reversed game), which `lengths` reads instead of naming games.
- builds.decomposition_terms: the number of terms of n's decomposition in the game's
  sequence (Z(n) for the Fibonacci games), where the game has one.

A new column of positions changes the hash of its rows, so each layer's recorded checksum
is recomputed, but only where it still matched its rows: a layer edited by hand before the
upgrade keeps a checksum that `zeckdb verify` rejects.
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

# the columns games of three or more players leave NULL, by table
NULLABLE = {"builds": ["winner", "start_remoteness"],
            "random_play": ["p1_wins_random", "p1_wins_p1_perfect", "p1_wins_p2_perfect"],
            "positions": ["outcome", "remoteness", "grundy", "winning_moves", "in_winning_strategies"]}


def _not_null(action: str) -> None:
    """SET or DROP the NOT NULL of every NULLABLE column."""
    for table, columns in NULLABLE.items():
        for column in columns:
            op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} {action} NOT NULL")
SHORTEST_IS_N_MINUS_Z = ("zeckendorf", "reversed", "ordered")  # the games registered when this revision was written


def _rehash(before: str, after: str) -> str:
    """Each layer's positions checksum as the rows `after` hash (the layout to come), where
    it matched the rows `before` hash (the layout now). `before`, `after`: select lists."""
    def sums(columns: str) -> str:
        return (f"SELECT variant, n, (coalesce(sum(hash(r)), 0) % 18446744073709551616)::UBIGINT AS checksum "
                f"FROM (SELECT {columns} FROM positions) r GROUP BY variant, n")

    return f"""
        UPDATE builds SET positions_checksum = a.checksum
        FROM ({sums(after)}) a JOIN ({sums(before)}) b USING (variant, n)
        WHERE builds.variant = a.variant AND builds.n = a.n AND builds.positions_checksum = b.checksum"""


def upgrade() -> None:
    op.execute("ALTER TABLE variants ADD COLUMN players SMALLINT NOT NULL DEFAULT 2")
    op.execute("ALTER TABLE variants ADD COLUMN shortest_is_n_minus_terms BOOLEAN NOT NULL DEFAULT false")
    op.execute("ALTER TABLE variants ADD COLUMN longest_bound VARCHAR")
    names = ", ".join(f"'{name}'" for name in SHORTEST_IS_N_MINUS_Z)
    op.execute(f"UPDATE variants SET shortest_is_n_minus_terms = variant IN ({names}), "
               "longest_bound = CASE WHEN variant = 'reversed' THEN 'theorem-1.4' END")
    op.execute("ALTER TABLE builds ADD COLUMN decomposition_terms INTEGER")
    op.execute(f"UPDATE builds SET decomposition_terms = z(n) WHERE variant IN ({names})")
    _not_null("DROP")
    op.execute("ALTER TABLE positions ADD COLUMN forcing_seat TINYINT")
    op.execute(_rehash("* EXCLUDE (forcing_seat)", "*"))


def downgrade() -> None:
    for table in ("positions", "builds", "random_play", "length_distribution", "move_names", "variant_columns",
                  "variants"):
        op.execute(f"DELETE FROM {table} WHERE variant IN (SELECT variant FROM variants WHERE players <> 2)")
    op.execute(_rehash("*", "* EXCLUDE (forcing_seat)"))
    op.execute("ALTER TABLE positions DROP COLUMN forcing_seat")
    _not_null("SET")
    op.execute("ALTER TABLE builds DROP COLUMN decomposition_terms")
    for column in ("longest_bound", "shortest_is_n_minus_terms", "players"):
        op.execute(f"ALTER TABLE variants DROP COLUMN {column}")
