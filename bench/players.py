"""The thresholds of docs/findings.md's games of three or more players: per game and number
of players P, the n from which no player can force a win from the start (up to the largest n
computed), and Miller, Sosis and Ye's bound 3c^2 + 6c + 3 (proved for P >= c + 2).

    python bench/players.py [--top 80]
"""

from __future__ import annotations

import argparse
import time

from zeckdb.engine.solve import forcing_seats, solve_in_memory
from zeckdb.variants import get_variant

PLAYERS = range(3, 7)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=80, help="the largest n (at most each game's max_n)")
    args = parser.parse_args()
    games = ["zeckendorf"] + [f"nacci-{c}-{k}" for c in range(1, 5) for k in range(2, 5) if (c, k) != (1, 2)]
    t0 = time.perf_counter()
    print("| game | n computed | " + " | ".join(f"P = {p}" for p in PLAYERS) + " | 3c^2 + 6c + 3 |")
    print("|---|---|" + "---|" * len(PLAYERS) + "---|")
    for name in games:
        variant = get_variant(name)
        top = min(variant.max_n, args.top)
        last_forced = dict.fromkeys(PLAYERS, 0)
        for n in range(1, top + 1):
            graph, solution, _ = solve_in_memory(variant, n)
            for players in PLAYERS:
                if forcing_seats(solution.play, players, len(graph.keys))[solution.start] >= 0:
                    last_forced[players] = n
        c = 1 if name == "zeckendorf" else int(name.split("-")[1])
        cells = [str(last + 1) if last + 1 <= top - 3 else f"not by {top}" for last in last_forced.values()]
        print(f"| `{name}` | 1..{top} | " + " | ".join(cells) + f" | {3 * c * c + 6 * c + 3} (P >= {c + 2}) |", flush=True)
    print(f"\n{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
