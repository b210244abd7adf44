"""Games of P players (Cusenza et al., arXiv:2009.03708; Miller, Sosis, Ye, arXiv:2211.14973),
docs/games.md: a two-player game's moves, players 1..P moving in turn, Player 1 first, the
last mover wins. A player has a winning strategy when they can force being the last mover
against every joint behaviour of the other P - 1 players; the engine finds which player, if
any, can (engine.solve.forcing_seats) for any game that declares its `players`.
"""

from __future__ import annotations

from .base import Variant

P_RANGE = range(3, 7)
SOURCE = "Cusenza et al., Winning strategies for generalized Zeckendorf games (arXiv:2009.03708)"


def with_players(game: Variant, players: int) -> Variant:
    """`game` (a new instance) played by `players` players: `zeckendorf` becomes
    `zeckendorf-p3`, on the same graph, with the same moves."""
    game.graph = game.graph_name
    game.family_title = f"{game.family_title or game.title}; P players in turn"
    game.name = f"{game.name}-p{players}"
    game.title = f"{game.title} for {players} players"
    game.source = f"{game.source}; for P players: {SOURCE}"
    game.players = players
    return game
