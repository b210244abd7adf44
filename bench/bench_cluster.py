"""A Dask cluster against a local build of the same work (docs/scaling.md).

Starts a scheduler and one single-thread worker per core on loopback, then runs each
workload twice as whole `zeckdb build` processes into fresh files: locally with
`--threads CORES`, and through the cluster (`--executor dask`). Prints both wall times,
the driver's CPU time and their ratio (cluster / local: below 1 the cluster pays).

    python bench/bench_cluster.py            # every workload (about 15 minutes on 2 cores)
    python bench/bench_cluster.py --quick    # smaller sizes (2 minutes)
    python bench/bench_cluster.py --split    # machines of their own, as far as cores can stand for them

With --split the cores are cut in two, as if they were separate machines: the driver (and the
local build it is compared with) runs on the first half, the scheduler and one single-thread
worker per core on the second half (taskset). The cluster then brings cores the local build
does not have, as worker machines would, and the driver no longer shares its cores with them.

Workloads:
  core     zeckdb build --n 1..150 --variant zeckendorf --variant reversed
  shards   the same with --shards-only on the cluster (its rows left as Parquet, nothing ingested),
           against the same local build
  range    zeckdb build --summary-only --n 262..269 --variant zeckendorf --variant reversed

The kernels are compiled first (a small build), so no run pays for it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
import os
from pathlib import Path
import socket
import subprocess
import sys
import tempfile
import time

CLI = [sys.executable, "-m", "zeckdb.cli.main"]
WORKLOADS = {
    "core": (["build", "--n", "1..150", "--variant", "zeckendorf", "--variant", "reversed"],
             ["build", "--n", "1..100", "--variant", "zeckendorf", "--variant", "reversed"]),
    "shards": (["build", "--n", "1..150", "--variant", "zeckendorf", "--variant", "reversed", "--shards-only"],
               ["build", "--n", "1..100", "--variant", "zeckendorf", "--variant", "reversed", "--shards-only"]),
    "range": (["build", "--summary-only", "--n", "262..269", "--variant", "zeckendorf", "--variant", "reversed"],
              ["build", "--summary-only", "--n", "200..207", "--variant", "zeckendorf", "--variant", "reversed"]),
}


def pinned(cpus: set[int]) -> Callable[[], None]:
    return lambda: os.sched_setaffinity(0, cpus)


def timed(args: list[str], db: Path, cpus: set[int]) -> tuple[float, float]:
    """A whole zeckdb process on these cores: (wall seconds, its CPU seconds)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([*CLI, *args, "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=pinned(cpus))
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"{' '.join(args)} failed: {proc.stderr.read() if proc.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime


def start_cluster(cpus: set[int], log: Path) -> tuple[str, list[subprocess.Popen]]:
    """A scheduler and a single-thread worker per core, all on these cores."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"], stdout=open(log / "scheduler.log", "w"),  # noqa: SIM115
                              stderr=subprocess.STDOUT, preexec_fn=pinned(cpus))]
    # each worker stands for a machine of one core: a large layer's task takes one thread, as
    # it would there (distributed.task_threads), rather than every core of this shared machine
    one_core = {**os.environ, "ZECKDB_THREADS": "1"}
    workers = len(cpus)
    for i in range(workers):
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                       "--no-nanny", "--host", "127.0.0.1", "--no-dashboard"],
                                      stdout=open(log / f"worker{i}.log", "w"),  # noqa: SIM115 (the process's)
                                      stderr=subprocess.STDOUT, env=one_core, preexec_fn=pinned(cpus)))
    from distributed import Client

    with Client(address, timeout=60) as client:
        client.wait_for_workers(workers, timeout=120)
    return address, procs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(WORKLOADS), help="workloads, comma-separated")
    parser.add_argument("--quick", action="store_true", help="the smaller size of each workload")
    parser.add_argument("--split", action="store_true", help="the driver on half the cores, the workers on the rest")
    options = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    if options.split and len(cores) < 2:
        raise SystemExit("--split needs two cores at least")
    driver = set(cores[:len(cores) // 2]) if options.split else set(cores)
    workers = set(cores) - driver if options.split else set(cores)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        timed(["build", "--n", "1..20", "--variant", "zeckendorf"], folder / "warm.duckdb", driver)
        timed(["build", "--summary-only", "--n", "30", "--variant", "zeckendorf"], folder / "warm.duckdb", driver)
        address, procs = start_cluster(workers, folder)
        try:
            where = (f"the driver and the local build on cores {sorted(driver)}, the cluster on cores {sorted(workers)}"
                     if options.split else "on loopback, sharing every core")
            print(f"{len(cores)} cores; the cluster: a scheduler and {len(workers)} single-thread workers, {where}")
            print(f"{'workload':<8} {'local s':>9} {'cluster s':>10} {'driver CPU-s':>13} {'cluster/local':>14}")
            for i, name in enumerate(options.only.split(",")):  # a workload named twice runs twice
                args = WORKLOADS[name][1 if options.quick else 0]
                here = [a for a in args if a != "--shards-only"]  # a local build stores its rows
                local, _ = timed([*here, "--threads", str(len(driver))], folder / f"{name}-{i}-local.duckdb", driver)
                remote, cpu = timed([*args, "--executor", "dask", "--address", address],
                                    folder / f"{name}-{i}-cluster.duckdb", driver)
                print(f"{name:<8} {local:>9.1f} {remote:>10.1f} {cpu:>13.1f} {remote / local:>14.2f}", flush=True)
        finally:
            from distributed import Client

            with Client(address, timeout=10) as client:
                client.shutdown()
            for p in procs:
                p.wait(timeout=30)


if __name__ == "__main__":
    main()
