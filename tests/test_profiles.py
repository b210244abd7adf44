"""`zeckdb play`: a game under a profile for each player, checked against a plain solver of the
profiles written here (exact Fractions over tests/reference.py's moves), against the stored
random-play odds, and against the deterministic games' published claims (Li et al.,
arXiv:2006.16457): combine-largest and split-largest, both players alike, give the shortest
game n - Z(n); split-smallest gives the longest."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
import json

import pytest

from zeckdb import api
from zeckdb.errors import QueryLimitError, UsageError

from . import reference as ref
from .conftest import run

TOP = 14


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("profiles") / "p.duckdb"
    api.build(path, ["zeckendorf", "reversed", "nacci-2-2", "black-hole-3", "zeckendorf-p3", "zeckendorf-misere"],
              f"1..{TOP}")
    return path


def result(db, variant: str, n: int, p1: str, p2: str):
    with api.open(db) as database:
        return database.play(variant, start=n, p1=p1, p2=p2)


def start(variant: str, n: int) -> tuple[int, ...]:
    return ref.start(variant, n) if variant in ("zeckendorf", "reversed") else ref.family_start(variant, n)


# -- the plain solver of the profiles ------------------------------------------------------------
def perfect_move(variant: str, p: tuple[int, ...]) -> tuple[int, ...]:
    """The fastest win, else the slowest loss; ties: the first in the rules' order (for the
    Zeckendorf game the reference lists the moves in zeckdb's order of move codes)."""
    moves = ref.MOVES[variant](p)
    ranked = sorted(range(len(moves)), key=lambda i: (
        (0, ref.solve(variant, moves[i])["remoteness"]) if not ref.solve(variant, moves[i])["win"]
        else (1, -ref.solve(variant, moves[i])["remoteness"]), i))
    return moves[ranked[0]]


def policy(variant: str, profile: str, p: tuple[int, ...]) -> list[tuple[tuple[int, ...], Fraction]]:
    moves = ref.MOVES[variant](p)
    if profile == "random":
        return [(m, Fraction(1, len(moves))) for m in moves]
    if profile == "perfect":
        return [(perfect_move(variant, p), Fraction(1))]
    return [(preferred(profile, p), Fraction(1))]


@cache
def best_value(variant: str, p: tuple[int, ...], mine: bool, other: str) -> Fraction:
    """The best responder's chance to win from p (mine: it is to move) against `other`."""
    moves = ref.MOVES[variant](p)
    if not moves:
        return Fraction(0 if mine else 1)
    if mine:
        return max(best_value(variant, m, False, other) for m in moves)
    return sum(w * best_value(variant, m, True, other) for m, w in policy(variant, other, p))


@cache
def lengths(variant: str, p: tuple[int, ...], profiles: tuple[str, str]) -> dict[int, Fraction]:
    """The exact length distribution from p, profiles[0] to move (no best response here)."""
    if not ref.MOVES[variant](p):
        return {0: Fraction(1)}
    out: dict[int, Fraction] = {}
    for m, w in policy(variant, profiles[0], p):
        for length, q in lengths(variant, m, profiles[::-1]).items():
            out[length + 1] = out.get(length + 1, Fraction(0)) + w * q
    return out


def preferred(profile: str, c: tuple[int, ...]) -> tuple[int, ...]:
    """A deterministic preference's move (docs/games.md): combines at place 1 (2F1) or i
    (F(i-1) + F(i)), splits at place 2 (2F2) or i (2F(i)); the preferred kind first."""
    bins = list(c) + [0] * 20
    combines = [(1, {1: -2, 2: 1})] if bins[0] >= 2 else []
    combines += [(i, {i - 1: -1, i: -1, i + 1: 1}) for i in range(2, 19) if bins[i - 2] and bins[i - 1]]
    splits = [(2, {2: -2, 1: 1, 3: 1})] if bins[1] >= 2 else []
    splits += [(i, {i: -2, i - 2: 1, i + 1: 1}) for i in range(3, 19) if bins[i - 1] >= 2]
    kind, side = profile.split("-")
    pool = (combines if kind == "combine" else splits) or (splits if kind == "combine" else combines)
    _, change = (max if side == "largest" else min)(pool, key=lambda x: x[0])
    for b, k in change.items():
        bins[b - 1] += k
    return ref.norm(bins)


def deterministic_length(n: int, p1: str, p2: str) -> int:
    c, t = (n,), 0
    while ref.MOVES["zeckendorf"](c):
        c, t = preferred(p1 if t % 2 == 0 else p2, c), t + 1
    return t


