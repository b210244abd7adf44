"""The reversed game with a stagnant one (`reversed-stagnant`, Batterman et al. 2023, section 6
(iv)) and its misère twin, against a deliberately simple solver written here from the rules of
docs/games.md: plain tuples, a recursion with a memo, nothing of zeckdb's engine.

The rules, as docs/games.md states them: Fibonacci bins F_1 = 1, F_2 = 2, F_3 = 3, ...; the
reversed game's moves are F_2 -> 2 F_1, F_{i+1} -> F_i + F_{i-1} (i >= 2), F_1 + F_3 -> 2 F_2
and F_{i-2} + F_{i+1} -> 2 F_i (i >= 3); the stagnant game drops the two that take a 1 (F_1 +
F_3 -> 2 F_2 and F_1 + F_4 -> 2 F_3). Start: the Zeckendorf decomposition of n; the game ends
at n ones. Normal play: the last mover wins; misère: the last mover loses.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
import shutil
from typing import Any

import duckdb
import pytest

import zeckdb
from zeckdb.testing import conformance
from zeckdb.variants import get_variant, variant_names
from zeckdb.variants.chips import ChipGame, Rule

N = 18
BINS = 8  # F_8 = 34 > N: no position of n <= 18 uses bin 8


def fibs(count: int) -> list[int]:
    out = [1, 2]
    while len(out) < count:
        out.append(out[-1] + out[-2])
    return out[:count]


F = fibs(BINS)  # F[i - 1] is F_i


def trim(counts: list[int]) -> tuple[int, ...]:
    while counts and counts[-1] == 0:
        counts.pop()
    return tuple(counts)


def zeckendorf(n: int) -> tuple[int, ...]:
    """Greedy: the largest Fibonacci number that fits, then the rest."""
    counts = [0] * BINS
    for i in range(BINS - 1, -1, -1):
        if F[i] <= n:
            counts[i] += 1
            n -= F[i]
    assert n == 0
    return trim(counts)


def moves_of(stagnant: bool) -> list[tuple[dict[int, int], dict[int, int]]]:
    """The moves as (take, put), bins from 1, read off the rules' text."""
    moves: list[tuple[dict[int, int], dict[int, int]]] = [({2: 1}, {1: 2})]  # F_2 -> 2 F_1
    moves += [({i + 1: 1}, {i: 1, i - 1: 1}) for i in range(2, BINS)]  # F_{i+1} -> F_i + F_{i-1}
    if not stagnant:
        moves.append(({1: 1, 3: 1}, {2: 2}))  # F_1 + F_3 -> 2 F_2
    moves += [({i - 2: 1, i + 1: 1}, {i: 2}) for i in range(3 if not stagnant else 4, BINS)]
    return moves


def children(position: tuple[int, ...], stagnant: bool = True) -> list[tuple[int, ...]]:
    out = []
    for take, put in moves_of(stagnant):
        counts = list(position) + [0] * (BINS - len(position))
        if all(counts[b - 1] >= c for b, c in take.items()):
            for b, c in take.items():
                counts[b - 1] -= c
            for b, c in put.items():
                counts[b - 1] += c
            out.append(trim(counts))
    return out


@cache
def wins(position: tuple[int, ...], misere: bool) -> bool:
    """Whether the player to move wins: with no move, a loss (normal) or a win (misère)."""
    kids = children(position)
    return any(not wins(k, misere) for k in kids) if kids else misere


@cache
def shortest(position: tuple[int, ...]) -> int:
    kids = children(position)
    return 1 + min(shortest(k) for k in kids) if kids else 0


@cache
def longest(position: tuple[int, ...]) -> int:
    kids = children(position)
    return 1 + max(longest(k) for k in kids) if kids else 0


@cache
def games(position: tuple[int, ...]) -> int:
    kids = children(position)
    return sum(games(k) for k in kids) if kids else 1


def reachable(start: tuple[int, ...]) -> set[tuple[int, ...]]:
    seen, todo = {start}, [start]
    while todo:
        for k in children(todo.pop()):
            if k not in seen:
                seen.add(k)
                todo.append(k)
    return seen


