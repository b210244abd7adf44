"""The Fibonacci Quilt game against docs/games.md (Miller and Newlon 2019)."""

from __future__ import annotations

import pytest

from zeckdb.variants import get_variant

from . import reference as ref
from .conftest import QUILT_N, rows


def test_every_rule_keeps_the_value():
    v = get_variant("quilt")
    for rule in v.rules:
        taken = sum(c * v.weights[b - 1] for b, c in rule.take)
        put = sum(c * v.weights[b - 1] for b, c in rule.put)
        assert taken == put, rule.name


def test_quilt_sequence():
    assert get_variant("quilt").weights == (1, 2, 3, 4, 5, 7, 9, 12, 16, 21, 28, 37, 49, 65, 86)


def test_rule_2a_only_when_nothing_else_is_legal():
    v = get_variant("quilt")
    names = lambda p: sorted(v.move_names[c] for c, _ in v.play_moves(p))  # noqa: E731
    assert names((1, 0, 0, 0, 1)) == ["2a q1+q5 -> q2+q4"]  # 1 + 5: nothing else applies
    assert "2a q1+q5 -> q2+q4" not in names((2, 0, 0, 0, 1))  # 2q1 -> q2 is legal, so 2a is not


@pytest.mark.parametrize("n", range(1, 19))
def test_moves_match_the_rules_text(n):
    v = get_variant("quilt")
    for p in ref.positions("quilt", n):
        assert sorted(child for _, child in v.play_moves(p)) == sorted(ref.quilt_moves(p)), p


def starts(con) -> dict[int, dict]:
    return {r["n"]: r for r in rows(con, "SELECT * FROM builds WHERE variant = 'quilt'")}


def lengths(con, n) -> dict[int, int]:
    return {r["length"]: int(r["games_exact"]) for r in rows(
        con, "SELECT length, games_exact FROM length_distribution WHERE variant = 'quilt' AND measure = 'mu' AND n = ?", [n])
        if int(r["games_exact"])}


def test_small_n_facts(con):
    s = starts(con)
    assert all(int(s[n]["games"]) == 1 for n in (1, 2, 3))
    assert int(s[4]["games"]) == 2
    assert int(s[5]["games"]) == 4 and len(lengths(con, 5)) == 1
    assert all(len(lengths(con, n)) == 1 for n in range(1, 6))
    for n in range(6, QUILT_N + 1):  # lengths differ from n = 6 on, with both parities
        assert {length % 2 for length in lengths(con, n)} == {0, 1}, n


def test_terminals_are_the_fq_legal_decompositions(con):
    for n in range(1, QUILT_N + 1):
        got = {ref.norm([r[f"c{i}"] or 0 for i in range(1, 17)]) for r in rows(
            con, "SELECT * FROM positions WHERE variant = 'quilt' AND n = ? AND is_terminal", [n])}
        assert got == {ref.norm(d) for d in ref.fq_legal_decompositions(n)}, n
    assert len(ref.fq_legal_decompositions(8)) == 2  # 8 = 1 + 7 = 3 + 5


def test_shortest_game_is_n_minus_l(con):
    s = starts(con)
    for n in range(1, QUILT_N + 1):
        longest = max(sum(d) for d in ref.fq_legal_decompositions(n))
        assert s[n]["min_length"] == n - longest, n
    assert max(sum(d) for d in ref.fq_legal_decompositions(50)) == 4  # L(50) = 4 (docs/games.md)


def test_quilt_lengths_query(con, small_db):
    from zeckdb import api

    with api.open(small_db) as store:
        result = store.query("quilt-lengths")
        cols, out = result.columns, result.rows
    got = [dict(zip(cols, r, strict=False)) for r in out]
    assert [r["n"] for r in got] == list(range(1, QUILT_N + 1))
    for r in got:
        assert r["l_n"] == max(sum(d) for d in ref.fq_legal_decompositions(r["n"]))
        assert r["min_is_n_minus_l"] and r["terminals"] == len(ref.fq_legal_decompositions(r["n"]))


def test_standardized_moments_against_the_exact_distribution_and_the_papers_simulation(small_db):
    """docs/games.md: for n = 20 the paper reports, from 10,000 random games, how far the 4th
    and 6th standardized moments of the length are from the Gaussian's 3 and 15 (0.044176 and
    0.219217, as fractions). The database's exact moments equal the reference's, and the paper's
    figures lie within three standard errors of a 10,000-game estimate of them."""
    from fractions import Fraction
    import math

    from zeckdb import api

    n, games = 20, 10_000
    prob, _ = ref.remaining_lengths("quilt", ref.start("quilt", n))
    mean = sum(length * q for length, q in prob.items())
    mu = {k: float(sum(q * (length - mean) ** k for length, q in prob.items())) for k in range(2, 13)}
    m4, m6 = mu[4] / mu[2] ** 2, mu[6] / mu[2] ** 3
    with api.open(small_db) as store:
        result = store.query("length-moments", variant="quilt", n=[n], params={"measure": "P"})
    (row,) = [dict(zip(result.columns, r, strict=False)) for r in result.rows]
    assert row["mean"] == pytest.approx(float(mean), rel=1e-12)
    assert row["moment4_pct_diff"] == pytest.approx(100 * abs(m4 - 3) / 3, rel=1e-9)
    assert row["moment6_pct_diff"] == pytest.approx(100 * abs(m6 - 15) / 15, rel=1e-9)
    # delta method: the standard error of m4 / m2^2 and m6 / m2^3 estimated from `games` games
    se4 = math.sqrt((mu[8] - mu[4] ** 2) / mu[2] ** 4 - 4 * mu[4] * (mu[6] - mu[2] * mu[4]) / mu[2] ** 5
                    + 4 * mu[4] ** 2 * (mu[4] - mu[2] ** 2) / mu[2] ** 6) / math.sqrt(games)
    se6 = math.sqrt((mu[12] - mu[6] ** 2) / mu[2] ** 6 - 6 * mu[6] * (mu[8] - mu[2] * mu[6]) / mu[2] ** 7
                    + 9 * mu[6] ** 2 * (mu[4] - mu[2] ** 2) / mu[2] ** 8) / math.sqrt(games)
    paper4, paper6 = 0.044176 * 3, 0.219217 * 15  # |m4 - 3| and |m6 - 15| in the paper's run
    assert abs(paper4 - abs(m4 - 3)) < 3 * se4, (m4, paper4, se4)
    assert abs(paper6 - abs(m6 - 15)) < 3 * se6, (m6, paper6, se6)
    assert isinstance(mean, Fraction)
