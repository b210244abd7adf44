-- name: omega-b
-- description: The reduced graph of all winning strategies from the start of n: its nodes (with who moves, and the layer each lies in), its edges, and Omega_B, the positions the winner moves to.
-- checks: Lee and Bitler (2021): Omega_B of the Zeckendorf game, built backwards from the terminal; unique winning lines for n = 4..7.
-- param n (built n, required): the n whose start is solved
-- The winner moves only to lost positions (its winning replies); the loser may make any move.
-- Where every move stays in the layer the graph is what in_winning_strategies marks in layer n.
-- Where moves leave it (Black Hole removals, nim's takes) the game from the start of n goes on in
-- lower layers, whose in_winning_strategies is marked for their own starts, not for this one: for
-- those games the graph is walked here from the start over every layer the game reaches (`layer`:
-- the n of the position's own layer), and a move into a lower layer is one of its edges.
WITH RECURSIVE
crossing AS MATERIALIZED (  -- the games with a move that leaves its layer, below n
    SELECT DISTINCT v.variant FROM edges e JOIN variants v ON v.graph = e.graph AND NOT v.reversed
    WHERE e.dst_n IS NOT NULL AND e.n <= $n::INTEGER AND ($variant IS NULL OR v.variant = $variant)),
cpos AS MATERIALIZED (
    SELECT variant, n, id, outcome FROM positions
    WHERE n <= $n::INTEGER AND variant IN (SELECT variant FROM crossing)),
cmoves AS MATERIALIZED (
    SELECT variant, n, src, dst, dst_n, move FROM moves
    WHERE n <= $n::INTEGER AND variant IN (SELECT variant FROM crossing)),
kept AS MATERIALIZED (  -- the reduced graph's moves: the loser's every move, the winner's winning ones
    SELECT m.variant, m.n, m.src, m.dst_n, m.dst
    FROM cmoves m
    JOIN cpos s ON s.variant = m.variant AND s.n = m.n AND s.id = m.src
    JOIN cpos d ON d.variant = m.variant AND d.n = m.dst_n AND d.id = m.dst
    WHERE s.outcome = 'loss' OR d.outcome = 'loss'),
walk(variant, layer, id) AS (
    SELECT variant, n, start_id FROM builds
    WHERE n = $n::INTEGER AND variant IN (SELECT variant FROM crossing)
    UNION  -- not ALL: a position reached twice is walked once
    SELECT w.variant, m.dst_n, m.dst
    FROM walk w JOIN kept m ON m.variant = w.variant AND m.n = w.layer AND m.src = w.id),
reached AS (
    SELECT p.* FROM positions p
    WHERE p.n = $n::INTEGER AND p.in_winning_strategies AND ($variant IS NULL OR p.variant = $variant)
      AND p.variant NOT IN (SELECT variant FROM crossing)
    UNION ALL
    SELECT p.* FROM (SELECT DISTINCT variant, layer, id FROM walk) w
    JOIN positions p ON p.variant = w.variant AND p.n = w.layer AND p.id = w.id
    WHERE p.n <= $n::INTEGER),
nodes AS MATERIALIZED (
    SELECT p.variant, $n::INTEGER AS n, p.n AS layer, p.id,
           game_text(p.entries, list_value(*COLUMNS('^c\d+$')), v.text_width) AS position, p.outcome,
           p.n = $n::INTEGER AND p.is_start AS is_start,
           CASE WHEN p.outcome = 'win' THEN 'winner' ELSE 'loser' END AS to_move,
           p.outcome = 'loss' AND NOT (p.n = $n::INTEGER AND p.is_start) AS in_omega_b
    FROM reached p JOIN variants v USING (variant)),
layer_moves AS (  -- layer n's moves, and the lower layers' of the games that reach them
    SELECT variant, n, src, dst, dst_n, move FROM moves
    WHERE n = $n::INTEGER AND ($variant IS NULL OR variant = $variant)  -- a filter, not a join key: it reaches the scan
    UNION ALL
    SELECT variant, n, src, dst, dst_n, move FROM cmoves WHERE n < $n::INTEGER),
out_edges AS MATERIALIZED (
    SELECT s.variant, s.layer, s.id, list_sort(list(m.move || ' -> ' || d.position)) AS edges, count(*) AS out_degree
    FROM nodes s
    JOIN layer_moves m ON m.variant = s.variant AND m.n = s.layer AND m.src = s.id
    JOIN nodes d ON d.variant = s.variant AND d.layer = m.dst_n AND d.id = m.dst
    WHERE s.to_move = 'loser' OR d.outcome = 'loss'
    GROUP BY s.variant, s.layer, s.id),
graph AS (
    SELECT s.variant, s.n, s.layer, s.id, s.position, s.to_move, s.in_omega_b, s.is_start, e.edges,
           coalesce(e.out_degree, 0) AS out_degree
    FROM nodes s LEFT JOIN out_edges e USING (variant, layer, id)),
totals AS (
    SELECT variant, count(*) AS reduced_nodes, sum(out_degree) AS reduced_edges,
           count(*) FILTER (WHERE in_omega_b) AS omega_b_size,
           count(*) FILTER (WHERE to_move = 'winner' AND out_degree > 1) AS multi_reply_decisions
    FROM graph GROUP BY variant)
SELECT g.variant, g.n, g.position, g.to_move, g.in_omega_b, g.edges, g.out_degree,
       t.reduced_nodes, t.reduced_edges, t.omega_b_size, t.multi_reply_decisions, g.layer
FROM graph g JOIN totals t USING (variant)
ORDER BY g.variant, NOT g.is_start, g.layer DESC, g.position
