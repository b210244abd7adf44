"""Misère twins: every two-player game of the registry under the other convention.

Under normal play the player who moves last wins; under misère play that player loses
(docs/games.md, "Misère play"). The twin of a game `G` is `G-misere`: the same positions
and moves, its graph the normal game's (so its moves are stored once, as `reversed` shares
`zeckendorf`'s), only its terminal positions scored the other way by the engine
(contract.convention). Its values, outcomes, strategies and lengths are its own.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine.contract import Variant
from ..errors import UnknownVariantError

SUFFIX = "-misere"
TITLE = "{title}, under misère play (the last mover loses)"


def base_name(name: str) -> str | None:
    """The normal game a twin's name stands for (`zeckendorf` of `zeckendorf-misere`), or None."""
    return name[: -len(SUFFIX)] if name.endswith(SUFFIX) and len(name) > len(SUFFIX) else None


def twin(base: Variant, make: Callable[[], Variant]) -> Variant:
    """The misère twin of `base`, a two-player game of normal play: an instance of the game of
    its own (`make` constructs one, as the registry constructs `base`), so that nothing the
    game keeps (a memo, a cache of a plugin's) is shared with the normal game; its graph is
    the normal game's and its terminal positions win for the player to move.

    Not a wrapper that hands the base's methods its calls: those would run on the base,
    naming it in their messages, and a game's method calling super() would fail on a wrapper."""
    name = base.name + SUFFIX
    if base.players != 2:
        raise UnknownVariantError(f"{name}: misère play is defined for two-player games, and {base.name} has "
                                  f"{base.players} players (its normal game is {base.name})")
    if base.convention != "normal":
        raise UnknownVariantError(f"{name}: {base.name} is played under misère play already")
    made = make()
    if type(made) is not type(base) or made.name != base.name:
        raise UnknownVariantError(f"{name}: {base.name} did not make the same game again, so it has no twin")
    made.name = name
    made.graph = base.graph_name  # the moves stored once, under the normal game's graph
    made.convention = "misere"
    made.normal_of = base.name
    made.query_columns = frozenset()  # the normal game's conjectures (reversed's 1/phi) are not the twin's
    made.title = TITLE.format(title=base.title)
    if base.family_title:
        made.family_title = TITLE.format(title=base.family_title)
    return made
