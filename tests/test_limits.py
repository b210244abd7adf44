"""How far a game builds (zeckdb.engine.limits): the largest n from what one layer costs, checked
against layer sizes counted independently, the reach wanted on a machine like this one, and
the one-line refusals that name the cost."""

from __future__ import annotations

import pytest

from zeckdb.engine.limits import full_limit, summary_limit
from zeckdb.variants import get_variant, summary_games, variant_names

from . import reference as ref
from .conftest import run

GIB = 2**30
# this machine's budgets (24 GiB: a quarter for a full build's layer, 40 % for summary mode)
MACHINE_BUILD, MACHINE_SUMMARY = 6 * GIB, 9.6 * GIB


def positions(terms: list[int], top: int) -> list[int]:
    """The number of count vectors of each value 0..top over bins worth `terms` (coin change)."""
    ways = [1] + [0] * top
    for t in terms:
        for v in range(t, top + 1):
            ways[v] += ways[v - t]
    return ways


@pytest.mark.parametrize("name, terms", [("zeckendorf", ref.FIB), ("nacci-1-3", ref.nacci_sequence(1, 3)),
                                         ("nacci-2-2", ref.nacci_sequence(2, 2)),
                                         ("nacci-4-4-p6", ref.nacci_sequence(4, 4))])
def test_the_limit_is_the_last_n_whose_layers_all_fit(name, terms):
    variant = get_variant(name)
    counts = positions([t for t in terms if t <= 3000], 3000)
    for most in (50, 1_000, 100_000):  # a budget of `most` positions of a layer
        budget = most * variant.full_bytes_per_position
        want = next(n for n in range(1, 3001) if counts[n] > most) - 1
        assert full_limit(variant, budget) == min(want, variant.max_n), (name, most)
    assert [int(s) for s in variant.layer_sizes(400)] == counts[: 401]


def test_summary_mode_counts_its_own_state_per_position():
    """Eight bytes of solved integers a position; eight more for the teams of P players."""
    two, four = get_variant("nacci-2-2"), get_variant("nacci-2-2-p4")
    counts = positions([t for t in ref.nacci_sequence(2, 2) if t <= 3000], 3000)
    budget = 8 * 20_000
    assert summary_limit(two, budget) == next(n for n in range(1, 3001) if counts[n] > 20_000) - 1
    assert summary_limit(four, budget) == next(n for n in range(1, 3001) if counts[n] > 10_000) - 1
    assert summary_limit(get_variant("black-hole-4"), budget) is None  # no summary mode


@pytest.mark.parametrize("family, full, summary", [
    ([f"{kind}nacci-{c}-{k}" for kind in ("", "reversed-") for c in (2, 3, 4) for k in (2, 3, 4)], 400, 1000),
    ([f"nacci-{c}-{k}-p{p}" for c in (2, 3, 4) for k in (2, 3, 4) for p in (3, 6)], 400, 1000),
    ([f"{kind}nacci-1-{k}" for kind in ("", "reversed-") for k in (3, 4)] + ["nacci-1-3-p5"], 150, 300),
    ([f"zeckendorf-p{p}" for p in (3, 4, 5, 6)], 200, 400),
])
def test_the_reach_on_a_machine_like_this_one(family, full, summary):
    for name in family:
        variant = get_variant(name)
        assert full_limit(variant, MACHINE_BUILD) >= full, name
        reach = summary_limit(variant, MACHINE_SUMMARY)
        assert reach is not None and reach >= summary, name


def test_the_default_games_keep_their_limits():
    """The default build covers what it did: the rule allows at least each game's own bound."""
    expected = {"zeckendorf": 200, "reversed": 200, "build-up": 200, "quilt": 100, "ordered": 24,
                "fibonacci-nim": 1000, "black-hole-5": 200, "black-hole-empty-board-5": 200}
    for name, limit in expected.items():
        assert full_limit(get_variant(name), MACHINE_BUILD) == limit, name
    assert all(full_limit(get_variant(name), MACHINE_BUILD) >= 150 or name in ("quilt", "ordered")
               for name in variant_names())


def test_the_games_summary_mode_takes_come_from_the_registry():
    assert summary_games() == ["zeckendorf", "reversed", "quilt", "build-up", "ordered", "accelerated",
                               "reversed-stagnant", "nacci-C-K (C = 1..4, K = 2..4)",
                               "reversed-nacci-C-K (C = 1..4, K = 2..4)", "zeckendorf-pP (P = 3..6)",
                               "quilt-pP (P = 3..6)", "nacci-C-K-pP (C = 1..4, K = 2..4, P = 3..6)",
                               "GAME-misere (every two-player game)"]
    assert get_variant("zeckendorf-misere").summary_refusal is None
    assert get_variant("black-hole-4-misere").summary_refusal == get_variant("black-hole-4").summary_refusal
    assert get_variant("black-hole-4").summary_refusal == "its moves change the value, so its games leave the layer"
    assert get_variant("quilt").summary_refusal is None  # its own walk (variants/quilt_summary.py)


