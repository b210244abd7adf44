-- name: teams
-- description: Per n, each team of players (a set of them, e.g. {1,3}) and whether it can force a win from the start: its members, coordinating, make the last mover one of theirs against every joint play of the others. Every non-empty proper team, or only --param team; full and summary builds alike (two-player games: the winner's team of one).
-- checks: Zermelo: of two teams that split the players, exactly one can force a win (Cusenza et al., arXiv:2009.03708, alliances).
-- param team (team): the players of one team, e.g. 1,3 (default: every team)
WITH b AS (
    SELECT b.variant, b.n, v.players,
           CASE WHEN v.players = 2 THEN (CASE b.winner WHEN 1 THEN 2 WHEN 2 THEN 4 END | 8)::UBIGINT
                ELSE b.teams END AS mask  -- bit t: the team of the players whose bits t holds
    FROM builds b JOIN variants v USING (variant)
    WHERE b.n >= 1
      AND ($variant IS NULL OR b.variant = $variant)
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], b.n))),
t AS (
    SELECT variant, n, mask, unnest(range(1, (1 << players) - 1)) AS t, players FROM b)
SELECT variant, n, '{' || array_to_string(list_filter(range(1, players + 1), lambda p: (t >> (p - 1)) & 1 = 1), ',')
                   || '}' AS team,
       (mask >> t) & 1 = 1 AS can_force
FROM t
WHERE $team::INTEGER[] IS NULL
   OR list_filter(range(1, players + 1), lambda p: (t >> (p - 1)) & 1 = 1) = list_sort($team::INTEGER[])
ORDER BY variant, n, bit_count(t), list_filter(range(1, players + 1), lambda p: (t >> (p - 1)) & 1 = 1)
