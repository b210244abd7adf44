-- name: length-moments
-- description: Per n and measure, the mean, variance, skewness and excess kurtosis of the game length, and how far its 4th and 6th standardized moments are from the Gaussian's 3 and 15, in percent.
-- checks: the Fibonacci Quilt paper's Figure 7 measure of Gaussian behaviour (Miller and Newlon 2019): 100 |m_k / sigma^k - g_k| / g_k.
-- param measure (P|mu): the measure (default: both)
SELECT variant, n, measure, mean, variance, skewness, excess_kurtosis, moment4_pct_diff, moment6_pct_diff
FROM length_moments
WHERE ($variant IS NULL OR variant = $variant)
  AND ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
  AND ($measure IS NULL OR measure = $measure)
ORDER BY variant, n, measure
