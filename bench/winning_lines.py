"""Lee and Bitler's reduced graph on the generalized games (docs/findings.md, issue 68 item 8): per
game and n, whether the winner's winning line from the start is unique, read from the named query
`winning-line-unique` (`zeckdb query winning-line-unique --variant black-hole-4` prints its rows).

    python bench/winning_lines.py build --db lines.duckdb   # zeckdb build, in full, of every game below
    python bench/winning_lines.py table --db lines.duckdb   # Markdown: per game, where the line is unique

The games: the (c,k)-nacci games and their reversed games, c = 1..4, k = 2..4 (not (1,2), the
Zeckendorf game), to n = NACCI_TOP, and the Black Hole games, M = 2..12, to n = BLACK_HOLE_TOP. For a
Black Hole game the line is the whole game's from (n), through every layer its removals reach.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
import resource
import time

NACCI_TOP = 40
BLACK_HOLE_TOP = 60
NACCI = [(c, k) for c in range(1, 5) for k in range(2, 5) if (c, k) != (1, 2)]
GAMES: dict[str, int] = {
    **{f"nacci-{c}-{k}": NACCI_TOP for c, k in NACCI},
    **{f"reversed-nacci-{c}-{k}": NACCI_TOP for c, k in NACCI},
    **{f"black-hole-{m}": BLACK_HOLE_TOP for m in range(2, 13)},
}


@dataclass(frozen=True)
class Line:
    """One row of winning-line-unique."""

    n: int
    winner: int
    reduced_nodes: int
    omega_size: int
    multi_reply_decisions: int
    unique: bool


def spans(ns: Iterable[int]) -> str:
    """1, 2, 3, 5 -> "1..3, 5"."""
    out: list[str] = []
    run: list[int] = []
    for n in sorted(ns):
        if run and n == run[-1] + 1:
            run.append(n)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else f"{run[0]}..{run[-1]}")
        run = [n]
    if run:
        out.append(str(run[0]) if len(run) == 1 else f"{run[0]}..{run[-1]}")
    return ", ".join(out) or "none"


def collect(db: str | Path) -> dict[str, list[Line]]:
    import zeckdb

    out: dict[str, list[Line]] = {}
    with zeckdb.open(db) as store:
        for game, top in GAMES.items():
            result = store.query("winning-line-unique", variant=game, n=f"1..{top}", max_rows=0)
            out[game] = [Line(r["n"], r["winner"], r["reduced_nodes"], r["omega_size"], r["multi_reply_decisions"],
                              r["unique_winning_line"])
                         for r in (dict(zip(result.columns, row, strict=True)) for row in result.rows)]
    return out


def summary(lines: list[Line]) -> dict[str, str]:
    """Where the line is unique and where not, the last n where it is, and the reduced graph at the
    largest n."""
    unique = [x.n for x in lines if x.unique]
    last = lines[-1]
    return {"unique": spans(unique), "not unique": spans(x.n for x in lines if not x.unique),
            "last unique": str(max(unique)) if unique else "-",
            "largest": f"{last.reduced_nodes} / {last.omega_size} / {last.multi_reply_decisions}"}


def table(data: dict[str, list[Line]]) -> str:
    rows = ["| game | n | the winning line is unique at n = | not unique at n = | last unique n | "
            "reduced graph at the largest n: nodes / Omega_B / decisions with two winning replies or more |",
            "|---|---|---|---|---|---|"]
    for game, lines in data.items():
        if not lines:
            continue
        s = summary(lines)
        rows.append(f"| `{game}` | {lines[0].n}..{lines[-1].n} | {s['unique']} | {s['not unique']} | {s['last unique']} | "
                    f"{s['largest']} |")
    return "\n".join(rows)


def build(db: str) -> None:
    import zeckdb

    by_top: dict[int, list[str]] = {}
    for game, top in GAMES.items():
        by_top.setdefault(top, []).append(game)
    for top, games in sorted(by_top.items()):
        for game in games:
            t0 = time.perf_counter()
            zeckdb.build(db, [game], f"1..{top}")
            print(f"{game} 1..{top}: {time.perf_counter() - t0:.1f} s", flush=True)
    print(f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build", "table"])
    parser.add_argument("--db", default="lines.duckdb")
    args = parser.parse_args()
    if args.command == "build":
        build(args.db)
    else:
        print(table(collect(args.db)))


if __name__ == "__main__":
    main()
