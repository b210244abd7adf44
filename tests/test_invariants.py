"""Graph invariants every built layer must satisfy, checked in SQL over n = 1..40. Each test
first checks that the rows it reads are all there (a query over no rows finds nothing wrong)."""

from __future__ import annotations

import functools

import pytest

from . import reference as ref
from .reference import fib

VARIANTS = ["zeckendorf", "reversed"]
NS = range(1, 41)


@functools.cache
def population(variant: str) -> tuple[int, int]:
    """(positions, moves) of n = 1..40, counted by the reference solver."""
    layers = [ref.positions(variant, n) for n in NS]
    return sum(map(len, layers)), sum(len(ref.MOVES[variant](p)) for layer in layers for p in layer)


def assert_populated(con, variant: str) -> None:
    got = con.execute("""SELECT (SELECT count(*) FROM positions WHERE variant = $v AND n BETWEEN 1 AND 40),
                                (SELECT count(*) FROM moves WHERE variant = $v AND n BETWEEN 1 AND 40)""",
                      {"v": variant}).fetchone()
    assert got == population(variant), (variant, got)


@pytest.mark.parametrize("variant", VARIANTS)
def test_one_terminal_per_n_and_every_other_position_has_a_move(con, variant):
    assert_populated(con, variant)
    bad = con.execute("""
        SELECT p.n, count(*) FILTER (WHERE p.is_terminal) AS terminals,
               count(*) FILTER (WHERE NOT p.is_terminal AND m.src IS NULL) AS stuck
        FROM positions p LEFT JOIN (SELECT DISTINCT n, src FROM moves WHERE variant = $v) m
             ON m.n = p.n AND m.src = p.id
        WHERE p.variant = $v GROUP BY p.n HAVING terminals <> 1 OR stuck <> 0""", {"v": variant}).fetchall()
    assert bad == []


@pytest.mark.parametrize("variant", VARIANTS)
def test_win_exactly_when_a_move_reaches_a_loss_and_grundy_is_mex(con, variant):
    assert_populated(con, variant)
    bad = con.execute("""
        WITH kids AS (
            SELECT m.n, m.src, bool_or(c.outcome = 'loss') AS some_loss, count(*) FILTER (WHERE c.outcome = 'loss') AS wins,
                   list(DISTINCT c.grundy) AS gs
            FROM moves m JOIN positions c ON c.variant = m.variant AND c.n = m.n AND c.id = m.dst
            WHERE m.variant = $v GROUP BY m.n, m.src)
        SELECT p.n, p.id FROM positions p LEFT JOIN kids k ON k.n = p.n AND k.src = p.id
        WHERE p.variant = $v AND (
              (p.outcome = 'win') <> coalesce(k.some_loss, false)
           OR p.winning_moves <> coalesce(k.wins, 0)
           OR list_contains(coalesce(k.gs, []), p.grundy)
           OR NOT list_has_all(coalesce(k.gs, []), range(p.grundy)::SMALLINT[])
           OR (p.outcome = 'win') <> (p.remoteness % 2 = 1))""", {"v": variant}).fetchall()
    assert bad == []


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_move_keeps_the_value(con, variant):
    assert_populated(con, variant)
    value = " + ".join(f"coalesce({{t}}.c{i}, 0) * {fib(i)}" for i in range(1, 12))
    bad = con.execute(f"""
        SELECT m.n, m.src, m.dst FROM moves m
        JOIN positions s ON s.variant = m.variant AND s.n = m.n AND s.id = m.src
        JOIN positions d ON d.variant = m.variant AND d.n = m.n AND d.id = m.dst
        WHERE m.variant = $v AND ({value.format(t='s')} <> m.n OR {value.format(t='d')} <> m.n)""",
                      {"v": variant}).fetchall()
    assert bad == []


def test_reversed_moves_are_forward_moves_backwards(con):
    assert_populated(con, "zeckendorf")
    assert_populated(con, "reversed")
    assert con.execute("""
        SELECT count(*) FROM (SELECT n, src, dst FROM moves WHERE variant = 'zeckendorf'
                              EXCEPT SELECT n, dst, src FROM moves WHERE variant = 'reversed')""").fetchone()[0] == 0
