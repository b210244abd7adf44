"""The Fibonacci Quilt game for three or more players (`quilt-pP`) and the quilt game's lengths,
against a plain solver written here from docs/games.md alone (the quilt section's five moves, the
games-of-P-players section's "can force a win"): positions are sorted tuples of quilt indices (a
multiset of terms), nothing of zeckdb's engine or rules is used."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

import zeckdb
from zeckdb import api

TOP = 15  # the plain solver stays quick up to here
PLAYERS = (3, 4)


def q(i: int) -> int:
    """The quilt term q_i: 1, 2, 3, 4, then q_i = q_{i-2} + q_{i-3}."""
    terms = [1, 2, 3, 4]
    while len(terms) < i:
        terms.append(terms[-2] + terms[-3])
    return terms[i - 1]


def pairs(i: int, j: int) -> list[tuple[int, ...]]:
    """What the terms q_i and q_j (i <= j) may become, by moves 1 to 5 of docs/games.md (2a not
    here: it is legal only where no other move is)."""
    if i == j:  # move 3
        fixed: dict[int, list[tuple[int, ...]]] = {1: [(2,)], 2: [(4,)], 3: [(2, 4)], 4: [(1, 6), (3, 5)],
                                                   5: [(1, 7)], 6: [(2, 8), (5, 7)]}
        return fixed.get(i, [(i - 5, i + 2)])
    d = j - i
    if d == 1:  # move 1
        return [(3,)] if i == 1 else [(i + 3,)]
    if d == 4 and i >= 2:  # move 2b
        return [(i + 5,)]
    if d == 3:  # move 4
        three: dict[int, list[tuple[int, ...]]] = {1: [(5,)], 2: [(6,)], 3: [(1, 7)], 4: [(1, 8)], 5: [(1, 9)],
                                                   6: [(2, 10)]}
        return three.get(i, [(i - 5, i + 4)])
    if (i, j) == (1, 3):  # move 5
        return [(4,)]
    return []


@cache
def moves(p: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every legal move's result from p (a sorted tuple of indices), one entry per move."""
    out = []
    for a in sorted(set(p)):
        for b in sorted(set(p)):
            if b < a or (a == b and p.count(a) < 2):
                continue
            rest = list(p)
            rest.remove(a)
            rest.remove(b)
            out += [tuple(sorted(rest + list(put))) for put in pairs(a, b)]
    if not out and 1 in p and 5 in p:  # move 2a, only when nothing else is legal
        out.append(after_2a(p))
    return tuple(out)


def after_2a(p: tuple[int, ...]) -> tuple[int, ...]:
    """p after move 2a, q1 + q5 -> q2 + q4."""
    rest = list(p)
    rest.remove(1)
    rest.remove(5)
    return tuple(sorted([*rest, 2, 4]))


def start(n: int) -> tuple[int, ...]:
    return (1,) * n


@cache
def team_forces(p: tuple[int, ...], mover: int, team: frozenset[int], players: int) -> bool:
    """Whether the players of `team` (0-based, absolute), coordinating, make the last move one of
    theirs from p with `mover` to play, against every joint behaviour of the others; a position
    with no move is won by the player who moved last."""
    children = moves(p)
    if not children:
        return (mover - 1) % players in team
    after = [team_forces(c, (mover + 1) % players, team, players) for c in children]
    return any(after) if mover in team else all(after)


def forcing_player(p: tuple[int, ...], players: int) -> int | None:
    """The player (1 = the one to move) who can force a win from p, None if none can."""
    found = [s + 1 for s in range(players) if team_forces(p, 0, frozenset({s}), players)]
    assert len(found) <= 1, (p, found)
    return found[0] if found else None


@cache
def longest(p: tuple[int, ...]) -> int:
    return max((1 + longest(c) for c in moves(p)), default=0)


@cache
def mean_length(p: tuple[int, ...]) -> Fraction:
    """The expected number of moves left when every legal move is equally likely."""
    children = moves(p)
    return Fraction(0) if not children else 1 + sum((mean_length(c) for c in children), Fraction(0)) / len(children)


