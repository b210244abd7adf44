-- name: thresholds
-- description: Per game of P >= 3 players: the n from which no player can force a win from the start, for every built n up to the largest (nobody_from; NULL where some player still can at the largest n), the last n at which one could (last_forced), the largest n built, and Miller, Sosis and Ye's bound 3c^2 + 6c + 3 where it applies (P >= c + 2 players), with whether the built n agree with it.
-- checks: Miller, Sosis, Ye (arXiv:2211.14973): with P >= c + 2 players no player can force a win for n >= 3c^2 + 6c + 3; Cusenza et al. (arXiv:2009.03708): in the Zeckendorf game of P >= 3 players nobody can from n = 5 on (their bound: n >= 7 for three players).
-- variants: zeckendorf-pP, quilt-pP, nacci-C-K-pP
WITH b AS (
    SELECT b.variant, v.players, v.forcing_bound, b.n, b.winner
    FROM builds b JOIN variants v USING (variant)
    WHERE v.players > 2 AND b.n >= 1
      AND ($variant IS NULL OR b.variant = $variant)
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], b.n))),
g AS (
    SELECT variant, players, forcing_bound, max(n) FILTER (WHERE winner IS NOT NULL) AS last_forced,
           min(n) AS first_n, max(n) AS largest_n,
           count(*) FILTER (WHERE winner IS NOT NULL AND n >= forcing_bound) AS against_bound
    FROM b GROUP BY variant, players, forcing_bound)
SELECT variant, players,
       CASE WHEN last_forced IS NULL THEN first_n WHEN last_forced < largest_n THEN last_forced + 1 END AS nobody_from,
       last_forced, largest_n, forcing_bound AS bound,
       CASE WHEN forcing_bound IS NOT NULL AND largest_n >= forcing_bound THEN against_bound = 0 END AS bound_holds
FROM g
ORDER BY variant
