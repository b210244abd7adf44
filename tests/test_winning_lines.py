"""Lee and Bitler's reduced graph on the generalized games (issue 68, item 8): the queries
winning-line-unique and omega-b against a solver written here from the rules' text (docs/games.md),
for a (c,k)-nacci game, whose moves keep the value, and Black Hole games, whose removals leave the
layer: there the game from (n) goes on in the layers below, and its winning line is the whole game's.

The solver shares nothing with zeckdb (nor with tests/reference.py): positions are tuples of counts,
the moves are read off the rules, who wins is a memoized recursion over them, and the reduced graph is
walked from the start (the winner moves only to lost positions, the loser anywhere)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
import math
from pathlib import Path
import re

import pytest

import zeckdb

Position = tuple[int, ...]
NACCI_N = 22  # nacci-2-2: the parity law's Player 1 from n = 19 (docs/findings.md) is inside
BLACK_HOLE_N = 30  # M = 4 removes F_4 = 5 from n = 5 on: several layers below each start


def _add(p: Position, changes: dict[int, int]) -> Position:
    q = list(p)
    for i, d in changes.items():
        q[i - 1] += d
    return tuple(q)


# -- the (c,k)-nacci game, from its table of moves -----------------------------------------------
def nacci_sequence(c: int, k: int, length: int) -> list[int]:
    g = [(c + 1) ** j for j in range(k)] + [(c + 1) ** k - 1]
    while len(g) < length:
        g.append(c * sum(g[-k:]))
    return g[:length]


def nacci_moves(c: int, k: int, bins: int) -> Callable[[Position], Iterator[Position]]:
    def moves(p: Position) -> Iterator[Position]:
        b = (0, *p)  # b[i]: chips in bin i
        for i in range(k, bins):  # combine at i: c from each of bins i-k+1..i, 1 to bin i+1
            if all(b[j] >= c for j in range(i - k + 1, i + 1)):
                yield _add(p, {**{j: -c for j in range(i - k + 1, i + 1)}, i + 1: 1})
        for i in range(k + 1, bins):  # split at i: c+1 from bin i, 1 to bin i+1, c to bin i-k
            if b[i] >= c + 1:
                yield _add(p, {i: -(c + 1), i + 1: 1, i - k: c})
        if b[k] >= c + 1:  # split at k: 1 to bin k+1 and 1 to bin 1
            yield _add(p, {k: -(c + 1), k + 1: 1, 1: 1})
        for i in range(1, k):  # up at i
            if b[i] >= c + 1:
                yield _add(p, {i: -(c + 1), i + 1: 1})
        for i in range(2, k):  # low combine at i: c+1 from bin 1, c from each of bins 2..i
            if b[1] >= c + 1 and all(b[j] >= c for j in range(2, i + 1)):
                yield _add(p, {1: -(c + 1), **{j: -c for j in range(2, i + 1)}, i + 1: 1})
    return moves


# -- the Black Hole game on F_M: the Zeckendorf game's moves on bins 1..M-1, a chip landing in bin M
#    falling into the hole ------------------------------------------------------------------------
def black_hole_moves(m: int) -> Callable[[Position], Iterator[Position]]:
    def moves(p: Position) -> Iterator[Position]:
        b = (0, *p, 0)  # b[i]: chips in bin i, for i = 1..m-1

        def land(changes: dict[int, int]) -> Position:
            return _add(p, {i: d for i, d in changes.items() if i < m})  # bin m and beyond: gone

        if b[1] >= 2:  # merge ones
            yield land({1: -2, 2: 1})
        for i in range(2, m):  # combine F_{i-1} + F_i -> F_{i+1}
            if b[i - 1] >= 1 and b[i] >= 1:
                yield land({i - 1: -1, i: -1, i + 1: 1})
        if m > 2 and b[2] >= 2:  # split twos
            yield land({2: -2, 1: 1, 3: 1})
        for i in range(3, m):  # split 2 F_i -> F_{i-2} + F_{i+1}
            if b[i] >= 2:
                yield land({i: -2, i - 2: 1, i + 1: 1})
    return moves


class Solver:
    """Who wins, and the reduced graph from a start, for one game's moves."""

    def __init__(self, moves: Callable[[Position], Iterator[Position]]) -> None:
        self.moves = moves
        self.wins = cache(self._wins)

    def _wins(self, p: Position) -> bool:  # normal play: the player with no move loses
        return any(not self.wins(child) for child in self.moves(p))

    def winning_replies(self, p: Position) -> int:
        return sum(not self.wins(child) for child in self.moves(p))

    def reduced(self, start: Position) -> set[Position]:
        seen, todo = {start}, [start]
        while todo:
            p = todo.pop()
            for child in self.moves(p):
                if (not self.wins(p) or not self.wins(child)) and child not in seen:
                    seen.add(child)
                    todo.append(child)
        return seen

    def summary(self, start: Position) -> dict[str, object]:
        nodes = self.reduced(start)
        decisions = [p for p in nodes if self.wins(p) and self.winning_replies(p) > 1]
        return {"winner": 1 if self.wins(start) else 2, "reduced_nodes": len(nodes),
                "omega_size": sum(not self.wins(p) for p in nodes if p != start),
                "multi_reply_decisions": len(decisions), "unique_winning_line": not decisions}


NACCI = ("nacci-2-2", 2, 2)
NACCI_BINS = 6  # G_6 = 164 > NACCI_N: no chip goes past bin 5
BLACK_HOLES = [4, 5]


