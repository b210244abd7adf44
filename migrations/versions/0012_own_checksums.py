"""Layer checksums by zeckdb's own hash of the rows, not DuckDB's.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25

A layer's checksums (builds.positions_checksum, builds.edges_checksum) were the sum of
DuckDB's `hash` of its rows, which the writer computed with a query after every insert and
which a DuckDB release may change. They are now zeckdb's own fixed hash (zeckdb.checksums),
computed by the build from the arrays it writes and by `zeckdb verify` from the rows it
reads back. No table changes; each layer's checksums are recomputed, but only where they
matched its rows before: a layer edited by hand before the upgrade keeps a checksum that
`zeckdb verify` rejects. The downgrade does the same the other way.
"""

from pathlib import Path
import runpy

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

DUCKDB_CHECKSUM = "(coalesce(sum(hash(r)), 0) % 18446744073709551616)::UBIGINT"
# the hash as this revision defines it, whatever zeckdb.checksums computes later
FROZEN = runpy.run_path(str(Path(__file__).resolve().parent.parent / "frozen_checksums.py"))
COLUMNS = ("positions_checksum", "edges_checksum")


def _duckdb_checksums(con) -> dict[tuple[str, int], tuple[int, int]]:
    """Each layer's checksums by DuckDB's hash (revisions 0004 to 0011)."""
    rows = con.execute(f"""
        SELECT b.variant, b.n, coalesce(p.checksum, 0::UBIGINT), coalesce(e.checksum, 0::UBIGINT)
        FROM builds b JOIN variants v USING (variant)
        LEFT JOIN (SELECT variant, n, {DUCKDB_CHECKSUM} AS checksum FROM positions r GROUP BY variant, n) p
            ON p.variant = b.variant AND p.n = b.n
        LEFT JOIN (SELECT graph, n, {DUCKDB_CHECKSUM} AS checksum FROM edges r GROUP BY graph, n) e
            ON e.graph = v.graph AND e.n = b.n
        WHERE NOT b.summary_only""").fetchall()
    return {(variant, n): (positions, edges) for variant, n, positions, edges in rows}


def _own_checksums(con) -> dict[tuple[str, int], tuple[int, int]]:
    """Each layer's checksums by zeckdb's hash (this revision on), of the views' rows."""
    COLUMNS, checksum = FROZEN["COLUMNS"], FROZEN["checksum"]

    # the columns of the hash that the views have at this revision (a column added later is
    # left out: the hash counts it as NULL, which for those columns adds nothing)
    present = {table: [c for c in COLUMNS[table] if c in {r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table]).fetchall()}]
        for table in COLUMNS}

    def hashed(table: str, key: str, name: str, n: int) -> int:
        rows = con.sql(f"SELECT {', '.join(present[table])} FROM {table} WHERE {key} = $name AND n = $n",
                       params={"name": name, "n": n})
        return checksum(rows.to_arrow_reader(1 << 20), table, name, n)

    layers = con.execute("SELECT b.variant, v.graph, b.n FROM builds b JOIN variants v USING (variant) "
                         "WHERE NOT b.summary_only").fetchall()
    edges: dict[tuple[str, int], int] = {}
    out = {}
    for variant, graph, n in layers:
        if (graph, n) not in edges:
            edges[graph, n] = hashed("edges", "graph", graph, n)
        out[variant, n] = (hashed("positions", "variant", variant, n), edges[graph, n])
    return out


def _convert(to_own: bool) -> None:
    """Each recorded checksum that matches its rows by one hash becomes their checksum by the other."""
    con = op.get_bind().connection.dbapi_connection  # DuckDB's own connection, in the migration's transaction
    old, new = _duckdb_checksums(con), _own_checksums(con)
    if not to_own:
        old, new = new, old
    recorded = con.execute(f"SELECT variant, n, {', '.join(COLUMNS)} FROM builds WHERE NOT summary_only").fetchall()
    for variant, n, *sums in recorded:
        for column, value, before, after in zip(COLUMNS, sums, old[variant, n], new[variant, n], strict=True):
            if value is not None and value == before and before != after:
                con.execute(f"UPDATE builds SET {column} = ? WHERE variant = ? AND n = ?", [after, variant, n])


def upgrade() -> None:
    _convert(to_own=True)


def downgrade() -> None:
    _convert(to_own=False)
