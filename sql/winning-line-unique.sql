-- name: winning-line-unique
-- description: Per n, the size of the reduced graph of winning strategies from the start of n (every layer its game passes through) and whether the winner's winning line is unique (one winning reply at every decision).
-- checks: Lee and Bitler (2021): Player 2's winning path is unique for n = 4..7 and stops being unique for larger n (their example: n = 16).
-- The reduced graph: from the start of n, the winner moves only to lost positions, the loser anywhere.
-- Where every move stays in the layer it is what in_winning_strategies marks. Where moves leave it
-- (Black Hole removals, nim's takes) the game from the start of n goes on in lower layers, whose
-- in_winning_strategies is marked for their own starts, not for this one: for those games the graph
-- is walked here from the start, over every layer the game reaches, so that a decision after a chip
-- falls into the hole counts as one of the line's. winning_moves and legal_moves count every move,
-- whatever layer it leads to.
WITH RECURSIVE
roots AS MATERIALIZED (
    SELECT variant, n, start_id, winner FROM builds
    WHERE NOT coalesce(summary_only, false)
      AND ($variant IS NULL OR variant = $variant)
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))),
crossing AS MATERIALIZED (  -- the games with a move that leaves its layer
    SELECT DISTINCT v.variant FROM edges e JOIN variants v ON v.graph = e.graph AND NOT v.reversed
    WHERE e.dst_n IS NOT NULL AND ($variant IS NULL OR v.variant = $variant)),
cpos AS MATERIALIZED (
    SELECT variant, n, id, outcome FROM positions WHERE variant IN (SELECT variant FROM crossing)),
cmoves AS MATERIALIZED (
    SELECT variant, n, src, dst, dst_n FROM moves WHERE variant IN (SELECT variant FROM crossing)),
kept AS MATERIALIZED (  -- the reduced graph's moves: the loser's every move, the winner's winning ones
    SELECT m.variant, m.n, m.src, m.dst_n, m.dst
    FROM cmoves m
    JOIN cpos s ON s.variant = m.variant AND s.n = m.n AND s.id = m.src
    JOIN cpos d ON d.variant = m.variant AND d.n = m.dst_n AND d.id = m.dst
    WHERE s.outcome = 'loss' OR d.outcome = 'loss'),
walk(variant, root, layer, id) AS (
    SELECT variant, n, n, start_id FROM roots WHERE variant IN (SELECT variant FROM crossing)
    UNION  -- not ALL: a position reached twice is walked once
    SELECT w.variant, w.root, m.dst_n, m.dst
    FROM walk w JOIN kept m ON m.variant = w.variant AND m.n = w.layer AND m.src = w.id),
reduced AS (
    SELECT p.variant, p.n AS root, p.outcome, p.winning_moves, p.legal_moves, p.is_start AS root_start
    FROM positions p JOIN roots r USING (variant, n)
    WHERE p.in_winning_strategies AND p.variant NOT IN (SELECT variant FROM crossing)
    UNION ALL
    SELECT p.variant, w.root, p.outcome, p.winning_moves, p.legal_moves, p.n = w.root AND p.is_start
    FROM walk w JOIN positions p ON p.variant = w.variant AND p.n = w.layer AND p.id = w.id)
SELECT r.variant, r.root AS n, any_value(b.winner) AS winner,
       count(*) AS reduced_nodes,
       sum(CASE WHEN outcome = 'win' THEN winning_moves ELSE legal_moves END) AS reduced_edges,
       count(*) FILTER (WHERE outcome = 'loss' AND NOT root_start) AS omega_size,
       count(*) FILTER (WHERE outcome = 'win' AND winning_moves > 1) AS multi_reply_decisions,
       count(*) FILTER (WHERE outcome = 'win' AND winning_moves > 1) = 0 AS unique_winning_line
FROM reduced r JOIN roots b ON b.variant = r.variant AND b.n = r.root
GROUP BY r.variant, r.root
ORDER BY r.variant, r.root
