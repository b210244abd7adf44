"""What the whole-catalog check costs a lookup (docs/benchmarks.md).

Three figures, each the median of RUNS: the catalog comparison alone on an open read-only
connection (zeckdb.store.catalog.differences), opening the database read-only through zeckdb
(every check included), and `zeckdb position zeckendorf --start 30` as a whole process (CPU
seconds). Run it at this commit and at the one before (`git worktree add`), alternating, to pair:

    python bench/bench_catalog.py --db FILE     # a database with zeckendorf n = 30 built
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench_lookup import cpu_seconds

RUNS = 21


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True, help="a built database (zeckendorf n = 30 at least)")
    options = parser.parse_args()
    from zeckdb.store import Store

    opens = []
    for _ in range(RUNS):
        started = time.perf_counter()
        with Store.open_read(options.db):
            pass
        opens.append(time.perf_counter() - started)
    print(f"open read-only, every check: median {statistics.median(opens) * 1e3:.1f} ms over {RUNS}")
    try:
        from zeckdb.store.catalog import differences
    except ImportError:
        print("catalog comparison: none at this commit")
    else:
        with Store.open_read(options.db) as store:
            con = store.file.connection()
            checks = []
            for _ in range(RUNS):
                started = time.perf_counter()
                assert differences(con) == []
                checks.append(time.perf_counter() - started)
        print(f"catalog comparison alone: median {statistics.median(checks) * 1e3:.2f} ms over {RUNS}")
    lookup = [sys.executable, "-m", "zeckdb.cli.main", "position", "zeckendorf", "--start", "30", "--db", options.db]
    cpu = [cpu_seconds(lookup) for _ in range(7)]
    print(f"zeckdb position zeckendorf --start 30: median {statistics.median(cpu):.3f} CPU-s over 7")


if __name__ == "__main__":
    main()
