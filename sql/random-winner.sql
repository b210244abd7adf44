-- name: random-winner
-- description: Per n, the probability that Player 1 wins when both players move at random, when Player 1 plays perfectly against a random Player 2, and when Player 2 plays perfectly against a random Player 1.
-- checks: computed exactly from the game graph (no simulation); the perfect player's odds are 1 exactly when that player wins the game.
-- The odds are NULL for a layer built with --summary-only --lean, or whose float columns did not fit summary mode's memory budget.
SELECT b.variant, b.n, b.winner, r.p1_wins_random, r.p1_wins_p1_perfect, r.p1_wins_p2_perfect
FROM builds b LEFT JOIN random_play r USING (variant, n)
WHERE ($variant IS NULL OR b.variant = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], b.n))
ORDER BY b.variant, b.n
