"""The variant contract, checked for every registered variant (the engine's self-test)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from zeckdb.engine.solve import solve_in_memory
from zeckdb.errors import UnknownVariantError, UsageError
from zeckdb.variants import get_variant, variant_names

# every accepted member of each family (black-hole-2..12), but of the games of P players only P = 3:
# they are their two-player game with another name and number of players (test_players_change_nothing_else)
ALL = [name for name in variant_names(all_members=True) if not re.search(r"-p[4-9]$", name)]
PLAYERS = [name for name in variant_names(all_members=True) if re.search(r"-p[3-9]$", name)]
SAMPLED = 20_000  # positions round-tripped per layer at most


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("n", [1, 2, 5, 12, 25])
def test_ids_keys_and_counts_round_trip(name, n):
    v = get_variant(name)
    n = min(n, v.max_n)  # the ordered game stops at 24
    keys = v.layer_keys(n)
    assert len(set(keys.tolist())) == len(keys) == v.estimate_positions(n)
    # every position of a layer up to SAMPLED, else its first, last and a fixed random sample: the
    # checks are per position in Python (2.6 million of them at the ordered game's n = 24)
    ids = np.arange(len(keys))
    if len(keys) > SAMPLED:
        ids = np.unique(np.concatenate([[0, len(keys) - 1], np.random.default_rng(n).choice(len(keys), SAMPLED)]))
    for i, written in zip(ids.tolist(), layer_positions(v, keys[ids]), strict=True):
        pos = v.parse(",".join(map(str, written)))
        assert v.id_of(pos) == i
        assert v.key_of(pos) == keys[i]
        assert v.layer_of(pos) == n
        assert v.parse(v.format(pos)) == pos


def layer_positions(v, keys, trim: bool = False) -> list:
    """The positions of these keys as the variant writes them: the entries of ordered lists, else the
    counts (with trim, without their trailing zeros)."""
    entries = v.entries(keys)
    if entries is not None:
        offsets, values = entries
        return [values[offsets[i]:offsets[i + 1]] for i in range(len(keys))]
    return [np.trim_zeros(row, "b") if trim else row for row in v.decode(keys)]


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("n", [3, 8, 17])
def test_play_moves_agree_with_the_graph(name, n):
    """The scalar move generator (lookups) and the compiled one (builds) give the same edges."""
    v = get_variant(name)
    g, _, _ = solve_in_memory(get_variant(v.graph_name), n)
    pos = [tuple(int(x) for x in p) for p in layer_positions(v, g.keys, trim=True)]
    src, dst_id, code, dst_n = g.stored_edges()
    dst_n = np.full(len(src), n) if dst_n is None else dst_n
    graph_edges = {(int(s), (int(dn), int(d)), int(c)) for s, d, c, dn in zip(src, dst_id, code, dst_n, strict=False)}
    if v.reversed:
        graph_edges = {(d[1], (n, s), c) for s, d, c in graph_edges}
    played = {(i, (v.layer_of(child), v.id_of(child)), code) for i, p in enumerate(pos) for code, child in v.play_moves(p)}
    assert played == graph_edges


@pytest.mark.parametrize("name", ALL)
def test_move_names_are_unique(name):
    names = get_variant(name).move_names
    assert len(set(names)) == len(names)


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
    from zeckdb.variants.base import ContractError
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
