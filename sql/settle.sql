-- name: settle
-- description: Per variant, the winner at the largest n built (two players: 1 or 2; P >= 3 players: the player who can force a win, NULL where none can), the n from which every built n up to that largest one has had the same winner (same_from), how many times the winner changed on the way, and that largest n. Full and summary builds alike.
-- checks: Miller, Sosis, Ye (arXiv:2211.14973): for large n Player 1 wins the (c,k)-nacci game when c is even, Player 2 when c is odd; Player 2 wins the Zeckendorf game for n >= 3 (Baird-Smith et al. 2020).
WITH w AS (
    SELECT variant, n, winner,
           lag(n) OVER v IS NULL OR winner IS DISTINCT FROM lag(winner) OVER v AS changed
    FROM builds
    WHERE n >= 1  -- layer 0 (the empty board, the empty pile) is no game
      AND ($variant IS NULL OR variant = $variant)
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
    WINDOW v AS (PARTITION BY variant ORDER BY n)),
last AS (
    SELECT variant, max(n) AS largest_n, min(n) AS first_n, count(*) FILTER (WHERE changed) - 1 AS changes
    FROM w GROUP BY variant)
SELECT l.variant, w.winner, max(c.n) AS same_from, l.changes, l.largest_n
FROM last l
JOIN w ON w.variant = l.variant AND w.n = l.largest_n
JOIN w c ON c.variant = l.variant AND c.changed
GROUP BY l.variant, w.winner, l.changes, l.largest_n
ORDER BY l.variant
