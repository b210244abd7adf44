"""How hard `zeckdb sql`'s limits are: statements that DuckDB neither bounds in memory nor stops
on time, run through one or more installed `zeckdb` commands side by side (e.g. a release
before and after), with the wall time and the peak memory of the command and every process it
starts, against the limits asked for.

    python bench/bench_sql_limits.py --zeckdb .venv/bin/zeckdb,new.duckdb --zeckdb /tmp/old/bin/zeckdb,old.duckdb

Each ZECKDB,DB pair is a command and a database it built (an older release reads only its own
schema).

Each statement runs with its --timeout; the memory limit is DuckDB's (ZECKDB_MEMORY_LIMIT,
default 4GB), which the command holds its statement's process to twice over. A run is
stopped by this script after 120 s if nothing else stops it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import subprocess
import time

STATEMENTS = [  # (what, SQL, --timeout, --max-rows)
    ("a list of 10^9 (memory)", "SELECT range(1000000000)", 30, "10000"),
    ("list_sort over 3x10^8", "SELECT list_sort(range(300000000))", 20, "10000"),
    ("20,000 CTEs", "WITH " + ", ".join(["c0 AS (SELECT 1 AS x)"] + [f"c{i} AS (SELECT x FROM c{i - 1})"
                                                                       for i in range(1, 20000)])
     + " SELECT * FROM c19999", 5, "10000"),
    ("8,000 UNION ALLs", " UNION ALL ".join(f"SELECT {i} AS x" for i in range(8000)), 3, "10000"),
    ("every row of 10^9 (--max-rows 0)", "SELECT * FROM range(1000000000)", 10, "0"),
]
HARD_STOP = 120.0


def tree_rss_mib(pid: int) -> float:
    """Resident memory of a process and all its descendants, MiB."""
    total, stack = 0.0, [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                total += next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0) / 1024
            with open(f"/proc/{p}/task/{p}/children") as f:
                stack += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            continue
    return total


def run(zeckdb: str, db: str, sql: str, timeout: int, max_rows: str) -> tuple[float, float, int, str]:
    """(seconds, peak MiB, exit status, the last line it wrote to stderr)."""
    t0 = time.monotonic()
    proc = subprocess.Popen([zeckdb, "sql", "-", "--timeout", str(timeout), "--max-rows", max_rows, "-f", "csv",
                             "--db", db], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(sql)
    proc.stdin.close()
    peak = 0.0
    while proc.poll() is None:
        peak = max(peak, tree_rss_mib(proc.pid))
        if time.monotonic() - t0 > HARD_STOP:
            proc.kill()
        time.sleep(0.05)
    seconds = time.monotonic() - t0
    last = (proc.stderr.read().strip().splitlines() or [""])[-1]
    return seconds, peak, proc.returncode, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zeckdb", action="append", required=True,
                        help="a zeckdb command and a database it built, as ZECKDB,DB (repeatable)")
    args = parser.parse_args()
    limit = os.environ.get("ZECKDB_MEMORY_LIMIT", "4GB")
    print(f"DuckDB memory limit {limit}; each statement with its time limit; stopped by this script at {HARD_STOP:g} s\n")
    print("| statement | time limit | zeckdb | seconds | ratio to the limit | peak MiB | exit | last line |")
    print("|---|---|---|---|---|---|---|---|")
    for what, sql, timeout, max_rows in STATEMENTS:
        for pair in args.zeckdb:
            zeckdb, db = pair.rsplit(",", 1)
            seconds, peak, code, last = run(zeckdb, db, sql, timeout, max_rows)
            shown = str(Path(zeckdb).parent.parent.name)
            print(f"| {what} | {timeout} s | {shown} | {seconds:.1f} | {seconds / timeout:.2f} | {peak:,.0f} | {code} "
                  f"| {last[:90]} |", flush=True)


if __name__ == "__main__":
    main()
