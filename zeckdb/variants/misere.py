"""Misère twins: every two-player game of the registry under the other convention.

Under normal play the player who moves last wins; under misère play that player loses
(docs/games.md, "Misère play"). The twin of a game `G` is `G-misere`: the same positions
and moves, its graph the normal game's (so its moves are stored once, as `reversed` shares
`zeckendorf`'s), only its terminal positions scored the other way by the engine
(contract.convention). Its values, outcomes, strategies and lengths are its own.
"""

from __future__ import annotations

import copy

from ..engine.contract import Variant
from ..errors import UnknownVariantError

SUFFIX = "-misere"
TITLE = "{title}, under misère play (the last mover loses)"


def base_name(name: str) -> str | None:
    """The normal game a twin's name stands for (`zeckendorf` of `zeckendorf-misere`), or None."""
    return name[: -len(SUFFIX)] if name.endswith(SUFFIX) and len(name) > len(SUFFIX) else None


def twin(base: Variant) -> Variant:
    """The misère twin of a two-player game of normal play: a copy of the game whose graph is
    the normal game's and whose terminal positions win for the player to move."""
    name = base.name + SUFFIX
    if base.players != 2:
        raise UnknownVariantError(f"{name}: misère play is defined for two-player games, and {base.name} has "
                                  f"{base.players} players (its normal game is {base.name})")
    if base.convention != "normal":
        raise UnknownVariantError(f"{name}: {base.name} is played under misère play already")
    made = copy.copy(base)
    made.__dict__.pop("_closures", None)  # a memo of the game's own, rebuilt for the twin
    made.name = name
    made.graph = base.graph_name  # the moves stored once, under the normal game's graph
    made.convention = "misere"
    made.normal_of = base.name
    made.query_columns = frozenset()  # the normal game's conjectures (reversed's 1/phi) are not the twin's
    made.title = TITLE.format(title=base.title)
    if base.family_title:
        made.family_title = TITLE.format(title=base.family_title)
    return made
