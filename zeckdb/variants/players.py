"""Games of P players (Cusenza et al., arXiv:2009.03708; Miller, Sosis, Ye, arXiv:2211.14973),
docs/games.md: a two-player game's moves, players 1..P moving in turn, Player 1 first, the
last mover wins. A player has a winning strategy when they can force being the last mover
against every joint behaviour of the other P - 1 players; the engine finds which player, if
any, can (engine.solve.forcing_seats) for any game that declares its `players`.
"""

from __future__ import annotations

from ..engine.contract import Variant

P_RANGE = range(3, 7)
SOURCE = "Cusenza et al., Winning strategies for generalized Zeckendorf games (arXiv:2009.03708)"


def forcing_bound(c: int, players: int) -> int | None:
    """Miller, Sosis and Ye's bound for the (c,k)-nacci games (c = 1, k = 2: the Zeckendorf game):
    with P >= c + 2 players nobody can force a win from the start of n >= 3c^2 + 6c + 3."""
    return 3 * c * c + 6 * c + 3 if players >= c + 2 else None


def with_players(game: Variant, players: int, c: int | None) -> Variant:
    """`game` (a new instance of a two-player game) played by `players` players: `zeckendorf`
    becomes `zeckendorf-p3`, on the same graph, with the same moves. c: the (c,k)-nacci game's
    c, whose bound applies (forcing_bound); None for a game no bound is proved for (the quilt)."""
    game.graph = game.graph_name
    game.family_title = f"{game.family_title or game.title}; P players in turn"
    game.name = f"{game.name}-p{players}"
    game.title = f"{game.title} for {players} players"
    game.source = f"{game.source}; for P players: {SOURCE}"
    game.players = players
    game.forcing_bound = None if c is None else forcing_bound(c, players)
    return game
