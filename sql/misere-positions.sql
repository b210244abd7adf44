-- name: misere-positions
-- description: The positions whose outcome differs between normal play and misère play (a game and its twin NAME-misere, both built: the same positions, the same ids), each with its outcome under both, and per layer how many positions it has and how many differ. --variant names either game.
-- reads: twins
-- checks: every terminal position differs (lost for the player to move under normal play, won under misère play); a layer's differing count is at most its positions.
WITH paired AS (
    SELECT t.normal_of AS variant, t.variant AS twin, m.n, m.id, b.outcome AS normal_outcome, m.outcome AS misere_outcome
    FROM variants t JOIN positions m ON m.variant = t.variant
         JOIN positions b ON b.variant = t.normal_of AND b.n = m.n AND b.id = m.id
    WHERE ($variant IS NULL OR t.variant = $variant OR t.normal_of = $variant)
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], m.n))),
counted AS (
    SELECT *, count(*) OVER (PARTITION BY variant, n) AS layer_positions,
           count(*) FILTER (WHERE normal_outcome <> misere_outcome) OVER (PARTITION BY variant, n) AS layer_differ
    FROM paired)
SELECT c.variant, c.n, t.position, c.normal_outcome, c.misere_outcome, c.layer_positions, c.layer_differ
FROM counted c JOIN position_texts t ON t.variant = c.variant AND t.n = c.n AND t.id = c.id
WHERE c.normal_outcome <> c.misere_outcome
ORDER BY c.variant, c.n, c.id
