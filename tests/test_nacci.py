"""The (c,k)-nacci games and their reversed games: the database against the independent
solver in reference.py (its moves written from docs/games.md's table), and the papers' facts."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import zeckdb
from zeckdb.errors import UnknownVariantError
from zeckdb.store import close_connection, open_sandboxed
from zeckdb.variants import get_variant
from zeckdb.variants.nacci import Nacci
from zeckdb.variants.zeckendorf import Zeckendorf

from . import reference as ref
from .test_family import assert_matches_reference, count_vectors, stored_layer

PAIRS = [(c, k) for c in range(1, 5) for k in range(2, 5) if (c, k) != (1, 2)]
GAMES = [f"nacci-{c}-{k}" for c, k in PAIRS] + [f"reversed-nacci-{c}-{k}" for c, k in PAIRS]
CHECKED_N = 14  # every column of every position against the plain solver
FACTS_N = 40  # the winners and the forced opening


@pytest.fixture(scope="module")
def nacci_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("nacci") / "nacci.duckdb"
    zeckdb.build(path, GAMES, f"1..{CHECKED_N}")
    zeckdb.build(path, [f"nacci-{c}-{k}" for c, k in PAIRS], f"{CHECKED_N + 1}..{FACTS_N}")
    return path


@pytest.fixture
def con(nacci_db):
    c = open_sandboxed(nacci_db)
    yield c
    close_connection(c)


def test_the_sequences_are_the_papers():
    """The examples of Miller, Sosis and Ye's convention, written out here."""
    papers = {(1, 3): [1, 2, 4, 7, 13, 24], (2, 2): [1, 3, 8, 22, 60], (2, 3): [1, 3, 9, 26, 76], (3, 2): [1, 4, 15, 57]}
    for (c, k), terms in papers.items():
        assert list(get_variant(f"nacci-{c}-{k}").game_for(terms[-1])[0][:len(terms)]) == terms
        assert ref.nacci_sequence(c, k)[:len(terms)] == terms


@pytest.mark.parametrize("c, k", PAIRS)
def test_every_move_is_an_identity_of_the_sequence(c, k):
    game = get_variant(f"nacci-{c}-{k}")
    for rule in game.rules:
        assert sum(x * game.weights[b - 1] for b, x in rule.take) == sum(x * game.weights[b - 1] for b, x in rule.put), rule


def test_nacci_1_2_is_the_zeckendorf_game():
    """Refused by name (it is `zeckendorf`), and the same game: its bins and, for every n <= 60,
    the same moves between the same positions."""
    with pytest.raises(UnknownVariantError, match="nacci-1-2 is the game registered as zeckendorf"):
        get_variant("nacci-1-2")
    with pytest.raises(UnknownVariantError, match="reversed-nacci-1-2 is the game registered as reversed"):
        get_variant("reversed-nacci-1-2")
    nacci, zeck = Nacci(1, 2), Zeckendorf()
    assert nacci.weights[:8] == zeck.weights[:8]
    for n in range(1, 61):
        keys = zeck.layer_keys(n)
        assert (nacci.decode(nacci.layer_keys(n)) [:, :8] == zeck.decode(keys)[:, :8]).all()
        moves = []
        for game in (nacci, zeck):
            src, dst, _ = game.graph_edges(n, game.layer_keys(n))
            moves.append(sorted(zip(src.tolist(), map(tuple, game.decode(dst)[:, :8].tolist()), strict=True)))
        assert moves[0] == moves[1], n


@pytest.mark.parametrize("variant", GAMES)
def test_every_stored_position_matches_the_reference(con, variant):
    c, k = ref.nacci_parameters(variant)
    weights = [g for g in ref.nacci_sequence(c, k) if g <= CHECKED_N]
    for n in range(1, CHECKED_N + 1):
        stored = stored_layer(con, variant, n)
        assert set(stored) == count_vectors(weights, n)
        for p, row in stored.items():
            assert_matches_reference(row, variant, n, p)


