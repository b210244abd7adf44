"""The registry of game variants. Adding a variant: one rules module, one line here.

A family takes its parameters in its name (`black-hole-4`, `nacci-2-3`); `variant_names()`
are the variants a build without --variant covers, members of families included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import UnknownVariantError, opt
from .base import Position, Variant
from .black_hole import M_RANGE, BlackHole
from .build_up import BuildUp
from .empty_board import BlackHoleEmptyBoard
from .nacci import C_RANGE, K_RANGE, Nacci, ReversedNacci
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


@dataclass(frozen=True)
class Family:
    """Games named `prefix-P1-P2...`: a constructor taking the parameters, their letters
    as users read them, the accepted and the default-built members, and the member whose
    start `zeckdb variants` shows."""

    make: Callable[..., Variant]
    letters: tuple[str, ...]
    accepted: tuple[tuple[int, ...], ...]
    default: tuple[tuple[int, ...], ...]
    example: tuple[int, ...]
    aliases: tuple[tuple[tuple[int, ...], str], ...] = ()  # members that are another game: refused, naming it


def _one(values: range) -> tuple[tuple[int, ...], ...]:
    return tuple((m,) for m in values)


NACCI = tuple((c, k) for c in C_RANGE for k in K_RANGE if (c, k) != (1, 2))
_FAMILIES: dict[str, Family] = {
    "black-hole": Family(BlackHole, ("M",), _one(M_RANGE), _one(range(2, 6)), (4,)),
    "black-hole-empty-board": Family(BlackHoleEmptyBoard, ("M",), _one(M_RANGE), _one(range(2, 6)), (4,)),
    # built on request only: the default build stays the papers' games
    "nacci": Family(Nacci, ("C", "K"), NACCI, (), (2, 2), (((1, 2), "zeckendorf"),)),
    "reversed-nacci": Family(ReversedNacci, ("C", "K"), NACCI, (), (2, 2), (((1, 2), "reversed"),)),
}

_instances: dict[str, Variant] = {}


def variant_names(all_members: bool = False) -> list[str]:
    """Every variant a default build covers (with all_members, every member of each family)."""
    return list(_REGISTRY) + [_member(prefix, m) for prefix, family in _FAMILIES.items()
                              for m in (family.accepted if all_members else family.default)]


def _member(prefix: str, parameters: tuple[int, ...]) -> str:
    return "-".join([prefix, *map(str, parameters)])


@dataclass(frozen=True)
class Game:
    """One entry of the catalog: a game, or a family of games with a parameter."""

    label: str  # as users read it: `zeckendorf`, `black-hole-M (M = 2..12)`
    family: str | None  # a family's prefix (`black-hole`), None for a single game
    parameters: tuple[tuple[int, ...], ...]  # a family's accepted members' parameters; () for a single game
    title: str
    example: Variant  # the game itself, or the family's example member

    @property
    def members(self) -> list[str]:
        """The variant names this entry stands for."""
        return [_member(self.family, m) for m in self.parameters] if self.family else [self.label]


def games() -> list[Game]:
    """Every registered game, a family once (its example member standing for it)."""
    out = [Game(name, None, (), get_variant(name).title, get_variant(name)) for name in _REGISTRY]
    for prefix, family in _FAMILIES.items():
        example = get_variant(_member(prefix, family.example))
        shown = ", ".join(f"{letter} = {value}" for letter, value in zip(family.letters, family.example, strict=True))
        out.append(Game(_family_label(prefix, family), prefix, family.accepted,
                        f"{example.family_title or example.title} (start shown: {shown})", example))
    return out


def catalog() -> list[tuple[str, str, Variant]]:
    """(label, title, variant) of every entry of games()."""
    return [(game.label, game.title, game.example) for game in games()]


def _family_label(prefix: str, family: Family) -> str:
    """`black-hole-M (M = 2..12)`, `nacci-C-K (C = 1..4, K = 2..4)`."""
    ranges = ", ".join(f"{letter} = {min(m[i] for m in family.accepted)}..{max(m[i] for m in family.accepted)}"
                       for i, letter in enumerate(family.letters))
    return f"{'-'.join([prefix, *family.letters])} ({ranges})"


def _valid_names() -> str:
    families = ", ".join(_family_label(prefix, family) for prefix, family in _FAMILIES.items())
    return f"{', '.join(_REGISTRY)}, {families}"


def _plain_number(text: str) -> bool:
    """ASCII digits without a leading zero, at most three: `black-hole-04` is no name."""
    return text.isascii() and text.isdigit() and len(text) <= 3 and str(int(text)) == text


def _construct(name: str) -> Variant | None:
    if name in _REGISTRY:
        return _REGISTRY[name]()
    for prefix, family in _FAMILIES.items():
        parts = name.removeprefix(prefix + "-").split("-") if name.startswith(prefix + "-") else []
        if len(parts) != len(family.letters) or not all(_plain_number(p) for p in parts):
            continue
        parameters = tuple(int(p) for p in parts)
        for member, game in family.aliases:
            if parameters == member:
                raise UnknownVariantError(f"{name} is the game registered as {game}: use {opt('variant')} {game}")
        if parameters in family.accepted:
            return family.make(*parameters)
    return None


def get_variant(name: str) -> Variant:
    """The variant registered under `name`; the error lists the valid names."""
    if name not in _instances:
        variant = _construct(name)
        if variant is None:
            raise UnknownVariantError(f"unknown variant {name!r}: choose one of {_valid_names()}")
        _instances[name] = variant
    return _instances[name]


__all__ = ["Family", "Game", "Position", "Variant", "catalog", "games", "get_variant", "variant_names"]