# -- the checks --------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["zeckendorf", "reversed", "nacci-2-2"])
def test_random_against_random_is_the_stored_random_play(db, variant):
    with api.open(db) as database:
        stored = {row[1]: row for row in database.query("random-winner", variant=variant).rows}
    for n in range(1, TOP + 1):
        got = result(db, variant, n, "random", "random")
        q, _, _ = ref.random_odds(variant, start(variant, n))
        assert got.p1_wins == pytest.approx(float(q), abs=1e-12) == pytest.approx(stored[n][3], abs=1e-12)
        want = lengths(variant, start(variant, n), ("random", "random"))
        assert got.lengths == pytest.approx({k: float(v) for k, v in want.items()}, abs=1e-12), (variant, n)


@pytest.mark.parametrize("variant", ["zeckendorf", "reversed", "nacci-2-2"])
def test_a_best_response_against_random_is_the_stored_perfect_odds(db, variant):
    """Against a random player the best responder's chance is what random_play stores for a
    perfect player (the maximum over its moves of the same recursion), both seats."""
    with api.open(db) as database:
        stored = {row[1]: row for row in database.query("random-winner", variant=variant).rows}
    for n in range(1, TOP + 1):
        first = result(db, variant, n, "best-response", "random")
        second = result(db, variant, n, "random", "best-response")
        p = start(variant, n)
        assert first.p1_wins == pytest.approx(float(best_value(variant, p, True, "random")), abs=1e-12)
        assert second.p2_wins == pytest.approx(float(best_value(variant, p, False, "random")), abs=1e-12)
        assert first.p1_wins == pytest.approx(stored[n][4], abs=1e-12)
        assert second.p1_wins == pytest.approx(stored[n][5], abs=1e-12)


def test_perfect_against_random_and_best_responses_against_perfect(db):
    for n in range(1, TOP + 1):
        p = start("zeckendorf", n)
        got = result(db, "zeckendorf", n, "perfect", "random")
        want = lengths("zeckendorf", p, ("perfect", "random"))
        assert got.lengths == pytest.approx({k: float(v) for k, v in want.items()}, abs=1e-12), n
        against = result(db, "zeckendorf", n, "best-response", "perfect")
        assert against.p1_wins == pytest.approx(float(best_value("zeckendorf", p, True, "perfect")), abs=1e-12)
        perfect = result(db, "zeckendorf", n, "perfect", "perfect")  # the principal line: one game
        solved = ref.solve("zeckendorf", p)
        assert perfect.lengths == {solved["remoteness"]: 1.0} and perfect.p1_wins == (1.0 if solved["win"] else 0.0)


PREFERENCES = ["combine-largest", "combine-smallest", "split-largest", "split-smallest"]


def test_the_sixteen_deterministic_games(db):
    with api.open(db) as database:  # one open for the 224 games
        for n in range(1, TOP + 1):
            for p1 in PREFERENCES:
                for p2 in PREFERENCES:
                    got = database.play("zeckendorf", start=n, p1=p1, p2=p2)
                    length = deterministic_length(n, p1, p2)
                    assert got.lengths == {length: 1.0} and got.p1_wins == float(length % 2), (n, p1, p2)


def test_the_preferences_play_the_zeckendorf_games_misere_twin(db):
    """The preferences rank the Zeckendorf game's moves, which its misère twin has too (the game's
    moves say so, not its name): the same one game as under normal play, its loser the winner."""
    with api.open(db) as database:
        for n in range(1, TOP + 1):
            for p1, p2 in [("combine-largest", "split-smallest"), ("split-largest", "combine-smallest")]:
                got = database.play("zeckendorf-misere", start=n, p1=p1, p2=p2)
                length = deterministic_length(n, p1, p2)
                # Player 1 moves last after an odd number of moves, and under misère play that loses
                assert got.lengths == {length: 1.0} and got.p1_wins == float(length % 2 == 0), (n, p1, p2)


def test_the_deterministic_games_published_claims():
    """Li et al.: combine-largest and split-largest (both players) give the shortest game,
    n - Z(n); split-smallest gives the longest; checked with the plain solver to n = 40."""
    for n in range(1, 41):
        solved = ref.solve("zeckendorf", (n,))
        assert deterministic_length(n, "combine-largest", "combine-largest") == n - ref.z_count(n) == solved["min"]
        assert deterministic_length(n, "split-largest", "split-largest") == n - ref.z_count(n)
        assert deterministic_length(n, "split-smallest", "split-smallest") == solved["max"], n


