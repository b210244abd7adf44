"""The stored games of three or more players (`zeckendorf-pP`, `nacci-C-K-pP`): every position's
forcing seat against the plain coalition solver of test_players, the papers' facts through
the `winners` query, and the surfaces a user meets: lookups, lines, the service, summary mode."""

from __future__ import annotations

import json

import pytest

from . import reference as ref
from .conftest import PLAYERS_N, rows, run
from .http import get, serving
from .test_players import forces

GAMES = {"zeckendorf-p3": ("zeckendorf", 3), "zeckendorf-p4": ("zeckendorf", 4), "nacci-2-2-p4": ("nacci-2-2", 4)}
CHECKED_N = 12  # the plain solver's recursion stays quick up to here


@pytest.mark.parametrize("variant", sorted(GAMES))
def test_every_stored_seat_agrees_with_the_plain_solver(con, variant):
    graph, players = GAMES[variant]
    for n in range(1, CHECKED_N + 1):
        stored = rows(con, "SELECT * FROM positions WHERE variant = ? AND n = ? ORDER BY id", [variant, n])
        assert len(stored) == len(ref.reachable(graph, (n,))), (variant, n)  # every position is reachable
        for row in stored:
            p = ref.norm([row[f"c{i}"] or 0 for i in range(1, 17)])
            want = [s + 1 for s in range(players) if forces(graph, p, 0, s, players)]
            assert row["forcing_seat"] == (want[0] if want else None), (variant, n, p)
            assert [row[c] for c in ("outcome", "remoteness", "grundy", "winning_moves", "in_winning_strategies")] \
                == [None] * 5


def test_the_zeckendorf_game_of_three_and_four_players_through_winners(con):
    """Cusenza et al.: Player 2 can force a win at n = 4, no player can for any n >= 5."""
    for variant in ("zeckendorf-p3", "zeckendorf-p4"):
        winners = dict(con.execute("SELECT n, winner FROM builds WHERE variant = ? ORDER BY n", [variant]).fetchall())
        assert winners[4] == 2 and all(winners[n] is None for n in range(5, PLAYERS_N + 1)), winners


def test_the_same_graph_the_same_lengths_no_two_player_odds(con):
    same = con.execute("""
        SELECT count(*) FROM builds a JOIN builds b USING (n)
        WHERE a.variant = 'zeckendorf-p3' AND b.variant = 'zeckendorf'
          AND (a.min_length, a.max_length, a.games, a.positions, a.edges)
              = (b.min_length, b.max_length, b.games, b.positions, b.edges)""").fetchone()[0]
    assert same == PLAYERS_N
    assert con.execute("SELECT count(*), count(p1_wins_random) FROM random_play WHERE variant LIKE '%-p_'"
                       ).fetchone() == (3 * PLAYERS_N, 0)  # no two-player odds
    assert con.execute("SELECT players, graph FROM variants WHERE variant = 'nacci-2-2-p4'").fetchone() == \
        (4, "nacci-2-2")
    # one graph stored once: the p-player games add no edges of their own
    assert con.execute("SELECT count(DISTINCT graph) FROM edges WHERE graph LIKE '%-p_'").fetchone()[0] == 0


def test_the_winners_query_gives_the_seat_or_null(capsys, small_db):
    code, out, err = run(capsys, "query", "winners", "--variant", "zeckendorf-p3", "--n", "3..6", "--format", "json",
                         "--db", str(small_db))
    assert code == 0, err
    assert [(r["n"], r["winner"]) for r in json.loads(out)] == [(3, 2), (4, 2), (5, None), (6, None)]


def test_position_and_line_speak_of_seats(capsys, small_db):
    code, out, err = run(capsys, "position", "zeckendorf-p3", "--start", "4", "--db", str(small_db))
    assert code == 0, err
    assert "players           3: Player 2 of 3 can force a win" in out and "outcome" not in out
    code, out, err = run(capsys, "position", "zeckendorf-p3", "2,1", "--db", str(small_db))
    assert "the player to move (seat 1 of 3) can force a win" in out
    code, out, err = run(capsys, "line", "nacci-2-2-p4", "--start", "12", "--json", "--db", str(small_db))
    assert code == 0, err
    line = json.loads(out)
    assert [step["player"] for step in line] == [1 + i % 4 for i in range(len(line))]
    assert line[-1]["player"] == 4  # Player 4 forces the last move of n = 12 (the stored winner)
    code, out, err = run(capsys, "position", "zeckendorf-p4", "--start", "9", "--json", "--db", str(small_db))
    info = json.loads(out)
    assert info["players"] == 4 and info["forcing_seat"] is None and info["outcome"] is None


