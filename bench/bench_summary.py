"""Benchmark of summary mode (`zeckdb build --summary-only`): its targets for n = 151..300,
then onward toward n = 400 for as long as allowed; prints seconds and memory per n and the ratios.

    python bench/bench_summary.py                          # n = 151..300 (about 20 minutes), check 151..170
    python bench/bench_summary.py --onward 400 --hours 3   # then n = 301.. until 400 or 3 hours
    python bench/bench_summary.py --lean                   # only winner, remoteness, shortest and longest
    python bench/bench_summary.py --layers                 # one layer of each kind of walk, best of 3 (a minute)

Every layer of both core games is solved (zeckendorf and reversed, two at a time on the
two cores) into a fresh database; n = 1..150 first (seconds), so the running Player-1
fractions start at n = 1. Per n it prints each game's positions, moves, seconds, the
solver's state and the process's peak resident memory so far. With --check, the
layers of those n are also built in full into another file and every summary column is
compared (the default suite does the same for n <= 60).
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
import resource
import sys
import tempfile
import time

TARGETS = {"seconds_151_300": 20 * 60.0, "peak_gib_151_300": 8.0, "peak_gib_onward": 16.0}
PHI = (1 + 5 ** 0.5) / 2


def peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30


def run(db: Path, ns: list[int], memory_gib: float, log, lean: bool = False) -> float:
    from zeckdb.store import StoreWriter
    from zeckdb.settings import DEFAULTS, thread_count
    from zeckdb.summaries import build_summaries, check_summary_targets, plan_summaries
    from zeckdb.variants import get_variant

    variants = [get_variant("zeckendorf"), get_variant("reversed")]
    memory = int(memory_gib * 2**30)
    check_summary_targets(variants, ns, memory)
    t0 = time.perf_counter()
    with StoreWriter.open_write(db) as store:
        jobs = plan_summaries(store.reads, variants, ns, False, memory, workers=thread_count(DEFAULTS), lean=lean)
        build_summaries(store, jobs, threads=thread_count(DEFAULTS), memory=memory, on_layer=log)
    if not jobs:
        print(f"  n = {ns[0]}..{ns[-1]}: already in {db}", flush=True)
    return time.perf_counter() - t0


LAYERS = [("zeckendorf", 190), ("reversed", 190), ("build-up", 120), ("nacci-2-3", 400), ("ordered", 27),
          ("zeckendorf-p3", 150), ("nacci-2-3-p4", 300)]


def time_layers() -> None:
    """One layer of each kind of walk (the chip games' in both directions, of two and of P
    players; the ordered game's), solved in memory: the best of three runs after a warm-up."""
    from zeckdb.engine.summary import solve_summary
    from zeckdb.variants import get_variant

    print("summary mode, one layer each (best of 3, in memory, floats kept):", flush=True)
    for name, n in LAYERS:
        game = get_variant(name)
        solve_summary(game, 8)  # compiled (or loaded from numba's cache) before the clock starts
        best, summary = math.inf, None
        for _ in range(3):
            t0 = time.perf_counter()
            summary = solve_summary(game, n)
            best = min(best, time.perf_counter() - t0)
        assert summary is not None
        print(f"  {name:<14} n = {n:<4} {summary.positions:>12,} positions {summary.edges:>13,} moves {best:7.3f} s "
              f"({summary.positions / best / 1e6:6.2f} M positions/s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--to", type=int, default=300)
    parser.add_argument("--onward", type=int, default=0, help="then go on to this n, one n at a time")
    parser.add_argument("--hours", type=float, default=3.0, help="time allowed for the onward part")
    parser.add_argument("--check", default="151..170", help="n built in full as well and compared ('' for none)")
    parser.add_argument("--db", type=Path, default=None, help="database file (default: a temporary one)")
    parser.add_argument("--lean", action="store_true", help="keep only winner, remoteness, shortest and longest game")
    parser.add_argument("--layers", action="store_true", help="only time one layer of each kind of walk")
    args = parser.parse_args()
    if args.layers:
        time_layers()
        return
    from zeckdb.ranges import parse_ns
    from zeckdb.store import Store

    folder = Path(tempfile.mkdtemp(prefix="zeckdb-bench-summary-"))
    db = args.db or folder / "summary.duckdb"
    def log(s) -> None:
        print(f"  n={s.n:<4} {s.variant:<10} {s.positions:>12,} positions {s.edges:>14,} moves "
              f"{s.seconds:8.1f} s  state {s.state_bytes / 2**30:5.2f} GiB  peak so far {peak_gib():5.2f} GiB  "
              f"winner {s.winner}", flush=True)

    print(f"summary mode{' (--lean)' if args.lean else ''}, zeckendorf + reversed -> {db}", flush=True)
    t = run(db, list(range(1, 151)), 7.0, lambda s: None)
    print(f"n = 1..150: {t:.1f} s", flush=True)
    t = run(db, list(range(151, args.to + 1)), 7.0, log, args.lean)
    peak = peak_gib()
    print(f"n = 151..{args.to}: {t:.1f} s wall ({t / 60:.1f} min), peak {peak:.2f} GiB", flush=True)
    if args.to == 300 and t > 60:
        print(f"  target 20 min: ratio {t / TARGETS['seconds_151_300']:.2f}; target 8 GiB: ratio "
              f"{peak / TARGETS['peak_gib_151_300']:.2f}", flush=True)
    reached = args.to
    if args.onward > args.to:
        deadline = time.perf_counter() + args.hours * 3600
        t0 = time.perf_counter()
        for n in range(args.to + 1, args.onward + 1):
            if time.perf_counter() > deadline:
                break
            run(db, [n], 15.0, log, args.lean)
            reached = n
        print(f"onward: n = {args.to + 1}..{reached} in {time.perf_counter() - t0:.0f} s, peak {peak_gib():.2f} GiB "
              f"(16 GiB allowed)", flush=True)

    with Store.open_read(db) as store:
        rows = store.rows("SELECT n, winner FROM builds WHERE variant = 'reversed' ORDER BY n")
        sizes = store.rows("SELECT variant, n, seconds FROM builds WHERE n > 150 ORDER BY n, variant")
    p1 = [n for n, w in rows if w == 1]
    print(f"reversed game, Player 1 wins n = {', '.join(map(str, p1))}")
    wins = 0
    for n, w in rows:
        wins += w == 1
        if n in (150, 200, 250, 300, 350, 400) or n == reached:
            print(f"  running Player-1 fraction at n = {n}: {wins / n:.4f} (1/phi = {1 / PHI:.4f}, "
                  f"difference {wins / n - 1 / PHI:+.4f})")
    print("seconds per n (the two games together) and growth per step of 10:")
    per_n: dict[int, float] = {}
    for _, n, s in sizes:
        per_n[n] = per_n.get(n, 0.0) + s
    for n in sorted(per_n):
        if n % 10 == 0 and n - 10 in per_n:
            print(f"  n = {n}: {per_n[n]:.1f} s (x{per_n[n] / per_n[n - 10]:.2f} over n = {n - 10})")

    if args.check:
        check_full(db, folder / "full.duckdb", parse_ns(args.check))


def check_full(summary_db: Path, full_db: Path, ns: list[int]) -> None:
    from zeckdb.builder import build
    from zeckdb.store import Store, StoreWriter
    from zeckdb.variants import get_variant

    t0 = time.perf_counter()
    with StoreWriter.open_write(full_db) as store:
        build(store, [get_variant("zeckendorf"), get_variant("reversed")], ns)
    columns = ("positions, edges, start_id, start_position, winner, min_length, max_length, start_remoteness, "
               "games_approx, expected_length, p1_wins_random, p1_wins_p1_perfect, p1_wins_p2_perfect")
    query = (f"SELECT variant, n, {columns} FROM builds LEFT JOIN random_play USING (variant, n) "
             "WHERE list_contains(?, n) ORDER BY variant, n")
    with Store.open_read(full_db) as full, Store.open_read(summary_db) as summary:
        want = full.rows(query, [ns])
        got = summary.rows(query, [ns])
    bad = [(w, g) for w, g in zip(want, got, strict=False)
           if w[:10] != g[:10] or not all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(w[10:], g[10:], strict=False))]
    print(f"check: n = {ns[0]}..{ns[-1]} built in full ({time.perf_counter() - t0:.0f} s) and compared with summary mode: "
          f"{len(want)} layers, {len(bad) + abs(len(want) - len(got))} differ", flush=True)
    if bad or len(want) != len(got):
        for w, g in bad[:5]:
            print(f"  full {w}\n  summ {g}")
        sys.exit(1)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
