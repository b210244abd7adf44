"""docs/games.md, checked against the built database (n = 1..40)."""

from __future__ import annotations

import math

import pytest

from .reference import PHI, fib, z_count, z_index_sum

from .conftest import SMALL_N, rows
from .facts import LEE_BITLER_LINES, TABLE_A1, THEOREM_1_6


def summary(con, variant):
    return {r["n"]: r for r in rows(con, "SELECT * FROM builds WHERE variant = ? ORDER BY n", [variant])}


@pytest.mark.parametrize("variant", ["zeckendorf", "reversed"])
def test_graph_sizes_match_table_a1(con, variant):
    s = summary(con, variant)
    for n, (edges, vertices) in TABLE_A1.items():
        assert (s[n]["edges"], s[n]["positions"]) == (edges, vertices), f"n={n}"
    stored = dict(con.execute("SELECT n, count(*) FROM moves WHERE variant = ? GROUP BY n", [variant]).fetchall())
    assert {n: stored[n] for n in TABLE_A1} == {n: e for n, (e, _) in TABLE_A1.items()}


def test_player_two_wins_forward_game_from_n_3(con):
    s = summary(con, "zeckendorf")
    assert s[2]["winner"] == 1
    assert all(s[n]["winner"] == 2 for n in range(3, SMALL_N + 1))


@pytest.mark.parametrize("variant", ["zeckendorf", "reversed"])
def test_shortest_game_is_n_minus_z(con, variant):
    s = summary(con, variant)
    assert all(s[n]["min_length"] == n - z_count(n) for n in range(1, SMALL_N + 1))


def position_row(con, variant, counts):
    n = sum(c * fib(i + 1) for i, c in enumerate(counts))
    where = " AND ".join(f"coalesce(c{i + 1}, 0) = {c}" for i, c in enumerate(counts + (0,) * (16 - len(counts))))
    (row,) = rows(con, f"SELECT * FROM positions WHERE variant = ? AND n = ? AND {where}", [variant, n])
    return row


@pytest.mark.parametrize("n", sorted(LEE_BITLER_LINES))
def test_lee_bitler_lines_are_winning_lines_for_player_two(con, n):
    line = LEE_BITLER_LINES[n]
    ids = [position_row(con, "zeckendorf", p) for p in line]
    for a, b in zip(ids, ids[1:], strict=False):  # every step is a legal move
        assert con.execute("SELECT count(*) FROM moves WHERE variant = 'zeckendorf' AND n = ? AND src = ? AND dst = ?",
                           [n, a["id"], b["id"]]).fetchone()[0] == 1
    for ply, p in enumerate(ids):  # Player 1 (A) is to move exactly at even plies, and loses there
        assert p["outcome"] == ("loss" if ply % 2 == 0 else "win")
    assert ids[-1]["is_terminal"] and len(line) % 2 == 1  # B made the last move


def test_lee_bitler_lines_are_unique_for_4_to_7(con):
    """For n = 4..7, Player 2 has exactly one winning reply at each turn of the line."""
    for line in LEE_BITLER_LINES.values():
        for ply in range(1, len(line) - 1, 2):  # positions where B is to move
            assert position_row(con, "zeckendorf", line[ply])["winning_moves"] == 1


def test_player_one_wins_reversed_7(con):
    assert summary(con, "reversed")[7]["winner"] == 1


def test_reversed_theorem_1_1(con):
    s = summary(con, "reversed")
    i = 3
    while (n := fib(i + 1) + fib(i - 2)) <= SMALL_N:
        assert s[n]["winner"] == 1, f"n = F_{i + 1} + F_{i - 2} = {n}"
        i += 1
    assert i > 5  # checked at least n = 6, 10, 16, 26


def test_reversed_theorem_1_4_longest_game_bound(con):
    s = summary(con, "reversed")
    for n in range(1, SMALL_N + 1):
        bound = math.floor(PHI**2 * n - z_index_sum(n) - 2 * z_count(n) + PHI - 1)
        assert s[n]["max_length"] <= bound, f"n={n}"


def test_reversed_theorem_1_6_abc_positions(con):
    checked = 0
    for r in rows(con, "SELECT c1, c2, c3, outcome FROM positions WHERE variant = 'reversed' "
                       "AND coalesce(c4, 0) + coalesce(c5, 0) + coalesce(c6, 0) + coalesce(c7, 0) + coalesce(c8, 0) = 0"):
        a, b, c = r["c1"], r["c2"] or 0, r["c3"] or 0
        predicted = THEOREM_1_6[(a % 2, b % 2, c % 2)](a, c)
        assert (1 if r["outcome"] == "win" else 2) == predicted, (a, b, c)
        checked += 1
    assert checked > 500
