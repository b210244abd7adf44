-- name: winner-period
-- description: Per variant, the smallest period p of the winners over a window of n (from --param first_n, default 1, to --param last_n, default the largest n built): the least p <= max_period with winner(n) = winner(n + p) for every n of the window with n + p in it, a p the window holds at least twice (2p <= its length); NULL, with the answer "none within the window", where no such p holds. periodic_from: for that p, the least n0 from which winner(n) = winner(n + p) for every built n >= n0 up to the window's end (NULL unless every n from 1 is built); the answer says it all in words.
-- checks: Cashman, Miller, Shuffelton, Son (arXiv 2409.10981), the Empty-Board game: Player 1 wins n mod 4 in {1, 2} (m = 2, period 4), n mod 9 in {1, 2, 3, 6, 8} (m = 3, period 9), n mod 16 in {1, 3, 5, 7, 8, 10, 12, 14, 15} (m = 4, period 16 from n = 48: Player 2 wins 17 and 47, Player 1 also wins 2 and 32).
-- param first_n (integer >= 1): the window's first n (default 1)
-- param last_n (integer >= 1): the window's last n (default: the largest n built)
-- param max_period (integer >= 1): the largest period tried (default 60)
WITH every AS (
    SELECT variant, n, winner FROM builds
    WHERE n >= 1  -- layer 0 (the empty board, the empty pile) is no game
      AND ($variant IS NULL OR variant = $variant)),
win AS (
    SELECT * FROM every
    WHERE n >= coalesce($first_n::INTEGER, 1) AND ($last_n IS NULL OR n <= $last_n::INTEGER)),
windows AS (
    SELECT variant, min(n) AS first_n, max(n) AS last_n, count(*) AS built FROM win GROUP BY variant),
agree AS (  -- per variant and shift p: do the window's winners p apart all agree?
    SELECT x.variant, y.n - x.n AS p, bool_and(x.winner IS NOT DISTINCT FROM y.winner) AS holds
    FROM win x JOIN win y ON y.variant = x.variant AND y.n > x.n
                         AND y.n - x.n <= coalesce($max_period::INTEGER, 60)
    GROUP BY x.variant, p),
found AS (
    SELECT w.variant, w.first_n, w.last_n, w.built = w.last_n - w.first_n + 1 AS complete,
           min(a.p) FILTER (WHERE a.holds AND 2 * a.p <= w.last_n - w.first_n + 1
                                   AND w.built = w.last_n - w.first_n + 1) AS period
    FROM windows w LEFT JOIN agree a USING (variant)
    GROUP BY w.variant, w.first_n, w.last_n, w.built),
since AS (  -- for the period found: the last disagreement p apart among every built n up to the window's end
    SELECT f.variant, max(x.n) AS last_break
    FROM found f JOIN every x ON x.variant = f.variant
                 JOIN every y ON y.variant = x.variant AND y.n = x.n + f.period AND y.n <= f.last_n
    WHERE x.winner IS DISTINCT FROM y.winner
    GROUP BY f.variant),
from_one AS (
    SELECT f.variant, count(e.n) = f.last_n AS from_1
    FROM found f JOIN every e ON e.variant = f.variant AND e.n <= f.last_n
    GROUP BY f.variant, f.last_n)
SELECT f.variant, f.first_n, f.last_n, coalesce($max_period::INTEGER, 60) AS max_period, f.period,
       CASE WHEN f.period IS NOT NULL AND o.from_1 THEN coalesce(s.last_break + 1, 1) END AS periodic_from,
       CASE WHEN NOT f.complete THEN format('not every n from {} to {} is built', f.first_n, f.last_n)
            WHEN f.period IS NULL THEN format('none within the window: no p <= {} has winner(n) = winner(n + p) '
                                              'for n = {}..{}', least(coalesce($max_period::INTEGER, 60),
                                              (f.last_n - f.first_n + 1) // 2), f.first_n, f.last_n)
            ELSE format('period {} for n = {}..{}', f.period, f.first_n, f.last_n)
                 || CASE WHEN o.from_1 THEN format(', from n = {} on', coalesce(s.last_break + 1, 1)) ELSE '' END
       END AS answer
FROM found f LEFT JOIN since s USING (variant) LEFT JOIN from_one o USING (variant)
ORDER BY f.variant
