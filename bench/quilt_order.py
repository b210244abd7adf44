"""Which orders of the quilt game's positions every move follows (summary mode needs one), read
from a full build's stored moves: per move of the game, how many go down in colex rank (the
full build's id, the order chips/kernels.chip_steps walks) and how many break the two-key
order "fewer chips, or as many and a larger (c2, c1, c3, c4, ...)".

    zeckdb build --variant quilt --n 1..100 --db quilt.duckdb
    python bench/quilt_order.py --db quilt.duckdb [--top 60]
"""

from __future__ import annotations

import argparse
import time

import zeckdb

BINS = 16  # the positions table's columns c1..c16

CHIPS = " + ".join(f"coalesce({{t}}.c{i}, 0)" for i in range(1, BINS + 1))
KEY = "[" + ", ".join(f"coalesce({{t}}.c{i}, 0)" for i in (2, 1, *range(3, BINS + 1))) + "]"

SQL = f"""
SELECT m.move, count(*) AS moves,
       count(*) FILTER (WHERE m.dst < m.src) AS colex_down,
       count(*) FILTER (WHERE NOT ({CHIPS.format(t='d')} < {CHIPS.format(t='s')}
                                   OR ({CHIPS.format(t='d')} = {CHIPS.format(t='s')}
                                       AND {KEY.format(t='d')} > {KEY.format(t='s')}))) AS two_key_broken
FROM moves m
JOIN positions s ON s.variant = m.variant AND s.n = m.n AND s.id = m.src
JOIN positions d ON d.variant = m.variant AND d.n = m.dst_n AND d.id = m.dst
WHERE m.variant = 'quilt' AND m.n = $n
GROUP BY m.move
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a database with the quilt game built in full")
    parser.add_argument("--top", type=int, default=60,
                        help="the largest n read (the largest layers of n <= 100 pass the SQL memory limit)")
    args = parser.parse_args()
    t0 = time.perf_counter()
    counts: dict[str, list[int]] = {}
    with zeckdb.open(args.db) as db:
        for n in range(1, args.top + 1):  # a layer at a time: the join of every layer at once passes the SQL memory limit
            for move, *row in db.sql(SQL, {"n": n}, timeout=3600, max_rows=0).rows:
                counts[move] = [a + b for a, b in zip(counts.get(move, [0, 0, 0]), row, strict=True)]
    print(f"quilt, n = 1..{args.top}: moves that go down in colex rank, and that break the two-key order")
    print("| move | moves | down in colex rank | break the two-key order |")
    print("|---|---|---|---|")
    for move, (moves, down, broken) in sorted(counts.items()):
        print(f"| `{move}` | {moves:,} | {down:,} | {broken:,} |")
    total = [sum(row[i] for row in counts.values()) for i in range(3)]
    print(f"| all | {total[0]:,} | {total[1]:,} | {total[2]:,} |")
    print(f"\n{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
