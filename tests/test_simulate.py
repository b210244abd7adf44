"""zeckdb simulate: random play agrees with the exact distribution in the database."""

from __future__ import annotations

import json

import numpy as np
import pytest

from zeckdb.errors import UsageError
from zeckdb.api import simulate  # the door: it resolves the game

from .conftest import rows
from .test_cli import run

GAMES = 20_000


@pytest.mark.parametrize("variant, n", [("zeckendorf", 20), ("reversed", 20), ("quilt", 20), ("quilt", 6),
                                        ("black-hole-4", 40), ("black-hole-empty-board-3", 30), ("build-up", 20),
                                        ("fibonacci-nim", 60), ("ordered", 10)])
def test_simulation_matches_the_exact_distribution(con, variant, n):
    exact = {r["length"]: r["probability"] for r in rows(
        con, "SELECT length, probability FROM length_distribution WHERE variant = ? AND n = ? AND measure = 'P'",
        [variant, n])}
    sim = simulate(variant, n, GAMES, seed=7)
    lengths = np.array(sorted(exact))
    sample_cdf = np.searchsorted(np.sort(sim.lengths), lengths, side="right") / GAMES
    exact_cdf = np.cumsum([exact[k] for k in lengths])
    # Kolmogorov-Smirnov at about the 0.1% level; the seed is fixed, so the test cannot flake
    assert np.abs(sample_cdf - exact_cdf).max() < 1.95 / np.sqrt(GAMES)
    assert set(sim.histogram()) <= set(exact)
    mean = sum(k * p for k, p in exact.items())
    sd = np.sqrt(sum((k - mean) ** 2 * p for k, p in exact.items()))
    assert abs(sim.moments()["mean"] - mean) < 4 * sd / np.sqrt(GAMES)


def test_same_seed_same_games():
    assert (simulate("quilt", 30, 100, seed=3).lengths == simulate("quilt", 30, 100, seed=3).lengths).all()


def test_beyond_the_exhaustive_limit():
    from . import reference as ref

    sim = simulate("quilt", 200, 200, seed=1)  # needs bins q16 = 114 and q17 = 151, beyond the build's
    assert sim.lengths.min() >= 200 - max(sum(d) for d in ref.fq_legal_decompositions(200))  # n - L(n)
    sim = simulate("ordered", 40, 50, seed=1)  # beyond its exhaustive limit (24), within play_moves' (54)
    assert sim.lengths.min() >= 40 - len(ref.zeckendorf_indices(40))  # the shortest game: n - Z(n)


@pytest.mark.parametrize("args, message", [
    (("quilt", 0), "n = 0 is out of range"), (("nim", 5), "unknown variant 'nim'"),
    (("quilt", 5, 0), "games 0 is out of range"),  # the library names its parameter; the CLI says --games
    (("fibonacci-nim", 1001), "out of range for simulating fibonacci-nim: its moves are generated"),
    (("fibonacci-nim", 50, 100_001), "games 100001 is out of range for fibonacci-nim"),
    (("ordered", 55), "out of range for simulating ordered: .* up to n = 54"),
])
def test_bad_input(args, message):
    with pytest.raises(UsageError, match=message):
        simulate(*args)


def test_cli_json_and_table(capsys):
    code, out, _ = run(capsys, "simulate", "quilt", "--n", "12", "--games", "500", "--seed", "2", "-f", "json")
    data = json.loads(out)
    assert code == 0 and data["method"] == "monte carlo" and sum(data["histogram"].values()) == 500
    code, out, _ = run(capsys, "simulate", "zeckendorf", "--n", "10", "--games", "300")
    assert code == 0 and "Monte Carlo" in out and "excess_kurtosis" in out
    code, out, err = run(capsys, "simulate", "quilt", "--n", "12", "--games", "0")
    assert code == 2 and err.strip() == "zeckdb: error: --games 0 is out of range: play 1 to 10,000,000 games"
