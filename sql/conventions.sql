-- name: conventions
-- description: Per n, who wins from the start under normal play (the last mover wins) and under misère play (the last mover loses: the twin NAME-misere), whether the two agree, and the running fractions of n, up to this one, that Player 1 wins under each and that they agree. A game appears where it and its twin are both built; --variant names either.
-- reads: twins
-- checks: Player 1 wins n = 1 under misère play (no move: the opponent moved last) and Player 2 under normal play; the running fractions are NULL where some n from 1 to this one is not stored for both.
WITH pairs AS (
    SELECT t.normal_of AS variant, t.variant AS twin, m.n, b.winner AS normal_winner, m.winner AS misere_winner
    FROM variants t JOIN builds m ON m.variant = t.variant JOIN builds b ON b.variant = t.normal_of AND b.n = m.n
    WHERE m.n >= 1),  -- layer 0 (the empty board) is no game
running AS (
    SELECT *, normal_winner = misere_winner AS agree,
           CASE WHEN count(*) OVER w = n THEN avg((normal_winner = 1)::INTEGER) OVER w END AS normal_p1_fraction,
           CASE WHEN count(*) OVER w = n THEN avg((misere_winner = 1)::INTEGER) OVER w END AS misere_p1_fraction,
           CASE WHEN count(*) OVER w = n THEN avg((normal_winner = misere_winner)::INTEGER) OVER w END AS agree_fraction
    FROM pairs
    WINDOW w AS (PARTITION BY variant ORDER BY n))
SELECT variant, n, normal_winner, misere_winner, agree, normal_p1_fraction, misere_p1_fraction, agree_fraction
FROM running
WHERE ($variant IS NULL OR variant = $variant OR twin = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
ORDER BY variant, n
