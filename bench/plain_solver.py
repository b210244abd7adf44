"""The yardstick of bench_core.py: a plain Python solver of the Zeckendorf game for one n.

    python bench/plain_solver.py 150            # prints winner, remoteness, shortest and longest game

What a careful user would write first, from the rules alone (docs/games.md,
section 1): positions as tuples of counts, moves generated from the rules' text, a
dict memo over the positions reached from the start, and only four numbers: who wins,
the start's remoteness, and the shortest and longest game. It shares nothing with
zeckdb. Recursion follows the moves depth first, so the stack limit is raised.
"""

from __future__ import annotations

import sys


def moves(c: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Children of counts c (c[0] is bin 1): merge ones, combine, split twos, split."""
    out = []
    k = len(c)

    def changed(deltas: dict[int, int]) -> tuple[int, ...]:
        top = max(deltas) + 1
        d = list(c) + [0] * max(0, top - k)
        for i, dv in deltas.items():
            d[i] += dv
        while d and d[-1] == 0:
            d.pop()
        return tuple(d)

    if k >= 1 and c[0] >= 2:  # 2 F_1 -> F_2
        out.append(changed({0: -2, 1: 1}))
    for i in range(1, k):  # F_{i-1} + F_i -> F_{i+1} (0-based: bins i-1 and i into i+1)
        if c[i - 1] >= 1 and c[i] >= 1:
            out.append(changed({i - 1: -1, i: -1, i + 1: 1}))
    if k >= 2 and c[1] >= 2:  # 2 F_2 -> F_1 + F_3
        out.append(changed({1: -2, 0: 1, 2: 1}))
    for i in range(2, k):  # 2 F_i -> F_{i-2} + F_{i+1}
        if c[i] >= 2:
            out.append(changed({i: -2, i - 2: 1, i + 1: 1}))
    return out


def solve(n: int) -> dict[str, int]:
    memo: dict[tuple[int, ...], tuple[bool, int, int, int]] = {}

    def value(c: tuple[int, ...]) -> tuple[bool, int, int, int]:
        """(player to move wins, remoteness, fewest moves to the end, most moves to the end)."""
        known = memo.get(c)
        if known is not None:
            return known
        children = [value(d) for d in moves(c)]
        if not children:
            result = (False, 0, 0, 0)
        else:
            losing = [r for win, r, _, _ in children if not win]
            # win as fast as possible, else lose as slowly as possible
            result = (True, 1 + min(losing), 0, 0) if losing else (False, 1 + max(r for _, r, _, _ in children), 0, 0)
            result = (result[0], result[1], 1 + min(ch[2] for ch in children), 1 + max(ch[3] for ch in children))
        memo[c] = result
        return result

    win, remoteness, shortest, longest = value((n,))
    return {"n": n, "winner": 1 if win else 2, "remoteness": remoteness, "shortest": shortest,
            "longest": longest, "positions": len(memo)}


if __name__ == "__main__":
    sys.setrecursionlimit(100_000)
    print(solve(int(sys.argv[1])))
