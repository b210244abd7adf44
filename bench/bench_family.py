"""Benchmark of the variants whose moves leave their layer: Fibonacci nim to n = 1000,
the Black Hole games and their Empty-Board pre-game, and the build-up game.

    python bench/bench_family.py                        # nim 1..1000, black-hole/empty-board m = 2..5 and build-up 1..150
    python bench/bench_family.py --m 2..12              # every Black Hole game zeckdb accepts
    python bench/bench_family.py --skip-nim

Each build runs `zeckdb build` in a child process (wall time and peak memory of
that command); the figures are printed with what they check. There is no time
target for these variants; the nim run also checks the published answer for
n = 1000 (take 13).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def timed_build(db: Path, ns: str, variants: list[str]) -> tuple[float, float]:
    """Wall time and peak memory (GiB) of one `zeckdb build` child process."""
    t0 = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "zeckdb.cli.main", "build", "--n", ns,
                              *(arg for v in variants for arg in ("--variant", v)), "--db", str(db)],
                             stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage, not the max over all children
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        sys.exit(f"zeckdb build {' '.join(variants)} failed with exit status {child.returncode}")
    return time.perf_counter() - t0, usage.ru_maxrss * 1024 / 2**30


def sizes(db: Path, variants: list[str]) -> tuple[int, int]:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    marks = ", ".join("?" * len(variants))
    positions, edges = con.execute(f"SELECT sum(positions), sum(edges) FROM builds WHERE variant IN ({marks})",
                                   variants).fetchone()
    con.close()
    return int(positions), int(edges)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--m", default="2..5", help="Black Hole parameters, e.g. 2..5 or 2..12")
    parser.add_argument("--n", default="1..150", help="n for the Black Hole and build-up games")
    parser.add_argument("--skip-nim", action="store_true")
    args = parser.parse_args()
    lo, _, hi = args.m.partition("..")
    ms = range(int(lo), int(hi or lo) + 1)
    print(f"{os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        if not args.skip_nim:
            db = Path(tmp) / "nim.duckdb"
            wall, peak = timed_build(db, "1..1000", ["fibonacci-nim"])
            positions, edges = sizes(db, ["fibonacci-nim"])
            out = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "position", "fibonacci-nim", "--start", "1000",
                                  "--json", "--db", str(db)], check=True, capture_output=True, text=True).stdout
            best = json.loads(out)["moves"][0]["move"]
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "position", "fibonacci-nim", "--start", "1000",
                            "--db", str(db)], check=True, capture_output=True)
            lookup = time.perf_counter() - t0
            print(f"  fibonacci-nim n = 1..1000: {wall:7.1f} s, peak {peak:5.2f} GiB, file "
                  f"{db.stat().st_size / 1e9:.2f} GB, {positions:,} positions, {edges:,} moves; best first move "
                  f"from (1000,999): {best!r} (published: 'take 13'); `zeckdb position --start 1000` {lookup:.2f} s")
        for family in ("black-hole", "black-hole-empty-board"):
            for m in ms:
                name = f"{family}-{m}"
                db = Path(tmp) / f"{name}.duckdb"
                wall, peak = timed_build(db, args.n, [name])
                positions, edges = sizes(db, [name])
                print(f"  {name:<26} n = {args.n}: {wall:7.1f} s, peak {peak:5.2f} GiB, "
                      f"{positions:,} positions, {edges:,} moves")
        db = Path(tmp) / "build-up.duckdb"
        wall, peak = timed_build(db, args.n, ["build-up"])
        positions, edges = sizes(db, ["build-up"])
        print(f"  {'build-up':<26} n = {args.n}: {wall:7.1f} s, peak {peak:5.2f} GiB, {positions:,} positions, "
              f"{edges:,} moves")


if __name__ == "__main__":
    main()
