-- name: omega-b
-- description: The reduced graph of all winning strategies from the start of n: its nodes (with who moves), its edges, and Omega_B, the positions the winner moves to.
-- checks: Lee and Bitler (2021): Omega_B of the Zeckendorf game, built backwards from the terminal; unique winning lines for n = 4..7.
-- param n (built n, required): the n whose start is solved
-- The winner moves only to lost positions (its winning replies); the loser may make any move.
WITH nodes AS MATERIALIZED (
    SELECT variant, n, id, game_text(entries, list_value(*COLUMNS('^c\d+$')), v.text_width) AS position, outcome,
           is_start, CASE WHEN outcome = 'win' THEN 'winner' ELSE 'loser' END AS to_move,
           outcome = 'loss' AND NOT is_start AS in_omega_b
    FROM positions JOIN variants v USING (variant)
    WHERE n = $n::INTEGER AND in_winning_strategies AND ($variant IS NULL OR variant = $variant)),
edges AS MATERIALIZED (
    SELECT s.variant, s.id, list_sort(list(m.move || ' -> ' || d.position)) AS edges, count(*) AS out_degree
    FROM nodes s
    JOIN moves m ON m.variant = s.variant AND m.src = s.id
    JOIN nodes d ON d.variant = s.variant AND d.id = m.dst
    WHERE m.n = $n::INTEGER AND ($variant IS NULL OR m.variant = $variant)  -- a filter, not a join key: it reaches the scan
      AND m.dst_n = m.n  -- the strategy graph of one layer (Black Hole removals and nim takes leave it)
      AND (s.to_move = 'loser' OR d.outcome = 'loss')
    GROUP BY s.variant, s.id),
graph AS (
    SELECT s.variant, s.n, s.id, s.position, s.to_move, s.in_omega_b, s.is_start, e.edges,
           coalesce(e.out_degree, 0) AS out_degree
    FROM nodes s LEFT JOIN edges e USING (variant, id)),
totals AS (
    SELECT variant, count(*) AS reduced_nodes, sum(out_degree) AS reduced_edges,
           count(*) FILTER (WHERE in_omega_b) AS omega_b_size,
           count(*) FILTER (WHERE to_move = 'winner' AND out_degree > 1) AS multi_reply_decisions
    FROM graph GROUP BY variant)
SELECT g.variant, g.n, g.position, g.to_move, g.in_omega_b, g.edges, g.out_degree,
       t.reduced_nodes, t.reduced_edges, t.omega_b_size, t.multi_reply_decisions
FROM graph g JOIN totals t USING (variant)
ORDER BY g.variant, NOT g.is_start, g.position
