-- name: graph-size
-- description: Per n, the size of the game graph: positions, edges (moves), edges per position and terminal positions.
-- checks: the reversed paper's Table A.1 (Batterman et al. 2023): vertices and edges for n = 2..40; the Zeckendorf game has one terminal position.
SELECT b.variant, b.n, b.positions, b.edges, b.edges / b.positions AS edges_per_position,
       coalesce(t.terminals, 0) AS terminals  -- a Black Hole game's end can lie in a lower layer
FROM builds b
LEFT JOIN (SELECT variant, n, count(*) AS terminals FROM positions WHERE is_terminal GROUP BY ALL) t USING (variant, n)
WHERE ($variant IS NULL OR b.variant = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], b.n))
ORDER BY b.variant, b.n
