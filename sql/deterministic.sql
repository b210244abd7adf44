-- name: deterministic
-- description: Per n, the 16 deterministic Zeckendorf games: each player keeps one preference (combine-largest, combine-smallest, split-largest, split-smallest: combine or split first, at the largest or smallest place), so each pair plays one game; its length and winner. Computed from the stored graph when asked.
-- checks: Li et al. (arXiv:2006.16457): combine-largest against itself and split-largest against itself play the shortest game, n - Z(n); split-smallest plays the longest; every length grows linearly in n
-- variants: zeckendorf
-- computes: deterministic_games
SELECT n, player_1, player_2, longest AS length, CASE WHEN p1_wins = 1 THEN 1 ELSE 2 END AS winner
FROM deterministic_games
WHERE $ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n)
ORDER BY n, player_1, player_2
