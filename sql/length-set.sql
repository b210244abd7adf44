-- name: length-set
-- description: Per n, whether every length from the shortest to the longest game is the length of some complete game, and which are not.
-- checks: computed from the exact game counts per length (length_distribution, measure mu).
SELECT variant, n, min(length) AS min_length, max(length) AS max_length,
       count(*) FILTER (WHERE games > 0) AS lengths_occurring,
       count(*) FILTER (WHERE games = 0) = 0 AS every_length_occurs,
       list(length ORDER BY length) FILTER (WHERE games = 0) AS missing_lengths
FROM length_distribution
WHERE measure = 'mu'
  AND ($variant IS NULL OR variant = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
GROUP BY variant, n
ORDER BY variant, n
