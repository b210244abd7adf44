-- name: fibonacci-nim-check
-- description: Per n, Fibonacci nim from (n, n-1): the winner, whether n is a Fibonacci number, every winning first move, the smallest term of n's Zeckendorf decomposition, and whether the published facts hold.
-- checks: Knuth, TAOCP Vol. 1, Ex. 1.2.8-37: Player 1 loses exactly when n is a Fibonacci number; otherwise taking the smallest Zeckendorf term of n wins (n = 1000 = 987 + 13: take 13).
-- variants: fibonacci-nim
WITH starts AS (
    SELECT b.n, b.winner, b.start_id FROM builds b
    WHERE b.variant = 'fibonacci-nim' AND b.n >= 1
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], b.n))),
winning AS (  -- first moves to a lost position
    SELECT s.n, list(e.code + 1 ORDER BY e.code) AS takes
    FROM starts s
    JOIN edges e ON e.graph = 'fibonacci-nim' AND e.n = s.n AND e.src = s.start_id
    JOIN positions d ON d.variant = 'fibonacci-nim' AND d.n = coalesce(e.dst_n, e.n) AND d.id = e.dst
    WHERE d.outcome = 'loss'
    GROUP BY s.n)
SELECT s.n, s.winner, list_contains(fib_list(), s.n::HUGEINT) AS n_is_fibonacci,
       s.winner = CASE WHEN list_contains(fib_list(), s.n::HUGEINT) THEN 2 ELSE 1 END AS winner_agrees,
       coalesce(w.takes, []) AS winning_takes, list_min(zeckendorf(s.n))::INTEGER AS smallest_zeckendorf_term,
       s.winner = 2 OR list_contains(coalesce(w.takes, []), list_min(zeckendorf(s.n))::INTEGER) AS take_agrees
FROM starts s LEFT JOIN winning w USING (n)
ORDER BY s.n
