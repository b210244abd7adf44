"""The variant contract, checked for every registered variant (the engine's self-test)."""

from __future__ import annotations

import re

import pytest

from zeckdb.errors import UnknownVariantError, UsageError
from zeckdb.testing import check_convention, check_ids_and_keys, check_move_names, check_moves, check_summary
from zeckdb.variants import get_variant, misere_twins, variant_names

# every accepted member of each family (black-hole-2..12), but of the games of P players only P = 3:
# they are their two-player game with another name and number of players (test_players_change_nothing_else)
ALL = [name for name in variant_names(all_members=True) if not re.search(r"-p[4-9]$", name)]
PLAYERS = [name for name in variant_names(all_members=True) if re.search(r"-p[3-9]$", name)]


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("n", [1, 2, 5, 12, 25])
def test_ids_keys_and_counts_round_trip(name, n):
    v = get_variant(name)
    check_ids_and_keys(v, min(n, v.max_n))  # the ordered game stops at 24


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("n", [3, 8, 17])
def test_play_moves_agree_with_the_graph(name, n):
    """The scalar move generator (lookups) and the compiled one (builds) give the same edges."""
    v = get_variant(name)
    check_moves(v, n, get_variant(v.graph_name))


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("n", [3, 17])
def test_summary_mode_solves_every_position_as_the_full_solve_does(name, n):
    """Where summary mode takes the game (else nothing to check): every id's values."""
    check_summary(get_variant(name), min(n, get_variant(name).max_n))


@pytest.mark.parametrize("name", ALL)
def test_every_game_counts_its_positions(name):
    """The limits of every registered game come from its exact count, not the contract's guess."""
    assert get_variant(name).counts_positions


@pytest.mark.parametrize("name", ALL)
def test_move_names_are_unique(name):
    check_move_names(get_variant(name))


def test_move_names_follow_the_papers():
    z, r = get_variant("zeckendorf"), get_variant("reversed")
    moves = dict((z.move_names[c], child) for c, child in z.play_moves((1, 1, 1, 2)))
    assert moves == {"combine F1+F2": (0, 0, 2, 2), "combine F2+F3": (1, 0, 0, 3), "combine F3+F4": (1, 1, 0, 1, 1),
                     "split 2F4": (1, 2, 1, 0, 1)}
    back = dict((r.move_names[c], child) for c, child in r.play_moves((0, 0, 1, 1)))
    assert back == {"split F3": (1, 1, 0, 1), "split F4": (0, 1, 2)}


def test_unknown_variant_lists_the_valid_names():
    with pytest.raises(UnknownVariantError, match="unknown variant 'nim': choose one of zeckendorf, reversed"):
        get_variant("nim")


@pytest.mark.parametrize("text, message", [
    ("3,x", "malformed position '3,x'"), ("", "empty position"), ("3,-1", "cannot be negative"),
    ("1,1,1,1,1,1,1,1,1,1,1,1,1", "has 13 bins"),
])
def test_parse_rejects_bad_positions(text, message):
    with pytest.raises(UsageError, match=message):
        get_variant("zeckendorf").parse(text)


def test_positions_beyond_max_n_are_rejected():
    v = get_variant("zeckendorf")
    with pytest.raises(UsageError, match="out of range"):
        v.layer_of((v.max_n + 1,))


@pytest.mark.parametrize("name", PLAYERS)
def test_players_change_nothing_else(name):
    """`nacci-2-3-p4` is `nacci-2-3` (its graph, its moves, its positions) played by 4 players."""
    many = get_variant(name)
    base = get_variant(name.rsplit("-", 1)[0])
    assert many.players == int(name.rsplit("-p", 1)[1]) and base.players == 2
    assert many.graph_name == base.name and not many.reversed
    assert (many.move_names, many.columns, many.max_n) == (base.move_names, base.columns, base.max_n)
    for n in (1, 7, 12):
        assert (many.layer_keys(n) == base.layer_keys(n)).all() and many.start(n) == base.start(n)
        assert many.play_moves(many.start(n)) == base.play_moves(base.start(n))


def test_a_game_past_a_limit_of_the_contract_is_refused_when_it_registers(monkeypatch):
    """A game of 17 bins would solve, then fail at its first commit; one of 7 players would
    solve no team: both are named at registration, before anything is built."""
    import pytest

    import zeckdb.variants as registry
    from zeckdb.engine.contract import ContractError
    from zeckdb.variants.zeckendorf import Zeckendorf

    class Wide(Zeckendorf):
        name = "wide"
        weights = tuple(range(1, 18))

    class Crowded(Zeckendorf):
        name = "crowded"
        players = 7

    monkeypatch.setitem(registry._REGISTRY, "wide", Wide)
    monkeypatch.setitem(registry._REGISTRY, "crowded", Crowded)
    with pytest.raises(ContractError, match="wide breaks the variant contract: it has 17 count columns, the database "
                                             "stores at most 16"):
        registry.get_variant("wide")
    with pytest.raises(ContractError, match="7 players: the engine solves 2 to 6"):
        registry.get_variant("crowded")


@pytest.mark.parametrize("name", [n for n in ALL if not get_variant(n).reversed])
def test_the_contracts_own_play_moves_are_each_games(name):
    """play_moves derived from graph_edges (the contract's default) gives what each game's own,
    faster generator gives: a new game may leave it out and keep the two in agreement."""
    from zeckdb.engine.contract import Variant
    from zeckdb.testing import layer_positions

    v = get_variant(name)
    for n in (4, 9):
        n = min(max(n, v.min_n), v.max_n)
        for written in layer_positions(v, v.layer_keys(n), trim=True)[:200]:
            pos = tuple(int(x) for x in written)
            assert sorted(Variant.play_moves(v, pos)) == sorted(v.play_moves(pos)), (name, pos)


TWINS = [name for name in misere_twins() if not re.search(r"-[6-9]-misere$|-1[0-2]-misere$", name)]


@pytest.mark.parametrize("name", TWINS)
@pytest.mark.parametrize("n", [3, 9])
def test_every_misere_twin_keeps_the_contract(name, n):
    """A twin scores its terminals as misère play says, its summary mode agrees with its full
    solve, and its moves are its normal game's (the conformance kit's checks)."""
    v = get_variant(name)
    n = min(n, v.max_n)
    assert v.convention == "misere" and v.graph_name == get_variant(name.removesuffix("-misere")).graph_name
    check_convention(v, n)
    check_summary(v, n)
    check_moves(v, n, get_variant(v.graph_name))


@pytest.mark.parametrize("name", ["zeckendorf-misere", "zeckendorf"])
def test_the_kit_fails_a_game_whose_terminals_are_scored_against_its_convention(monkeypatch, name):
    """An engine that scored every terminal as normal play does (lost for the player to move)
    fails check_convention for a misère game, and only for it."""
    from zeckdb.engine import kernels

    real = kernels.solve

    def normal_terminals(*args):
        return real(*args[:-1], False)

    monkeypatch.setattr(kernels, "solve", normal_terminals)
    if name.endswith("-misere"):
        with pytest.raises(AssertionError, match="the misere convention"):
            check_convention(get_variant(name), 7)
    else:
        check_convention(get_variant(name), 7)
