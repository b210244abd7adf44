"""Is the random game's length Gaussian in the limit? The exact moments of the game length, per n,
for the Zeckendorf, reversed and quilt games, how fast skewness and excess kurtosis fall, and the
quilt paper's percent differences beside zeckdb's exact ones (docs/findings.md, issue 68 item 7).

    python bench/gaussian.py build --db gaussian.duckdb    # zeckdb build, in full: the lengths' distributions
    python bench/gaussian.py tables --db gaussian.duckdb   # Markdown: the fits, the paper's values, every n
    python bench/gaussian.py plot --db gaussian.duckdb --out docs/gaussian-moments.png

`build` is `zeckdb build --variant zeckendorf --variant reversed --n 1..150` and
`zeckdb build --variant quilt --n 1..100` (the quilt game's reach), printing each one's seconds.
Every number comes from the named query `length-moments` (the view `length_moments` over the
stored exact distributions: `zeckdb query length-moments --variant quilt --n 20,60` prints the
same rows). The fit is a power law c n^-a by least squares on log |y| against log n over
n = FIT_FROM..top (where the sign of y no longer changes); its residuals are y / (c n^-a) - 1.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
import math
from pathlib import Path
import time
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOPS = {"zeckendorf": 150, "reversed": 150, "quilt": 100}
MEASURES = ("P", "mu")
FIT_FROM = 50
MIN_POINTS = 30  # a fit over fewer n than this says little about a rate
# Miller and Newlon (2019), Figure 7: from 10,000 simulated random games (P), the percent
# differences of the 4th and 6th moments from the Gaussian's with the same mean and variance
QUILT_PAPER = {20: (0.044176, 0.219217), 60: (0.009249, 0.046575), 200: (0.000008, 0.004052)}
SHOWN = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150)


@dataclass(frozen=True)
class Row:
    """One (variant, n, measure) row of the length-moments query."""

    n: int
    mean: float
    variance: float
    skewness: float | None
    excess_kurtosis: float | None
    moment4_pct_diff: float | None
    moment6_pct_diff: float | None
    raw4_pct_diff: float | None = None
    raw6_pct_diff: float | None = None


@dataclass(frozen=True)
class Fit:
    """y ~ c n^-a over n = lo..hi; the residuals y / (c n^-a) - 1, their root mean square and largest size."""

    c: float
    a: float
    lo: int
    hi: int
    residuals: tuple[float, ...]

    @property
    def rms(self) -> float:
        return math.sqrt(sum(r * r for r in self.residuals) / len(self.residuals))

    @property
    def largest(self) -> float:
        return max(abs(r) for r in self.residuals)


def power_law_fit(ns: Sequence[int], ys: Sequence[float]) -> Fit:
    """Least squares of log |y| = log |c| - a log n; c carries y's sign, which must not change."""
    if len(ns) != len(ys) or len(ns) < 2:
        raise ValueError("a fit needs two points or more, one y per n")
    if not (all(y > 0 for y in ys) or all(y < 0 for y in ys)):
        raise ValueError("y changes sign (or is 0) in the range: a power law cannot fit it")
    sign = 1.0 if ys[0] > 0 else -1.0
    xs = [math.log(n) for n in ns]
    ls = [math.log(abs(y)) for y in ys]
    mx, ml = sum(xs) / len(xs), sum(ls) / len(ls)
    slope = sum((x - mx) * (v - ml) for x, v in zip(xs, ls, strict=True)) / sum((x - mx) ** 2 for x in xs)
    c = sign * math.exp(ml - slope * mx)
    residuals = tuple(y / (c * n ** slope) - 1 for n, y in zip(ns, ys, strict=True))
    return Fit(c, -slope, min(ns), max(ns), residuals)


def collect(db: str | Path) -> dict[tuple[str, str], list[Row]]:
    """(variant, measure) -> its rows by n, from `zeckdb query length-moments`."""
    import zeckdb

    out: dict[tuple[str, str], list[Row]] = {}
    with zeckdb.open(db) as store:
        for variant, top in TOPS.items():
            result = store.query("length-moments", variant=variant, n=f"1..{top}", max_rows=0)
            for r in result.rows:
                d = dict(zip(result.columns, r, strict=True))
                out.setdefault((variant, d["measure"]), []).append(
                    Row(d["n"], d["mean"], d["variance"], d["skewness"], d["excess_kurtosis"],
                        d["moment4_pct_diff"], d["moment6_pct_diff"], d["raw4_pct_diff"], d["raw6_pct_diff"]))
    for rows in out.values():
        rows.sort(key=lambda r: r.n)
    return out


def fit_of(rows: list[Row], column: str, lo: int = FIT_FROM) -> Fit | None:
    """The fit over n = lo..top, or from the last sign change on if that is later; None when fewer
    than MIN_POINTS n are left."""
    changes = [n for n in sign_changes(rows, column) if n > lo]
    start = max([lo, *changes])
    use = [r for r in rows if r.n >= start]
    if len(use) < MIN_POINTS:
        return None
    return power_law_fit([r.n for r in use], [getattr(r, column) for r in use])


def sign_changes(rows: list[Row], column: str) -> list[int]:
    """The n at which the column's sign differs from the previous n's (n = 1 has no standardized moment)."""
    values = [(r.n, getattr(r, column)) for r in rows if getattr(r, column) is not None]
    return [n for (_, a), (n, b) in zip(values, values[1:], strict=False) if (a > 0) != (b > 0)]


