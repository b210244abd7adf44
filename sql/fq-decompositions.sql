-- name: fq-decompositions
-- description: Per n = 1..max_n, the most and the fewest terms of an FQ-legal decomposition (L(n) and l(n)), their difference, the number of FQ-legal decompositions, and the largest quilt term q_k <= n; computed from the quilt sequence alone (no stored table is read). --param rows=first keeps, for each difference, the first n that has it.
-- checks: Miller and Newlon (2019), section 3: L(50) = 4 (50 = 49 + 1 = 2 + 4 + 16 + 28), 8 = 1 + 7 = 3 + 5 (decompositions are not unique), differences of 0 and 2 occur; can L(n) - l(n) grow arbitrarily large? The terminal positions of the quilt game are these decompositions.
-- variants: quilt
-- param max_n (integer 1..10000000): the largest n (default 100000)
-- param rows (all|first): every n (default), or only the first n of each difference
-- An FQ-legal decomposition is a set of distinct quilt indices no two of which differ by 1, 3 or
-- 4, and not both 1 and 3 (docs/games.md). The walk decides the indices 1, 2, ... in turn, one
-- step of the recursion per index; a partial decomposition is kept as its value and which of the
-- last four indices it took (bit 0 the index just decided), which is all the rules of the later
-- indices look at, so the ones of equal value and equal last four merge into one row: their
-- fewest and most terms and how many they are.
WITH RECURSIVE
bound AS (SELECT coalesce($max_n::INTEGER, 100000) AS max_n),
-- q_i with the three terms after it; q_{i+4} = q_{i+2} + q_{i+1} from q_5 on (q_4 = 4 is given)
quilt(i, q, q_next, q_next2, q_next3) AS (
    SELECT 1, 1, 2, 3, 4
    UNION ALL
    SELECT i + 1, q_next, q_next2, q_next3, q_next + q_next2 FROM quilt, bound WHERE q_next <= max_n),
-- after deciding indices 1..i: value v, taken the last four indices (bit b: index i - b), and of
-- the decompositions so far with these the fewest and most terms and their number. UNION ALL
-- keeps every step's rows (the answer reads the last); USING KEY would keep one row a key, which
-- does the same work with a table of keys to update besides
walk(i, v, last, fewest, most, ways) AS (
    SELECT 0, 0, 0, 0, 0, 1::BIGINT
    UNION ALL
    SELECT i, v, last, min(fewest), max(most), sum(ways)::BIGINT FROM (
        SELECT k.i, w.v + t.take * k.q AS v, ((w.last << 1) & 15) | t.take AS last,
               w.fewest + t.take AS fewest, w.most + t.take AS most, w.ways
        FROM walk w JOIN quilt k ON k.i = w.i + 1
        CROSS JOIN (VALUES (0), (1)) t(take)
        -- take index i only if i - 1, i - 3 and i - 4 are not taken (bits 0, 2, 3 of the last
        -- four: 13), nor 1 with 3 (index 1 is bit 1 when index 3 is decided), within max_n
        WHERE t.take = 0 OR (w.v + k.q <= (SELECT max_n FROM bound) AND w.last & 13 = 0
                             AND NOT (k.i = 3 AND w.last & 2 <> 0)))
    GROUP BY i, v, last),
decompositions AS (
    SELECT v AS n, max(most) AS most_terms, min(fewest) AS fewest_terms, sum(ways)::BIGINT AS decompositions
    FROM walk WHERE i = (SELECT max(i) FROM quilt) AND v >= 1 GROUP BY v),
answer AS (
    SELECT d.n, d.most_terms, d.fewest_terms, d.most_terms - d.fewest_terms AS difference, d.decompositions,
           k.i AS largest_index, k.q AS largest_term, d.n - k.q AS beyond_largest
    FROM decompositions d ASOF JOIN quilt k ON d.n >= k.q)
SELECT * FROM answer
QUALIFY coalesce($rows, 'all') = 'all' OR n = min(n) OVER (PARTITION BY difference)
ORDER BY n
