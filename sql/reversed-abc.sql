-- name: reversed-abc
-- description: Reversed game positions made of a ones, b twos and c threes: who wins from there (the player to move is Player 1) and Theorem 1.6's prediction from the parities of a, b, c.
-- checks: the reversed paper's Theorem 1.6 (Batterman et al. 2023), for every such position with n built.
-- variants: reversed
WITH abc AS (
    SELECT n, coalesce(c1, 0) AS a, coalesce(c2, 0) AS b, coalesce(c3, 0) AS c,
           CASE WHEN outcome = 'win' THEN 1 ELSE 2 END AS winner
    FROM positions
    WHERE variant = 'reversed'
      -- each bin on its own: DuckDB then filters the rows before it computes the view's columns
      AND coalesce(c4, 0) = 0 AND coalesce(c5, 0) = 0 AND coalesce(c6, 0) = 0 AND coalesce(c7, 0) = 0
      AND coalesce(c8, 0) = 0 AND coalesce(c9, 0) = 0 AND coalesce(c10, 0) = 0 AND coalesce(c11, 0) = 0
      AND coalesce(c12, 0) = 0
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))),
predicted AS (
    SELECT *, CASE (a % 2)::VARCHAR || (b % 2)::VARCHAR || (c % 2)::VARCHAR
                  WHEN '000' THEN 2
                  WHEN '111' THEN 1
                  WHEN '010' THEN 1
                  WHEN '101' THEN 1
                  WHEN '100' THEN CASE WHEN a > c THEN 2 ELSE 1 END
                  WHEN '001' THEN CASE WHEN a > c THEN 1 ELSE 2 END
                  WHEN '011' THEN 1
                  WHEN '110' THEN 1 END AS theorem_1_6
    FROM abc)
SELECT n, a, b, c, winner, theorem_1_6, winner = theorem_1_6 AS agrees
FROM predicted
ORDER BY n, a DESC, b DESC, c DESC
