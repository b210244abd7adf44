"""How zeckdb's builds scale with the cores they are given (docs/scaling.md).

Each workload runs as a whole `zeckdb build` process pinned to k cores (taskset) with
`--threads k`, for k = 1 and every core count this machine lets the process use. Per run
it prints the wall time, the CPU time (user + system, of every thread), the peak resident
memory, and the busiest single thread's CPU time (read from /proc/PID/task/*/stat while it
runs, the share a 16-core machine could not spread), then per workload the speed-up
over one core and its Amdahl reading: the serial fraction s that the speed-up on k cores
implies (Karp and Flatt's metric, s = (k / speedup - 1) / (k - 1)) and what s predicts for
8, 16 and 64 cores.

    python bench/bench_scaling.py                     # every workload (about 40 minutes on 2 cores)
    python bench/bench_scaling.py --only core,layer   # some of them
    python bench/bench_scaling.py --quick             # smaller sizes of each, to try it (2 minutes)

Workloads:
  core     zeckdb build --n 1..150 --variant zeckendorf --variant reversed
  default  zeckdb build (every game the README's build builds)
  range    zeckdb build --summary-only --n 278..285 --variant zeckendorf --variant reversed
  layer    zeckdb build --summary-only --n 300 --variant zeckendorf (one large layer)

The kernels are compiled first (a small build), so no run pays for it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

CLI = [sys.executable, "-m", "zeckdb.cli.main"]
TICKS = os.sysconf("SC_CLK_TCK")
WORKLOADS = {
    "core": (["build", "--n", "1..150", "--variant", "zeckendorf", "--variant", "reversed"],
             ["build", "--n", "1..100", "--variant", "zeckendorf", "--variant", "reversed"]),
    "default": (["build"], ["build", "--n", "1..60"]),
    "range": (["build", "--summary-only", "--n", "278..285", "--variant", "zeckendorf", "--variant", "reversed"],
              ["build", "--summary-only", "--n", "228..231", "--variant", "zeckendorf", "--variant", "reversed"]),
    "layer": (["build", "--summary-only", "--n", "300", "--variant", "zeckendorf"],
              ["build", "--summary-only", "--n", "250", "--variant", "zeckendorf"]),
}
TARGETS = {"layer_speedup_2": 1.7, "core_busiest_share": 0.06}


def thread_ticks(pid: int) -> dict[int, tuple[str, int]]:
    """Per thread of the process, its name and its CPU time so far in clock ticks (user + system)."""
    out: dict[int, tuple[str, int]] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                head, tail = f.read().rsplit(")", 1)
            fields = tail.split()
            out[int(tid)] = (head.split("(", 1)[1], int(fields[11]) + int(fields[12]))  # utime, stime
        except (OSError, IndexError, ValueError):
            continue
    return out


def measure(args: list[str], cores: int, threads: int, db: Path, cli: list[str] = CLI) -> dict[str, Any]:
    """One pinned run: wall, CPU and busiest thread's seconds (and its name), each thread
    name's CPU seconds (`by_name`), peak GiB. cli: the command (another install's python)."""
    pin = ["taskset", "-c", f"0-{cores - 1}"] if shutil.which("taskset") else []
    env = {k: v for k, v in os.environ.items() if k != "ZECKDB_THREADS"}
    t0 = time.perf_counter()  # the documented flag, the path a user takes
    proc = subprocess.Popen([*pin, *cli, *args, "--threads", str(threads), "--db", str(db)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    seen: dict[int, tuple[str, int]] = {}
    while True:
        seen.update(thread_ticks(proc.pid))  # a thread's last reading before it ends counts
        try:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        except ChildProcessError:
            break
        if pid:
            break
        time.sleep(0.1)
    wall = time.perf_counter() - t0
    out, err = proc.communicate()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"zeckdb {' '.join(args)} failed:\n{err[-2000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    name, ticks = max(seen.values(), key=lambda seen_thread: seen_thread[1], default=("-", 0))
    by_name: dict[str, float] = {}
    for thread, thread_ticks_seen in seen.values():
        by_name[thread] = by_name.get(thread, 0.0) + thread_ticks_seen / TICKS
    return {"wall": wall, "cpu": cpu, "peak_gib": usage.ru_maxrss * 1024 / 2**30, "busiest": ticks / TICKS,
            "busiest_name": name, "by_name": by_name}


def amdahl(speedup: float, cores: int) -> float | None:
    """The serial fraction a speed-up on `cores` cores implies (Karp-Flatt)."""
    if cores < 2 or speedup <= 0:
        return None
    return max(0.0, min(1.0, (cores / speedup - 1) / (cores - 1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(WORKLOADS), help="workloads, comma-separated")
    parser.add_argument("--quick", action="store_true", help="the smaller size of each workload")
    parser.add_argument("--cores", default=None, help="core counts to run, comma-separated (default: 1 and all)")
    parser.add_argument("--threads", type=int, default=None,
                        help="zeckdb's threads in every run (default: k, the cores of the run); more threads "
                             "than cores shows how the work would spread over that many cores")
    opts = parser.parse_args()
    usable = len(os.sched_getaffinity(0))
    counts = [int(c) for c in opts.cores.split(",")] if opts.cores else sorted({1, usable})
    threads_of = (lambda k: opts.threads) if opts.threads else (lambda k: k)
    print(f"bench_scaling: {usable} usable cores, runs at {counts} (taskset, "
          f"{f'--threads {opts.threads}' if opts.threads else '--threads k'})")
    with tempfile.TemporaryDirectory(prefix="zeckdb-scaling-") as tmp:
        subprocess.run([*CLI, "build", "--n", "1..12", "--db", str(Path(tmp) / "warm.duckdb")], check=True,
                       capture_output=True)  # compiles every kernel once
        subprocess.run([*CLI, "build", "--summary-only", "--n", "160", "--variant", "zeckendorf", "--variant",
                        "reversed", "--db", str(Path(tmp) / "warm.duckdb"), "--threads", "2"], check=True,
                       capture_output=True)
        for name in opts.only.split(","):
            full, quick = WORKLOADS[name]
            args = quick if opts.quick else full
            print(f"\n{name}: zeckdb {' '.join(args)}")
            print(f"{'cores':>5} {'wall s':>8} {'CPU s':>8} {'peak GiB':>9} {'busiest s':>10} {'busiest %':>10} "
                  f"{'speed-up':>9} {'serial s':>9}  busiest thread")
            base = None
            for k in counts:
                db = Path(tmp) / f"{name}-{k}.duckdb"
                got = measure(args, k, threads_of(k), db)
                db.unlink(missing_ok=True)
                for side in Path(tmp).glob(f"{name}-{k}.duckdb*"):
                    shutil.rmtree(side, ignore_errors=True) if side.is_dir() else side.unlink()
                if k == 1:  # speed-ups and serial fractions are against one core's run
                    base = got["wall"]
                speedup = base / got["wall"] if base else None
                serial = amdahl(speedup, k) if speedup else None
                print(f"{k:>5} {got['wall']:>8.1f} {got['cpu']:>8.1f} {got['peak_gib']:>9.2f} {got['busiest']:>10.1f} "
                      f"{100 * got['busiest'] / max(got['cpu'], 1e-9):>9.1f}% "
                      f"{'-' if speedup is None else f'{speedup:.2f}x':>9} "
                      f"{'-' if serial is None else f'{serial:.3f}':>9}  {got['busiest_name']}")
                if serial is not None and base:
                    predicted = ", ".join(f"{n} cores {base / (1 / (serial + (1 - serial) / n)):.1f} s"
                                          for n in (8, 16, 64))
                    print(f"      Amdahl with s = {serial:.3f}: {predicted}")
            if name == "layer" and len(counts) > 1 and counts[1] == 2:
                print(f"      target: 2 threads at least {TARGETS['layer_speedup_2']}x faster than 1")


if __name__ == "__main__":
    main()
