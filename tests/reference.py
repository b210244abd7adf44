"""An independent, deliberately simple solver for small n, written from docs/games.md.

It shares no code with zeckdb: positions are plain tuples, moves are written
out from the rules' text (the reversed moves from the reversed paper's own list,
not by reversing the forward ones), and everything is exact (ints, Fractions).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

FIB = [1, 2]  # F_1 = 1, F_2 = 2 (docs/games.md), written out here rather than taken from zeckdb.fib
while len(FIB) < 100:
    FIB.append(FIB[-1] + FIB[-2])
BINS = 16
PHI = (1 + 5 ** 0.5) / 2


def fib(i: int) -> int:
    return FIB[i - 1]


def zeckendorf_indices(n: int) -> list[int]:
    """1-based indices of n's Zeckendorf decomposition, largest first (greedy)."""
    out = []
    for i in range(len(FIB), 0, -1):
        if FIB[i - 1] <= n:
            out.append(i)
            n -= FIB[i - 1]
    return out


def z_count(n: int) -> int:
    """Z(n): the number of terms of n's Zeckendorf decomposition."""
    return len(zeckendorf_indices(n))


def z_index_sum(n: int) -> int:
    """Z_I(n): the sum of the indices of n's Zeckendorf decomposition."""
    return sum(zeckendorf_indices(n))


def norm(c: list[int]) -> tuple[int, ...]:
    c = list(c)
    while c and c[-1] == 0:
        c.pop()
    return tuple(c)


def padded(p: tuple[int, ...]) -> list[int]:
    return list(p) + [0] * (BINS - len(p))


def moved(p, take: dict[int, int], put: dict[int, int]):
    """Apply a move given with 1-based bins; None if it is not legal."""
    c = padded(p)
    for b, k in take.items():
        if c[b - 1] < k:
            return None
        c[b - 1] -= k
    for b, k in put.items():
        c[b - 1] += k
    return norm(c)


def zeckendorf_moves(p):
    out = [moved(p, {1: 2}, {2: 1})]  # merge ones
    for i in range(2, BINS):
        out.append(moved(p, {i - 1: 1, i: 1}, {i + 1: 1}))  # combine
    out.append(moved(p, {2: 2}, {1: 1, 3: 1}))  # split twos
    for i in range(3, BINS):
        out.append(moved(p, {i: 2}, {i - 2: 1, i + 1: 1}))  # split
    return [m for m in out if m is not None]


def reversed_moves(p):
    out = []
    for i in range(2, BINS):  # split F_{i+1} -> F_i + F_{i-1}
        out.append(moved(p, {i + 1: 1}, {i: 1, i - 1: 1}))
    out.append(moved(p, {2: 1}, {1: 2}))  # F_2 -> 2 F_1
    for i in range(3, BINS - 1):  # combine F_{i-2} + F_{i+1} -> 2 F_i
        out.append(moved(p, {i - 2: 1, i + 1: 1}, {i: 2}))
    out.append(moved(p, {3: 1, 1: 1}, {2: 2}))  # F_3 + F_1 -> 2 F_2
    return [m for m in out if m is not None]


def zeckendorf_decomposition(n: int) -> tuple[int, ...]:
    c = [0] * BINS
    i = max(j for j in range(len(FIB)) if FIB[j] <= n) if n else -1
    while n:
        while FIB[i] > n:
            i -= 1
        c[i] += 1
        n -= FIB[i]
    return norm(c)


MOVES = {"zeckendorf": zeckendorf_moves, "reversed": reversed_moves}


def start(variant: str, n: int):
    return zeckendorf_decomposition(n) if variant == "reversed" else (n,)


def value(p) -> int:
    return sum(c * f for c, f in zip(p, FIB, strict=False))


@cache
def solve(variant: str, p: tuple[int, ...]) -> dict:
    """Every solved quantity of p, for the player to move."""
    children = MOVES[variant](p)
    if not children:
        return dict(win=False, remoteness=0, min=0, max=0, games=1, expected=Fraction(0), grundy=0, winning=0)
    s = [solve(variant, c) for c in children]
    losing_children = [x for x in s if not x["win"]]
    win = bool(losing_children)
    remoteness = 1 + (min(x["remoteness"] for x in losing_children) if win else max(x["remoteness"] for x in s))
    grundies = {x["grundy"] for x in s}
    mex = next(g for g in range(len(s) + 1) if g not in grundies)
    return dict(
        win=win, remoteness=remoteness,
        min=1 + min(x["min"] for x in s), max=1 + max(x["max"] for x in s),
        games=sum(x["games"] for x in s),
        expected=1 + sum(x["expected"] for x in s) / len(s),
        grundy=mex, winning=len(losing_children),
    )


