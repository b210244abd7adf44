"""The registry of game variants. Adding a variant: one rules module, one line here.

A family takes a parameter in its name (`black-hole-4`); `variant_names()` are
the variants a build without --variant covers, members of families included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import UnknownVariantError
from .base import Position, Variant
from .black_hole import M_RANGE, BlackHole
from .build_up import BuildUp
from .empty_board import BlackHoleEmptyBoard
from .nim import FibonacciNim
from .ordered import Ordered
from .quilt import Quilt
from .reversed import Reversed
from .zeckendorf import Zeckendorf

_REGISTRY: dict[str, Callable[[], Variant]] = {
    "zeckendorf": Zeckendorf,
    "reversed": Reversed,
    "quilt": Quilt,
    "build-up": BuildUp,
    "fibonacci-nim": FibonacciNim,
    "ordered": Ordered,
}

# family prefix -> (constructor taking the parameter, accepted parameters, members built by default)
_FAMILIES: dict[str, tuple[Callable[[int], Variant], range, range]] = {
    "black-hole": (BlackHole, M_RANGE, range(2, 6)),
    "black-hole-empty-board": (BlackHoleEmptyBoard, M_RANGE, range(2, 6)),
}
FAMILY_EXAMPLE = 4  # the member whose start `zeckdb variants` shows for a family

_instances: dict[str, Variant] = {}


def variant_names(all_members: bool = False) -> list[str]:
    """Every variant a default build covers (with all_members, every member of each family)."""
    return list(_REGISTRY) + [f"{prefix}-{m}" for prefix, (_, accepted, default) in _FAMILIES.items()
                              for m in (accepted if all_members else default)]


@dataclass(frozen=True)
class Game:
    """One entry of the catalog: a game, or a family of games with a parameter."""

    label: str  # as users read it: `zeckendorf`, `black-hole-M (M = 2..12)`
    family: str | None  # a family's prefix (`black-hole`), None for a single game
    parameters: tuple[int, ...]  # a family's accepted M; () for a single game
    title: str
    example: Variant  # the game itself, or the family's member M = FAMILY_EXAMPLE

    @property
    def members(self) -> list[str]:
        """The variant names this entry stands for."""
        return [f"{self.family}-{m}" for m in self.parameters] if self.family else [self.label]


def games() -> list[Game]:
    """Every registered game, a family once (its member M = FAMILY_EXAMPLE standing for it)."""
    out = [Game(name, None, (), get_variant(name).title, get_variant(name)) for name in _REGISTRY]
    for prefix, (_, accepted, _) in _FAMILIES.items():
        example = get_variant(f"{prefix}-{FAMILY_EXAMPLE}")
        out.append(Game(_family_label(prefix, accepted), prefix, tuple(accepted),
                        f"{example.family_title or example.title} (start shown: M = {FAMILY_EXAMPLE})", example))
    return out


def catalog() -> list[tuple[str, str, Variant]]:
    """(label, title, variant) of every entry of games()."""
    return [(game.label, game.title, game.example) for game in games()]


def _family_label(prefix: str, accepted: range) -> str:
    return f"{prefix}-M (M = {accepted.start}..{accepted.stop - 1})"


def _valid_names() -> str:
    families = ", ".join(_family_label(prefix, ms) for prefix, (_, ms, _) in _FAMILIES.items())
    return f"{', '.join(_REGISTRY)}, {families}"


def _construct(name: str) -> Variant | None:
    if name in _REGISTRY:
        return _REGISTRY[name]()
    prefix, _, parameter = name.rpartition("-")
    if prefix in _FAMILIES and parameter.isdigit():
        make, accepted, _ = _FAMILIES[prefix]
        if int(parameter) in accepted:
            return make(int(parameter))
    return None


def get_variant(name: str) -> Variant:
    """The variant registered under `name`; the error lists the valid names."""
    if name not in _instances:
        variant = _construct(name)
        if variant is None:
            raise UnknownVariantError(f"unknown variant {name!r}: choose one of {_valid_names()}")
        _instances[name] = variant
    return _instances[name]


__all__ = ["Game", "Position", "Variant", "catalog", "games", "get_variant", "variant_names"]
