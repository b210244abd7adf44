-- name: remoteness
-- description: Per layer, how many positions are wins and losses for the player to move at each remoteness (the statistics histogram of GamesmanOne and the Syzygy tablebases).
-- checks: a position's remoteness is odd exactly when it is a win (the last mover wins); the counts of a layer add up to its positions in builds.
SELECT variant, n, remoteness,
       count(*) FILTER (WHERE outcome = 'win') AS wins,
       count(*) FILTER (WHERE outcome = 'loss') AS losses
FROM positions
WHERE ($variant IS NULL OR variant = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
GROUP BY variant, n, remoteness
ORDER BY variant, n, remoteness