@cache
def game_count(variant: str, p: tuple[int, ...]) -> int:
    """The exact number of complete games from p (plain ints: cheap enough for n in the 60s and 70s)."""
    children = MOVES[variant](p)
    return sum(game_count(variant, c) for c in children) if children else 1


def positions(variant: str, n: int) -> set[tuple[int, ...]]:
    """Every position reachable from the start of n (depth-first)."""
    return reachable(variant, start(variant, n))


def reachable(variant: str, p) -> set[tuple[int, ...]]:
    seen, stack = set(), [p]
    while stack:
        q = stack.pop()
        if q not in seen:
            seen.add(q)
            stack.extend(MOVES[variant](q))
    return seen


@cache
def remaining_lengths(variant: str, p: tuple[int, ...]) -> tuple[dict, dict]:
    """Distributions of the number of moves left from p: (under P as Fractions, game counts per length)."""
    children = MOVES[variant](p)
    if not children:
        return {0: Fraction(1)}, {0: 1}
    prob: dict[int, Fraction] = {}
    count: dict[int, int] = {}
    for c in children:
        cp, cc = remaining_lengths(variant, c)
        for length, q in cp.items():
            prob[length + 1] = prob.get(length + 1, 0) + q / len(children)
        for length, k in cc.items():
            count[length + 1] = count.get(length + 1, 0) + k
    return prob, count


@cache
def random_odds(variant: str, p: tuple[int, ...]) -> tuple[Fraction, Fraction, Fraction]:
    """(mover wins, both random; perfect mover wins vs random; perfect player wins when the random one moves)."""
    children = MOVES[variant](p)
    if not children:
        return Fraction(0), Fraction(0), Fraction(1)
    kids = [random_odds(variant, c) for c in children]
    return (sum(1 - k[0] for k in kids) / len(kids), max(k[2] for k in kids),
            sum(k[1] for k in kids) / len(kids))


def winning_strategy_graph(variant: str, n: int) -> set[tuple[int, ...]]:
    """Positions reachable from the start when the winner moves only to lost positions."""
    seen, stack = set(), [start(variant, n)]
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        winner_to_move = solve(variant, p)["win"]
        stack.extend(c for c in MOVES[variant](p) if not winner_to_move or not solve(variant, c)["win"])
    return seen


# -- the Fibonacci Quilt game, from docs/games.md -------------------------
Q = [1, 2, 3, 4]
while len(Q) < 30:
    Q.append(Q[-2] + Q[-3])


def quilt_moves(p):
    """Moves 1 to 5 of the quilt game, as listed (3f corrected); 2a only when nothing else is legal."""
    out = [moved(p, {1: 1, 2: 1}, {3: 1})]  # 1a
    out += [moved(p, {i: 1, i + 1: 1}, {i + 3: 1}) for i in range(2, BINS - 3)]  # 1b
    out += [moved(p, {i: 1, i + 4: 1}, {i + 5: 1}) for i in range(2, BINS - 5)]  # 2b
    out += [moved(p, {1: 2}, {2: 1}), moved(p, {2: 2}, {4: 1}), moved(p, {3: 2}, {2: 1, 4: 1}),  # 3a-c
            moved(p, {4: 2}, {1: 1, 6: 1}), moved(p, {4: 2}, {3: 1, 5: 1}), moved(p, {5: 2}, {1: 1, 7: 1}),  # 3d, 3e
            moved(p, {6: 2}, {2: 1, 8: 1}), moved(p, {6: 2}, {5: 1, 7: 1})]  # 3f (errata)
    out += [moved(p, {i: 2}, {i - 5: 1, i + 2: 1}) for i in range(7, BINS - 2)]  # 3g
    out += [moved(p, {1: 1, 4: 1}, {5: 1}), moved(p, {2: 1, 5: 1}, {6: 1}), moved(p, {3: 1, 6: 1}, {1: 1, 7: 1}),
            moved(p, {4: 1, 7: 1}, {1: 1, 8: 1}), moved(p, {5: 1, 8: 1}, {1: 1, 9: 1}),
            moved(p, {6: 1, 9: 1}, {2: 1, 10: 1})]  # 4a-4d
    out += [moved(p, {i: 1, i + 3: 1}, {i - 5: 1, i + 4: 1}) for i in range(7, BINS - 4)]  # 4e
    out.append(moved(p, {1: 1, 3: 1}, {4: 1}))  # 5
    legal = [m for m in out if m is not None]
    if not legal:
        fallback = moved(p, {1: 1, 5: 1}, {2: 1, 4: 1})  # 2a
        legal = [fallback] if fallback is not None else []
    return legal