@pytest.mark.parametrize("args, says", [
    (["zeckendorf", "--start", "5", "--p1", "best-response", "--p2", "best-response"], "both players cannot"),
    (["reversed", "--start", "5", "--p1", "split-smallest"], "split-smallest is a preference of the Zeckendorf"),
    (["zeckendorf", "--start", "5", "--p1", "greedy"], "unknown profile 'greedy' for --p1"),
    (["zeckendorf-p3", "--start", "5"], "a game of 3 players"),
    (["black-hole-3", "--start", "9"], "black-hole-3's moves leave the layer"),
    (["zeckendorf", "--start", "99"], "run `zeckdb build --variant zeckendorf --n 99 --db "),  # the file it is about
])
def test_bad_requests_get_one_line(capsys, db, args, says):
    code, out, err = run(capsys, "play", *args, "--db", str(db))
    assert code != 0 and not out and says in err and err.count("\n") == 1, err


def test_the_command_and_its_json(capsys, db):
    code, out, err = run(capsys, "play", "zeckendorf", "--start", "9", "--p1", "random", "--p2", "perfect", "--json",
                         "--db", str(db))
    assert code == 0, err
    answer = json.loads(out)
    assert {"p1_wins", "p2_wins", "expected_length", "lengths", "shortest", "longest"} <= set(answer)
    assert answer["p1_wins"] + answer["p2_wins"] == pytest.approx(1.0)
    code, out, _ = run(capsys, "play", "zeckendorf", "3,1", "--db", str(db))
    assert code == 0 and "Player 1 perfect, Player 2 random" in out and "expected length" in out


# -- the named queries `play` and `deterministic` (computed from the stored graph when asked) ----
def records(result) -> list[dict]:
    return [dict(zip(result.columns, row, strict=True)) for row in result.rows]


def expected_and_span(variant: str, p: tuple[int, ...], profiles: tuple[str, str]) -> tuple[Fraction, int, int]:
    dist = lengths(variant, p, profiles)
    return sum(t * q for t, q in dist.items()), min(dist), max(dist)


# the plain solver breaks the perfect player's ties as zeckdb does for the Zeckendorf game only
PAIRS = [(v, p1, p2) for v in ("zeckendorf", "reversed", "nacci-2-2")
         for p1, p2 in [("perfect", "random"), ("random", "perfect"), ("random", "random"), ("best-response", "random"),
                        ("random", "best-response"), ("best-response", "perfect")]
         if v == "zeckendorf" or "perfect" not in (p1, p2)]


@pytest.mark.parametrize("variant, p1, p2", PAIRS)
def test_the_play_query_against_the_plain_solver(db, variant, p1, p2):
    with api.open(db) as database:
        rows = records(database.query("play", variant=variant, p1=p1, p2=p2))
    assert [r["n"] for r in rows] == list(range(1, TOP + 1))
    for row in rows:
        p = start(variant, row["n"])
        assert (row["variant"], row["player_1"], row["player_2"]) == (variant, p1, p2)
        if "best-response" in (p1, p2):
            other = p2 if p1 == "best-response" else p1
            mine = best_value(variant, p, p1 == "best-response", other)
            want = mine if p1 == "best-response" else 1 - mine
        else:
            want = sum(q for t, q in lengths(variant, p, (p1, p2)).items() if t % 2 == 1)
            mean, shortest, longest = expected_and_span(variant, p, (p1, p2))
            assert row["expected_length"] == pytest.approx(float(mean), abs=1e-9), row
            assert (row["shortest"], row["longest"]) == (shortest, longest), row
        assert row["p1_wins"] == pytest.approx(float(want), abs=1e-12), row
        assert row["p1_wins"] + row["p2_wins"] == pytest.approx(1.0, abs=1e-12)


def test_the_deterministic_query_plays_the_sixteen_games(db):
    with api.open(db) as database:
        rows = records(database.query("deterministic", n=[3, 9, TOP]))
    assert len(rows) == 3 * 16
    for row in rows:
        length = deterministic_length(row["n"], row["player_1"], row["player_2"])
        assert (row["length"], row["winner"]) == (length, 1 if length % 2 else 2), row


def test_play_gives_the_moves_its_first_player_makes(db):
    for n in (5, 9, TOP):
        p = start("zeckendorf", n)
        perfect = result(db, "zeckendorf", n, "perfect", "random")
        assert [(tuple(m["position"]), m["probability"]) for m in perfect.p1_moves] == [(perfect_move("zeckendorf", p),
                                                                                         1.0)]
        wander = result(db, "zeckendorf", n, "random", "perfect")
        assert sorted(tuple(m["position"]) for m in wander.p1_moves) == sorted(ref.MOVES["zeckendorf"](p))
        best = result(db, "zeckendorf", n, "best-response", "random")
        (move,) = best.p1_moves
        assert best_value("zeckendorf", tuple(move["position"]), False, "random") == best_value("zeckendorf", p, True,
                                                                                                 "random")


