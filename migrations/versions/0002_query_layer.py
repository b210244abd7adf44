"""Query layer: length distributions, random play, winning strategies, SQL helpers.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22

Layers built before this revision lack the new data; `zeckdb build` sees that
(no random_play row) and rebuilds them.
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

FIB_COUNT = 180  # F_180 ~ 3.0e37 is the last that fits DuckDB's HUGEINT


def fibonacci(count: int) -> list[int]:
    """F_1 = 1, F_2 = 2, F_{i+1} = F_i + F_{i-1}."""
    out = [1, 2]
    while len(out) < count:
        out.append(out[-1] + out[-2])
    return out[:count]


def statements() -> list[str]:
    return [
        f"CREATE MACRO fib_list() AS [{', '.join(map(str, fibonacci(FIB_COUNT)))}]::HUGEINT[]",
        "CREATE MACRO fib(i) AS fib_list()[i]",
        "CREATE MACRO phi() AS (1 + sqrt(5)) / 2",
        f"""CREATE MACRO zeckendorf_indices(n) AS list_reduce(list_reverse(range(1, {FIB_COUNT + 1})),
               lambda acc, i: CASE WHEN fib_list()[i] <= acc.rest
                                   THEN {{'rest': acc.rest - fib_list()[i], 'idx': list_append(acc.idx, i::INTEGER)}}
                                   ELSE acc END,
               {{'rest': n::HUGEINT, 'idx': []::INTEGER[]}}).idx""",
        # a count list as written on the command line: (3,1,0,2), trailing zeros dropped
        """CREATE MACRO position_text(counts) AS '(' || array_to_string(list_slice(
               list_transform(counts, lambda x: coalesce(x, 0)), 1,
               len(counts) - coalesce(list_position(list_reverse(list_transform(counts, lambda x: coalesce(x, 0) <> 0)), true) - 1,
                                      len(counts))), ',') || ')'""",
        "CREATE MACRO zeckendorf(n) AS list_transform(zeckendorf_indices(n), lambda i: fib_list()[i])",
        "CREATE MACRO z(n) AS len(zeckendorf_indices(n))",
        "CREATE MACRO z_i(n) AS coalesce(list_sum(zeckendorf_indices(n)), 0)",
        f"CREATE TABLE fibonacci AS SELECT i::INTEGER AS i, fib(i) AS f FROM range(1, {FIB_COUNT + 1}) t(i)",
        """
        CREATE TABLE variant_columns (
            variant  VARCHAR NOT NULL,
            position INTEGER NOT NULL,  -- 1 for c1, 2 for c2, ...
            name     VARCHAR NOT NULL,  -- the column, c1, c2, ...
            weight   INTEGER NOT NULL,  -- a position's n is the sum of weight * count over its columns
            PRIMARY KEY (variant, position)
        )""",
        """
        CREATE TABLE length_distribution (
            variant     VARCHAR NOT NULL,
            n           INTEGER NOT NULL,
            measure     VARCHAR NOT NULL,   -- 'P': each player moves uniformly at random; 'mu': every complete game equally likely
            length      INTEGER NOT NULL,   -- every length from the shortest to the longest game
            probability DOUBLE NOT NULL,
            games       DOUBLE,             -- mu: complete games of this length
            games_exact VARCHAR,            -- mu: the same, exact decimal, for n <= 60
            PRIMARY KEY (variant, n, measure, length)
        )""",
        """
        CREATE TABLE random_play (
            variant            VARCHAR NOT NULL,
            n                  INTEGER NOT NULL,
            p1_wins_random     DOUBLE NOT NULL,   -- both players move uniformly at random
            p1_wins_p1_perfect DOUBLE NOT NULL,   -- Player 1 perfect, Player 2 random
            p1_wins_p2_perfect DOUBLE NOT NULL,   -- Player 2 perfect, Player 1 random
            PRIMARY KEY (variant, n)
        )""",
        # on some winning strategy of the player who wins from the start (Lee-Bitler's reduced graph)
        "ALTER TABLE positions ADD COLUMN in_winning_strategies BOOLEAN",
        "ALTER TABLE positions ADD COLUMN legal_moves SMALLINT",  # number of moves from the position
        """
        CREATE VIEW length_moments AS
        WITH d AS (SELECT variant, n, measure, length, probability FROM length_distribution),
        m AS (SELECT variant, n, measure, sum(probability * length) AS mean FROM d GROUP BY ALL),
        c AS (SELECT variant, n, measure, any_value(mean) AS mean,
                     sum(probability * (length - mean) ^ 2) AS m2, sum(probability * (length - mean) ^ 3) AS m3,
                     sum(probability * (length - mean) ^ 4) AS m4, sum(probability * (length - mean) ^ 6) AS m6
              FROM d JOIN m USING (variant, n, measure) GROUP BY ALL)
        SELECT variant, n, measure, mean, m2 AS variance,
               CASE WHEN m2 > 0 THEN m3 / m2 ^ 1.5 END AS skewness,
               CASE WHEN m2 > 0 THEN m4 / m2 ^ 2 - 3 END AS excess_kurtosis,
               CASE WHEN m2 > 0 THEN 100 * abs(m4 / m2 ^ 2 - 3) / 3 END AS moment4_pct_diff,
               CASE WHEN m2 > 0 THEN 100 * abs(m6 / m2 ^ 3 - 15) / 15 END AS moment6_pct_diff
        FROM c""",
    ]


def upgrade() -> None:
    for statement in statements():
        op.execute(statement)


def downgrade() -> None:
    for name in ["VIEW length_moments", "TABLE random_play", "TABLE variant_columns", "TABLE length_distribution", "TABLE fibonacci",
                 "MACRO z_i", "MACRO z", "MACRO zeckendorf", "MACRO position_text", "MACRO zeckendorf_indices", "MACRO phi", "MACRO fib",
                 "MACRO fib_list"]:
        op.execute(f"DROP {name}")
    op.execute("ALTER TABLE positions DROP COLUMN legal_moves")
    op.execute("ALTER TABLE positions DROP COLUMN in_winning_strategies")
