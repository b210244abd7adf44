"""The Empty-Board Black Hole game in every column (`black-hole-empty-board-any-M`) against a
plain solver written here from docs/games.md's rules (tuples and recursion, nothing of zeckdb's
engine), the paper's Empty-Board facts (Cashman, Miller, Shuffelton, Son, arXiv 2409.10981) for
the same solver with the paper's outermost bins, and the winner-period query against those facts."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cache
from pathlib import Path
import sys
from typing import Any

import duckdb
import pytest

import zeckdb
from zeckdb.errors import UnknownVariantError
from zeckdb.store import close_connection, open_sandboxed
from zeckdb.variants import get_variant

sys.setrecursionlimit(20000)

ANY_MS = (4, 5, 6)
ANY_N = 20
PAPER_TOP = {2: ANY_N, 3: ANY_N, 4: 80}  # m = 4's period shows from n = 48 on, twice by n = 80


# -- the rules, from docs/games.md ------------------------------------------------------------
def fib(i: int) -> int:
    """F_1 = 1, F_2 = 2, F_{i+1} = F_i + F_{i-1} (docs/games.md's indexing)."""
    a, b = 1, 2
    for _ in range(i - 1):
        a, b = b, a + b
    return a


Position = tuple[int, ...]  # (c_1, ..., c_{m-1}, value left to place)


def black_hole_moves(m: int, board: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """The Zeckendorf game's moves on bins 1..m-1; a chip bound for bin m or beyond is gone."""
    def move(take: dict[int, int], put: Iterable[int]) -> tuple[int, ...] | None:
        c = list(board)
        for b, k in take.items():
            if c[b - 1] < k:
                return None
            c[b - 1] -= k
        for b in put:
            if b < m:
                c[b - 1] += 1
        return tuple(c)

    candidates = [move({1: 2}, [2])]  # merge ones
    candidates += [move({i - 1: 1, i: 1}, [i + 1]) for i in range(2, m)]  # combine
    if m - 1 >= 2:
        candidates.append(move({2: 2}, [1, 3]))  # split twos
    candidates += [move({i: 2}, [i - 2, i + 1]) for i in range(3, m)]  # split
    return (c for c in candidates if c is not None)


def game(m: int, bins: tuple[int, ...]) -> Callable[[Position], list[Position]]:
    """While something is left to place, place one chip in one of `bins` that fits; then play
    the black-hole game."""
    def moves(p: Position) -> list[Position]:
        board, left = p[:-1], p[-1]
        if left == 0:
            return [(*child, 0) for child in black_hole_moves(m, board)]
        out = []
        for b in bins:
            if fib(b) <= left:
                placed = list(board)
                placed[b - 1] += 1
                out.append((*placed, left - fib(b)))
        return out

    return moves


def every_bin(m: int) -> Callable[[Position], list[Position]]:
    return game(m, tuple(range(1, m)))


def outermost(m: int) -> Callable[[Position], list[Position]]:
    return game(m, tuple(sorted({1, m - 1})))


def start(m: int, n: int) -> Position:
    return (0,) * (m - 1) + (n,)


def value(p: Position) -> int:
    return sum(c * fib(i) for i, c in enumerate(p[:-1], 1)) + p[-1]


class Solver:
    """Normal play (misère: a player with no move has won), lengths and games, by recursion."""

    def __init__(self, moves: Callable[[Position], list[Position]], misere: bool = False):
        self.moves, self.misere = moves, misere
        self.win = cache(self._win)
        self.shortest = cache(lambda p: min((1 + self.shortest(c) for c in self.moves(p)), default=0))
        self.longest = cache(lambda p: max((1 + self.longest(c) for c in self.moves(p)), default=0))
        self.games = cache(lambda p: sum(self.games(c) for c in self.moves(p)) if self.moves(p) else 1)

    def _win(self, p: Position) -> bool:
        children = self.moves(p)
        return self.misere if not children else any(not self.win(c) for c in children)

    def reachable(self, p: Position) -> set[Position]:
        seen, stack = {p}, [p]
        while stack:
            for c in self.moves(stack.pop()):
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        return seen


SOLVERS = {m: Solver(every_bin(m)) for m in (3, *ANY_MS)}
PAPER = {m: Solver(outermost(m)) for m in (2, 3, 4)}


def winner(solver: Solver, m: int, n: int) -> int:
    return 1 if solver.win(start(m, n)) else 2


# -- the paper's facts (docs/games.md) ----------------------------------------------------------
def published_winner(m: int, n: int) -> int:
    """Who wins the paper's Empty-Board game from n (Cashman et al., as docs/games.md states it)."""
    if m == 2:
        return 1 if n % 4 in (1, 2) else 2
    if m == 3:
        return 1 if n % 9 in (1, 2, 3, 6, 8) else 2
    if n in (17, 47):
        return 2
    if n in (2, 32):
        return 1
    return 1 if n % 16 in (1, 3, 5, 7, 8, 10, 12, 14, 15) else 2


def test_the_plain_solver_plays_the_papers_game_as_the_paper_says() -> None:
    """The solver's black-hole part, with the paper's outermost bins, gives the published winners."""
    for m, top in ((2, 40), (3, 40), (4, 50)):
        assert [winner(PAPER[m], m, n) for n in range(1, top + 1)] == [published_winner(m, n) for n in range(1, top + 1)]


def test_placing_in_any_bin_for_m_3_is_the_papers_game_so_zeckdb_names_it() -> None:
    """With bins 1 and 2 both outermost, placing anywhere gives the paper's winners (n mod 9), and the
    name refers the reader to the paper's game."""
    assert [winner(SOLVERS[3], 3, n) for n in range(1, 31)] == [published_winner(3, n) for n in range(1, 31)]
    for m in (2, 3):
        with pytest.raises(UnknownVariantError, match=f"registered as black-hole-empty-board-{m}: name it"):
            get_variant(f"black-hole-empty-board-any-{m}")


# -- the database -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path: Path = tmp_path_factory.mktemp("any") / "any.duckdb"
    zeckdb.build(path, [f"black-hole-empty-board-any-{m}" for m in ANY_MS] +
                 ["black-hole-empty-board-any-4-misere", "black-hole-empty-board-2", "black-hole-empty-board-3"],
                 f"1..{ANY_N}")  # one build: each costs a few seconds, most of them its layers' commits
    zeckdb.build(path, "black-hole-empty-board-4", f"1..{PAPER_TOP[4]}")
    return path


@pytest.fixture(scope="module")
def con(db: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = open_sandboxed(db)
    yield c
    close_connection(c)


def stored(con: duckdb.DuckDBPyConnection, variant: str, n: int, m: int) -> dict[Position, str]:
    columns = ", ".join(f"coalesce(c{i}, 0)" for i in range(1, m + 1))
    return {tuple(r[:-1]): r[-1] for r in con.execute(f"SELECT {columns}, outcome FROM positions "
                                                        "WHERE variant = ? AND n = ?", [variant, n]).fetchall()}


def builds(con: duckdb.DuckDBPyConnection, variant: str) -> dict[int, tuple[object, ...]]:
    return {r[0]: r[1:] for r in con.execute("SELECT n, winner, min_length, max_length, games, positions FROM builds "
                                               "WHERE variant = ? AND n >= 1", [variant]).fetchall()}


@pytest.mark.parametrize("m", ANY_MS)
def test_each_layer_is_what_play_reaches_and_every_outcome_is_the_solvers(con: duckdb.DuckDBPyConnection, m: int) -> None:
    """Layer n holds exactly the positions of value n that play from n reaches (each board of value
    v <= n with n - v left), each with the solver's outcome."""
    solver = SOLVERS[m]
    for n in range(1, ANY_N + 1):
        reached = {p for p in solver.reachable(start(m, n)) if value(p) == n}
        layer = stored(con, f"black-hole-empty-board-any-{m}", n, m)
        assert set(layer) == reached, (m, n)
        assert all(outcome == ("win" if solver.win(p) else "loss") for p, outcome in layer.items()), (m, n)


@pytest.mark.parametrize("m", ANY_MS)
def test_winner_lengths_games_and_size_of_each_start_are_the_solvers(con: duckdb.DuckDBPyConnection, m: int) -> None:
    solver = SOLVERS[m]
    want = {n: (winner(solver, m, n), solver.shortest(start(m, n)), solver.longest(start(m, n)),
                str(solver.games(start(m, n))), len({p for p in solver.reachable(start(m, n)) if value(p) == n}))
            for n in range(1, ANY_N + 1)}
    assert builds(con, f"black-hole-empty-board-any-{m}") == want


def test_the_misere_twin_is_the_plain_misere_solvers(con: duckdb.DuckDBPyConnection) -> None:
    solver = Solver(every_bin(4), misere=True)
    got = {n: row[0] for n, row in builds(con, "black-hole-empty-board-any-4-misere").items()}
    assert got == {n: 1 if solver.win(start(4, n)) else 2 for n in range(1, ANY_N + 1)}
    for n in (7, ANY_N):
        layer = stored(con, "black-hole-empty-board-any-4-misere", n, 4)
        assert all(outcome == ("win" if solver.win(p) else "loss") for p, outcome in layer.items()), n


def test_the_winners_differ_from_the_papers_game_where_the_solver_says(con: duckdb.DuckDBPyConnection) -> None:
    """For m = 4 the database's two games differ exactly at the n the two solvers differ, and they do."""
    paper = Solver(outermost(4))
    differ = {n for n in range(1, ANY_N + 1) if winner(SOLVERS[4], 4, n) != winner(paper, 4, n)}
    stored_any, stored_paper = builds(con, "black-hole-empty-board-any-4"), builds(con, "black-hole-empty-board-4")
    assert differ and {n for n in range(1, ANY_N + 1) if stored_any[n][0] != stored_paper[n][0]} == differ


# -- the winner-period query ----------------------------------------------------------------------
def period_rows(db: Path, **params: int) -> dict[str, dict[str, Any]]:
    with zeckdb.open(db) as store:
        result = store.query("winner-period", params={k: str(v) for k, v in params.items()})
    return {r[0]: dict(zip(result.columns, r, strict=True)) for r in result.rows}


def test_the_period_query_finds_the_papers_periods(db: Path) -> None:
    """m = 2: period 4 and m = 3: period 9 from n = 1; m = 4: period 16 from n = 48 on (the last of
    the paper's exceptions is 47), none over a window that holds the exceptions."""
    rows = period_rows(db)
    assert (rows["black-hole-empty-board-2"]["period"], rows["black-hole-empty-board-2"]["periodic_from"]) == (4, 1)
    assert (rows["black-hole-empty-board-3"]["period"], rows["black-hole-empty-board-3"]["periodic_from"]) == (9, 1)
    assert rows["black-hole-empty-board-4"]["period"] is None
    assert rows["black-hole-empty-board-4"]["answer"].startswith("none within the window")
    breaks = [n for n in range(1, PAPER_TOP[4] - 16 + 1) if published_winner(4, n) != published_winner(4, n + 16)]
    late = period_rows(db, first_n=48)["black-hole-empty-board-4"]
    assert (late["first_n"], late["last_n"], late["period"], late["periodic_from"]) == (48, 80, 16, max(breaks) + 1)
    assert late["answer"] == "period 16 for n = 48..80, from n = 48 on"
    # a period is one the window holds twice, and one no longer than max_period
    assert period_rows(db, first_n=50)["black-hole-empty-board-4"]["period"] is None  # 31 n: 16 fits once
    assert period_rows(db, max_period=8)["black-hole-empty-board-3"]["period"] is None


@pytest.mark.parametrize("m", ANY_MS)
def test_the_period_query_on_the_games_placing_anywhere_is_the_solvers(db: Path, m: int) -> None:
    wins = {n: winner(SOLVERS[m], m, n) for n in range(1, ANY_N + 1)}
    first = 5
    periods = [p for p in range(1, (ANY_N - first + 1) // 2 + 1)
               if all(wins[n] == wins[n + p] for n in range(first, ANY_N - p + 1))]
    got = period_rows(db, first_n=first)[f"black-hole-empty-board-any-{m}"]["period"]
    assert got == (periods[0] if periods else None)


def boards_up_to(m: int, n: int) -> int:
    """How many boards c_1..c_{m-1} have value <= n (bin 1 counted in closed form)."""
    def count(bin_: int, room: int) -> int:
        if bin_ == 1:
            return room + 1
        return sum(count(bin_ - 1, room - k * fib(bin_)) for k in range(room // fib(bin_) + 1))

    return count(m - 1, n)


@pytest.mark.parametrize("m", (4, 5))
def test_a_layer_counts_every_board_up_to_its_value_past_the_largest_n_too(m: int) -> None:
    """Layer n is every board of value v <= n (n - v left to place): its size, up to max_n and
    past it, where the engine's limits ask."""
    v = get_variant(f"black-hole-empty-board-any-{m}")
    for n in (0, 1, 7, v.max_n, v.max_n + 1):
        assert v.estimate_positions(n) == boards_up_to(m, n), (m, n)