def fits_table(data: dict[tuple[str, str], list[Row]]) -> str:
    lines = ["| game | measure | quantity | fit c n^-a over n | c | a | residuals: rms, largest | "
             "value at the largest n | sign changes at n |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (variant, measure), rows in data.items():
        for column in ("skewness", "excess_kurtosis"):
            fit = fit_of(rows, column)
            changes = sign_changes(rows, column)
            cells = ("no fit: the sign still changes | - | - | -" if fit is None else
                     f"{fit.lo}..{fit.hi} | {fit.c:.4g} | {fit.a:.3f} | {100 * fit.rms:.2f} %, {100 * fit.largest:.2f} %")
            lines.append(f"| `{variant}` | {measure} | {column.replace('_', ' ')} | {cells} | "
                         f"{getattr(rows[-1], column):.4g} | {', '.join(map(str, changes)) or 'none'} |")
    return "\n".join(lines)


def paper_table(data: dict[tuple[str, str], list[Row]]) -> str:
    """The paper's percent differences beside the exact ones of the raw moments (its measure) and,
    for comparison, of the standardized moments (m_k / sigma^k against 3 and 15)."""
    rows = {r.n: r for r in data[("quilt", "P")]}

    def cell(v: float | None) -> str:
        return "not built" if v is None else f"{v:.6f}"

    lines = ["| n | 4th: paper (simulated) | 4th: exact, raw | 6th: paper (simulated) | 6th: exact, raw | "
             "6th / 4th: paper, exact | standardized 4th, 6th: exact |",
             "|---|---|---|---|---|---|---|"]
    for n, (m4, m6) in QUILT_PAPER.items():
        r = rows.get(n, Row(n, 0, 0, None, None, None, None))
        ratio = "-" if r.raw4_pct_diff is None or r.raw6_pct_diff is None else f"{r.raw6_pct_diff / r.raw4_pct_diff:.3f}"
        lines.append(f"| {n} | {m4:.6f} | {cell(r.raw4_pct_diff)} | {m6:.6f} | {cell(r.raw6_pct_diff)} | "
                     f"{m6 / m4:.3f}, {ratio} | {cell(r.moment4_pct_diff)}, {cell(r.moment6_pct_diff)} |")
    return "\n".join(lines)


def _cell(v: float | None, digits: int = 4) -> str:
    return "-" if v is None else f"{v:.{digits}g}"


def per_n_table(data: dict[tuple[str, str], list[Row]], ns: Sequence[int] | None = None) -> str:
    """Per n: mean, variance, skewness, excess kurtosis and the 4th and 6th moments' percent
    differences (standardized, raw), each game under P (then mu)."""
    lines = ["| game | measure | n | mean | variance | skewness | excess kurtosis | standardized 4th, 6th: % diff | "
             "raw 4th, 6th: % diff |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (variant, measure), rows in data.items():
        for r in rows:
            if ns is not None and r.n not in ns:
                continue
            lines.append(f"| `{variant}` | {measure} | {r.n} | {r.mean:.6g} | {r.variance:.6g} | {_cell(r.skewness)} | "
                         f"{_cell(r.excess_kurtosis)} | {_cell(r.moment4_pct_diff)}, {_cell(r.moment6_pct_diff)} | "
                         f"{_cell(r.raw4_pct_diff)}, {_cell(r.raw6_pct_diff)} |")
    return "\n".join(lines)


def plot(data: dict[tuple[str, str], list[Row]], out: str | Path) -> Any:
    """|skewness| and |excess kurtosis| against n, log-log, one line per game; one row of panels a
    measure. Returns the figure (saved to out)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    measures = [m for m in MEASURES if any(k[1] == m for k in data)]
    figure, axes = plt.subplots(len(measures), 2, figsize=(11, 4.2 * len(measures)), squeeze=False)
    for row, measure in enumerate(measures):
        for col, column in enumerate(("skewness", "excess_kurtosis")):
            ax = axes[row][col]
            for (variant, m), rows in data.items():
                if m != measure:
                    continue
                pts = [(r.n, abs(getattr(r, column))) for r in rows if getattr(r, column)]
                ax.loglog([p[0] for p in pts], [p[1] for p in pts], ".-", ms=3, lw=0.8, label=variant)
            ax.set_xlabel("n")
            ax.set_ylabel(f"|{column.replace('_', ' ')}|")
            name = "every legal move equally likely (P)" if measure == "P" else "every game equally likely (mu)"
            ax.set_title(f"{column.replace('_', ' ')} of the game length, {name}", fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
    figure.suptitle("Exact moments of the random game's length (zeckdb; Gaussian: 0)", fontsize=10)
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    return figure


def build(db: str) -> None:
    import zeckdb

    for variants, top in ((["zeckendorf", "reversed"], 150), (["quilt"], 100)):
        t0 = time.perf_counter()
        zeckdb.build(db, variants, f"1..{top}")
        print(f"{', '.join(variants)} 1..{top}: {time.perf_counter() - t0:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build", "tables", "plot"])
    parser.add_argument("--db", default="gaussian.duckdb")
    parser.add_argument("--out", default=str(ROOT / "docs" / "gaussian-moments.png"))
    args = parser.parse_args()
    if args.command == "build":
        build(args.db)
        return
    data = collect(args.db)
    if args.command == "plot":
        plot(data, args.out)
        print(f"wrote {args.out}")
        return
    print("Fits:\n")
    print(fits_table(data))
    print("\nThe quilt paper's percent differences (Figure 7) and the exact ones (P):\n")
    print(paper_table(data))
    print("\nAt every 10th n:\n")
    print(per_n_table(data, SHOWN))
    print("\nEvery n:\n")
    print(per_n_table(data))


if __name__ == "__main__":
    main()