def start_of(bins: int, n: int) -> Position:
    return (n,) + (0,) * (bins - 1)


def parse(text: str, bins: int) -> Position:
    """A position as zeckdb writes it, bin 1 first, trailing zeros dropped: "(3,1)" -> (3, 1, 0)."""
    counts = [int(x) for x in re.findall(r"\d+", text)]
    return tuple(counts + [0] * (bins - len(counts)))


@pytest.fixture(scope="module")
def tiny_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("lines") / "tiny.duckdb"
    zeckdb.build(path, [NACCI[0]], f"1..{NACCI_N}")
    zeckdb.build(path, [f"black-hole-{m}" for m in BLACK_HOLES], f"1..{BLACK_HOLE_N}")
    return path


def rows(db: Path, name: str, variant: str, **params: str) -> list[dict]:
    with zeckdb.open(db) as store:
        result = store.query(name, variant=variant, params=params or None, max_rows=0)
    return [dict(zip(result.columns, r, strict=True)) for r in result.rows]


def test_the_rules_here_keep_or_drop_the_value():
    """The solver's own check: a nacci move keeps the value; a Black Hole move keeps it or drops F_M."""
    name, c, k = NACCI
    g = nacci_sequence(c, k, NACCI_BINS + 1)
    assert g[:5] == [1, 3, 8, 22, 60]  # docs/games.md's (2,2)
    moves = nacci_moves(c, k, NACCI_BINS)
    for n in range(1, NACCI_N + 1):
        for child in moves(start_of(NACCI_BINS, n)):
            assert sum(map(math.prod, zip(child, g, strict=False))) == n
    fibs = [1, 2, 3, 5, 8, 13]
    for m in BLACK_HOLES:
        solver = Solver(black_hole_moves(m))
        for p in solver.reduced(start_of(m - 1, 20)):
            for child in solver.moves(p):
                drop = sum(map(math.prod, zip(p, fibs, strict=False))) - sum(map(math.prod, zip(child, fibs, strict=False)))
                assert drop in (0, fibs[m - 1]) and min(child) >= 0


def test_winning_line_unique_for_a_nacci_game(tiny_db):
    name, c, k = NACCI
    solver = Solver(nacci_moves(c, k, NACCI_BINS))
    got = {r["n"]: r for r in rows(tiny_db, "winning-line-unique", name)}
    assert sorted(got) == list(range(1, NACCI_N + 1))
    for n, r in got.items():
        want = solver.summary(start_of(NACCI_BINS, n))
        assert {key: r[key] for key in want} == want, n


@pytest.mark.parametrize("m", BLACK_HOLES)
def test_winning_line_unique_for_black_holes_across_layers(tiny_db, m):
    """The whole game's line: a decision in a layer below n counts (the stored column marks lower
    layers for their own starts, which is not this game)."""
    solver = Solver(black_hole_moves(m))
    got = {r["n"]: r for r in rows(tiny_db, "winning-line-unique", f"black-hole-{m}")}
    assert sorted(got) == list(range(0, BLACK_HOLE_N + 1))  # layer 0: the empty board, where play can end
    crossing = 0
    for n, r in got.items():
        want = solver.summary(start_of(m - 1, n))
        assert {key: r[key] for key in want} == want, n
        layers = {sum(map(math.prod, zip(p, [1, 2, 3, 5, 8], strict=False))) for p in solver.reduced(start_of(m - 1, n))}
        crossing += len(layers) > 1
    assert crossing > 10  # the layers below matter at most of these n


def test_omega_b_across_layers(tiny_db):
    """omega-b's nodes, Omega_B and edges for a start whose game falls through several layers."""
    m, n = 4, 17
    solver = Solver(black_hole_moves(m))
    start = start_of(m - 1, n)
    want = solver.reduced(start)
    got = rows(tiny_db, "omega-b", f"black-hole-{m}", n=str(n))
    nodes = {parse(r["position"], m - 1): r for r in got}
    assert set(nodes) == want
    assert {p for p, r in nodes.items() if r["in_omega_b"]} == {p for p in want if not solver.wins(p) and p != start}
    weights = [1, 2, 3]
    for p, r in nodes.items():
        assert r["layer"] == sum(map(math.prod, zip(p, weights, strict=True)))
        kept = [child for child in solver.moves(p) if not solver.wins(p) or not solver.wins(child)]
        assert r["out_degree"] == len(kept), p
        assert r["to_move"] == ("winner" if solver.wins(p) else "loser")
    assert len({r["layer"] for r in got}) > 2
    assert got[0]["position"] == f"({n})"  # the start first
    assert got[0]["multi_reply_decisions"] == sum(solver.wins(p) and solver.winning_replies(p) > 1 for p in want)


def test_the_bench_table_names_where_the_line_is_unique():
    """bench/winning_lines.py's summary of query rows, on rows made up here."""
    import importlib.util
    import sys

    script = Path(__file__).resolve().parent.parent / "bench" / "winning_lines.py"
    spec = importlib.util.spec_from_file_location("winning_lines", script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["winning_lines"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    assert module.spans([1, 2, 3, 5, 7, 8]) == "1..3, 5, 7..8" and module.spans([]) == "none"
    lines = [module.Line(n, 2, 10 + n, 4, 0 if n in (1, 2, 4) else 2, n in (1, 2, 4)) for n in range(1, 7)]
    got = module.summary(lines)
    assert got == {"unique": "1..2, 4", "not unique": "3, 5..6", "last unique": "4", "largest": "16 / 4 / 2"}
