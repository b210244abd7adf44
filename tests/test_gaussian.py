"""Is the random game's length Gaussian? (issue 68, item 7): the length-moments query against a
solver written here from the rules' text (docs/games.md), and bench/gaussian.py's fit and plot.

The solver shares nothing with zeckdb (nor with tests/reference.py): positions are plain tuples of
counts, the moves are read off the rules one by one, and the length distribution of the random
game is an exact Fraction per length, by recursion over the moves."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import cache
import importlib.util
import math
from pathlib import Path
import sys

import pytest

import zeckdb

ROOT = Path(__file__).resolve().parent.parent
TOP = 12  # small enough that the recursion over every game is instant
BINS = 12  # more bins than any position of n <= TOP fills, in either game

Position = tuple[int, ...]


def _add(p: Position, changes: dict[int, int]) -> Position:
    """p with bin i (1-based) changed by changes[i]."""
    q = list(p)
    for i, d in changes.items():
        q[i - 1] += d
    return tuple(q)


# -- the Zeckendorf game (docs/games.md: F_1 = 1, F_2 = 2, ...) --------------------------------
def zeckendorf_moves(p: Position) -> Iterator[Position]:
    c = (0, *p)  # c[i]: chips in bin i
    if c[1] >= 2:  # merge ones: 2 F_1 -> F_2
        yield _add(p, {1: -2, 2: 1})
    for i in range(2, BINS):  # combine F_{i-1} + F_i -> F_{i+1}
        if c[i - 1] >= 1 and c[i] >= 1:
            yield _add(p, {i - 1: -1, i: -1, i + 1: 1})
    if c[2] >= 2:  # split twos: 2 F_2 -> F_1 + F_3
        yield _add(p, {2: -2, 1: 1, 3: 1})
    for i in range(3, BINS):  # split: 2 F_i -> F_{i-2} + F_{i+1}
        if c[i] >= 2:
            yield _add(p, {i: -2, i - 2: 1, i + 1: 1})


def fib(i: int) -> int:
    a, b = 1, 2
    for _ in range(i - 1):
        a, b = b, a + b
    return a


def zeckendorf_decomposition(n: int) -> Position:
    counts = [0] * BINS
    while n:
        i = max(j for j in range(1, BINS + 1) if fib(j) <= n)
        counts[i - 1] += 1
        n -= fib(i)
    return tuple(counts)


# -- the reversed game: the reverses of the forward moves, as its paper lists them --------------
def reversed_moves(p: Position) -> Iterator[Position]:
    c = (0, *p)
    if c[2] >= 1:  # F_2 -> 2 F_1
        yield _add(p, {2: -1, 1: 2})
    for j in range(3, BINS):  # split F_j -> F_{j-1} + F_{j-2}
        if c[j] >= 1:
            yield _add(p, {j: -1, j - 1: 1, j - 2: 1})
    if c[1] >= 1 and c[3] >= 1:  # F_3 + F_1 -> 2 F_2
        yield _add(p, {1: -1, 3: -1, 2: 2})
    for i in range(3, BINS - 1):  # F_{i-2} + F_{i+1} -> 2 F_i
        if c[i - 2] >= 1 and c[i + 1] >= 1:
            yield _add(p, {i - 2: -1, i + 1: -1, i: 2})


# -- the Fibonacci Quilt game (its rules 1 to 5, with the erratum of rule 3f) -------------------
def quilt_moves(p: Position) -> Iterator[Position]:
    out = _quilt_moves_but_2a(p)
    if not out and p[0] >= 1 and p[4] >= 1:  # 2a: q_1 + q_5 -> q_2 + q_4, only when no other move is possible
        out.append(_add(p, {1: -1, 5: -1, 2: 1, 4: 1}))
    yield from out


def _quilt_rules() -> list[tuple[dict[int, int], list[int]]]:
    """Every move of rules 1b..5 (and 1a) as (the terms it takes, the terms it gives), by index."""
    rules: list[tuple[dict[int, int], list[int]]] = [({1: 1, 2: 1}, [3])]  # 1a
    rules += [({i: 1, i + 1: 1}, [i + 3]) for i in range(2, BINS - 2)]  # 1b
    rules += [({i: 1, i + 4: 1}, [i + 5]) for i in range(2, BINS - 4)]  # 2b
    doubles = {1: [[2]], 2: [[4]], 3: [[2, 4]], 4: [[1, 6], [3, 5]], 5: [[1, 7]], 6: [[2, 8], [5, 7]]}
    rules += [({i: 2}, give) for i in range(1, BINS - 2) for give in doubles.get(i, [[i - 5, i + 2]])]  # 3a..3g
    apart3 = {1: [5], 2: [6], 3: [1, 7], 4: [1, 8], 5: [1, 9], 6: [2, 10]}
    rules += [({i: 1, i + 3: 1}, apart3.get(i, [i - 5, i + 4])) for i in range(1, BINS - 4)]  # 4a..4e
    rules.append(({1: 1, 3: 1}, [4]))  # 5
    return rules


QUILT_RULES = _quilt_rules()


def _quilt_moves_but_2a(p: Position) -> list[Position]:
    out = []
    for take, give in QUILT_RULES:
        if all(p[i - 1] >= k for i, k in take.items()):
            changes = {i: -k for i, k in take.items()}
            for g in give:
                changes[g] = changes.get(g, 0) + 1
            out.append(_add(p, changes))
    return out


QUILT = [1, 2, 3, 4]
while len(QUILT) < BINS:
    QUILT.append(QUILT[-2] + QUILT[-3])


GAMES: dict[str, tuple[Callable[[Position], Iterator[Position]], Callable[[int], Position]]] = {
    "zeckendorf": (zeckendorf_moves, lambda n: (n,) + (0,) * (BINS - 1)),
    "reversed": (reversed_moves, zeckendorf_decomposition),
    "quilt": (quilt_moves, lambda n: (n,) + (0,) * (BINS - 1)),
}


@cache
def random_lengths(game: str, p: Position) -> tuple[tuple[int, Fraction], ...]:
    """P: each legal move equally likely; the probability of each length from p."""
    children = list(GAMES[game][0](p))
    if not children:
        return ((0, Fraction(1)),)
    dist: dict[int, Fraction] = {}
    for child in children:
        for length, prob in random_lengths(game, child):
            dist[length + 1] = dist.get(length + 1, Fraction(0)) + prob / len(children)
    return tuple(sorted(dist.items()))


@cache
def game_counts(game: str, p: Position) -> tuple[tuple[int, int], ...]:
    """mu: the number of complete games of each length from p."""
    children = list(GAMES[game][0](p))
    if not children:
        return ((0, 1),)
    counts: dict[int, int] = {}
    for child in children:
        for length, k in game_counts(game, child):
            counts[length + 1] = counts.get(length + 1, 0) + k
    return tuple(sorted(counts.items()))


def exact_moments(dist: dict[int, Fraction]) -> dict[str, float]:
    """Mean, variance, skewness, excess kurtosis, the percent differences of the 4th and 6th
    standardized moments from the Gaussian's 3 and 15, and of the raw moments from the Gaussian's of
    the same mean and variance (the quilt paper's), from the definitions, exactly."""
    mean = sum(k * q for k, q in dist.items())
    mu = {j: sum(q * (k - mean) ** j for k, q in dist.items()) for j in (2, 3, 4, 6)}
    out = {"mean": float(mean), "variance": float(mu[2])}
    if mu[2]:
        out["skewness"] = float(mu[3]) / math.sqrt(float(mu[2])) ** 3
        out["excess_kurtosis"] = float(mu[4] / mu[2] ** 2 - 3)
        out["moment4_pct_diff"] = float(100 * abs(mu[4] / mu[2] ** 2 - 3) / 3)
        out["moment6_pct_diff"] = float(100 * abs(mu[6] / mu[2] ** 3 - 15) / 15)
        # the raw moments E[X^k] against the Gaussian's with the same mean and variance
        raw = {j: sum(q * k**j for k, q in dist.items()) for j in (4, 6)}
        s2 = mu[2]
        gauss4 = mean**4 + 6 * mean**2 * s2 + 3 * s2**2
        gauss6 = mean**6 + 15 * mean**4 * s2 + 45 * mean**2 * s2**2 + 15 * s2**3
        out["raw4_pct_diff"] = float(100 * abs(raw[4] - gauss4) / gauss4)
        out["raw6_pct_diff"] = float(100 * abs(raw[6] - gauss6) / gauss6)
    return out


@pytest.fixture(scope="module")
def tiny_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("gaussian") / "tiny.duckdb"
    zeckdb.build(path, list(GAMES), f"1..{TOP}")
    return path


def test_the_rules_here_keep_the_value():
    """The solver's own check: every move of every game keeps the value (quilt values for quilt)."""
    for game, (moves, start) in GAMES.items():
        weights = QUILT if game == "quilt" else [fib(i) for i in range(1, BINS + 1)]
        seen, todo = set(), [start(n) for n in range(1, TOP + 1)]
        while todo:
            p = todo.pop()
            for child in moves(p):
                assert sum(map(math.prod, zip(child, weights, strict=True))) == sum(map(math.prod, zip(p, weights, strict=True)))
                assert min(child) >= 0
                if child not in seen:
                    seen.add(child)
                    todo.append(child)


@pytest.mark.parametrize("game", list(GAMES))
def test_length_moments_against_the_rules(tiny_db, game):
    with zeckdb.open(tiny_db) as db:
        result = db.query("length-moments", variant=game, max_rows=0)
    rows = [dict(zip(result.columns, r, strict=True)) for r in result.rows]
    assert sorted({(r["n"], r["measure"]) for r in rows}) == [(n, m) for n in range(1, TOP + 1) for m in ("P", "mu")]
    start = GAMES[game][1]
    for r in rows:
        if r["measure"] == "P":
            dist = dict(random_lengths(game, start(r["n"])))
        else:
            counts = dict(game_counts(game, start(r["n"])))
            total = sum(counts.values())
            dist = {k: Fraction(v, total) for k, v in counts.items()}
        want = exact_moments(dist)
        for key in ("mean", "variance", "skewness", "excess_kurtosis", "moment4_pct_diff", "moment6_pct_diff",
                    "raw4_pct_diff", "raw6_pct_diff"):
            if key not in want:  # one game only (variance 0): no standardized moment
                assert r[key] is None, (game, r["n"], key)
                continue
            assert r[key] == pytest.approx(want[key], rel=1e-9, abs=1e-9), (game, r["n"], r["measure"], key)


def test_the_games_random_lengths_differ():
    """The P measure is the direction of play's: the reversed game's random length is not the
    Zeckendorf game's (the same games, reversed, so mu is the same), which the solver sees too."""
    n = 10
    forward = dict(random_lengths("zeckendorf", GAMES["zeckendorf"][1](n)))
    backward = dict(random_lengths("reversed", GAMES["reversed"][1](n)))
    assert forward != backward
    assert dict(game_counts("zeckendorf", GAMES["zeckendorf"][1](n))) == dict(game_counts("reversed", GAMES["reversed"][1](n)))


# -- bench/gaussian.py's core ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def gaussian():
    spec = importlib.util.spec_from_file_location("gaussian", ROOT / "bench" / "gaussian.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gaussian"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_power_law_fit_recovers_a_known_law(gaussian):
    ns = list(range(20, 101))
    fit = gaussian.power_law_fit(ns, [2.5 * n ** -0.75 for n in ns])
    assert fit.c == pytest.approx(2.5, rel=1e-9) and fit.a == pytest.approx(0.75, rel=1e-9)
    assert fit.rms < 1e-9 and (fit.lo, fit.hi) == (20, 100)
    # a negative law keeps its sign in c; a wobble of +-10 % shows in the residuals, not in a
    wobble = [-0.4 * n ** -1.0 * (1.1 if n % 2 else 0.9) for n in ns]
    fit = gaussian.power_law_fit(ns, wobble)
    assert fit.c < 0 and fit.a == pytest.approx(1.0, abs=0.01)
    assert 0.09 < fit.largest < 0.11 and 0.09 < fit.rms < 0.11


def test_power_law_fit_refuses_a_sign_change(gaussian):
    with pytest.raises(ValueError, match="sign"):
        gaussian.power_law_fit([1, 2, 3], [0.5, -0.1, 0.2])


def test_the_plot_is_a_png_of_every_game(gaussian, tmp_path):
    ns = list(range(1, 31))
    series = {(game, measure): [gaussian.Row(n, 1.0, 1.0, 2 / n**0.5, 3 / n, 1.0, 1.0) for n in ns]
              for game in ("zeckendorf", "quilt") for measure in ("P", "mu")}
    out = tmp_path / "moments.png"
    figure = gaussian.plot(series, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    labels = {line.get_label() for ax in figure.axes for line in ax.get_lines()}
    assert {"zeckendorf", "quilt"} <= labels


def test_the_fit_starts_after_the_last_sign_change(gaussian):
    def rows(last_change: int) -> list:
        return [gaussian.Row(n, 1.0, 1.0, (-1 if n < last_change else 1) * n ** -0.5, (-1) ** n / n, None, None)
                for n in range(2, 151)]
    fit = gaussian.fit_of(rows(60), "skewness")
    assert (fit.lo, fit.hi) == (60, 150) and fit.a == pytest.approx(0.5)
    assert gaussian.fit_of(rows(2), "skewness").lo == gaussian.FIT_FROM
    assert gaussian.fit_of(rows(140), "skewness") is None  # too few n left
    assert gaussian.fit_of(rows(2), "excess_kurtosis") is None  # its sign changes at every n
    assert gaussian.sign_changes(rows(60), "skewness") == [60]
