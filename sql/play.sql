-- name: play
-- description: Per n, the start played out with a profile for each player (--param p1=..., p2=...: perfect, random, best-response, or the Zeckendorf game's combine-largest, combine-smallest, split-largest, split-smallest): each player's chance to win, the expected length, the shortest and longest game. Exact, computed from the stored graph when asked (one --variant; `zeckdb play` gives one position's length distribution).
-- checks: random against random is the stored random-play odds; best-response against random is random_play.p1_wins_p1_perfect / p1_wins_p2_perfect
-- computes: profile_games
-- param p1 (perfect|random|best-response|combine-largest|combine-smallest|split-largest|split-smallest): Player 1's profile (default perfect)
-- param p2 (perfect|random|best-response|combine-largest|combine-smallest|split-largest|split-smallest): Player 2's profile (default random)
SELECT variant, n, player_1, player_2, p1_wins, p2_wins, expected_length, shortest, longest
FROM profile_games
WHERE $ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n)
ORDER BY n
