"""Summary mode for the Fibonacci Quilt game (its own walk: variants/quilt_summary.py), against
the full build (every summary column, n <= 40) and against a plain solver written here from
docs/games.md's move list alone (counts per quilt index, exact Fractions, nothing of zeckdb's
rules or engine), and the order the walk follows checked on that move list."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
import math

import duckdb
import pytest

import zeckdb
from zeckdb.engine.summary import SummaryOrderError, solve_summary, supports_summary, walk_layer
from zeckdb.variants import get_variant

from .conftest import rows, run

TOP = 40  # summary mode against the full build
PLAIN_TOP = 16  # against the plain solver
INDICES = 14  # quilt indices the plain solver knows (q_14 = 65 > PLAIN_TOP)
EXACT = ["positions", "edges", "start_id", "start_position", "winner", "min_length", "max_length",
         "start_remoteness"]
FLOATS = ["games_approx", "expected_length", "p1_wins_random", "p1_wins_p1_perfect", "p1_wins_p2_perfect"]


def q(i: int) -> int:
    terms = [1, 2, 3, 4]
    while len(terms) < i:
        terms.append(terms[-2] + terms[-3])
    return terms[i - 1]


def text_rules() -> list[tuple[dict[int, int], dict[int, int], bool]]:
    """docs/games.md's moves 1 to 5 as (taken, put, only-when-nothing-else) over indices 1..INDICES."""
    out: list[tuple[dict[int, int], dict[int, int], bool]] = []

    def add(take: list[int], put: list[int], fallback: bool = False) -> None:
        if max(take + put) <= INDICES:
            t: dict[int, int] = {}
            p: dict[int, int] = {}
            for i in take:
                t[i] = t.get(i, 0) + 1
            for i in put:
                p[i] = p.get(i, 0) + 1
            out.append((t, p, fallback))

    add([1, 2], [3])
    for i in range(2, INDICES):
        add([i, i + 1], [i + 3])
    add([1, 5], [2, 4], fallback=True)
    for i in range(2, INDICES):
        add([i, i + 4], [i + 5])
    add([1, 1], [2])
    add([2, 2], [4])
    add([3, 3], [2, 4])
    add([4, 4], [1, 6])
    add([4, 4], [3, 5])
    add([5, 5], [1, 7])
    add([6, 6], [2, 8])
    add([6, 6], [5, 7])
    for i in range(7, INDICES):
        add([i, i], [i - 5, i + 2])
    add([1, 4], [5])
    add([2, 5], [6])
    add([3, 6], [1, 7])
    add([4, 7], [1, 8])
    add([5, 8], [1, 9])
    add([6, 9], [2, 10])
    for i in range(7, INDICES):
        add([i, i + 3], [i - 5, i + 4])
    add([1, 3], [4])
    return out


RULES = text_rules()


def key(p: tuple[int, ...]) -> tuple[int, ...]:
    """The walk's order: fewer chips first, then a larger (c2, c1, c3, c4, ...) first."""
    return (sum(p), *(-p[i] for i in [1, 0, *range(2, len(p))]))