def partitions(n: int, top: int = BINS) -> Iterator[tuple[int, ...]]:
    """Every count vector of value n over bins 1..top (brute force over the top bin's count)."""
    if top == 1:
        yield (n,)
        return
    for c in range(n // F[top - 1] + 1):
        for rest in partitions(n - c * F[top - 1], top - 1):
            yield trim(list(rest) + [0] * (top - 1 - len(rest)) + [c])


def winner(n: int, misere: bool = False) -> int:
    return 1 if wins(zeckendorf(n), misere) else 2


# -- the solver's own sanity: published or hand-checked facts, before it checks anything --------

def test_the_simple_solver_reads_the_rules_as_written() -> None:
    assert zeckendorf(16) == (0, 0, 1, 0, 0, 1)  # 16 = 13 + 3
    assert sorted(children((1, 0, 1))) == [(2, 1)]  # 4 = 1 + 3: only F_3 splits; F_1 + F_3 -> 2 F_2 is gone
    assert sorted(children((1, 0, 1), stagnant=False)) == [(0, 2), (2, 1)]
    assert all(sum(c * f for c, f in zip(k, F, strict=False)) == 6 for k in children((1, 0, 0, 1)))
    assert (0, 2) not in reachable(zeckendorf(4))  # 2 + 2 needs the one used up
    for n in range(1, N + 1):  # every game ends at n ones, and the shortest game makes only splits
        terminal = {p for p in reachable(zeckendorf(n)) if not children(p)}
        assert terminal == {(n,)}
        assert shortest(zeckendorf(n)) == n - sum(zeckendorf(n))


# -- the game's rules ------------------------------------------------------------------------

def rule_set(rules: Iterable[Rule]) -> set[tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]]:
    return {(tuple(sorted(r.take)), tuple(sorted(r.put))) for r in rules}


def test_the_rules_are_the_reversed_games_less_the_two_that_take_a_one() -> None:
    stagnant, reversed_game = get_variant("reversed-stagnant"), get_variant("reversed")
    assert isinstance(stagnant, ChipGame) and isinstance(reversed_game, ChipGame)
    for n in (18, 150, 400):  # the bins of any n, as summary mode and simulations read them
        mine, theirs = rule_set(stagnant.game_for(n)[1]), rule_set(reversed_game.game_for(n)[1])
        assert mine < theirs
        assert theirs - mine == {(((1, 1), (3, 1)), ((2, 2),)), (((1, 1), (4, 1)), ((3, 2),))}
    assert rule_set(stagnant.play_rules) == rule_set(reversed_game.play_rules) - {
        (((1, 1), (3, 1)), ((2, 2),)), (((1, 1), (4, 1)), ((3, 2),))}


@pytest.mark.parametrize("n", [4, 9, 17])
def test_every_positions_moves_are_the_simple_solvers(n: int) -> None:
    stagnant = get_variant("reversed-stagnant")
    for p in partitions(n):
        assert sorted(child for _, child in stagnant.play_moves(p)) == sorted(children(p)), p


def test_the_game_keeps_the_contract_and_owns_its_graph() -> None:
    stagnant = get_variant("reversed-stagnant")
    conformance(stagnant, ns=(1, 2, 5, 12, 19))
    # its moves are not the Zeckendorf graph's reversed: it stores a graph of its own, in its direction
    assert stagnant.graph_name == "reversed-stagnant" and not stagnant.reversed
    twin = get_variant("reversed-stagnant-misere")
    assert (twin.graph_name, twin.convention, twin.normal_of) == ("reversed-stagnant", "misere", "reversed-stagnant")
    assert "reversed-stagnant" not in variant_names() and "reversed-stagnant" in variant_names(all_members=True)
    assert stagnant.summary_refusal is None


# -- a built database against the simple solver -------------------------------------------------

@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path: Path = tmp_path_factory.mktemp("stagnant") / "s.duckdb"
    zeckdb.build(path, ["reversed-stagnant", "reversed-stagnant-misere"], f"1..{N}")
    zeckdb.build(path, ["reversed-stagnant", "reversed-stagnant-misere"], f"{N + 1}..{N + 2}", summary_only=True)
    return path


