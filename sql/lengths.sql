-- name: lengths
-- description: Per n, the shortest and longest game, n - Z(n), and the reversed paper's upper bound on the longest game.
-- checks: shortest game = n - Z(n) (Baird-Smith et al. 2020; reversed: Theorem 1.4); longest reversed game <= floor(phi^2 n - Z_I(n) - 2 Z(n) + phi - 1) (Theorem 1.4).
SELECT variant, n, min_length, max_length,
       n - z(n) AS n_minus_z,
       min_length = n - z(n) AS min_is_n_minus_z,
       floor(phi() ^ 2 * n - z_i(n) - 2 * z(n) + phi() - 1)::INTEGER AS max_bound,
       max_length <= floor(phi() ^ 2 * n - z_i(n) - 2 * z(n) + phi() - 1) AS max_within_bound,
       max_length = floor(phi() ^ 2 * n - z_i(n) - 2 * z(n) + phi() - 1) AS max_attains_bound
FROM builds
WHERE ($variant IS NULL OR variant = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
ORDER BY variant, n