def quilt_value(p) -> int:
    return sum(c * q for c, q in zip(p, Q, strict=False))


def fq_legal_decompositions(n: int) -> list[tuple[int, ...]]:
    """Sets of distinct quilt indices, no two at distance 1, 3 or 4, not both 1 and 3, summing to n."""
    found = []

    def extend(chosen: list[int], i: int, left: int) -> None:
        if left == 0:
            c = [0] * (max(chosen) if chosen else 0)
            for j in chosen:
                c[j - 1] = 1
            found.append(tuple(c))
            return
        for j in range(i, 0, -1):
            if Q[j - 1] <= left and all(abs(j - k) not in (0, 1, 3, 4) for k in chosen) \
                    and not ({j} | set(chosen)) >= {1, 3}:
                extend(chosen + [j], j - 1, left - Q[j - 1])

    extend([], max(j for j in range(1, len(Q) + 1) if Q[j - 1] <= n), n)
    return found


MOVES["quilt"] = quilt_moves


# -- Black Hole games and their Empty-Board pre-game, from docs/games.md ---
def black_hole_moves(m: int):
    """The Zeckendorf moves on bins 1..m-1; a chip put in bin m or beyond is gone."""
    def put_on_board(put: dict[int, int]) -> dict[int, int]:
        return {b: k for b, k in put.items() if b < m}

    def moves(p):
        if len(p) > m - 1:
            raise ValueError(f"{p} has a chip beyond bin {m - 1}")
        out = [moved(p, {1: 2}, put_on_board({2: 1}))]  # merge ones
        for i in range(2, m):  # combine F_{i-1} + F_i, both on the board
            out.append(moved(p, {i - 1: 1, i: 1}, put_on_board({i + 1: 1})))
        if m - 1 >= 2:
            out.append(moved(p, {2: 2}, put_on_board({1: 1, 3: 1})))  # split twos
        for i in range(3, m):
            out.append(moved(p, {i: 2}, put_on_board({i - 2: 1, i + 1: 1})))  # split
        return [c for c in out if c is not None]

    return moves


def empty_board_moves(m: int):
    """A position is the board, then the value still to place (its last entry)."""
    decompose = black_hole_moves(m)

    def moves(p):
        c = list(p) + [0] * (m - len(p))
        board, left = c[: m - 1], c[m - 1]
        if left == 0:
            return [norm(child) for child in decompose(norm(board))]
        out = []
        for b in sorted({1, m - 1}):  # the outermost bins
            if FIB[b - 1] <= left:
                placed = board.copy()
                placed[b - 1] += 1
                out.append(norm(placed + [left - FIB[b - 1]]))
        return out

    return moves


# -- Fibonacci nim, from docs/games.md --------------------------------------
def nim_moves(p):
    r, k = (list(p) + [0, 0])[:2]
    return [norm([r - t, min(2 * t, r - t)]) for t in range(1, min(k, r) + 1)]


# -- the build-up 1-2-3 game, from docs/games.md -----------------------------
def build_up_moves(p):
    """(a, b, c, left): place a 1, 2 or 3 that fits while something is left, then the reversed game."""
    a, b, c, left = (list(p) + [0] * 4)[:4]
    if left == 0:
        return [norm(list(child) + [0] * (4 - len(child))) for child in reversed_moves(norm([a, b, c]))]
    out = []
    for size in (1, 2, 3):
        if size <= left:
            pieces = [a, b, c]
            pieces[size - 1] += 1
            out.append(norm(pieces + [left - size]))
    return out


FAMILY_M = range(2, 13)  # every M zeckdb accepts
for _m in FAMILY_M:
    MOVES[f"black-hole-{_m}"] = black_hole_moves(_m)
    MOVES[f"black-hole-empty-board-{_m}"] = empty_board_moves(_m)
MOVES["fibonacci-nim"] = nim_moves
MOVES["build-up"] = build_up_moves


