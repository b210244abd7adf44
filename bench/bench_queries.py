"""Time every named query on a full database; prints each time against the 2 s target.

    python bench/bench_queries.py --db zeckdb.duckdb   # a database built with `zeckdb build` (n = 1..150)

Each query runs three times in one process (after one warm-up run); the median is reported.
Queries of variants the database does not hold are listed as skipped.
"""

from __future__ import annotations

import argparse
from pathlib import Path
import statistics
import sys
import time

TARGET_S = 2.0
PARAMS = {"winning-moves": {"position": "26,20,10,5,2,1"}, "omega-b": {"n": "150"},  # a position of n = 150
          "play": {"p1": "best-response", "p2": "random"}}
# the queries computed from the graph when asked run for one game at n = 150 (bench_profiles.py: every n)
COMPUTED = {"play": ("zeckendorf", [150]), "deterministic": (None, [150])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default="zeckdb.duckdb")
    args = parser.parse_args()
    from zeckdb.errors import NotBuiltError
    from zeckdb.queries import list_queries, run_query
    from zeckdb.store import Store
    from zeckdb.variants import get_variant

    with Store.open_read(args.db) as store:
        ns = store.rows("SELECT min(n), max(n), count(DISTINCT variant) FROM builds")[0]
        print(f"named queries on {args.db} (n = {ns[0]}..{ns[1]}, {ns[2]} variants), target {TARGET_S:g} s each")
        worst = 0.0
        for q in list_queries():
            params = PARAMS.get(q.name, {})
            variant, ns = COMPUTED.get(q.name, (None, None))
            game = None if variant is None else get_variant(variant)
            try:
                run_query(store, q.name, game, ns, params)
            except NotBuiltError:
                print(f"  {q.name:<22} skipped: reads a variant this database does not hold")
                continue
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                rows = run_query(store, q.name, game, ns, params).rows
                times.append(time.perf_counter() - t0)
            median = statistics.median(times)
            worst = max(worst, median)
            print(f"  {q.name:<22} {median:7.3f} s  {len(rows):>8} rows  ratio {median / TARGET_S:5.2f}"
                  + ("  (n = 150 of zeckendorf, computed)" if q.name in COMPUTED else ""))
        print(f"  slowest                {worst:7.3f} s  ratio {worst / TARGET_S:5.2f}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