def test_the_service_answers_with_the_seat(small_db):
    with serving(small_db) as base:
        code, body, _ = get(base + "/v1/zeckendorf-p3/starts/4")
        assert code == 200 and body["players"] == 3 and body["forcing_seat"] == 2  # Player 2
        assert [m["forcing_seat"] for m in body["moves"]] == [1]  # then the player to move (Player 2) forces
        code, body, _ = get(base + "/v1/zeckendorf-p3/summary?n=4..5")
        assert code == 200 and [r["winner"] for r in body] == [2, None]


def test_summary_mode_solves_the_games_of_p_players(capsys, tmp_path):
    """The forcing player and the teams at the start, as the full build finds them
    (tests/test_summary.py compares every row)."""
    db = str(tmp_path / "s.duckdb")
    code, out, err = run(capsys, "build", "--summary-only", "--variant", "zeckendorf-p3", "--n", "3..5", "--db", db)
    assert code == 0, err
    code, out, err = run(capsys, "query", "teams", "--variant", "zeckendorf-p3", "-f", "csv", "--db", db)
    forcing = [line.split(",")[:2] + [line.rsplit(",", 1)[1]] for line in out.splitlines()[1:] if "True" in line]
    # n = 3, 4: Player 2 alone forces, so do the teams holding Player 2; n = 5: every team of two
    assert forcing == [["zeckendorf-p3", "3", "True"]] * 3 + [["zeckendorf-p3", "4", "True"]] * 3 + \
        [["zeckendorf-p3", "5", "True"]] * 3


@pytest.mark.parametrize("name, says", [
    ("zeckendorf-p2", "zeckendorf-p2 is the game registered as zeckendorf: name it zeckendorf instead"),
    ("nacci-1-2-p3", "nacci-1-2-p3 is the game registered as zeckendorf-p3"),
    ("nacci-2-3-p2", "nacci-2-3-p2 is the game registered as nacci-2-3"),
    ("zeckendorf-p7", "unknown variant 'zeckendorf-p7'"),
    ("zeckendorf-p03", "unknown variant"),
    ("zeckendorf-3", "unknown variant"),
    ("nacci-2-2-3", "unknown variant"),
    ("zeckendorf-pp3", "unknown variant"),
    ("zeckendorf-p³", "unknown variant"),
])
def test_player_counts_are_named_plainly(capsys, small_db, name, says):
    code, out, err = run(capsys, "position", name, "--start", "4", "--db", str(small_db))
    assert code != 0 and says in err and err.count("\n") == 1 and "Traceback" not in err


def test_lengths_read_the_facts_each_game_declares(capsys, small_db):
    """n - Z(n) where the game declares it (a game of three players has the Zeckendorf game's
    lengths); for a nacci game the terms of its legal decomposition, and no n - Z(n) claim."""
    code, out, err = run(capsys, "query", "lengths", "--variant", "zeckendorf-p3", "--format", "json",
                         "--db", str(small_db))
    assert code == 0, err
    got = json.loads(out)
    assert [(r["terms"], r["n_minus_z"], r["min_is_n_minus_z"]) for r in got] == \
        [(ref.z_count(n), n - ref.z_count(n), True) for n in range(1, PLAYERS_N + 1)]
    code, out, err = run(capsys, "query", "lengths", "--variant", "nacci-2-2", "--format", "json", "--db", str(small_db))
    got = json.loads(out)
    assert [r["terms"] for r in got] == [sum(ref.nacci_greedy(2, 2, n)) for n in range(1, PLAYERS_N + 1)]
    assert all(r["n_minus_z"] is None and r["max_bound"] is None for r in got)


def test_the_drawing_shows_seats(capsys, small_db, tmp_path):
    code, out, err = run(capsys, "draw", "zeckendorf-p3", "--n", "4", "--out", str(tmp_path / "g.dot"),
                         "--db", str(small_db))
    assert code == 0, err
    dot = (tmp_path / "g.dot").read_text()
    assert '"(4)\\nseat 2 forces"' in dot and "no player can force a win" in dot and "remoteness" not in dot
    code, out, err = run(capsys, "draw", "zeckendorf-p3", "--n", "4", "--strategy-only", "--out",
                         str(tmp_path / "s.dot"), "--db", str(small_db))
    assert code != 0 and "zeckendorf-p3 has 3 players" in err and not (tmp_path / "s.dot").exists()
