"""The research questions as named queries (settle, thresholds, teams), against the independent
plain solvers of tests/reference.py and tests/test_players.py, on full and summary builds alike."""

from __future__ import annotations

import csv
import io

import pytest

from . import reference as ref
from .conftest import run
from .test_players import members, team_forces

TOP = 22
GAMES = ["nacci-3-2", "reversed-nacci-2-3", "zeckendorf-p3", "nacci-2-2-p4"]
PLAYERS = {"nacci-3-2": 2, "reversed-nacci-2-3": 2, "zeckendorf-p3": 3, "nacci-2-2-p4": 4}


def moves_of(game: str) -> str:
    """The plain solver's moves of a game of P players: its two-player game's."""
    return game.split("-p")[0]


def start(game: str, n: int) -> tuple[int, ...]:
    base = moves_of(game)
    return ref.norm([n]) if base == "zeckendorf" else ref.family_start(base, n)


def winner(game: str, n: int) -> int | None:
    """Two players: 1 or 2; P players: the one who can force a win alone, or None."""
    players = PLAYERS[game]
    if players == 2:
        return 1 if ref.solve(moves_of(game), start(game, n))["win"] else 2
    alone = [p for p in range(players) if team_forces(moves_of(game), start(game, n), 0, frozenset([p]), players)]
    return alone[0] + 1 if alone else None


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """n = 1..12 in full, 13..TOP with --summary-only: the queries read both."""
    path = str(tmp_path_factory.mktemp("research") / "r.duckdb")
    from zeckdb.cli.main import main

    variants = [arg for game in GAMES for arg in ("--variant", game)]
    for args in (["--n", "1..12"], ["--summary-only", "--n", f"13..{TOP}"]):
        try:
            main(["build", *variants, *args, "--db", path])
        except SystemExit as exc:
            assert not exc.code
    return path


def query(capsys, db: str, *args: str) -> list[dict]:
    code, out, err = run(capsys, "query", *args, "-f", "csv", "--db", db)
    assert code == 0, err
    return list(csv.DictReader(io.StringIO(out)))


def test_settle_names_the_last_winner_and_where_it_settled(capsys, db):
    got = {row["variant"]: row for row in query(capsys, db, "settle")}
    assert sorted(got) == sorted(GAMES)
    for game in GAMES:
        winners = [winner(game, n) for n in range(1, TOP + 1)]
        same_from = next(n for n in range(TOP, 0, -1) if n == 1 or winners[n - 2] != winners[-1])
        changes = sum(1 for a, b in zip(winners, winners[1:], strict=False) if a != b)
        assert got[game] == {"variant": game, "winner": str(winners[-1] or ""), "same_from": str(same_from),
                             "changes": str(changes), "largest_n": str(TOP)}, game


def test_settle_takes_a_range(capsys, db):
    (row,) = query(capsys, db, "settle", "--variant", "nacci-3-2", "--n", "3..9")
    winners = [winner("nacci-3-2", n) for n in range(3, 10)]
    assert row["largest_n"] == "9" and row["winner"] == str(winners[-1])


def test_thresholds_against_the_plain_solver(capsys, db):
    got = {row["variant"]: row for row in query(capsys, db, "thresholds")}
    assert sorted(got) == ["nacci-2-2-p4", "zeckendorf-p3"]  # the queries of P players read only those
    for game, bound in (("zeckendorf-p3", "12"), ("nacci-2-2-p4", "27")):  # 3c^2 + 6c + 3 for P >= c + 2
        forced = [n for n in range(1, TOP + 1) if winner(game, n) is not None]
        assert got[game]["last_forced"] == str(max(forced))
        assert got[game]["nobody_from"] == (str(max(forced) + 1) if max(forced) < TOP else "")
        assert (got[game]["bound"], got[game]["largest_n"]) == (bound, str(TOP))
    assert got["zeckendorf-p3"]["nobody_from"] == "5"  # Cusenza et al.
    assert got["zeckendorf-p3"]["bound_holds"] == "True" and got["nacci-2-2-p4"]["bound_holds"] == ""  # not built to 27


def test_teams_against_the_plain_solver_with_zermelos_check(capsys, db):
    for game in ["zeckendorf-p3", "nacci-2-2-p4", "nacci-3-2"]:
        rows = query(capsys, db, "teams", "--variant", game)
        players = PLAYERS[game]
        everyone = (1 << players) - 1
        assert len(rows) == TOP * (everyone - 1)
        seen = {}
        for row in rows:
            team = frozenset(int(p) - 1 for p in row["team"].strip("{}").split(","))
            n = int(row["n"])
            want = team_forces(moves_of(game), start(game, n), 0, team, players)
            assert row["can_force"] == str(want), (game, row)
            seen[n, team] = want
        for n in range(1, TOP + 1):  # two teams that split the players: exactly one can force a win
            for t in range(1, everyone):
                assert seen[n, members(t)] != seen[n, members(everyone ^ t)], (game, n, t)


def test_one_team_and_bad_teams(capsys, db):
    rows = query(capsys, db, "teams", "--variant", "nacci-2-2-p4", "--param", "team=3,1", "--n", "5..7")
    assert [(r["n"], r["team"]) for r in rows] == [("5", "{1,3}"), ("6", "{1,3}"), ("7", "{1,3}")]
    for bad, says in [("1,1", "distinct numbers from 1 to 4"), ("0,2", "from 1 to 4"), ("x", "e.g. 1,3"),
                      ("1,2,3,4", "a team of every player always wins")]:
        code, out, err = run(capsys, "query", "teams", "--variant", "nacci-2-2-p4", "--param", f"team={bad}",
                             "--db", db)
        assert code == 2 and not out and says in err and err.count("\n") == 1, err


def test_a_start_lists_its_teams(capsys, db):
    code, out, err = run(capsys, "position", "zeckendorf-p3", "--start", "6", "--db", db)
    assert code == 0 and "teams             3 of 6 can force a win (players): {1,2} {1,3} {2,3}" in out, out


def test_thresholds_names_its_games_as_the_catalogue_does():
    from zeckdb.queries import get_query

    q = get_query("thresholds")
    assert q.variants == ("zeckendorf-pP", "quilt-pP", "nacci-C-K-pP")  # the catalogue's names for these families
    assert q.applies_to("zeckendorf-p3") and q.applies_to("nacci-2-3-p6") and q.applies_to("nacci-4-4-p4")
    assert q.applies_to("quilt-p5") and not q.applies_to("quilt")
    assert not q.applies_to("zeckendorf") and not q.applies_to("nacci-2-3") and not q.applies_to("reversed-nacci-2-3")
