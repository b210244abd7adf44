-- name: lengths
-- description: Per n, the shortest and longest game; for the Zeckendorf, reversed and ordered games also n - Z(n), and for the reversed game the paper's upper bound on the longest game (NULL where they do not apply).
-- checks: shortest game = n - Z(n) (Baird-Smith et al. 2020; reversed: Theorem 1.4; ordered: Bortnovskyi et al. 2025); longest reversed game <= floor(phi^2 n - Z_I(n) - 2 Z(n) + phi - 1) (Theorem 1.4).
WITH b AS (
    SELECT variant, n, min_length, max_length,
           CASE WHEN variant IN ('zeckendorf', 'reversed', 'ordered') THEN n - z(n) END AS n_minus_z,
           CASE WHEN variant = 'reversed' THEN floor(phi() ^ 2 * n - z_i(n) - 2 * z(n) + phi() - 1)::INTEGER END AS max_bound
    FROM builds
    WHERE ($variant IS NULL OR variant = $variant)
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n)))
SELECT variant, n, min_length, max_length, n_minus_z, min_length = n_minus_z AS min_is_n_minus_z,
       max_bound, max_length <= max_bound AS max_within_bound, max_length = max_bound AS max_attains_bound
FROM b
ORDER BY variant, n