# -- the ordered Zeckendorf game (Bortnovskyi et al. 2025, arXiv:2508.20222) ----------
def ordered_moves(p):
    """A position is its entries left to right, as values. Each rule rewrites two neighbours
    (a, b), read off the paper's list with F_1, F_2, F_3, ... = FIB[0], FIB[1], FIB[2], ..."""
    out = []
    for k in range(len(p) - 1):
        a, b = p[k], p[k + 1]
        i, j = FIB.index(a), FIB.index(b)
        if a == 1 and b == 1:
            new = (2,)
        elif j == i + 1:  # F_i, F_{i+1} -> F_{i+2}
            new = (FIB[i + 2],)
        elif a == 2 and b == 2:
            new = (1, 3)
        elif a == b:  # F_i, F_i -> F_{i-2}, F_{i+1} (i >= 3)
            new = (FIB[i - 2], FIB[i + 1])
        elif a > b:
            new = (b, a)
        else:
            continue
        out.append(p[:k] + new + p[k + 2:])
    return out


def fibonacci_compositions(n: int) -> set[tuple[int, ...]]:
    """Every ordered list of Fibonacci numbers summing to n."""
    if n == 0:
        return {()}
    return {(f,) + rest for f in FIB if f <= n for rest in fibonacci_compositions(n - f)}


MOVES["ordered"] = ordered_moves


# -- the accelerated Zeckendorf game (the Polymath REU, 2020), from docs/games.md ----------
def accelerated_moves(p):
    """One Zeckendorf move made m >= 1 times at once, every m the chips in place allow."""
    singles = [({1: 2}, {2: 1}), ({2: 2}, {1: 1, 3: 1})]  # merge ones, split twos
    singles += [({i - 1: 1, i: 1}, {i + 1: 1}) for i in range(2, BINS)]  # combine
    singles += [({i: 2}, {i - 2: 1, i + 1: 1}) for i in range(3, BINS)]  # split
    out = []
    for take, put in singles:
        m = 1
        while (child := moved(p, {b: k * m for b, k in take.items()}, {b: k * m for b, k in put.items()})) is not None:
            out.append(child)
            m += 1
    return out


MOVES["accelerated"] = accelerated_moves


def nacci_parameters(variant: str) -> tuple[int, int]:
    c, k = variant.rsplit("-", 2)[1:]
    return int(c), int(k)


def nacci_greedy(c: int, k: int, n: int) -> tuple[int, ...]:
    g = nacci_sequence(c, k)
    counts = [0] * len(g)
    for i in range(len(g) - 1, -1, -1):
        counts[i], n = divmod(n, g[i])
    return norm(counts)


def family_start(variant: str, n: int) -> tuple[int, ...]:
    if variant.startswith("reversed-nacci-"):
        return nacci_greedy(*nacci_parameters(variant), n)
    if variant.startswith("nacci-"):
        return norm([n])
    if variant.startswith("black-hole-empty-board-"):
        m = int(variant.rsplit("-", 1)[1])
        return norm([0] * (m - 1) + [n])
    if variant.startswith("black-hole-"):
        return norm([n])
    if variant == "fibonacci-nim":
        return norm([n, max(n - 1, 0)])
    if variant == "build-up":
        return norm([0, 0, 0, n])
    if variant == "ordered":
        return (1,) * n
    if variant == "accelerated":
        return (n,)
    raise KeyError(variant)


def family_layer(variant: str, p) -> int:
    """The n whose layer stores p: its value, or the pile for nim (the last entry counts 1 in the pre-games)."""
    if variant == "fibonacci-nim":
        return p[0] if p else 0
    if "nacci-" in variant:
        return nacci_value(*nacci_parameters(variant), p)
    if variant == "ordered":
        return sum(p)
    if variant == "build-up":
        c = list(p) + [0] * 4
        return c[0] + 2 * c[1] + 3 * c[2] + c[3]
    if variant.startswith("black-hole-empty-board-"):
        m = int(variant.rsplit("-", 1)[1])
        c = list(p) + [0] * m
        return sum(c[i] * FIB[i] for i in range(m - 1)) + c[m - 1]
    return value(p)


def layer_positions(variant: str, n: int) -> set[tuple[int, ...]]:
    """Every position a game from the start of n passes through that lies in layer n."""
    return {p for p in reachable(variant, family_start(variant, n)) if family_layer(variant, p) == n}



