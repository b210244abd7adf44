-- name: winning-moves
-- description: Every move from a position with the resulting position, its outcome and remoteness; winning moves first (fastest), then losing moves (slowest first). In a game of P >= 3 players a move "keeps a forced win" when the mover still forces one after it (its to_forcing_seat is P: the seat that just moved), else it gives "no forced win for the mover".
-- checks: the ranking of `zeckdb position`; a move wins exactly when it reaches a lost position.
-- param position (position, required): the position as counts, bin 1 first, e.g. 3,1,0,2 (the ordered game: its entries left to right, e.g. 1,2,1,3)
WITH wanted AS (
    SELECT $position::INTEGER[] AS counts),  -- parsed by the game (zeckdb.queries), trailing zeros dropped
layer AS (  -- in each variant, the n of the position: the weighted sum of its counts
    SELECT c.variant, sum(c.weight * coalesce(w.counts[c.position], 0))::INTEGER AS n,
           list_resize(any_value(w.counts), count(*)::INTEGER, 0) AS counts
    FROM variant_columns c, wanted w
    WHERE $variant IS NULL OR c.variant = $variant
    GROUP BY c.variant
    HAVING len(any_value(w.counts)) <= count(*)),
here AS (
    SELECT p.variant, p.n, p.id
    FROM (SELECT variant, n, id, list_value(*COLUMNS('^c\d+$')) AS counts, entries FROM positions
          WHERE (variant, n) IN (SELECT (variant, n) FROM layer)) p
    JOIN layer l USING (variant, n)
    WHERE list_resize(list_transform(p.counts, lambda x: coalesce(x, 0)), len(l.counts), 0) = l.counts
      AND p.entries IS NULL
    UNION ALL  -- games whose positions are ordered lists: the entries themselves, summing to n
    SELECT p.variant, p.n, p.id
    FROM positions p, wanted w
    WHERE p.entries IS NOT NULL AND ($variant IS NULL OR p.variant = $variant)
      AND p.n = list_sum(w.counts) AND p.entries = w.counts),
children AS (  -- edges joined directly (not through the moves view) so the join filters reach the edges scan
    SELECT h.variant, h.n, coalesce(e.dst_n, e.n) AS dst_n, e.dst, e.code
    FROM here h JOIN variants v ON v.variant = h.variant AND NOT v.reversed
    JOIN edges e ON e.graph = v.graph AND e.n = h.n AND e.src = h.id
    UNION ALL
    SELECT h.variant, h.n, h.n AS dst_n, e.src AS dst, e.code
    FROM here h JOIN variants v ON v.variant = h.variant AND v.reversed
    JOIN edges e ON e.graph = v.graph AND e.n = h.n AND e.dst = h.id),
targets AS (
    SELECT t.variant, t.n, t.id,
           game_text(t.entries, t.counts, v.text_width) AS position,
           t.outcome, t.remoteness, t.forcing_seat, v.players
    FROM (SELECT DISTINCT variant, dst_n, dst FROM children) c
    JOIN (SELECT variant, n, id, list_value(*COLUMNS('^c\d+$')) AS counts, entries, outcome, remoteness, forcing_seat
          FROM positions) t
      ON t.variant = c.variant AND t.n = c.dst_n AND t.id = c.dst  -- a join: its filters reach both tables' scans
    JOIN variants v ON v.variant = t.variant)
SELECT c.variant, c.n, m.name AS move, t.position AS to_position, c.dst_n AS to_n,
       CASE WHEN t.players > 2 THEN CASE WHEN t.forcing_seat = t.players THEN 'keeps a forced win'
                                         ELSE 'no forced win for the mover' END
            WHEN t.outcome = 'loss' THEN 'winning' ELSE 'losing' END AS verdict,
       t.outcome AS to_outcome, t.remoteness AS to_remoteness, t.forcing_seat AS to_forcing_seat
FROM children c
JOIN targets t ON t.variant = c.variant AND t.n = c.dst_n AND t.id = c.dst
JOIN move_names m ON m.variant = c.variant AND m.code = c.code
ORDER BY c.variant, t.forcing_seat IS DISTINCT FROM t.players, t.outcome = 'win',
         CASE WHEN t.outcome = 'loss' THEN t.remoteness ELSE -t.remoteness END, m.name
