-- name: length-mod
-- description: Per n and measure, the probability that the game length is z mod Z, for Z = 2..6 and every residue z; with a check of Theorem 3.2 where it applies.
-- checks: reversed game, Theorem 1.5: the probabilities tend to 1/Z; Theorem 3.2: for even n >= 4 under P, P(length odd) = 1/2 exactly (theorem_3_2 is NULL where it does not apply).
-- param modulus (integer 2..6): only this Z (default: 2 to 6)
WITH moduli AS (SELECT m AS modulus FROM range(2, 7) t(m) WHERE $modulus IS NULL OR m = $modulus::INTEGER)
SELECT d.variant, d.n, d.measure, m.modulus, d.length % m.modulus AS residue,
       sum(d.probability) AS probability,
       abs(sum(d.probability) - 1 / m.modulus) AS distance_from_uniform,
       CASE WHEN d.variant = 'reversed' AND d.measure = 'P' AND d.n % 2 = 0 AND d.n >= 4 AND m.modulus = 2
            THEN abs(sum(d.probability) - 0.5) < 1e-12 END AS theorem_3_2
FROM length_distribution d, moduli m
WHERE ($variant IS NULL OR d.variant = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], d.n))
GROUP BY d.variant, d.n, d.measure, m.modulus, residue
ORDER BY d.variant, d.n, d.measure, m.modulus, residue
