"""Teams in the games of three or more players, the bound their papers prove, and a checksum of
each layer's summary rows.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26

A team is a set of seats; it can force a win when its members, coordinating, can make the
last mover one of theirs against every joint play of the others (Cusenza et al.,
arXiv:2009.03708). For a game of P <= 6 players a position's teams that can force a win fit
one 64-bit mask over the 2^P seat sets:

    positions.teams  bit t set: the team of the seats whose bits t holds (bit j: the player j
                     seats after the one to move, as forcing_seat counts them) can force a win
    builds.teams     the same at the start, where the seats are the players (bit j: Player j + 1)

Both are NULL in two-player games, and in layers built before this revision (a build with
--force fills them). A layer's positions checksum covers its teams; NULL teams add nothing to
it, so the checksums recorded before stay true, and the downgrade rewrites those that hashed
teams to the hash of the rows it leaves. variants.forcing_bound is a fact a game declares: the n from which a
theorem proves that no player can force a win from the start (Miller, Sosis and Ye's
3c^2 + 6c + 3 for P >= c + 2 players), NULL where none applies.

position_rows (two-player games only) gains no column: the view shows NULL teams for its rows.

builds.summary_checksum covers what no other check re-derives: the layer's builds row, its
random_play row and its length distribution (zeckdb.checksums.summary_checksum), written with
the layer; the upgrade computes it from each layer's rows as they are.
"""

from pathlib import Path
import runpy

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

LEAN_BINS = 11
COUNT_COLUMNS = 16
COUNTS = ", ".join(f"c{i}" for i in range(1, LEAN_BINS + 1))
NULL_COUNTS = ", ".join(f"NULL::INTEGER AS c{i}" for i in range(LEAN_BINS + 1, COUNT_COLUMNS + 1))
OUTCOME = "ENUM('win', 'loss')"
# the hashes as this revision defines them, whatever zeckdb.checksums computes later
FROZEN = runpy.run_path(str(Path(__file__).resolve().parent.parent / "frozen_checksums.py"))


def positions_view(teams: bool) -> str:
    return f"""
    CREATE OR REPLACE VIEW positions AS
    SELECT i.variant, p.n, p.id, {COUNTS}, {NULL_COUNTS},
           CASE WHEN winning_moves > 0 THEN 'win'::{OUTCOME} ELSE 'loss'::{OUTCOME} END AS outcome,
           min_remaining + remoteness_over_min AS remoteness, min_remaining,
           min_remaining + max_over_min AS max_remaining, games_to_end, expected_remaining, grundy, winning_moves,
           is_start, legal_moves = 0 AS is_terminal, in_winning_strategies, legal_moves,
           NULL::SMALLINT[] AS entries, NULL::TINYINT AS forcing_seat{", NULL::UBIGINT AS teams" if teams else ""}
    FROM position_rows p JOIN variant_ids i USING (variant_id)
    UNION ALL
    SELECT * FROM position_rows_wide"""


def _summary_checksums(con) -> None:
    """Each layer's summary checksum, from its rows as they are (zeckdb.checksums.summary_checksum)."""
    SUMMARY_COLUMNS, summary_checksum = FROZEN["SUMMARY_COLUMNS"], FROZEN["summary_checksum"]

    layers = con.execute("SELECT variant, n FROM builds").fetchall()
    for variant, n in layers:
        tables = {table: con.sql(f"SELECT {', '.join(columns)} FROM {table} WHERE variant = $variant AND n = $n",
                                 params={"variant": variant, "n": n}).to_arrow_table()
                  for table, columns in SUMMARY_COLUMNS.items()}
        con.execute("UPDATE builds SET summary_checksum = ? WHERE variant = ? AND n = ?",
                    [summary_checksum(tables, variant, n), variant, n])


def upgrade() -> None:
    op.execute("ALTER TABLE position_rows_wide ADD COLUMN teams UBIGINT")
    op.execute("ALTER TABLE builds ADD COLUMN teams UBIGINT")
    op.execute("ALTER TABLE builds ADD COLUMN summary_checksum UBIGINT")
    op.execute("ALTER TABLE variants ADD COLUMN forcing_bound INTEGER")
    op.execute(positions_view(teams=True))
    _summary_checksums(op.get_bind().connection.dbapi_connection)


def _checksums_without_teams(con) -> dict[tuple[str, int], int]:
    """For each layer of a game of P players whose recorded positions checksum is the hash of
    its rows with their teams, the hash of the same rows without them (zeckdb.checksums: a
    column left out counts as NULL, which for teams adds nothing)."""
    COLUMNS, checksum = FROZEN["COLUMNS"], FROZEN["checksum"]

    layers = con.execute("""SELECT b.variant, b.n, b.positions_checksum FROM builds b JOIN variants v USING (variant)
                            WHERE v.players > 2 AND NOT b.summary_only AND b.positions_checksum IS NOT NULL""").fetchall()
    out = {}
    for variant, n, recorded in layers:
        def hashed(columns: tuple[str, ...], variant: str = variant, n: int = n) -> int:
            rows = con.sql(f"SELECT {', '.join(columns)} FROM positions WHERE variant = $variant AND n = $n",
                           params={"variant": variant, "n": n})
            return checksum(rows.to_arrow_reader(1 << 20), "positions", variant, n)

        if hashed(COLUMNS["positions"]) == recorded:
            out[variant, n] = hashed(tuple(c for c in COLUMNS["positions"] if c != "teams"))
    return out


def downgrade() -> None:
    con = op.get_bind().connection.dbapi_connection  # DuckDB's own connection, in the migration's transaction
    for (variant, n), value in _checksums_without_teams(con).items():
        con.execute("UPDATE builds SET positions_checksum = ? WHERE variant = ? AND n = ?", [value, variant, n])
    op.execute(positions_view(teams=False).replace("SELECT * FROM position_rows_wide",
                                                   "SELECT * EXCLUDE (teams) FROM position_rows_wide"))
    op.execute("ALTER TABLE variants DROP COLUMN forcing_bound")
    op.execute("ALTER TABLE builds DROP COLUMN summary_checksum")
    op.execute("ALTER TABLE builds DROP COLUMN teams")
    op.execute("ALTER TABLE position_rows_wide DROP COLUMN teams")
    op.execute(positions_view(teams=False))
