-- name: lengths
-- description: Per n, the shortest and longest game, the number of terms of n's decomposition in the game's sequence (Z(n) for the Fibonacci games, the legal decomposition's for the (c,k)-nacci games); n - terms where the game declares that the shortest game has that length, and the paper's upper bound on the longest game where it declares one (NULL where they do not apply).
-- checks: shortest game = n - Z(n) (Baird-Smith et al. 2020; reversed: Theorem 1.4; ordered: Bortnovskyi et al. 2025); longest reversed game <= floor(phi^2 n - Z_I(n) - 2 Z(n) + phi - 1) (Theorem 1.4). The facts are the games' own (variants.shortest_is_n_minus_terms, variants.longest_bound).
WITH b AS (
    SELECT b.variant, b.n, b.min_length, b.max_length, b.decomposition_terms AS terms,
           CASE WHEN v.shortest_is_n_minus_terms THEN b.n - b.decomposition_terms END AS n_minus_terms,
           CASE WHEN v.longest_bound = 'theorem-1.4'
                THEN floor(phi() ^ 2 * b.n - z_i(b.n) - 2 * z(b.n) + phi() - 1)::INTEGER END AS max_bound
    FROM builds b JOIN variants v USING (variant)
    WHERE ($variant IS NULL OR b.variant = $variant)
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], b.n)))
SELECT variant, n, min_length, max_length, terms, n_minus_terms AS n_minus_z, min_length = n_minus_terms AS min_is_n_minus_z,
       max_bound, max_length <= max_bound AS max_within_bound, max_length = max_bound AS max_attains_bound
FROM b
ORDER BY variant, n
