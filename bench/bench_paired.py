"""A change against the commit before it: the same workload under two installs, alternating.

    python bench/bench_paired.py --before /tmp/old/bin/python --after /tmp/new/bin/python
    python bench/bench_paired.py --before A --after B --runs 3 --cores 1 --threads 1

Each install is a virtual environment with zeckdb installed (`pip install dist/*.whl` of each
commit). Each run is a whole `zeckdb build` of the core games (n = 1..150, or --n) in a
process of its own, pinned to --cores cores with `--threads` (bench_scaling.measure), the
installs taking turns (before, after, before, after, ...) so that a machine's drift falls
on both. Per run it prints the wall time, the CPU time of every thread, the peak resident
memory, the CPU seconds of the writer's threads (the writer thread and the DuckDB threads it
started, which Linux names after it) and of the busiest single thread; then each install's
median and the ratio after / before.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import statistics
import subprocess
import tempfile

from bench_scaling import measure

WRITER = "writer_0"  # the build's writer thread as /proc names it (zeckdb.settings.pool), and its DuckDB threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the python of the install before the change")
    parser.add_argument("--after", required=True, help="the python of the install after it")
    parser.add_argument("--runs", type=int, default=2, help="runs of each install")
    parser.add_argument("--n", default="1..150")
    parser.add_argument("--cores", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--threads", type=int, default=None, help="zeckdb's --threads (default: --cores)")
    opts = parser.parse_args()
    threads = opts.threads or opts.cores
    args = ["build", "--n", opts.n, "--variant", "zeckendorf", "--variant", "reversed"]
    installs = {"before": opts.before, "after": opts.after}
    print(f"bench_paired: zeckdb {' '.join(args)} --threads {threads}, on {opts.cores} cores, {opts.runs} runs each")
    got: dict[str, list[dict]] = {side: [] for side in installs}
    with tempfile.TemporaryDirectory(prefix="zeckdb-paired-") as tmp:
        for side, python in installs.items():  # each install's kernels compiled before it is timed
            subprocess.run([python, "-m", "zeckdb.cli.main", "build", "--n", "1..12", "--db",
                            str(Path(tmp) / f"warm-{side}.duckdb")], check=True, capture_output=True)
        print(f"{'run':>3} {'install':>7} {'wall s':>8} {'CPU s':>8} {'peak GiB':>9} {'writer+ s':>9}  busiest thread")
        for run in range(1, opts.runs + 1):
            for side, python in installs.items():
                db = Path(tmp) / f"{side}-{run}.duckdb"
                one = measure(args, opts.cores, threads, db, cli=[python, "-m", "zeckdb.cli.main"])
                one["writer"] = one["by_name"].get(WRITER, 0.0)
                got[side].append(one)
                print(f"{run:>3} {side:>7} {one['wall']:>8.1f} {one['cpu']:>8.1f} {one['peak_gib']:>9.2f} "
                      f"{one['writer']:>9.1f}  {one['busiest_name']} {one['busiest']:.1f} s",
                      flush=True)
                for path in Path(tmp).glob(f"{side}-{run}.duckdb*"):
                    if path.is_file():
                        path.unlink()
    print("\nmedians and after / before:")
    for key, label in (("wall", "wall s"), ("cpu", "CPU s"), ("peak_gib", "peak GiB"), ("writer", "writer+ s")):
        before, after = (statistics.median(one[key] for one in got[side]) for side in installs)
        print(f"  {label:<9} before {before:8.2f}   after {after:8.2f}   ratio {after / before if before else float('nan'):.3f}")


if __name__ == "__main__":
    main()
