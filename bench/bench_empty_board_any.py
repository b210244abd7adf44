"""The Empty-Board Black Hole game placing in any bin (`black-hole-empty-board-any-M`) beside the
paper's (`black-hole-empty-board-M`, bins 1 and M-1 only): build times and reach, then the
tables of docs/findings.md ("The Empty-Board Black Hole game in every column").

    python bench/bench_empty_board_any.py build --db eb.duckdb    # any-4 to 150, any-5 to 120, any-6 to 100,
                                                                  # the paper's 4..6 to 150
    python bench/bench_empty_board_any.py build --db eb.duckdb --top 4=200   # then any-4 on to 200
    python bench/bench_empty_board_any.py report --db eb.duckdb   # winners, differences, periods (Markdown)

`build` runs one `zeckdb build` child process a game (its wall time and peak memory) and
prints each with the positions and moves it stored; a game already built is skipped by
zeckdb. `report` reads builds.winner and runs the named query winner-period: over the windows
of --first-n, and for each game from first_n = 1 on until it finds a period the window holds
at least three times.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import subprocess
import sys
import time

from zeckdb.ranges import format_ns

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

MS = (4, 5, 6)
ANY_TOP = {4: 150, 5: 120, 6: 100}  # where a layer stays a few million positions
PAPER_TOP = 150


def plan(tops: dict[int, int], paper_top: int) -> list[tuple[str, int]]:
    return [(f"black-hole-empty-board-any-{m}", tops[m]) for m in MS] + \
        [(f"black-hole-empty-board-{m}", paper_top) for m in MS]


def timed_build(db: Path, variant: str, top: int) -> tuple[float, float]:
    """Wall time and peak memory (GiB) of one `zeckdb build` child process."""
    t0 = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "zeckdb.cli.main", "build", "--n", f"1..{top}", "--variant", variant,
                              "--db", str(db)], stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"zeckdb build {variant} failed with exit status {os.waitstatus_to_exitcode(status)}")
    return time.perf_counter() - t0, usage.ru_maxrss * 1024 / 2**30


def build(db: Path, tops: dict[int, int], paper_top: int) -> None:
    import zeckdb

    print(f"{os.cpu_count()} cores\n")
    print("| game | n | seconds | peak GiB | positions stored | moves stored | largest layer |")
    print("|---|---|---|---|---|---|---|")
    for variant, top in plan(tops, paper_top):
        wall, peak = timed_build(db, variant, top)
        with zeckdb.open(db) as store:
            (positions, edges, largest), = store.sql(
                "SELECT sum(positions), sum(edges), max(positions) FROM builds WHERE variant = ?", [variant], max_rows=1).rows
        print(f"| `{variant}` | 1..{top} | {wall:.1f} | {peak:.2f} | {int(positions):,} | {int(edges):,} | "
              f"{int(largest):,} |")


def winners(db: Path) -> dict[str, dict[int, int]]:
    import zeckdb

    with zeckdb.open(db) as store:
        rows = store.sql("SELECT variant, n, winner FROM builds WHERE n >= 1 AND variant LIKE 'black-hole-empty-board-%' "
                         "AND variant NOT LIKE '%misere' ORDER BY variant, n", max_rows=10**6).rows
    out: dict[str, dict[int, int]] = {}
    for variant, n, winner in rows:
        out.setdefault(variant, {})[n] = winner
    return out


def winners_table(wins: dict[str, dict[int, int]]) -> str:
    """Per game, the winner of each n as a digit, ten n a group, fifty a line."""
    lines = ["| game | n | winner of n = first..first+49 (1: Player 1, 2: Player 2; groups of ten) | "
             "Player 1's share |", "|---|---|---|---|"]
    for variant in sorted(wins, key=lambda v: (int(v.rsplit("-", 1)[1]), "any" not in v)):
        byn = wins[variant]
        top = max(byn)
        share = sum(1 for w in byn.values() if w == 1) / len(byn)
        for first in range(1, top + 1, 50):
            digits = "".join(str(byn[n]) for n in range(first, min(first + 50, top + 1)))
            groups = " ".join(digits[i:i + 10] for i in range(0, len(digits), 10))
            lines.append(f"| `{variant}` | {first}.. | `{groups}` | {share:.3f} |" if first == 1 else
                         f"| | {first}.. | `{groups}` | |")
    return "\n".join(lines)


def differences_table(wins: dict[str, dict[int, int]]) -> str:
    lines = ["| M | n compared | n where the winners differ | how many | any bin: Player 1 wins / paper: Player 1 wins |",
             "|---|---|---|---|---|"]
    for m in MS:
        anywhere, paper = wins.get(f"black-hole-empty-board-any-{m}", {}), wins.get(f"black-hole-empty-board-{m}", {})
        ns = sorted(set(anywhere) & set(paper))
        if not ns:
            continue
        differ = [n for n in ns if anywhere[n] != paper[n]]
        p1 = sum(anywhere[n] == 1 for n in ns), sum(paper[n] == 1 for n in ns)
        lines.append(f"| {m} | 1..{ns[-1]} | {spans(differ)} | {len(differ)} | {p1[0]} / {p1[1]} |")
    return "\n".join(lines)


def spans(ns: list[int]) -> str:
    """1, 3-7, 10: consecutive n as ranges (zeckdb's range syntax, with dashes)."""
    return format_ns(ns).replace("..", "-").replace(",", ", ") or "none"


def periods(db: Path, first_ns: tuple[int, ...], max_period: int) -> str:
    import zeckdb

    lines = ["| game | first_n | last_n | max_period | period | periodic_from | answer |", "|---|---|---|---|---|---|---|"]
    with zeckdb.open(db) as store:
        for first in first_ns:
            result = store.query("winner-period", params={"first_n": str(first), "max_period": str(max_period)})
            for row in result.rows:
                r = dict(zip(result.columns, row, strict=True))
                if not str(r["variant"]).startswith("black-hole-empty-board-") or "misere" in str(r["variant"]):
                    continue
                cells = [f"`{r['variant']}`", r["first_n"], r["last_n"], r["max_period"], r["period"],
                         r["periodic_from"], r["answer"]]
                lines.append("| " + " | ".join("" if c is None else str(c) for c in cells) + " |")
    return "\n".join(lines)


def earliest(db: Path, wins: dict[str, dict[int, int]], shortest: int) -> str:
    """Per game, the first window start from which winner-period finds a period that the window
    holds at least three times (max_period = a third of the window), windows of `shortest` n or more."""
    import zeckdb

    lines = ["| game | first_n | last_n | max_period | period | periodic_from | answer |", "|---|---|---|---|---|---|---|"]
    with zeckdb.open(db) as store:
        for variant in sorted(wins, key=lambda v: (int(v.rsplit("-", 1)[1]), "any" not in v)):
            last, r = max(wins[variant]), None
            for first in range(1, last - shortest + 2):
                result = store.query("winner-period", variant=variant,
                                     params={"first_n": str(first), "max_period": str((last - first + 1) // 3)})
                r = dict(zip(result.columns, result.rows[0], strict=True))
                if r["period"] is not None:
                    break
            if r is None:
                continue
            found = r["period"] is not None
            cells = [f"`{variant}`", r["first_n"] if found else f"1..{r['first_n']}", r["last_n"],
                     r["max_period"] if found else "a third of the window", r["period"], r["periodic_from"],
                     r["answer"] if found else f"none for any window of {shortest} n or more"]
            lines.append("| " + " | ".join("" if c is None else str(c) for c in cells) + " |")
    return "\n".join(lines)


def report(db: Path, first_ns: tuple[int, ...], max_period: int, shortest: int) -> None:
    wins = winners(db)
    print("Winners\n\n" + winners_table(wins) + "\n\nWhere placing in any bin changes the winner\n\n" +
          differences_table(wins) + "\n\nPeriods (zeckdb query winner-period)\n\n" + periods(db, first_ns, max_period) +
          "\n\nThe first window with a period held three times (zeckdb query winner-period, first_n = 1, 2, ...)\n\n" +
          earliest(db, wins, shortest))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["build", "report"])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--top", default=",".join(f"{m}={t}" for m, t in ANY_TOP.items()),
                        help="the largest n of each any-bin game, e.g. 4=150,5=120,6=100")
    parser.add_argument("--paper-top", type=int, default=PAPER_TOP, help="the largest n of the paper's games")
    parser.add_argument("--first-n", default="1,50", help="the windows' first n for winner-period")
    parser.add_argument("--max-period", type=int, default=60)
    parser.add_argument("--shortest", type=int, default=30, help="the shortest window the scan for a period tries")
    args = parser.parse_args()
    if args.what == "build":
        tops = {int(k): int(v) for k, v in (part.split("=") for part in args.top.split(","))}
        build(args.db, {**ANY_TOP, **tops}, args.paper_top)
    else:
        report(args.db, tuple(int(x) for x in args.first_n.split(",")), args.max_period, args.shortest)


if __name__ == "__main__":
    main()