@cache
def children(p: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    def apply(take: dict[int, int], put: dict[int, int]) -> tuple[int, ...] | None:
        c = list(p)
        for i, k in take.items():
            if c[i - 1] < k:
                return None
            c[i - 1] -= k
        for i, k in put.items():
            c[i - 1] += k
        return tuple(c)

    ordinary = [c for t, u, fb in RULES if not fb if (c := apply(t, u)) is not None]
    return tuple(ordinary or [c for t, u, fb in RULES if fb if (c := apply(t, u)) is not None])


@cache
def plain(p: tuple[int, ...]) -> tuple[bool, int, int, int, Fraction]:
    """(the player to move wins, remoteness, fewest and most moves to the end, expected moves
    under uniformly random play)."""
    kids = children(p)
    if not kids:
        return False, 0, 0, 0, Fraction(0)
    values = [plain(c) for c in kids]
    losing = [v[1] for v in values if not v[0]]
    win = bool(losing)
    remoteness = 1 + (min(losing) if win else max(v[1] for v in values))
    return (win, remoteness, 1 + min(v[2] for v in values), 1 + max(v[3] for v in values),
            1 + sum((v[4] for v in values), Fraction(0)) / len(values))


def start(n: int) -> tuple[int, ...]:
    return (n,) + (0,) * (INDICES - 1)


def test_every_rule_goes_down_the_walks_order():
    """The claim the walk rests on, on the rules' text: no move adds a chip, and one that keeps
    their number raises (c2, c1, c3, ...): its first changed place, in that order, gains."""
    assert all(sum(q(i) * k for i, k in t.items()) == sum(q(i) * k for i, k in u.items()) for t, u, _ in RULES)
    for t, u, _ in RULES:
        before = tuple(t.get(i, 0) for i in range(1, INDICES + 1))
        after = tuple(u.get(i, 0) for i in range(1, INDICES + 1))
        assert key(after) < key(before), (t, u)
    # and on every move of every position the plain solver meets
    for n in range(1, PLAIN_TOP + 1):
        seen, todo = set(), [start(n)]
        while todo:
            p = todo.pop()
            for c in children(p):
                assert key(c) < key(p), (p, c)
                if c not in seen:
                    seen.add(c)
                    todo.append(c)


def test_the_quilt_game_has_a_summary_mode():
    game = get_variant("quilt")
    assert game.summary_refusal is None and supports_summary(game)


def test_summary_mode_agrees_with_the_plain_solver():
    game = get_variant("quilt")
    for n in range(1, PLAIN_TOP + 1):
        win, remoteness, shortest, longest, expected = plain(start(n))
        got = solve_summary(game, n)
        assert (got.winner, got.start_remoteness, got.min_length, got.max_length) == (
            1 if win else 2, remoteness, shortest, longest), n
        assert got.expected_length is not None and math.isclose(got.expected_length, float(expected), rel_tol=1e-12)


def test_a_walk_out_of_order_is_refused(monkeypatch):
    """The walk's guard: with c1 ranked above c2, rule 2a (q1 + q5 -> q2 + q4) lowers the key,
    and the layer where it is first legal is refused, not solved wrong."""
    from zeckdb.variants import quilt_summary

    monkeypatch.setattr(quilt_summary, "key_order", lambda bins: __import__("numpy").arange(bins))
    game = get_variant("quilt")
    for n in range(1, 6):
        walk_layer(game, n)  # 2a is never the only move below n = 6 ...
    with pytest.raises(SummaryOrderError):
        for n in range(6, 20):
            walk_layer(game, n)


def _layers(path) -> dict:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {r["n"]: r for r in rows(con, "SELECT * FROM builds LEFT JOIN random_play USING (variant, n) "
                                              "WHERE variant = 'quilt'")}
    finally:
        con.close()


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quilt-summary")
    zeckdb.build(folder / "full.duckdb", ["quilt"], f"1..{TOP}")
    return folder / "full.duckdb", folder / "summary.duckdb"


def test_summary_mode_agrees_with_the_full_build_on_every_summary_column(both, capsys):
    full, summary = both
    code, _, err = run(capsys, "build", "--summary-only", "--variant", "quilt", "--n", f"1..{TOP}", "--db",
                       str(summary))
    assert code == 0, err
    got, want = _layers(summary), _layers(full)
    assert set(got) == set(want) == set(range(1, TOP + 1))
    for n, row in want.items():
        assert got[n]["summary_only"] and not row["summary_only"]
        assert {k: got[n][k] for k in EXACT} == {k: row[k] for k in EXACT}, n
        for k in FLOATS:
            assert math.isclose(got[n][k], row[k], rel_tol=1e-12, abs_tol=1e-15), (n, k, got[n][k], row[k])
    assert all(row["winner"] == 2 for n, row in got.items() if n not in (2, 4))  # docs/findings.md's Player 2


def test_the_walk_steps_every_position_once_in_its_order():
    """Each layer's ids (colex ranks) are stepped once each, in the order of `key` over the
    plain solver's positions, ranked as the full build numbers them (colex: the heaviest
    index most significant)."""
    import numpy as np

    game = get_variant("quilt")
    for n in range(1, PLAIN_TOP + 1):
        walk = game.summary_walk(n)
        ids = np.empty(walk.size, dtype=np.int64)
        ends = np.empty(walk.size, dtype=np.int64)
        kids = np.empty(walk.size * walk.max_moves, dtype=np.int64)
        assert walk.steps(0, walk.size, walk.cursor, ids, ends, kids) == 0
        layer = set()
        todo = [start(n)]
        while todo:
            p = todo.pop()
            if p not in layer:
                layer.add(p)
                todo.extend(children(p))
        colex = sorted(layer, key=lambda p: p[::-1])
        assert [colex[i] for i in ids] == sorted(layer, key=key), n


def test_the_games_of_more_players_and_the_misere_twin_agree_with_their_full_build(tmp_path, capsys):
    """quilt-pP and the misère twin walk the quilt game's layers too: who can force a win (the
    teams), the lengths and the moves are the full build's."""
    names = ["quilt-p3", "quilt-p4", "quilt-misere"]
    full, summary = tmp_path / "full.duckdb", tmp_path / "summary.duckdb"
    for path, mode in ((full, []), (summary, ["--summary-only"])):
        code, _, err = run(capsys, "build", *mode, *(a for v in names for a in ("--variant", v)), "--n", "1..20",
                           "--db", str(path))
        assert code == 0, err
    query = "SELECT variant, n, winner, teams, min_length, max_length, edges FROM builds ORDER BY variant, n"
    got, want = ([tuple(r.values()) for r in rows(duckdb.connect(str(p), read_only=True), query)] for p in (summary, full))
    assert got == want and len(got) == 60
