"""What misère play costs against normal play, measured through the command line a user runs.

    python bench/bench_misere.py            # the core range, n = 1..150, and summary mode at n = 250
    python bench/bench_misere.py --quick    # n = 1..90 and summary mode at n = 200

1. Full builds: `zeckdb build --variant zeckendorf --variant reversed --n 1..150` into a new
   file, then the same with their misère twins into another new file; wall and CPU seconds of
   each (best of --repeat runs) and the ratio. Target: within 1.2x.
2. The twins beside their normal games: building zeckendorf-misere and reversed-misere into
   the normal games' file adds no move (edges before and after) and only their positions'
   values (the file's growth, against the normal games' own file size).
3. Summary mode: `zeckdb build --summary-only --variant zeckendorf --n 250` against
   `--variant zeckendorf-misere`; the ratio. Target: within 1.2x.

Each run is a fresh process with the documented flags (--threads default: every usable core).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import resource
import subprocess
import sys
import tempfile
import time

CLI = [sys.executable, "-m", "zeckdb.cli.main"]


def run(args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one zeckdb command in a process of its own."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([*CLI, *args], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"zeckdb {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(args: list[str], db: Path, repeat: int) -> tuple[float, float]:
    """The fastest of `repeat` runs, each into a new file."""
    runs = []
    for _ in range(repeat):
        db.unlink(missing_ok=True)
        runs.append(run([*args, "--db", str(db)]))
    return min(runs)


def count(db: Path, sql: str) -> int:
    done = subprocess.run([*CLI, "sql", sql, "-f", "csv", "--db", str(db)], capture_output=True, text=True, check=True)
    return int(done.stdout.splitlines()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1..90 and summary mode at n = 200")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each build, the fastest kept (default 2)")
    opts = parser.parse_args()
    ns, summary_n = ("1..90", "200") if opts.quick else ("1..150", "250")
    print(f"cores usable: {len(os.sched_getaffinity(0))}; full builds n = {ns}, summary mode n = {summary_n}")
    with tempfile.TemporaryDirectory(prefix="zeckdb-bench-misere-") as tmp:
        normal_db, misere_db = Path(tmp) / "normal.duckdb", Path(tmp) / "misere.duckdb"
        normal = best(["build", "--variant", "zeckendorf", "--variant", "reversed", "--n", ns], normal_db, opts.repeat)
        misere = best(["build", "--variant", "zeckendorf-misere", "--variant", "reversed-misere", "--n", ns], misere_db,
                      opts.repeat)
        print(f"full build, normal twins:  {normal[0]:7.1f} s wall {normal[1]:7.1f} CPU-s")
        print(f"full build, misère twins:  {misere[0]:7.1f} s wall {misere[1]:7.1f} CPU-s")
        print(f"  ratio misère / normal:   {misere[0] / normal[0]:7.2f} wall {misere[1] / normal[1]:7.2f} CPU "
              "(target: at most 1.2)")

        size, edges = normal_db.stat().st_size, count(normal_db, "SELECT count(*) FROM edges")
        positions = count(normal_db, "SELECT count(*) FROM positions WHERE variant IN ('zeckendorf', 'reversed')")
        beside = run(["build", "--variant", "zeckendorf-misere", "--variant", "reversed-misere", "--n", ns,
                      "--db", str(normal_db)])
        grown, edges_after = normal_db.stat().st_size, count(normal_db, "SELECT count(*) FROM edges")
        print(f"twins beside their normal games: {beside[0]:.1f} s wall; moves stored {edges:,} -> {edges_after:,} "
              f"({'none added' if edges_after == edges else 'ADDED'})")
        print(f"  file {size / 2**20:,.1f} MiB -> {grown / 2**20:,.1f} MiB: +{(grown - size) / 2**20:,.1f} MiB for "
              f"{positions:,} positions' values ({(grown - size) / positions:.1f} bytes each); the misère-only file "
              f"holds the moves too: {misere_db.stat().st_size / 2**20:,.1f} MiB")

        summary_db = Path(tmp) / "summary.duckdb"
        plain = best(["build", "--summary-only", "--variant", "zeckendorf", "--n", summary_n], summary_db, opts.repeat)
        twin = best(["build", "--summary-only", "--variant", "zeckendorf-misere", "--n", summary_n], summary_db,
                    opts.repeat)
        print(f"summary mode n = {summary_n}, zeckendorf:        {plain[0]:7.1f} s wall {plain[1]:7.1f} CPU-s")
        print(f"summary mode n = {summary_n}, zeckendorf-misere: {twin[0]:7.1f} s wall {twin[1]:7.1f} CPU-s")
        print(f"  ratio misère / normal:   {twin[0] / plain[0]:7.2f} wall {twin[1] / plain[1]:7.2f} CPU "
              "(target: at most 1.2)")


if __name__ == "__main__":
    main()