# -- the (c,k)-nacci games, from docs/games.md -------------------------------
def nacci_sequence(c: int, k: int, count: int = 40) -> list[int]:
    """G_1, G_2, ...: (c+1)^(j-1) for j <= k, then (c+1)^k - 1, then c times the sum of the last k."""
    g = [(c + 1) ** (j - 1) for j in range(1, k + 1)] + [(c + 1) ** k - 1]
    while len(g) < count:
        g.append(c * sum(g[-k:]))
    return g


def nacci_moves(c: int, k: int):
    """The five kinds of move of the table, each written out as take and put (1-based bins)."""
    def moves(p):
        out = []
        for i in range(1, BINS):
            if i >= k:  # combine: c from each of bins i-k+1..i into one at i+1
                out.append(moved(p, {j: c for j in range(i - k + 1, i + 1)}, {i + 1: 1}))
            if i >= k + 1:  # split: c+1 at i into one at i+1 and c at i-k
                out.append(moved(p, {i: c + 1}, {i + 1: 1, i - k: c}))
            if i == k:
                out.append(moved(p, {k: c + 1}, {k + 1: 1, 1: 1}))
            if i <= k - 1:  # up
                out.append(moved(p, {i: c + 1}, {i + 1: 1}))
            if 2 <= i <= k - 1:  # low combine
                out.append(moved(p, {1: c + 1, **{j: c for j in range(2, i + 1)}}, {i + 1: 1}))
        return [q for q in out if q is not None]
    return moves


def reversed_nacci_moves(c: int, k: int):
    """The same table read backwards: each move undone (put and take exchanged)."""
    def moves(p):
        out = []
        for i in range(1, BINS):
            if i >= k:
                out.append(moved(p, {i + 1: 1}, {j: c for j in range(i - k + 1, i + 1)}))
            if i >= k + 1:
                out.append(moved(p, {i + 1: 1, i - k: c}, {i: c + 1}))
            if i == k:
                out.append(moved(p, {k + 1: 1, 1: 1}, {k: c + 1}))
            if i <= k - 1:
                out.append(moved(p, {i + 1: 1}, {i: c + 1}))
            if 2 <= i <= k - 1:
                out.append(moved(p, {i + 1: 1}, {1: c + 1, **{j: c for j in range(2, i + 1)}}))
        return [q for q in out if q is not None]
    return moves


def nacci_value(c: int, k: int, p) -> int:
    return sum(x * g for x, g in zip(p, nacci_sequence(c, k), strict=False))


def nacci_legal(c: int, k: int, p) -> bool:
    """Coefficients 0..c and no k consecutive bins all holding c."""
    q = list(p)
    return all(0 <= x <= c for x in q) and not any(all(x == c for x in q[i:i + k]) for i in range(len(q) - k + 1))


for _c in range(1, 5):
    for _k in range(2, 5):
        MOVES[f"nacci-{_c}-{_k}"] = nacci_moves(_c, _k)
        MOVES[f"reversed-nacci-{_c}-{_k}"] = reversed_nacci_moves(_c, _k)


# -- misère play, from docs/games.md: the same moves, the last mover loses ---------------------
@cache
def solve_misere(variant: str, p: tuple[int, ...]) -> dict:
    """Every solved quantity of p under misère play, for the player to move: a position with no
    move is won (the opponent moved last); the winner plays to win fastest, the loser to lose
    slowest (remoteness), as under normal play. Lengths, counts and the Grundy value (normal
    play's mex) are the moves' own, so they come from `solve`."""
    children = MOVES[variant](p)
    same = solve(variant, p)
    if not children:
        return {**same, "win": True, "remoteness": 0, "winning": 0}
    s = [solve_misere(variant, c) for c in children]
    losing = [x for x in s if not x["win"]]
    remoteness = 1 + (min(x["remoteness"] for x in losing) if losing else max(x["remoteness"] for x in s))
    return {**same, "win": bool(losing), "remoteness": remoteness, "winning": len(losing)}


@cache
def random_odds_misere(variant: str, p: tuple[int, ...]) -> tuple[Fraction, Fraction, Fraction]:
    """random_odds under misère play: the player to move at a position with no move has won."""
    children = MOVES[variant](p)
    if not children:
        return Fraction(1), Fraction(1), Fraction(0)
    kids = [random_odds_misere(variant, c) for c in children]
    return (sum(1 - k[0] for k in kids) / len(kids), max(k[2] for k in kids),
            sum(k[1] for k in kids) / len(kids))
