"""The lookup a user types most, against the floor under it (docs/benchmarks.md).

The floor: Python importing DuckDB, opening the database read-only and running a one-row
select. Each command runs as a whole process, paired with a floor run, RUNS times; the
figure is the median CPU time (user + system) of each, and the ratio command / floor
against the target of 1.5.

    python bench/bench_lookup.py [--db FILE]   # default: a fresh build of zeckendorf n = 1..30
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import statistics
import subprocess
import sys
import tempfile

RUNS = 5
TARGET = 1.5
CLI = [sys.executable, "-m", "zeckdb.cli.main"]


def cpu_seconds(command: list[str]) -> float:
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=None, help="a built database (zeckendorf n = 30 at least)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = options.db or str(Path(tmp) / "z.duckdb")
        if options.db is None:
            subprocess.run([*CLI, "build", "--variant", "zeckendorf", "--n", "1..30", "--db", db], check=True,
                           capture_output=True)
        floor = [sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1], read_only=True); "
                 "con.execute('SELECT winner FROM builds WHERE n = 30 LIMIT 1').fetchall()", db]
        commands = {"position": ["position", "zeckendorf", "--start", "30"],
                    "line": ["line", "zeckendorf", "--start", "30"],
                    "query": ["query", "winners", "--variant", "zeckendorf", "--n", "30"]}
        print(f"{'command':<10} {'CPU s':>7} {'floor CPU s':>12} {'ratio':>6} {'target':>7}")
        for name, args in commands.items():
            pairs = [(cpu_seconds([*CLI, *args, "--db", db]), cpu_seconds(floor)) for _ in range(RUNS)]
            mine, base = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
            print(f"{name:<10} {mine:>7.2f} {base:>12.2f} {mine / base:>6.2f} {TARGET:>7.1f}", flush=True)


if __name__ == "__main__":
    main()
