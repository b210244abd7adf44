-- name: remoteness
-- description: Per layer, how many positions are wins and losses for the player to move at each remoteness (the statistics histogram of GamesmanOne and the Syzygy tablebases).
-- checks: a position's remoteness is odd exactly when it is a win (the last mover wins); the counts of a layer add up to its positions in builds.
WITH counted AS (
    -- counted once by outcome, then spread into two columns: two filtered counts over the
    -- positions would work out each row's outcome twice
    SELECT variant, n, remoteness, outcome, count(*) AS positions
    FROM positions
    WHERE ($variant IS NULL OR variant = $variant)
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
    GROUP BY variant, n, remoteness, outcome
)
SELECT variant, n, remoteness,
       coalesce(sum(positions) FILTER (WHERE outcome = 'win'), 0)::BIGINT AS wins,
       coalesce(sum(positions) FILTER (WHERE outcome = 'loss'), 0)::BIGINT AS losses
FROM counted
GROUP BY variant, n, remoteness
ORDER BY variant, n, remoteness
