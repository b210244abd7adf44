-- name: length-distribution
-- description: The exact distribution of the length of a game from the start: under P (each player moves uniformly at random) and mu (every complete game equally likely).
-- checks: computed from the game graph, no simulation; games_exact (mu) is exact for n <= 60.
-- param measure (P|mu): the measure (default: both)
SELECT variant, n, measure, length, probability, games, games_exact
FROM length_distribution
WHERE ($variant IS NULL OR variant = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
  AND ($measure IS NULL OR measure = $measure)
ORDER BY variant, n, measure, length
