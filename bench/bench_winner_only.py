"""Benchmark of summary mode's winner-only state (`zeckdb build --summary-only --winner-only`,
one byte a position) against `--lean` (8 bytes): one layer of the reversed game per whole
process, as a user runs it, each timed and its peak resident memory read from the kernel
(os.wait4), the numba kernels compiled first by a small build.

    python bench/bench_winner_only.py pair --n 300 --repeat 2       # lean and winner-only alternating, same n
    python bench/bench_winner_only.py pair --n 411 --modes lean     # one mode only
    python bench/bench_winner_only.py onward --n 411..420 --db winners.duckdb --hours 1
                                                                    # winner-only, one n at a time, resumable

Per run it prints the mode, n, positions, moves, the layer's solve seconds (builds.seconds),
the process's wall seconds and peak memory, and the winner; `onward` stores the rows in --db,
where `zeckdb query winners --variant reversed --db DB` reads them. Run one big process at a
time: the layers past n = 400 take most of this machine's memory bandwidth.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import time

import duckdb

ZECKDB = str(Path(sys.executable).parent / "zeckdb")
MODES = {"lean": ["--lean"], "winner-only": ["--winner-only"]}


def one_layer(db: Path, n: int, mode: str, game: str, threads: int, memory_gib: float) -> dict:
    """Layer n of `game` solved by one `zeckdb build --summary-only` process in `mode`: its
    figures (the process's wall time and peak resident memory, the stored row's)."""
    command = [ZECKDB, "build", "--summary-only", *MODES[mode], "--variant", game, "--n", str(n), "--force",
               "--threads", str(threads), "--db", str(db)]
    env = {**os.environ, "ZECKDB_SUMMARY_MEMORY": str(memory_gib)}
    t0 = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - t0
    err = process.stderr.read().decode() if process.stderr else ""
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed ({status}): {err}")
    con = duckdb.connect(str(db), read_only=True)
    try:
        positions, edges, seconds, winner = con.execute(
            "SELECT positions, edges, seconds, winner FROM builds WHERE variant = ? AND n = ?", [game, n]).fetchone()
    finally:
        con.close()
    return dict(mode=mode, n=n, positions=positions, edges=edges, seconds=seconds, wall=wall,
                peak_gib=usage.ru_maxrss * 1024 / 2**30, winner=winner)


def show(r: dict) -> None:
    print(f"  {r['mode']:<12} n={r['n']:<4} {r['positions']:>13,} positions {r['edges']:>15,} moves "
          f"solve {r['seconds']:8.1f} s  wall {r['wall']:8.1f} s  peak {r['peak_gib']:6.2f} GiB  "
          f"({r['seconds'] / r['positions'] * 1e9:5.0f} ns a position)  winner {r['winner']}", flush=True)


def warm(folder: Path, game: str) -> None:
    """The kernels compiled (or loaded from numba's cache) before anything is timed."""
    for mode in MODES:
        one_layer(folder / "warm.duckdb", 30, mode, game, 1, 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["pair", "onward"])
    parser.add_argument("--n", default="300", help="pair: one n; onward: a range such as 411..420")
    parser.add_argument("--game", default="reversed")
    parser.add_argument("--repeat", type=int, default=1, help="pair: runs of each mode, alternating")
    parser.add_argument("--modes", default="lean,winner-only", help="pair: the modes run (lean, winner-only)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--memory", type=float, default=12.0, help="ZECKDB_SUMMARY_MEMORY, GiB")
    parser.add_argument("--hours", type=float, default=1.0, help="onward: stop starting layers after this long")
    parser.add_argument("--db", type=Path, default=None, help="onward: the database the rows go to")
    args = parser.parse_args()
    from zeckdb.ranges import parse_ns

    folder = Path(tempfile.mkdtemp(prefix="zeckdb-bench-winner-"))
    warm(folder, args.game)
    print(f"{args.game}, {args.threads} thread(s), ZECKDB_SUMMARY_MEMORY={args.memory}", flush=True)
    if args.what == "pair":
        n = int(args.n)
        modes = [m for m in MODES if m in args.modes.split(",")]
        for k in range(args.repeat):
            for mode in (modes if k % 2 == 0 else modes[::-1]):
                show(one_layer(folder / f"{mode}.duckdb", n, mode, args.game, args.threads, args.memory))
                (folder / f"{mode}.duckdb").unlink()
        return
    db = args.db or folder / "winners.duckdb"
    deadline = time.perf_counter() + args.hours * 3600
    for n in parse_ns(args.n):
        if time.perf_counter() > deadline:
            print(f"  stopped before n = {n}: {args.hours} hours passed", flush=True)
            break
        if db.exists() and stored(db, args.game, n):
            print(f"  n={n}: already in {db}", flush=True)
            continue
        show(one_layer(db, n, "winner-only", args.game, args.threads, args.memory))


def stored(db: Path, game: str, n: int) -> bool:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM builds WHERE variant = ? AND n = ?", [game, n]).fetchone() == (1,)
    finally:
        con.close()


if __name__ == "__main__":
    main()
