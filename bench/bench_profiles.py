"""Time the strategy profiles (`zeckdb play`, the `play` and `deterministic` queries) on the core
games at n = 150, and the queries over every n; prints each time against its target.

    python bench/bench_profiles.py --db zeckdb.duckdb   # a database with zeckendorf and reversed to n = 150

`zeckdb play` at one n (the length distribution included) and a query's one n: target 5 s,
"a few seconds" (issue: the commands answer n = 150 of the core games within a few seconds).
Every n of 1..150 at once: reported, with no target (the same work summed over 150 layers).
Each is timed once after a warm-up (the kernels compiled and cached), in this process.
"""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path
import resource
import sys
import time

TARGET_S = 5.0
PAIRS = [("perfect", "random"), ("random", "random"), ("best-response", "random"), ("random", "best-response"),
         ("split-smallest", "combine-largest")]


def timed(call) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = call()
    return time.perf_counter() - t0, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default="zeckdb.duckdb")
    parser.add_argument("--n", type=int, default=150)
    args = parser.parse_args()
    from zeckdb import api

    n = args.n
    everything = {"timeout": 3600, "max_rows": 0}
    with api.open(args.db) as database:
        database.play("zeckendorf", start=8)  # warm: kernels loaded
        print(f"strategy profiles on {args.db}, n = {n}; target {TARGET_S:g} s for one n")
        for variant in ("zeckendorf", "reversed"):
            for p1, p2 in PAIRS:
                if variant != "zeckendorf" and "split-smallest" in (p1, p2):
                    continue  # the preferences are the Zeckendorf game's
                seconds, result = timed(partial(database.play, variant, start=n, p1=p1, p2=p2))
                print(f"  play {variant:<10} {p1:>14} vs {p2:<15} {seconds:6.2f} s  ratio {seconds / TARGET_S:4.2f}"
                      f"  P1 wins {result.p1_wins:.6f}")
        seconds, _ = timed(lambda: database.query("play", variant="zeckendorf", n=n, p1="perfect", p2="random",
                                                  **everything))
        print(f"  query play, n = {n}                       {seconds:6.2f} s  ratio {seconds / TARGET_S:4.2f}")
        seconds, _ = timed(lambda: database.query("deterministic", n=n, **everything))
        print(f"  query deterministic, n = {n}              {seconds:6.2f} s  ratio {seconds / TARGET_S:4.2f}")
        every = list(range(1, n + 1))
        seconds, _ = timed(lambda: database.query("deterministic", n=every, **everything))
        print(f"  query deterministic, n = 1..{n}           {seconds:6.2f} s  (no target)")
        seconds, _ = timed(lambda: database.query("play", variant="zeckendorf", n=every, p1="perfect", p2="random",
                                                  **everything))
        print(f"  query play perfect/random, n = 1..{n}     {seconds:6.2f} s  (no target)")
    print(f"  peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
