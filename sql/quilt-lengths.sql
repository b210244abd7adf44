-- name: quilt-lengths
-- description: Per n, the quilt game's shortest and longest game, L(n) (most terms in an FQ-legal decomposition, i.e. in a terminal position), n - L(n), the number of terminal positions, the exact mean length under random play (every legal move equally likely: builds.expected_length), the longest and the mean over n, and the largest longest/n at any built n up to this one.
-- checks: Miller and Newlon (2019): the shortest game has exactly n - L(n) moves; games end at FQ-legal decompositions, which are not unique (8 = 1 + 7 = 3 + 5); section 3: simulations never gave a game close to 2n long, and the mean and longest grow linearly (longest_per_n, mean_per_n).
-- variants: quilt
WITH ends AS (
    SELECT variant, n, max(list_sum(list_transform(list_value(*COLUMNS('^c\d+$')), lambda x: coalesce(x, 0)))) AS l_n,
           count(*) AS terminals
    FROM positions WHERE variant = 'quilt' AND is_terminal GROUP BY variant, n),
r AS (
    SELECT n, b.min_length, b.max_length, e.l_n, n - e.l_n AS n_minus_l, b.min_length = n - e.l_n AS min_is_n_minus_l,
           e.terminals, b.expected_length, b.max_length / n AS longest_per_n, b.expected_length / n AS mean_per_n,
           max(b.max_length / n) OVER (ORDER BY n) AS largest_longest_per_n
    FROM builds b JOIN ends e USING (variant, n))
SELECT * FROM r
WHERE ($ns::INTEGER[] IS NULL OR list_contains($ns::INTEGER[], n))
ORDER BY n