@pytest.mark.parametrize("args, says", [
    (["play"], "name the game with --variant"),
    (["play", "--variant", "zeckendorf", "--param", "p1=best-response", "--param", "p2=best-response"],
     "both players cannot best-respond"),
    (["play", "--variant", "reversed", "--param", "p1=combine-largest"], "a preference of the Zeckendorf game"),
    (["play", "--variant", "zeckendorf", "--param", "p1=greedy"], "bad --param p1='greedy'"),
    (["play", "--variant", "zeckendorf-p3"], "a game of 3 players"),
    (["play", "--variant", "black-hole-3"], "moves leave the layer"),
    (["play", "--variant", "zeckendorf", "--n", "99"], "n = 99 is not built"),
    (["deterministic", "--variant", "reversed"], "written for zeckendorf, not reversed"),
])
def test_the_queries_refuse_bad_requests_in_one_line(capsys, db, args, says):
    code, out, err = run(capsys, "query", *args, "--db", str(db))
    assert code != 0 and not out and says in err and err.count("\n") == 1, err


def test_the_computed_query_keeps_its_time_limit(db):
    with api.open(db) as database, pytest.raises(QueryLimitError, match="stopped at its time limit"):
        database.query("deterministic", timeout=1e-9)


class ClockJumping:
    """time as the profiles' loop reads it: the real clock for its first `calls` readings, then a
    day later (its deadline passed mid-way, whatever the machine's speed)."""

    def __init__(self, calls: int):
        import time

        self.real, self.calls = time, calls

    def monotonic(self) -> float:
        self.calls -= 1
        return self.real.monotonic() + (86_400 if self.calls < 0 else 0)


@pytest.mark.parametrize("name", ["deterministic", "play"])
def test_a_computed_query_stopped_by_its_time_limit_gives_the_rows_it_computed(capsys, db, monkeypatch, name):
    from zeckdb import profiles

    monkeypatch.setattr(profiles, "time", ClockJumping(5))
    args = ["query", name, "--variant", "zeckendorf", "--n", f"1..{TOP}", "--format", "csv", "--db", str(db)]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    header, *lines = out.splitlines()
    column = header.split(",").index("n")
    assert sorted({int(line.split(",")[column]) for line in lines}) == [1, 2, 3, 4, 5]
    assert err.strip() == ("zeckdb: the query reached its time limit of 60 s at n = 6: the rows of the n before it "
                           "are shown; ask for the rest (--n 6..) in another run, or raise the limit (--timeout)")
    monkeypatch.setattr(profiles, "time", ClockJumping(3))
    with api.open(db) as database:
        answer = database.query(name, variant="zeckendorf", n=list(range(1, TOP + 1)))
    assert {row[answer.columns.index("n")] for row in answer.rows} == {1, 2, 3}
    assert "at n = 4" in (answer.notice or "") and "(n 4..)" in (answer.notice or "")


def test_the_computed_rows_are_seen_by_their_query_alone(db):
    with api.open(db) as database:
        database.query("play", variant="zeckendorf", n=3)
        with pytest.raises(UsageError, match="profile_games"):
            database.sql("SELECT * FROM profile_games")


def test_a_long_distribution_prints_its_visible_lengths_and_the_tails(capsys, db, monkeypatch):
    import zeckdb.cli.lookups

    monkeypatch.setattr(zeckdb.cli.lookups, "PLAY_ROWS", 3)
    code, out, err = run(capsys, "play", "zeckendorf", "--start", str(TOP), "--p1", "random", "--p2", "random",
                         "--db", str(db))
    assert code == 0, err
    rows = out.split("length  probability\n")[1].splitlines()
    want = lengths("zeckendorf", (TOP,), ("random", "random"))
    peak = max(want.values())
    visible = {t: q for t, q in want.items() if q >= peak / 1000}
    assert len(want) > 3 and len(visible) < len(want)  # the tails are there to fold
    printed = {int(r.split()[0]): float(r.split()[1]) for r in rows if r.split()[0].isdigit()}
    assert printed == pytest.approx({t: float(q) for t, q in visible.items()}, rel=1e-5)
    tails = sum(float(r.split()[2]) for r in rows if r.split()[0] in "<>")
    assert tails == pytest.approx(float(sum(want.values()) - sum(visible.values())), rel=1e-5)
