"""Benchmark of the build and lookup targets; prints measured figures and their ratio to each target.

    python bench/bench_core.py                  # zeckendorf + reversed, n = 1..150 (a minute and a half)
    python bench/bench_core.py --n 1..200       # the memory-bound check (about 20 minutes, ~10 GB of disk)
    python bench/bench_core.py --variant all    # the default `zeckdb build`: every variant (quilt to n = 100)

It runs `zeckdb build` in a child process (wall time and peak memory of the
whole command), then times lookups in one process, `zeckdb position` end to end
and `zeckdb verify` of the whole file. Then, side by side, whole processes: a
single-n `zeckdb build --variant zeckendorf --n K` into a new file against the
plain dict-memo solver of bench/plain_solver.py (outcome, remoteness, shortest
and longest game only) at K = --single (150), and the fixed start-up cost (the
same build at n = 1: imports, compiled kernels loaded from numba's cache, schema).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

TARGETS = {"build_s": 60.0, "peak_gib": 4.0, "file_gb": 1.0, "lookup_ms": 5.0, "cli_s": 1.0, "verify_s": 120.0,
           "single_speedup": 10.0}
BENCH = Path(__file__).resolve().parent


def measure_build(db: Path, ns: str, variants: list[str]) -> tuple[float, float, float]:
    """Wall seconds, peak GiB and CPU seconds (user + system, every thread) of `zeckdb build`."""
    chosen = [] if variants == ["all"] else [arg for v in variants for arg in ("--variant", v)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "build", "--n", ns, *chosen, "--db", str(db)], check=True,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, after.ru_maxrss * 1024 / 2**30, cpu


def measure_lookups(db: Path, max_n: int, samples: int = 200) -> float:
    from zeckdb import api

    rng = random.Random(1)
    with api.open(db) as database:
        sizes = database.sql(f"SELECT variant, n, positions FROM builds WHERE n > {max_n - 20}").rows
        positions = []
        for _ in range(samples):  # random positions of the 20 largest n
            variant, n, size = rng.choice(sizes)
            i = rng.randrange(size)
            cols = database.sql(f"SELECT {', '.join(f'coalesce(c{k}, 0)' for k in range(1, 17))} FROM positions "
                                f"WHERE variant = '{variant}' AND n = {n} AND id = {i}").rows[0]
            positions.append((variant, tuple(cols)))
        database.position(*positions[0])  # warm up
        times = []
        for variant, pos in positions:
            t0 = time.perf_counter()
            database.position(variant, pos)
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def measure_verify(db: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "verify", "--db", str(db)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def measure_cli(db: Path, n: int) -> float:
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "position", "reversed", "--start", str(n),
                        "--db", str(db)], check=True,
                       stdout=subprocess.DEVNULL)
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def measure_single(tmp: Path, n: int, runs: int = 3) -> tuple[float, float, float]:
    """Median whole-process seconds: `zeckdb build --variant zeckendorf --n n` into a new file,
    the same at n = 1 (the fixed start-up cost), and the plain solver at n."""
    def timed(argv: list[str]) -> float:
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - t0

    def build(k: int, i: int) -> float:
        return timed([sys.executable, "-m", "zeckdb.cli.main", "build", "--variant", "zeckendorf", "--n", str(k),
                      "--db", str(tmp / f"single-{k}-{i}.duckdb")])

    zeck = statistics.median(build(n, i) for i in range(runs))
    startup = statistics.median(build(1, i) for i in range(runs))
    plain = statistics.median(timed([sys.executable, str(BENCH / "plain_solver.py"), str(n)]) for _ in range(runs))
    return zeck, startup, plain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", default="1..150")
    parser.add_argument("--variant", action="append", help="variant to build (repeatable; 'all' for the default "
                        "build of every variant) [default: zeckendorf and reversed]")
    parser.add_argument("--keep", help="write the database here and keep it (default: a temporary file)")
    parser.add_argument("--single", type=int, default=150, help="n of the single-n builds against the plain solver "
                        "(0: skip them)")
    args = parser.parse_args()
    max_n = int(args.n.split("..")[-1])
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        db = Path(args.keep) if args.keep else Path(tmp) / "bench.duckdb"
        if db.exists():
            sys.exit(f"{db} exists: the benchmark measures a build from scratch")
        variants = args.variant or ["zeckendorf", "reversed"]
        wall, peak, cpu = measure_build(db, args.n, variants)
        size = db.stat().st_size / 1e9
        lookup = measure_lookups(db, max_n)
        cli = measure_cli(db, max_n)
        check = measure_verify(db)
        print(f"zeckdb build --n {args.n} ({' + '.join(variants)}), {os.cpu_count()} cores"
              + ("" if variants == ["zeckendorf", "reversed"] else "; the targets are those of zeckendorf + reversed"))
        for label, value, target, unit in [
            ("build wall time", wall, TARGETS["build_s"], "s"),
            ("build peak memory", peak, TARGETS["peak_gib"], "GiB"),
            ("database file", size, TARGETS["file_gb"], "GB"),
            ("lookup + ranked moves (median)", lookup, TARGETS["lookup_ms"], "ms"),
            ("`zeckdb position` end to end (median)", cli, TARGETS["cli_s"], "s"),
            ("`zeckdb verify` of the whole file", check, TARGETS["verify_s"], "s"),
        ]:
            print(f"  {label:<40} {value:9.3f} {unit:<4} target {target:g} {unit:<4} ratio {value / target:5.2f}")
        cores = os.cpu_count() or 1
        # the build's CPU over the cores is the least wall time any schedule of the same work could take
        print(f"  {'build CPU time (user + system)':<40} {cpu:9.3f} s    over {cores} cores at least "
              f"{cpu / cores:.1f} s of wall; used {cpu / wall / cores:.0%} of the cores")
        if args.single:
            zeck, startup, plain = measure_single(Path(tmp), args.single)
            print(f"whole processes at n = {args.single} (median of 3): `zeckdb build --variant zeckendorf` "
                  f"{zeck:.2f} s (every column), plain solver {plain:.2f} s (four numbers)")
            print(f"  {'speed-up over the plain solver':<40} {plain / zeck:9.2f} x    target {TARGETS['single_speedup']:g} x"
                  f"    ratio {plain / zeck / TARGETS['single_speedup']:5.2f}")
            print(f"  {'start-up (the same build at n = 1)':<40} {startup:9.3f} s")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
