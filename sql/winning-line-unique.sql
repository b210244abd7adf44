-- name: winning-line-unique
-- description: Per n, the size of the reduced graph of winning strategies and whether the winner's winning line is unique (one winning reply at every decision).
-- checks: Lee and Bitler (2021): Player 2's winning path is unique for n = 4..7 and stops being unique for larger n (their example: n = 16).
SELECT variant, n, any_value(winner) AS winner,
       count(*) AS reduced_nodes,
       sum(CASE WHEN outcome = 'win' THEN winning_moves ELSE legal_moves END) AS reduced_edges,
       count(*) FILTER (WHERE outcome = 'loss' AND NOT is_start) AS omega_size,
       count(*) FILTER (WHERE outcome = 'win' AND winning_moves > 1) AS multi_reply_decisions,
       count(*) FILTER (WHERE outcome = 'win' AND winning_moves > 1) = 0 AS unique_winning_line
FROM positions JOIN builds USING (variant, n)
WHERE in_winning_strategies
  AND ($variant IS NULL OR variant = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
GROUP BY variant, n
ORDER BY variant, n
