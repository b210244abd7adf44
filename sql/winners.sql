-- name: winners
-- description: Per n, who wins from the start (1 or 2; in a game of P >= 3 players, the player who can force a win, NULL where none can) and the running fraction of n, up to this one, that Player 1 wins.
-- checks: Player 2 wins the Zeckendorf game for n >= 3 (Baird-Smith et al. 2020); reversed game, Conjecture 1.3: p1_fraction tends to 1/phi ~ 0.618 (Batterman et al. 2023); p1_fraction is NULL where some n from 1 to this one is not stored (a fraction of the n stored would not be the fraction of n <= N).
-- game-columns: minus_inverse_phi
SELECT variant, n, winner, p1_fraction, p1_fraction - 1 / phi() AS minus_inverse_phi
FROM (SELECT variant, n, winner,
             CASE WHEN count(*) OVER w = n THEN avg((winner = 1)::INTEGER) OVER w END AS p1_fraction
      FROM builds WHERE n >= 1  -- layer 0 (the empty board, the empty pile) is no game
      WINDOW w AS (PARTITION BY variant ORDER BY n))
WHERE ($variant IS NULL OR variant = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
ORDER BY variant, n