def test_a_researchers_request_past_the_old_caps_is_built(tmp_path, capsys):
    """n = 200 of the four-player (3,2)-nacci game was refused at the old cap of 100."""
    db = str(tmp_path / "z.duckdb")
    code, out, err = run(capsys, "build", "--variant", "nacci-3-2-p4", "--n", "199..200", "--db", db)
    assert code == 0, err
    code, out, err = run(capsys, "build", "--summary-only", "--variant", "nacci-3-2-p4", "--n", "600", "--db", db)
    assert code == 0, err
    code, out, _ = run(capsys, "query", "winners", "--variant", "nacci-3-2-p4", "-f", "csv", "--db", db)
    assert [line.split(",")[1] for line in out.splitlines()[1:]] == ["199", "200", "600"]


@pytest.mark.parametrize("args, env, message", [
    (["--variant", "nacci-1-3", "--n", "400"], "6", "n = 400 of nacci-1-3 needs about {gib:.2f} GiB for layer "
     "n = {first} alone ({size:,} positions, 512 bytes each); the limit is 6.00 GiB, which a full build reaches to "
     "n = {last}: use --summary-only, or set ZECKDB_BUILD_MEMORY"),
    (["--variant", "quilt", "--n", "101"], "6", "n = 101 is out of range for quilt: choose n from 1 to 100"),
    (["--variant", "nacci-1-3", "--n", "10"], "x", "ZECKDB_BUILD_MEMORY='x' is not a memory size"),
    (["--variant", "black-hole-4", "--n", "150", "--summary-only"], None,
     "black-hole-4 has no summary mode: its moves change the value, so its games leave the layer; build it in full "
     "(summary mode solves zeckendorf, reversed, quilt, build-up, ordered, accelerated, reversed-stagnant, nacci-C-K"),
    (["--variant", "nacci-3-3", "--n", "9000", "--summary-only"], None,
     "n = 9000 is beyond summary mode's reach for nacci-3-3: n goes up to 8000 (the lengths of its games must fit "
     "16 bits)"),
])
def test_a_request_beyond_the_limit_names_the_cost(tmp_path, capsys, monkeypatch, args, env, message):
    if env is not None:
        monkeypatch.setenv("ZECKDB_BUILD_MEMORY", env)
    if "{first}" in message:  # the first layer over 6 GiB, counted here
        counts = positions([t for t in ref.nacci_sequence(1, 3) if t <= 400], 400)
        first = next(n for n in range(1, 401) if counts[n] * 512 > 6 * GIB)
        message = message.format(first=first, last=first - 1, size=counts[first], gib=counts[first] * 512 / GIB)
    db = tmp_path / "z.duckdb"
    code, out, err = run(capsys, "build", *args, "--db", str(db))
    assert code == 2 and not out and message in err and err.count("\n") == 1, err
    assert not db.exists()


def test_a_chip_game_is_summarised_only_as_far_as_its_bins_reach(monkeypatch):
    """A chip game without a game_for of its own has the bins of its max_n only: past it, summary
    mode would count fewer positions than there are. It is refused there, in one line."""
    import zeckdb.variants as registry
    from zeckdb.engine.limits import check_summary
    from zeckdb.errors import UsageError
    from zeckdb.variants.chips import ChipGame, Rule

    class Merges(ChipGame):  # merge two 1s into a 2, two 2s into a 4: every move raises the rank
        name, title, source, max_n = "merges", "merges", "a test", 30
        weights = (1, 2, 4, 8, 16)
        rules = (Rule("merge 1s", ((1, 2),), ((2, 1),)), Rule("merge 2s", ((2, 2),), ((3, 1),)),
                 Rule("merge 4s", ((3, 2),), ((4, 1),)), Rule("merge 8s", ((4, 2),), ((5, 1),)))

        def start(self, n):
            return (n,)

    monkeypatch.setitem(registry._REGISTRY, "merges", Merges)
    game = registry.get_variant("merges")
    assert game.summary_refusal is None and game.summary_max_n == 30
    check_summary(game, 30, 1 << 30, [])
    with pytest.raises(UsageError, match="n = 40 is beyond summary mode's reach for merges: n goes up to 30 "
                                         r"\(its bins are those of n up to there"):
        check_summary(game, 40, 1 << 30, [])
