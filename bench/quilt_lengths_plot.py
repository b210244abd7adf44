"""docs/quilt-lengths.png: the quilt game's longest game and exact mean length under random play,
each over n, against n, from the `quilt-lengths` query's rows (a full build of the quilt game).

    zeckdb build --variant quilt --n 1..100 --db quilt.duckdb
    python bench/quilt_lengths_plot.py --db quilt.duckdb [--out docs/quilt-lengths.png]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)

import zeckdb  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a database with the quilt game built in full")
    parser.add_argument("--out", default=str(Path(__file__).parent.parent / "docs" / "quilt-lengths.png"))
    args = parser.parse_args()
    with zeckdb.open(args.db) as db:
        result = db.query("quilt-lengths", max_rows=0)
    rows = [dict(zip(result.columns, r, strict=True)) for r in result.rows]
    ns = [r["n"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(ns, [r["longest_per_n"] for r in rows], ".-", color="#c2404a", label="longest game / n")
    ax.plot(ns, [r["mean_per_n"] for r in rows], ".-", color="#4a78c2", label="mean length under random play / n")
    ax.plot(ns, [r["min_length"] / r["n"] for r in rows], ".-", color="#7a7a7a", label="shortest game / n = 1 - L(n)/n")
    ax.axhline(2, color="black", linewidth=0.8, linestyle="--", label="2 (the paper: no simulated game near 2n)")
    ax.set_xlabel("n")
    ax.set_ylabel("moves / n")
    ax.set_ylim(0, 2.1)
    ax.set_title(f"The Fibonacci Quilt game, n = {ns[0]}..{ns[-1]}: game lengths over n (exact, zeckdb full build)")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}: n = {ns[0]}..{ns[-1]}")


if __name__ == "__main__":
    main()
