"""Games of three or more players (the engine's forcing_seats): against a plain solver that
plays the coalition game with absolute seats, and the facts of Cusenza et al.
(arXiv:2009.03708) and Miller, Sosis and Ye (arXiv:2211.14973)."""

from __future__ import annotations

from functools import cache

import pytest

from zeckdb.engine.solve import EngineError, forcing_seats, solve_in_memory, teams_of
from zeckdb.variants import get_variant

from . import reference as ref


@cache
def layer(variant: str, n: int):
    """(graph, solution) of layer n, solved in memory."""
    graph, solution, _ = solve_in_memory(get_variant(variant), n)
    return graph, solution


def start_winner(variant: str, n: int, players: int) -> int | None:
    """The player (1 = the first to move) who can force a win from the start of n, or None."""
    graph, solution = layer(variant, n)
    seat = int(forcing_seats(solution.play, players, len(graph.keys))[solution.start])
    return None if seat < 0 else seat + 1


@cache
def forces(variant: str, p: tuple[int, ...], mover: int, player: int, players: int) -> bool:
    """Whether `player` (0-based, absolute) makes the last move from p, `mover` to play, whatever
    the others do together: at its own turns some move must do, at theirs every move must."""
    children = ref.MOVES[variant](p)
    if not children:
        return (mover - 1) % players == player  # the one who moved last
    after = [forces(variant, c, (mover + 1) % players, player, players) for c in children]
    return any(after) if mover == player else all(after)


@pytest.mark.parametrize("variant, top", [("zeckendorf", 14), ("reversed", 14), ("nacci-2-2", 16), ("nacci-1-3", 12)])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_position_agrees_with_the_plain_solver(variant, top, players):
    for n in range(1, top + 1):
        graph, solution = layer(variant, n)
        seats = forcing_seats(solution.play, players, len(graph.keys))
        game = get_variant(variant)
        for i, counts in enumerate(game.decode(graph.keys)):
            p = ref.norm([int(x) for x in counts])
            want = [s for s in range(players) if forces(variant, p, 0, s, players)]
            assert len(want) <= 1 and int(seats[i]) == (want[0] if want else -1), (variant, n, p, players)


def test_two_players_is_the_ordinary_game():
    """With two players the seat that forces a win is the stored outcome's: the mover on a win."""
    for n in range(1, 30):
        graph, solution = layer("zeckendorf", n)
        seats = forcing_seats(solution.play, 2, len(graph.keys))
        assert ((seats == 0) == solution.win).all() and ((seats == 1) == ~solution.win).all()


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_zeckendorf_game_of_three_to_five_players(players):
    """Cusenza et al.: Player 2 can force a win at n = 4 and no player can for any n >= 5."""
    assert start_winner("zeckendorf", 4, players) == 2
    assert [n for n in range(5, 41) if start_winner("zeckendorf", n, players) is not None] == []


@pytest.mark.parametrize("c, k", [(1, 3), (1, 4), (2, 2), (2, 3), (2, 4)])
def test_with_c_plus_2_players_or_more_no_one_forces_a_win(c, k):
    """Miller, Sosis and Ye: with P >= c + 2 players no player can force a win for n >= 3c^2 + 6c + 3."""
    bound = 3 * c * c + 6 * c + 3
    for players in range(c + 2, 7):
        assert [n for n in range(bound, bound + 14) if start_winner(f"nacci-{c}-{k}", n, players) is not None] == []


def test_more_players_than_a_mask_of_teams_holds_are_refused():
    graph, solution = layer("zeckendorf", 5)
    with pytest.raises(EngineError, match="2..6"):
        forcing_seats(solution.play, 7, len(graph.keys))


@cache
def team_forces(variant: str, p: tuple[int, ...], mover: int, team: frozenset[int], players: int) -> bool:
    """Whether the players of `team` (0-based, absolute), coordinating, make the last move one of
    theirs from p, `mover` to play, whatever the others do together."""
    children = ref.MOVES[variant](p)
    if not children:
        return (mover - 1) % players in team
    after = [team_forces(variant, c, (mover + 1) % players, team, players) for c in children]
    return any(after) if mover in team else all(after)


def members(t: int) -> frozenset[int]:
    return frozenset(seat for seat in range(6) if t >> seat & 1)


@pytest.mark.parametrize("variant, top", [("zeckendorf", 12), ("reversed", 11), ("nacci-2-2", 14), ("nacci-1-3", 10)])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_team_agrees_with_the_plain_solver(variant, top, players):
    """Every position's mask of teams, team by team, against the plain coalition game; and
    Zermelo: of two teams that split the players, exactly one can force a win."""
    everyone = (1 << players) - 1
    for n in range(1, top + 1):
        graph, solution = layer(variant, n)
        masks = teams_of(solution.play, players, len(graph.keys))
        game = get_variant(variant)
        for i, counts in enumerate(game.decode(graph.keys)):
            p = ref.norm([int(x) for x in counts])
            got = int(masks[i])
            want = sum(1 << t for t in range(1, everyone + 1) if team_forces(variant, p, 0, members(t), players))
            assert got == want, (variant, n, p, players, bin(got), bin(want))
            assert all((got >> t & 1) != (got >> (everyone ^ t) & 1) for t in range(1, everyone)), (variant, n, p)