@pytest.fixture(scope="module")
def con(db: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect(str(db), read_only=True)
    yield connection
    connection.close()


def query(con: duckdb.DuckDBPyConnection, sql: str, params: list[object]) -> list[tuple[Any, ...]]:
    return con.execute(sql, params).fetchall()


@pytest.mark.parametrize("variant", ["reversed-stagnant", "reversed-stagnant-misere"])
def test_the_starts_facts_match_the_simple_solver(con: duckdb.DuckDBPyConnection, variant: str) -> None:
    misere = variant.endswith("-misere")
    got = {n: rest for n, *rest in query(
        con, "SELECT n, winner, min_length, max_length, games, start_position, summary_only FROM builds "
            "WHERE variant = ? ORDER BY n", [variant])}
    assert sorted(got) == list(range(1, N + 3))
    for n in range(1, N + 3):
        start = zeckendorf(n)
        win, low, high, count, position, summary = got[n]
        assert (win, low, high) == (winner(n, misere), shortest(start), longest(start)), n
        assert position == "(" + ",".join(map(str, start)) + ")"
        assert summary == (n > N)
        if n <= N:
            assert int(count) == games(start), n


@pytest.mark.parametrize("variant", ["reversed-stagnant", "reversed-stagnant-misere"])
def test_every_stored_position_matches_the_simple_solver(con: duckdb.DuckDBPyConnection, variant: str) -> None:
    misere = variant.endswith("-misere")
    for n in (1, 4, 7, 12, N):
        stored = {trim([c or 0 for c in counts]): rest for *counts, rest in [
            (*r[:BINS], r[BINS:]) for r in query(
                con, f"SELECT {', '.join(f'c{i}' for i in range(1, BINS + 1))}, outcome, min_remaining, "
                    "max_remaining, games_to_end, is_terminal FROM positions WHERE variant = ? AND n = ?",
                [variant, n])]}
        assert set(stored) == set(partitions(n))  # the layer: every partition, reachable or not
        for p, (outcome, low, high, count, terminal) in stored.items():
            assert outcome == ("win" if wins(p, misere) else "loss"), (n, p)
            assert (low, high, int(count), terminal) == (shortest(p), longest(p), games(p), p == (n,)), (n, p)


def test_the_positions_reachable_along_the_stored_moves_are_the_simple_solvers(con: duckdb.DuckDBPyConnection) -> None:
    for n in range(1, N + 1):
        moves: dict[int, list[int]] = {}
        for src, dst in query(con, "SELECT src, dst FROM moves WHERE variant = 'reversed-stagnant' AND n = ?", [n]):
            moves.setdefault(src, []).append(dst)
        ((start,),) = query(con, "SELECT start_id FROM builds WHERE variant = 'reversed-stagnant' AND n = ?", [n])
        seen, todo = {start}, [start]
        while todo:
            for k in moves.get(todo.pop(), []):
                if k not in seen:
                    seen.add(k)
                    todo.append(k)
        assert len(seen) == len(reachable(zeckendorf(n))), n
        # the twin plays the same stored moves
        assert query(con, "SELECT count(*) FROM moves WHERE variant = 'reversed-stagnant-misere' AND n = ?",
                     [n]) == [(sum(len(v) for v in moves.values()),)]


def test_a_one_in_the_start_is_a_chip_that_never_moves(con: duckdb.DuckDBPyConnection) -> None:
    """No move takes or needs a 1, so a start holding one (n = 4 = 3 + 1) plays the game of n - 1
    with a chip that never moves: the same winner, lengths and number of games, under both
    conventions (the simple solver says so too)."""
    for variant in ("reversed-stagnant", "reversed-stagnant-misere"):
        facts = {n: rest for n, *rest in query(
            con, "SELECT n, winner, max_length, games FROM builds WHERE variant = ? AND n <= ?", [variant, N])}
        with_a_one = [n for n in range(2, N + 1) if zeckendorf(n)[0] == 1]
        assert with_a_one == [4, 6, 9, 12, 14, 17]
        for n in with_a_one:
            assert facts[n] == facts[n - 1], (variant, n)
            assert games(zeckendorf(n)) == games(zeckendorf(n - 1))
        assert any(facts[n] != facts[n - 1] for n in range(2, N + 1) if n not in with_a_one)


def test_the_lengths_query_holds_the_game_to_n_minus_z_and_theorem_1_4(db: Path, tmp_path: Path) -> None:
    """The facts the game declares (shortest = n - Z(n), Theorem 1.4's bound on the longest) as
    the `lengths` query computes them, against the simple solver and the bound's formula."""
    phi = (1 + 5 ** 0.5) / 2
    copy = tmp_path / "copy.duckdb"  # the module's plain connection holds `db` open
    shutil.copyfile(db, copy)
    with zeckdb.open(copy) as store:
        result = store.query("lengths", variant="reversed-stagnant")
    got = {row["n"]: row for row in (dict(zip(result.columns, r, strict=True)) for r in result.rows)}
    assert sorted(got) == list(range(1, N + 3))
    for n, row in got.items():
        start = zeckendorf(n)
        terms, indices = sum(start), sum(i + 1 for i, c in enumerate(start) if c)
        bound = int(phi ** 2 * n - indices - 2 * terms + phi - 1)  # floor: positive for n >= 1
        assert (row["n_minus_z"], row["min_is_n_minus_z"]) == (n - terms, True), n
        assert (row["max_bound"], row["max_within_bound"]) == (bound, longest(start) <= bound), n
        assert row["max_length"] == longest(start) < bound or n <= 2, n
