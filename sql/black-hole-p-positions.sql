-- name: black-hole-p-positions
-- description: The P-positions (the player to move loses) of the Black Hole games, one row each with its value and its counts c1.. as columns, so they group by residues (e.g. GROUP BY c1 % 3, c2 % 3); with --param mod=K also the counts mod K.
-- checks: Cashman, Miller, Shuffelton, Son (arXiv 2409.10981): m = 2: (x) is P iff x mod 4 is 0 or 1; m = 3: (x1,x2) is P iff (x1 mod 3, x2 mod 3) is (0,0), (1,0) or (0,1); m = 4: (x1,0,0) is P iff x1 != 2.
-- variants: black-hole-M
-- param mod (integer >= 1): a modulus K: adds the column residues, the counts mod K (default: none)
WITH p AS (
    SELECT variant, n, id, list_transform(list_value(*COLUMNS('^c\d+$')), lambda x: coalesce(x, 0)) AS counts
    FROM positions
    WHERE regexp_full_match(variant, 'black-hole-[0-9]+')
      AND outcome = 'loss'
      AND ($variant IS NULL OR variant = $variant)
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n)))
SELECT p.variant, p.n AS value, game_text(NULL, p.counts, v.text_width) AS position,
       p.counts[1] AS c1, p.counts[2] AS c2, p.counts[3] AS c3, p.counts[4] AS c4, p.counts[5] AS c5,
       p.counts[6] AS c6, p.counts[7] AS c7, p.counts[8] AS c8, p.counts[9] AS c9, p.counts[10] AS c10,
       p.counts[11] AS c11,
       CASE WHEN $mod IS NOT NULL THEN list_transform(p.counts[:v.bins], lambda x: x % $mod::INTEGER) END AS residues
FROM p JOIN variants v USING (variant)
ORDER BY p.variant, p.n, p.id