@pytest.mark.parametrize("c, k", PAIRS)
def test_the_only_terminal_is_the_legal_decomposition(con, c, k):
    """Found by brute force among the layer's count vectors: coefficients 0..c, no k consecutive c."""
    for n in range(1, FACTS_N + 1):
        terminals = [p for p, row in stored_layer(con, f"nacci-{c}-{k}", n).items() if row["legal_moves"] == 0]
        legal = [p for p in count_vectors([g for g in ref.nacci_sequence(c, k) if g <= n], n) if ref.nacci_legal(c, k, p)]
        assert terminals == legal and len(legal) == 1, (n, terminals, legal)
    starts = con.execute("SELECT n, start_position FROM builds WHERE variant = ? ORDER BY n",
                         [f"reversed-nacci-{c}-{k}"]).fetchall()
    assert [(n, s) for n, s in starts] == [(n, str(ref.nacci_greedy(c, k, n)).replace(" ", "").replace(",)", ")"))
                                           for n in range(1, CHECKED_N + 1)]


@pytest.mark.parametrize("c, k", PAIRS)
def test_the_first_choice_comes_at_turn_c_plus_1(c, k):
    """From n chips in bin 1 (n large enough to reach it), turns 1..c each have one legal move
    and turn c + 1 has two (Miller, Sosis, Ye)."""
    moves = ref.MOVES[f"nacci-{c}-{k}"]
    for n in range((c + 1) * (c + 1), FACTS_N + 1):
        p = (n,)
        for _ in range(c):
            (p,) = moves(p)
        assert len(moves(p)) == 2, (n, p)


@pytest.mark.parametrize("c, k", PAIRS)
def test_game_lengths_are_linear_in_n(con, c, k):
    """A move takes at most c k chips off the board and puts one back, and a game ends at the
    legal decomposition: the shortest game is at least (n - its terms) / (c k - 1) moves; the
    longest stays under 2n (Cusenza et al. bound it linearly)."""
    rows = con.execute("SELECT n, min_length, max_length FROM builds WHERE variant = ? ORDER BY n",
                       [f"nacci-{c}-{k}"]).fetchall()
    assert [n for n, _, _ in rows] == list(range(1, FACTS_N + 1))
    for n, shortest, longest in rows:
        terms = sum(ref.nacci_greedy(c, k, n))
        assert (n - terms) / (c * k - 1) <= shortest <= longest <= 2 * n, (n, shortest, longest)


@pytest.mark.parametrize("c, k", [(c, k) for c, k in PAIRS if c <= 2])
def test_the_winner_settles_by_the_parity_of_c(con, c, k):
    """For large n Player 1 wins when c is even, Player 2 when c is odd (Miller, Sosis, Ye): here
    from n = 27 on, for c = 1, 2 (for c = 3, 4 it has not settled by the largest n built: docs/findings.md)."""
    winners = dict(con.execute("SELECT n, winner FROM builds WHERE variant = ?", [f"nacci-{c}-{k}"]).fetchall())
    assert {winners[n] for n in range(27, FACTS_N + 1)} == {1 if c % 2 == 0 else 2}


@pytest.mark.parametrize("name", ["nacci-02-2", "nacci-2-2-2", "nacci-", "nacci--2", "nacci-2", "nacci-5-2", "nacci-2-5",
                                  "nacci-99999999999999-2", "nacci-2-\u00b2", "black-hole-\u00b2", "black-hole-04",
                                  "reversed-nacci-0-2", "Nacci-2-2", "nacci-2-2 "])
def test_a_malformed_family_name_is_one_line(name):
    with pytest.raises(UnknownVariantError, match="^unknown variant .*nacci-C-K \\(C = 1..4, K = 2..4\\)"):
        get_variant(name)


def test_summary_mode_agrees_with_the_full_build(nacci_db, tmp_path):
    from zeckdb import api

    games = ["nacci-2-3", "reversed-nacci-2-3", "nacci-3-2", "reversed-nacci-3-2"]
    api.build(tmp_path / "summary.duckdb", games, "10..14", summary_only=True)
    columns = "variant, n, positions, edges, start_id, start_position, winner, min_length, max_length, start_remoteness"
    query = f"SELECT {columns} FROM builds WHERE n BETWEEN 10 AND 14 AND list_contains(?, variant) ORDER BY variant, n"
    with duckdb.connect(str(nacci_db), read_only=True) as full, \
            duckdb.connect(str(tmp_path / "summary.duckdb"), read_only=True) as summary:
        want, got = full.execute(query, [games]).fetchall(), summary.execute(query, [games]).fetchall()
    assert len(want) == 20 and got == want
