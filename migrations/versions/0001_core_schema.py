"""Core schema: variants, builds, positions, the shared edges, move names.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

COUNT_COLUMNS = 16

STATEMENTS = [
    "CREATE TYPE outcome AS ENUM ('win', 'loss')",
    """
    CREATE TABLE variants (
        variant   VARCHAR PRIMARY KEY,
        title     VARCHAR NOT NULL,
        source    VARCHAR NOT NULL,
        graph     VARCHAR NOT NULL,   -- variant whose edges this one plays on
        reversed  BOOLEAN NOT NULL,   -- plays the graph's edges backwards
        max_n     INTEGER NOT NULL,
        bins      INTEGER NOT NULL    -- number of count columns c1.. in use
    )""",
    """
    CREATE TABLE move_names (
        variant VARCHAR NOT NULL,
        code    SMALLINT NOT NULL,
        name    VARCHAR NOT NULL,
        PRIMARY KEY (variant, code)
    )""",
    """
    CREATE TABLE builds (
        variant          VARCHAR NOT NULL,
        n                INTEGER NOT NULL,
        positions        BIGINT NOT NULL,
        edges            BIGINT NOT NULL,
        start_id         INTEGER NOT NULL,
        start_position   VARCHAR NOT NULL,
        winner           TINYINT NOT NULL,   -- 1 or 2
        min_length       INTEGER NOT NULL,
        max_length       INTEGER NOT NULL,
        start_remoteness INTEGER NOT NULL,
        games            VARCHAR NOT NULL,   -- exact number of complete games, decimal
        games_approx     DOUBLE NOT NULL,
        expected_length  DOUBLE NOT NULL,    -- under uniform random play
        seconds          DOUBLE NOT NULL,
        engine_version   VARCHAR NOT NULL,
        built_at         TIMESTAMP NOT NULL DEFAULT current_timestamp,
        PRIMARY KEY (variant, n)
    )""",
    """
    CREATE TABLE graph_layers (
        graph     VARCHAR NOT NULL,
        n         INTEGER NOT NULL,
        positions BIGINT NOT NULL,
        edges     BIGINT NOT NULL,
        PRIMARY KEY (graph, n)
    )""",
    f"""
    CREATE TABLE positions (
        variant            VARCHAR NOT NULL,
        n                  SMALLINT NOT NULL,
        id                 INTEGER NOT NULL,   -- computable from the counts (zeckdb.variants: id_of)
        {", ".join(f"c{i} SMALLINT" for i in range(1, COUNT_COLUMNS + 1))},
        outcome            outcome NOT NULL,
        remoteness         SMALLINT NOT NULL,
        min_remaining      SMALLINT NOT NULL,
        max_remaining      SMALLINT NOT NULL,
        games_to_end       DOUBLE NOT NULL,
        expected_remaining REAL NOT NULL,     -- float32; builds.expected_length is float64
        grundy             SMALLINT NOT NULL,
        winning_moves      SMALLINT NOT NULL,
        is_start           BOOLEAN NOT NULL,
        is_terminal        BOOLEAN NOT NULL
    )""",
    """
    CREATE TABLE edges (
        graph VARCHAR NOT NULL,
        n     SMALLINT NOT NULL,
        src   INTEGER NOT NULL,
        dst   INTEGER NOT NULL,
        code  SMALLINT NOT NULL
    )""",
    # Two branches rather than CASE expressions, so that filters on src or dst reach the edges scan.
    """
    CREATE VIEW moves AS
    SELECT v.variant, e.n, e.src, e.dst, e.code, m.name AS move
    FROM edges e
    JOIN variants v ON v.graph = e.graph AND NOT v.reversed
    JOIN move_names m ON m.variant = v.variant AND m.code = e.code
    UNION ALL
    SELECT v.variant, e.n, e.dst AS src, e.src AS dst, e.code, m.name AS move
    FROM edges e
    JOIN variants v ON v.graph = e.graph AND v.reversed
    JOIN move_names m ON m.variant = v.variant AND m.code = e.code""",
]


def upgrade() -> None:
    for statement in STATEMENTS:
        op.execute(statement)


def downgrade() -> None:
    for name in ["VIEW moves", "TABLE edges", "TABLE positions", "TABLE graph_layers",
                 "TABLE builds", "TABLE move_names", "TABLE variants", "TYPE outcome"]:
        op.execute(f"DROP {name}")
