-- name: length-moments
-- description: Per n and measure, the mean, variance, skewness and excess kurtosis of the game length; how far its 4th and 6th standardized moments are from the Gaussian's 3 and 15, in percent; and how far its 4th and 6th raw moments E[X^k] are from those of the Gaussian with the same mean and variance, in percent.
-- checks: the Fibonacci Quilt paper's Figure 7 (Miller and Newlon 2019) reports raw4_pct_diff and raw6_pct_diff from simulation (their ratio near 5 is the raw moments'); moment4_pct_diff, moment6_pct_diff: 100 |m_k / sigma^k - g_k| / g_k.
-- param measure (P|mu): the measure (default: both)
-- The raw moments' differences are written through the central moments m_j about the mean mu, so
-- that nothing cancels in floating point: E X^4 - E Y^4 = 4 mu m3 + m4 - 3 m2^2 and
-- E X^6 - E Y^6 = 20 mu^3 m3 + 15 mu^2 (m4 - 3 m2^2) + 6 mu m5 + m6 - 15 m2^3 (Y Gaussian).
WITH chosen AS MATERIALIZED (
    SELECT variant, n, measure, mean, variance, skewness, excess_kurtosis, moment4_pct_diff, moment6_pct_diff
    FROM length_moments
    WHERE ($variant IS NULL OR variant = $variant)
      AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
      AND ($measure IS NULL OR measure = $measure)),
central AS (
    SELECT c.variant, c.n, c.measure,
           sum(d.probability * (d.length - c.mean) ^ 3) AS m3, sum(d.probability * (d.length - c.mean) ^ 4) AS m4,
           sum(d.probability * (d.length - c.mean) ^ 5) AS m5, sum(d.probability * (d.length - c.mean) ^ 6) AS m6
    FROM chosen c JOIN length_distribution d USING (variant, n, measure)
    GROUP BY c.variant, c.n, c.measure)
SELECT c.variant, c.n, c.measure, c.mean, c.variance, c.skewness, c.excess_kurtosis, c.moment4_pct_diff, c.moment6_pct_diff,
       CASE WHEN c.variance > 0 THEN 100 * abs(4 * c.mean * m.m3 + m.m4 - 3 * c.variance ^ 2)
           / (c.mean ^ 4 + 6 * c.mean ^ 2 * c.variance + 3 * c.variance ^ 2) END AS raw4_pct_diff,
       CASE WHEN c.variance > 0 THEN 100 * abs(20 * c.mean ^ 3 * m.m3 + 15 * c.mean ^ 2 * (m.m4 - 3 * c.variance ^ 2)
           + 6 * c.mean * m.m5 + m.m6 - 15 * c.variance ^ 3)
           / (c.mean ^ 6 + 15 * c.mean ^ 4 * c.variance + 45 * c.mean ^ 2 * c.variance ^ 2 + 15 * c.variance ^ 3) END
           AS raw6_pct_diff
FROM chosen c JOIN central m USING (variant, n, measure)
ORDER BY c.variant, c.n, c.measure
