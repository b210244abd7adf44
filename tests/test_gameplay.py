"""Game objects a notebook walks (zeckdb.gameplay): a game's positions, moves, lines and
profiles, checked against the plain reference solver, not against zeckdb's own lookups."""

from __future__ import annotations

import dataclasses

import pytest

import zeckdb

from . import reference as ref


def test_walking_a_game_meets_the_reference_solver(small_db):
    with zeckdb.open(small_db) as db:
        game = db.game("reversed")
        assert (game.name, game.players, game.convention, game.min_n) == ("reversed", 2, "normal", 1)
        assert "Batterman" in game.source
        position = game.start(12)
        seen = 0
        while True:  # down the game, always by the first move listed (the best one)
            want = ref.solve("reversed", position.counts)
            assert position.outcome == ("win" if want["win"] else "loss"), position
            assert (position.remoteness, position.min_remaining, position.max_remaining) == \
                (want["remoteness"], want["min"], want["max"]), position
            children = ref.MOVES["reversed"](position.counts)
            assert sorted(m.counts for m in position.moves) == sorted(children)
            if not position.moves:
                assert position.best_move is None and position.is_terminal
                break
            best = position.best_move
            assert best is not None and best is position.moves[0]
            after = position.play(best)
            if position.outcome == "win":  # the best move of a won position leaves the opponent lost
                assert after.outcome == "loss" and after.remoteness == position.remoteness - 1
            assert after == position.play(best.name) == best.position  # by the move or by its name
            position, seen = after, seen + 1
        assert seen == ref.solve("reversed", ref.start("reversed", 12))["remoteness"]


def test_a_line_and_profiles_from_a_position(small_db):
    with zeckdb.open(small_db) as db:
        start = db.game("zeckendorf").start(9)
        line = start.line()
        assert line[0] == (None, start) and line[-1][1].is_terminal
        assert len(line) - 1 == ref.solve("zeckendorf", (9,))["remoteness"]
        for (_, earlier), (move, later) in zip(line, line[1:], strict=False):
            assert move is not None and move in earlier.moves and move.position == later
            # each step carries the verdict of where it leads: the reference solver's, after the move
            want = ref.solve("zeckendorf", later.counts)
            assert (move.outcome, move.remoteness) == ("win" if want["win"] else "loss", want["remoteness"])
            assert str(move) == move.name and f"{move}" == move.name
        both_random, perfect_first, _ = ref.random_odds("zeckendorf", (9,))
        assert start.profiles("random", "random").p1_wins == pytest.approx(float(both_random), abs=1e-12)
        assert start.profiles("perfect", "random").p1_wins == pytest.approx(float(perfect_first), abs=1e-12)


def test_positions_are_frozen_values_equal_by_game_and_counts(small_db):
    with zeckdb.open(small_db) as db:
        game = db.game("zeckendorf")
        a, b = game.start(7), game.position("7")
        assert a == b and hash(a) == hash(b) and len({a, b, game.position((7,))}) == 1
        assert a != db.game("zeckendorf-misere").start(7)  # another game, the same counts
        with pytest.raises(dataclasses.FrozenInstanceError):
            a.outcome = "win"  # type: ignore[misc]
        info = db.position("zeckendorf", start=7)
        with pytest.raises(dataclasses.FrozenInstanceError):
            info.outcome = "win"  # type: ignore[misc]


def test_a_misere_twin_walks_with_its_own_values(small_db):
    with zeckdb.open(small_db) as db:
        twin = db.game("zeckendorf-misere")
        assert twin.convention == "misere"
        for n in range(1, 12):
            position = twin.start(n)
            assert position.outcome == ("win" if ref.solve_misere("zeckendorf", (n,))["win"] else "loss"), n


def test_a_game_of_three_players_has_its_own_position_type(small_db):
    """db.game gives two-player games (their positions typed with an outcome), players_game the
    games of more players: a typed script needs no isinstance."""
    with zeckdb.open(small_db) as db:
        position = db.players_game("zeckendorf-p3").start(4)
        with pytest.raises(zeckdb.UsageError, match=r"zeckendorf-p3 is a game of 3 players.*players_game\('zeckendorf-p3'\)"):
            db.game("zeckendorf-p3")
        with pytest.raises(zeckdb.UsageError, match=r"zeckendorf is a two-player game: walk it with game"):
            db.players_game("zeckendorf")
        best = db.game("zeckendorf").start(7).best_move
    assert isinstance(position, zeckdb.PlayersPosition) and not hasattr(position, "outcome")
    assert position.forcing_seat == 2  # Cusenza et al.: at n = 4 Player 2 can force a win
    assert isinstance(best, zeckdb.Move)  # the Move of zeckdb is the one a position lists (it was another type)


def test_a_layer_as_arrow_and_as_a_graph(small_db):
    """game.layer(n): the positions and moves as Arrow tables and as a networkx graph with each
    position's values on its node, checked against the reference solver."""
    from . import reference as ref

    with zeckdb.open(small_db) as db:
        layer = db.game("zeckendorf").layer(9)
        with pytest.raises(zeckdb.NotBuiltError):
            db.game("zeckendorf").layer(99)
    positions = ref.positions("zeckendorf", 9)
    assert layer.positions.num_rows == len(positions)
    assert layer.moves.num_rows == sum(len(ref.MOVES["zeckendorf"](p)) for p in positions)
    graph = layer.graph()
    assert graph.number_of_nodes() == len(positions) and graph.number_of_edges() == layer.moves.num_rows
    bins = [f"c{i}" for i in range(1, 9)]
    for _, values in graph.nodes(data=True):
        counts = tuple(values[c] for c in bins)
        while counts and counts[-1] == 0:
            counts = counts[:-1]
        want = ref.solve("zeckendorf", counts)
        assert (values["outcome"] == "win") == want["win"] and values["remoteness"] == want["remoteness"], counts


def test_a_move_that_is_not_there_is_one_line(small_db):
    with zeckdb.open(small_db) as db:
        position = db.game("zeckendorf").start(5)
        with pytest.raises(zeckdb.UsageError, match=r"'combine F9\+F10' is not a move of zeckendorf at \(5\)") as err:
            position.play("combine F9+F10")
        assert "\n" not in str(err.value) and "choose one of merge 2F1" in str(err.value)
        other = db.game("zeckendorf").start(6).moves[0]
        with pytest.raises(zeckdb.UsageError, match="is not a move of"):
            position.play(other)
        with pytest.raises(zeckdb.UnknownVariantError, match="did you mean zeckendorf"):
            db.game("zekendorf")


def test_the_looked_up_records_answer_to_the_walkable_names(small_db):
    """PositionInfo and MoveInfo (the command line's and the service's records) carry the facts
    under the names Position and Move give them, besides their JSON keys."""
    with zeckdb.open(small_db) as db:
        info, position = db.position("reversed", start=9), db.game("reversed").start(9)
        assert (info.n, info.counts) == (position.n, position.counts) == (9, ref.start("reversed", 9))
        assert [(m.name, m.counts) for m in info.moves] == [(m.name, m.counts) for m in position.moves]
        assert isinstance(info.moves[0], zeckdb.MoveInfo) and isinstance(position.moves[0], zeckdb.Move)
        assert "n" not in info.to_json() and "counts" not in info.to_json()  # the JSON keeps its keys