def reachable(n: int) -> set[tuple[int, ...]]:
    seen, todo = {start(n)}, [start(n)]
    while todo:
        for c in moves(todo.pop()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


def as_indices(row: dict[str, int | None], bins: int) -> tuple[int, ...]:
    return tuple(sorted(i for i in range(1, bins + 1) for _ in range(row.get(f"c{i}") or 0)))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("quilt-players") / "q.duckdb"
    zeckdb.build(path, ["quilt", *(f"quilt-p{p}" for p in PLAYERS)], f"1..{TOP}")
    return path


def test_the_plain_moves_keep_the_value_and_end_at_fq_legal_decompositions() -> None:
    for n in range(1, TOP + 1):
        for p in reachable(n):
            assert all(sum(map(q, c)) == n for c in moves(p)), p
            if not moves(p):  # FQ-legal: no two indices equal or 1, 3 or 4 apart, not both 1 and 3
                assert all(b - a not in (0, 1, 3, 4) for a, b in zip(p, p[1:], strict=False))
                assert all(b - a not in (0, 1, 3, 4) for a in p for b in p if b > a) and not {1, 3} <= set(p)
    assert sorted(c for c in moves((1, 5))) == [(2, 4)] and (2, 4) not in moves((1, 1, 5))  # 2a only alone


@pytest.mark.parametrize("players", PLAYERS)
def test_every_position_and_start_against_the_plain_solver(db: Path, players: int) -> None:
    variant = f"quilt-p{players}"
    with api.open(db) as store:
        result = store.sql("SELECT * FROM positions WHERE variant = ? ORDER BY n, id", [variant], max_rows=0)
        stored = [dict(zip(result.columns, r, strict=True)) for r in result.rows]
        result = store.sql("SELECT n, winner FROM builds WHERE variant = ?", [variant])
        winners = dict(result.rows)
    bins = sum(1 for c in stored[0] if c[:1] == "c" and c[1:].isdigit())
    for n in range(1, TOP + 1):
        assert winners[n] == forcing_player(start(n), players), (variant, n)
        got = {as_indices(r, bins): r["forcing_seat"] for r in stored if r["n"] == n}
        assert set(got) == reachable(n), (variant, n)
        assert all(seat == forcing_player(p, players) for p, seat in got.items()), (variant, n)


@pytest.mark.parametrize("players", PLAYERS)
def test_every_team_at_the_start_against_the_plain_solver(db: Path, players: int) -> None:
    """builds.teams: bit t set when the team of the players whose bits t holds can force a win."""
    with api.open(db) as store:
        teams = dict(store.sql("SELECT n, teams FROM builds WHERE variant = ?", [f"quilt-p{players}"]).rows)
    everyone = (1 << players) - 1
    for n in range(1, TOP + 1):
        want = sum(1 << t for t in range(1, everyone + 1)
                   if team_forces(start(n), 0, frozenset(s for s in range(players) if t >> s & 1), players))
        assert teams[n] == want, (players, n, hex(teams[n]), hex(want))


def test_two_players_the_quilt_games_winner(db: Path) -> None:
    """With two players the plain solver's forcing player is the quilt game's stored winner."""
    with api.open(db) as store:
        winners = dict(store.sql("SELECT n, winner FROM builds WHERE variant = 'quilt'").rows)
    assert [winners[n] for n in range(1, TOP + 1)] == [forcing_player(start(n), 2) for n in range(1, TOP + 1)]


def test_the_quilt_lengths_query_against_the_plain_solver(db: Path) -> None:
    """Longest game, exact mean under random play (every legal move equally likely), their ratios
    to n, and the running largest longest/n."""
    with api.open(db) as store:
        result = store.query("quilt-lengths")
    got = [dict(zip(result.columns, r, strict=True)) for r in result.rows]
    assert [r["n"] for r in got] == list(range(1, TOP + 1))
    best = Fraction(0)
    for r in got:
        n = r["n"]
        mean, most = mean_length(start(n)), longest(start(n))
        best = max(best, Fraction(most, n))
        assert r["max_length"] == most and r["expected_length"] == pytest.approx(float(mean), rel=1e-12), n
        assert r["longest_per_n"] == pytest.approx(most / n, rel=1e-12)
        assert r["mean_per_n"] == pytest.approx(float(mean / n), rel=1e-12)
        assert r["largest_longest_per_n"] == pytest.approx(float(best), rel=1e-12), n
    # by hand: 1+1+1+1 -> 1+1+2 -> 2+2 or 1+3 -> 4, two games of 3 moves
    assert moves(start(4)) == ((1, 1, 2),) and mean_length(start(4)) == 3 == longest(start(4))


def counts(p: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(p.count(i) for i in range(1, max(p, default=0) + 1))


def colex(p: tuple[int, ...]) -> tuple[int, ...]:
    """A key that orders count vectors as their colex rank does: the heaviest bin most significant."""
    return tuple(reversed(counts(p) + (0,) * (30 - len(counts(p)))))


def two_key(p: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """docs/findings.md's order for a one-pass solve: fewer chips first; then larger (c2, c1, c3, c4, ...)."""
    c = counts(p) + (0,) * (30 - len(counts(p)))
    return -len(p), (c[1], c[0], *c[2:])


def test_only_rule_2a_lowers_the_colex_rank_and_every_move_follows_the_two_key_order() -> None:
    """Why the colex walk of summary mode cannot solve the quilt game, and an order that could."""
    lowered, raised = 0, 0
    for n in range(1, TOP + 1):
        for p in reachable(n):
            for child in moves(p):
                assert two_key(child) > two_key(p), (p, child)
                if colex(child) < colex(p):
                    assert 1 in p and 5 in p and child == after_2a(p), (p, child)
                    lowered += 1
                else:
                    raised += 1
    assert lowered > 0 and raised > 0  # rule 2a is played at some n <= TOP


def test_the_quilt_keys_fit_63_bits_up_to_n_143() -> None:
    """docs/findings.md: a key gives bin j bit_length(max_n // q_j) bits; 63 in all at n = 143."""
    from zeckdb.variants.quilt import Quilt

    def key_bits(top: int) -> int:
        return sum(max(1, (top // q(i)).bit_length()) for i in range(1, 30) if q(i) <= top)

    assert key_bits(143) == 63 and key_bits(144) == 64
    for top, fits in ((143, True), (144, False)):
        class Wider(Quilt):
            max_n = top
            weights = tuple(q(i) for i in range(1, 30) if q(i) <= top)

        if fits:
            assert sum(Wider()._field_bits) == 63 and len(Wider()._offsets) == 16
        else:
            with pytest.raises(ValueError, match="63 bits"):
                _ = Wider()._offsets
