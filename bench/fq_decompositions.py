"""L(n) - l(n) in the Fibonacci Quilt: docs/findings.md's tables and plot, the query's times, and the
check against a full build of the quilt game.

    python bench/fq_decompositions.py write                   # the findings' tables and docs/fq-difference.png
    python bench/fq_decompositions.py time                    # the query's seconds for max_n = 10^5 and 10^6
    python bench/fq_decompositions.py check-build --top 100   # the quilt game built in full to 100, its
                                                              # terminal positions against the query

Every number comes from `zeckdb query fq-decompositions` (sql/fq-decompositions.sql), which reads
no stored table: a database with any quilt layer built answers it, and each command makes one
(quilt n = 1..3) in a temporary folder unless --db names one. `write` rewrites the parts of
docs/findings.md between `<!-- findings:fq-first -->` and `<!-- /findings:fq-first -->` (the
first n of each difference) and between the `fq-growth` markers (per largest quilt index k <= n,
the mean and largest difference, and a least-squares line through the means); tests/test_fq_decompositions.py
holds the first table to the query up to 10^5.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
import math
from pathlib import Path
import resource
import statistics
import sys
import tempfile
import time
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "findings.md"
PLOT = ROOT / "docs" / "fq-difference.png"
RHO = 1.3247179572447460  # the plastic ratio, the real root of x^3 = x + 1: q_k grows as RHO^k
FIRST_COLUMNS = ["difference", "n", "most_terms", "fewest_terms", "decompositions", "largest_index", "beyond_largest"]


@contextmanager
def database(db: str | None) -> Iterator[str]:
    """The database the query runs on: `db`, or a new one with the quilt game at n = 1..3."""
    if db is not None:
        yield db
        return
    import zeckdb

    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "quilt.duckdb")
        zeckdb.build(path, ["quilt"], "1..3")
        yield path


def ask(db: str, max_n: int, rows: str = "all", timeout: float = 3600) -> list[dict[str, Any]]:
    import zeckdb

    with zeckdb.open(db) as store:
        result = store.query("fq-decompositions", params={"max_n": str(max_n), "rows": rows}, timeout=timeout, max_rows=0)
    return [dict(zip(result.columns, row, strict=True)) for row in result.rows]


def first_table(first: list[dict[str, Any]]) -> str:
    head = "| d = L(n) - l(n) | first n | L(n) | l(n) | decompositions | k: q_k <= n < q_{k+1} | n - q_k |"
    lines = [head, "|" + "---|" * len(FIRST_COLUMNS)]
    lines += ["| " + " | ".join(str(r[c]) for c in FIRST_COLUMNS) + " |" for r in first]
    rest = [r for r in first if r["difference"] >= 1]
    off = [r["difference"] for r in rest
           if (r["largest_index"], r["beyond_largest"]) != (4 * r["difference"] + 5, 1 if r["difference"] % 2 == 0 else 4)]
    lines += ["", f"The first n of d is q_{{4d+5}} + 1 for even d and q_{{4d+5}} + 4 for odd d, d = 1..{rest[-1]['difference']}: "
              + ("at every d." if not off else f"not at d = {', '.join(map(str, off))}.")]
    return "\n".join(lines)


def by_index(rows: list[dict[str, Any]], max_n: int) -> list[tuple[int, int, float, int, float, float, float]]:
    """Per largest index k whose whole range q_k <= n < q_{k+1} is within max_n: (k, how many n,
    mean difference, largest difference, mean L, mean l, the share of n with a difference above 0)."""
    groups: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(r["largest_index"], []).append(r)
    top = max(groups)  # its range goes past max_n (or ends exactly there): left out
    return [(k, len(g), statistics.fmean(r["difference"] for r in g), max(r["difference"] for r in g),
             statistics.fmean(r["most_terms"] for r in g), statistics.fmean(r["fewest_terms"] for r in g),
             sum(r["difference"] > 0 for r in g) / len(g))
            for k, g in sorted(groups.items()) if k < top]


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least squares y = a x + b."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    a = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)
    return a, my - a * mx


def growth_text(rows: list[dict[str, Any]], max_n: int) -> str:
    per = by_index(rows, max_n)
    lines = ["| k | n with q_k <= n < q_{k+1} | mean L - l | largest L - l | (k - 5) / 4 | mean L | mean l | "
             "share with L > l |", "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {k} | {count} | {mean:.3f} | {most} | {(k - 5) / 4:.2f} | {mean_l:.3f} | {mean_s:.3f} | {share:.3f} |"
              for k, count, mean, most, mean_l, mean_s, share in per if k % 4 == 1 or k == per[-1][0]]
    tail = [(k, mean) for k, _, mean, *_ in per if k >= 20]
    a, b = fit([(float(k), mean) for k, mean in tail])
    a_l, _ = fit([(float(k), mean_l) for k, _, _, _, mean_l, _, _ in per if k >= 20])
    a_s, _ = fit([(float(k), mean_s) for k, _, _, _, _, mean_s, _ in per if k >= 20])
    largest = max(r["difference"] for r in rows)
    off = [k for k, _, _, most, *_ in per if most != max(0, (k - 5) // 4)]
    envelope = (f"the largest L - l over q_k <= n < q_{{k+1}} is max(0, floor((k - 5) / 4)) for k = 1..{per[-1][0]}: "
                + ("at every k." if not off else f"not at k = {', '.join(map(str, off))}."))
    lines += ["", f"Least squares over k = {tail[0][0]}..{tail[-1][0]}: mean L - l = {a:.4f} k {b:+.3f} "
              f"(a slope of {a / math.log(RHO):.3f} per unit of ln n, as k grows as ln n / ln rho), mean L = {a_l:.4f} k + c, "
              f"mean l = {a_s:.4f} k + c; the largest L - l up to n = {max_n:,} is {largest}, the largest (k - 5) / 4 "
              f"is {max((k - 5) / 4 for k, *_ in per):.2f}; {envelope}"]
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], first: list[dict[str, Any]], max_n: int, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    per = by_index(rows, max_n)
    fig, ax = plt.subplots(figsize=(9, 5), dpi=110)
    ns = [r["n"] for r in rows]
    # each n spread within +-0.3 of its difference by a hash of n, so that the density shows (a
    # spread by n's residue would draw stripes)
    ds = [r["difference"] + ((r["n"] * 2654435761) % 2**32 / 2**32 - 0.5) * 0.6 for r in rows]
    ax.scatter(ns, ds, s=0.3, alpha=0.12, color="tab:blue", rasterized=True)
    q = [1, 2, 3, 4]
    while q[-2] + q[-3] <= max_n:
        q.append(q[-2] + q[-3])
    ax.plot([(q[k - 1] * q[k]) ** 0.5 for k, *_ in per], [mean for _, _, mean, *_ in per], color="black",
            label="mean over q_k <= n < q_{k+1}")
    first = [r for r in first if r["n"] <= max_n]
    ax.plot([r["n"] for r in first], [r["difference"] for r in first], "o", color="tab:red", ms=4,
            label="first n of each difference")
    xs = [10 ** (e / 10) for e in range(0, 10 * math.ceil(math.log10(max_n)) + 1) if 10 ** (e / 10) <= max_n]
    ax.plot(xs, [(math.log(x) / math.log(RHO) - 5) / 4 for x in xs], "--", color="tab:red", lw=0.8,
            label="(log_rho n - 5) / 4")
    steps = [(q[k - 1], 2 * (k - 1) / 7 + 1) for k in range(1, len(q) + 1)]
    ax.step([x for x, _ in steps] + [max_n], [y for _, y in steps] + [steps[-1][1]], where="post", color="gray",
            lw=0.8, label="2 (k - 1) / 7 + 1 for q_k <= n (proved bound)")
    ax.scatter([], [], s=8, color="tab:blue", label="L(n) - l(n), each n (spread by +-0.3)")
    ax.set_ylim(-0.6, None)
    ax.set_xscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("L(n) - l(n)")
    ax.set_title(f"Fibonacci Quilt: most minus fewest terms of an FQ-legal decomposition, n = 1..{max_n:,}\n"
                 "exact, every n (zeckdb query fq-decompositions)", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def rewrite(doc: str, name: str, text: str) -> str:
    begin, end = f"<!-- findings:{name} -->", f"<!-- /findings:{name} -->"
    return doc[: doc.index(begin) + len(begin)] + "\n" + text + "\n" + doc[doc.index(end):]


def write(db: str | None, max_n: int, first_max_n: int) -> None:
    """The first n of each difference to first_max_n (a few rows, however far), the rest from every
    row to max_n (all of them in Python)."""
    with database(db) as path:
        t0 = time.perf_counter()
        first = ask(path, first_max_n, "first")
        rows = ask(path, max_n)
        seconds = time.perf_counter() - t0
    doc = DOC.read_text()
    doc = rewrite(doc, "fq-first", first_table(first))
    doc = rewrite(doc, "fq-growth", growth_text(rows, max_n))
    DOC.write_text(doc)
    plot(rows, first, max_n, PLOT)
    print(f"rewrote fq-first (n = 1..{first_max_n:,}) and fq-growth in {DOC.relative_to(ROOT)} and drew "
          f"{PLOT.relative_to(ROOT)} (n = 1..{max_n:,}; {seconds:.1f} s for both queries)")


def timing(db: str | None, tops: list[int], repeat: int) -> None:
    """The query's wall seconds (and this process's CPU seconds: DuckDB's threads are its own) for
    each max_n, every row fetched into Python."""
    print("| max_n | rows | median s | runs (s) | median CPU s |\n|---|---|---|---|---|")
    with database(db) as path:
        for top in tops:
            runs, cpu, count = [], [], 0
            for _ in range(repeat):
                t0, c0 = time.perf_counter(), time.process_time()
                count = len(ask(path, top))
                runs.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            print(f"| {top:,} | {count:,} | {statistics.median(runs):.2f} | {', '.join(f'{s:.2f}' for s in runs)} | "
                  f"{statistics.median(cpu):.2f} |", flush=True)
    print(f"peak memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


def check_build(db: str | None, top: int) -> None:
    """The quilt game built in full to `top` (in `db`, or a new file): per n its terminal positions
    are as many as the query's FQ-legal decompositions and hold at most L(n), at least l(n) terms."""
    import zeckdb

    with tempfile.TemporaryDirectory() as folder:
        path = db or str(Path(folder) / "quilt.duckdb")
        t0 = time.perf_counter()
        zeckdb.build(path, ["quilt"], f"1..{top}")
        built = time.perf_counter() - t0
        with zeckdb.open(path) as store:
            result = store.sql(
                "SELECT n, count(*), max(terms), min(terms) FROM (SELECT n, list_sum(list_transform("
                "list_value(*COLUMNS('^c\\d+$')), lambda x: coalesce(x, 0))) AS terms FROM positions "
                f"WHERE variant = 'quilt' AND is_terminal AND n <= {top}) GROUP BY n ORDER BY n")
        query = {r["n"]: (r["decompositions"], r["most_terms"], r["fewest_terms"]) for r in ask(path, top)}
    stored = {n: (count, most, fewest) for n, count, most, fewest in result.rows}
    wrong = [n for n in range(1, top + 1) if stored.get(n) != query.get(n)]
    print(f"quilt built in full to n = {top}: the build step took {built:.1f} s (a database built already is only "
          f"resumed), peak memory "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB; terminal positions against "
          f"fq-decompositions, n = 1..{top}: " + ("every n equal" if not wrong else f"differ at n = {wrong}"))
    if wrong:
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("--max-n", type=int, default=1_000_000)
    w.add_argument("--first-max-n", type=int, default=10_000_000)
    t = sub.add_parser("time")
    t.add_argument("--tops", type=int, nargs="+", default=[100_000, 1_000_000])
    t.add_argument("--repeat", type=int, default=3)
    c = sub.add_parser("check-build")
    c.add_argument("--top", type=int, default=100)
    for p in (w, t, c):
        p.add_argument("--db", default=None, help="a database to use (default: a new one in a temporary folder)")
    args = parser.parse_args()
    if args.command == "write":
        write(args.db, args.max_n, args.first_max_n)
    elif args.command == "time":
        timing(args.db, args.tops, args.repeat)
    else:
        check_build(args.db, args.top)


if __name__ == "__main__":
    main()
