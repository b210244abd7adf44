"""The registry of game variants. Adding a variant: one rules module, one line here; or, from a
package of its own, an entry point in the group `zeckdb.games` (docs/adding-a-game.md).

A family takes its parameters in its name (`black-hole-4`, `nacci-2-3`, `zeckendorf-p3`);
`variant_names()` are the variants a build without --variant covers, members of families
included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import UnknownVariantError, did_you_mean, opt
from ..engine.contract import Position, Variant, check_contract
from .accelerated import Accelerated
from .black_hole import M_RANGE, BlackHole
from .build_up import BuildUp
from .empty_board import BlackHoleEmptyBoard
from .empty_board_any import BlackHoleEmptyBoardAny
from .nacci import C_RANGE, K_RANGE, Nacci, ReversedNacci
from . import misere
from .nim import FibonacciNim
from .plugins import GROUP as PLUGIN_GROUP, Probe, discovered, load as load_plugin, probe as probe_plugin, probe_all
from .ordered import Ordered
from .players import P_RANGE, with_players
from .quilt import Quilt
from .reversed import Reversed
from .stagnant import ReversedStagnant
from .zeckendorf import Zeckendorf

_REGISTRY: dict[str, Callable[[], Variant]] = {
    "zeckendorf": Zeckendorf,
    "reversed": Reversed,
    "quilt": Quilt,
    "build-up": BuildUp,
    "fibonacci-nim": FibonacciNim,
    "ordered": Ordered,
    "accelerated": Accelerated,
    "reversed-stagnant": ReversedStagnant,
}
# built when named (--variant), not by a build of every game: the accelerated game's moves are
# many times the Zeckendorf game's, and its layers as many; the stagnant one answers one open
# question and needs its own graph (its moves are not the stored Zeckendorf graph's)
ON_REQUEST = frozenset({"accelerated", "reversed-stagnant"})


@dataclass(frozen=True)
class Family:
    """Games named `prefix-P1-P2...` (a parameter may carry a mark: `zeckendorf-p3`): a
    constructor taking the parameters, their letters as users read them, the accepted and
    the default-built members, and the member whose start `zeckdb variants` shows."""

    prefix: str
    make: Callable[..., Variant]
    letters: tuple[str, ...]
    accepted: tuple[tuple[int, ...], ...]
    default: tuple[tuple[int, ...], ...]
    example: tuple[int, ...]
    aliases: tuple[tuple[tuple[int, ...], str], ...] = ()  # members that are another game: refused, naming it
    marks: tuple[str, ...] = ()  # per parameter, the letters written before its value (default none)

    @property
    def pattern(self) -> str:
        """`black-hole-M`, `nacci-C-K-pP`: the family's name as users read it."""
        return "-".join([self.prefix, *(mark + letter for mark, letter in zip(self._marks, self.letters, strict=True))])

    def member(self, parameters: tuple[int, ...]) -> str:
        return "-".join([self.prefix, *(mark + str(value) for mark, value in zip(self._marks, parameters, strict=True))])

    def parameters_of(self, name: str) -> tuple[int, ...] | None:
        """The parameters `name` gives this family, or None if it is not written as its member."""
        parts = name.removeprefix(self.prefix + "-").split("-") if name.startswith(self.prefix + "-") else []
        if len(parts) != len(self.letters) or not all(p.startswith(m) for p, m in zip(parts, self._marks, strict=False)):
            return None
        values = [p.removeprefix(m) for p, m in zip(parts, self._marks, strict=True)]
        return tuple(int(v) for v in values) if all(_plain_number(v) for v in values) else None

    @property
    def _marks(self) -> tuple[str, ...]:
        return self.marks or ("",) * len(self.letters)


def _one(values: range) -> tuple[tuple[int, ...], ...]:
    return tuple((m,) for m in values)


NACCI = tuple((c, k) for c in C_RANGE for k in K_RANGE if (c, k) != (1, 2))
NACCI_PLAYERS = tuple((c, k, p) for c, k in NACCI for p in P_RANGE)
_FAMILIES: list[Family] = [
    Family("black-hole", BlackHole, ("M",), _one(M_RANGE), _one(range(2, 6)), (4,)),
    Family("black-hole-empty-board", BlackHoleEmptyBoard, ("M",), _one(M_RANGE), _one(range(2, 6)), (4,)),
    # placing in any bin (the paper's section 6), built on request; for M = 2, 3 every bin is outermost:
    # the paper's game, named as such
    Family("black-hole-empty-board-any", BlackHoleEmptyBoardAny, ("M",), _one(range(4, M_RANGE.stop)), (), (4,),
           tuple(((m,), f"black-hole-empty-board-{m}") for m in (2, 3))),
    # built on request only: the default build stays the papers' games
    Family("nacci", Nacci, ("C", "K"), NACCI, (), (2, 2), (((1, 2), "zeckendorf"),)),
    Family("reversed-nacci", ReversedNacci, ("C", "K"), NACCI, (), (2, 2), (((1, 2), "reversed"),)),
    Family("zeckendorf", lambda p: with_players(Zeckendorf(), p, c=1), ("P",), _one(P_RANGE), (), (3,),
           (((2,), "zeckendorf"),), marks=("p",)),
    # the quilt paper's question (Miller and Newlon, section 3): who wins with more players
    Family("quilt", lambda p: with_players(Quilt(), p, c=None), ("P",), _one(P_RANGE), (), (3,),
           (((2,), "quilt"),), marks=("p",)),
    Family("nacci", lambda c, k, p: with_players(Nacci(c, k), p, c), ("C", "K", "P"), NACCI_PLAYERS, (), (2, 2, 3),
           (*(((1, 2, p), f"zeckendorf-p{p}") for p in P_RANGE), ((1, 2, 2), "zeckendorf"),
            *(((c, k, 2), f"nacci-{c}-{k}") for c, k in NACCI)),
           marks=("", "", "p")),
]

_instances: dict[str, Variant] = {}


def variant_names(all_members: bool = False) -> list[str]:
    """Every variant a default build covers (with all_members, every game and every member of
    each family)."""
    return [name for name in _REGISTRY if all_members or name not in ON_REQUEST] + [
        family.member(m) for family in _FAMILIES for m in (family.accepted if all_members else family.default)]


@dataclass(frozen=True)
class Game:
    """One entry of the catalog: a game, or a family of games with a parameter."""

    label: str  # as users read it: `zeckendorf`, `black-hole-M (M = 2..12)`
    family: str | None  # a family's name (`black-hole-M`, `nacci-C-K-pP`), None for a single game
    members: list[str]  # the variant names this entry stands for
    title: str
    example: Variant  # the game itself, or the family's example member


def games() -> list[Game]:
    """Every game of zeckdb's own, a family once (its example member standing for it). The
    plugins' games are listed from their probes (plugin_catalogue), never loaded for it."""
    out = [Game(name, None, [name], get_variant(name).title, get_variant(name)) for name in _REGISTRY]
    for family in _FAMILIES:
        example = get_variant(family.member(family.example))
        shown = ", ".join(f"{letter} = {value}" for letter, value in zip(family.letters, family.example, strict=True))
        out.append(Game(_family_label(family), family.pattern, [family.member(m) for m in family.accepted],
                        f"{example.family_title or example.title} (start shown: {shown})", example))
    twins = misere_twins()
    example = get_variant("zeckendorf" + misere.SUFFIX)
    out.append(Game(f"GAME{misere.SUFFIX} (every two-player game)", f"GAME{misere.SUFFIX}", twins,
                    "Any two-player game above under misère play, the last mover losing (start shown: zeckendorf)",
                    example))
    return out


def misere_twins() -> list[str]:
    """The misère twin of every two-player game of zeckdb's own (families: every member). A
    family's members have its example's players: only the examples are made (the command
    line's help lists the games at every start)."""
    names = [name for name in _REGISTRY if get_variant(name).players == 2]
    names += [family.member(m) for family in _FAMILIES if get_variant(family.member(family.example)).players == 2
              for m in family.accepted]
    return [name + misere.SUFFIX for name in names]


def plugin_catalogue() -> tuple[list[Probe], list[str]]:
    """The installed plugins' games as each one's probe reports it (variants.plugins: in a
    child process, bounded in time), and one line for each plugin that does not load."""
    return probe_all(plugins())


def on_request() -> list[str]:
    """The games and families a default build leaves out (built when named), as users read them."""
    return sorted(ON_REQUEST) + [family.pattern for family in _FAMILIES if not family.default] + \
        [f"GAME{misere.SUFFIX}"]


def summary_games() -> list[str]:
    """zeckdb's own games that `zeckdb build --summary-only` solves, as users read them (a
    family once); a plugin's game says so itself (its summary_refusal)."""
    return [game.label for game in games() if game.example.summary_refusal is None]


def catalog() -> list[tuple[str, str, Variant]]:
    """(label, title, variant) of every entry of games()."""
    return [(game.label, game.title, game.example) for game in games()]


def _family_label(family: Family) -> str:
    """`black-hole-M (M = 2..12)`, `nacci-C-K (C = 1..4, K = 2..4)`."""
    ranges = ", ".join(f"{letter} = {min(m[i] for m in family.accepted)}..{max(m[i] for m in family.accepted)}"
                       for i, letter in enumerate(family.letters))
    return f"{family.pattern} ({ranges})"


def _all_names() -> list[str]:
    """Every name a game can be asked for by (the twins' too), for suggestions."""
    names = variant_names(all_members=True) + list(plugins())
    return names + [name + misere.SUFFIX for name in names]


def _valid_names() -> str:
    families = ", ".join(_family_label(family) for family in _FAMILIES)
    added = "".join(f", {name}" for name in plugins())
    return f"{', '.join(_REGISTRY)}, {families}{added}, and GAME{misere.SUFFIX} for any two-player game of these"


def _plain_number(text: str) -> bool:
    """ASCII digits without a leading zero, at most three: `black-hole-04` is no name."""
    return text.isascii() and text.isdigit() and len(text) <= 3 and str(int(text)) == text


def plugins() -> dict[str, Any]:
    """The games other packages add through the entry-point group `zeckdb.games` (name ->
    entry point, not loaded: variants.plugins loads one when its game is asked for); a name
    zeckdb gives a game itself is left out: one of its games, a member of a family, the misère
    twin of one of those or of another plugin's game (a plugin cannot stand in for them)."""
    found = discovered(frozenset(_REGISTRY))
    return {name: point for name, point in found.items()
            if not _own_name(name) and not ((base := misere.base_name(name)) is not None
                                            and (_own_name(base) or base in found))}


def _own_name(name: str) -> bool:
    """Whether zeckdb names a game `name` itself: one of its games or a member of its families."""
    return name in _REGISTRY or any(f.parameters_of(name) is not None for f in _FAMILIES)


def _construct(name: str) -> Variant | None:
    if name in _REGISTRY:
        return _REGISTRY[name]()
    normal = misere.base_name(name)
    if normal is not None and name not in plugins():
        try:
            base = get_variant(normal)
        except UnknownVariantError:
            raise UnknownVariantError(f"unknown variant {name[:64]!r}: {did_you_mean(name, _all_names())}a misère "
                                      f"twin is named after its normal game (NAME-misere), and {normal[:64]!r} is "
                                      f"none: choose one of {_valid_names()}") from None
        return misere.twin(base, lambda: _construct_normal(normal))
    if name in plugins():
        return load_plugin(name, plugins()[name])
    for family in _FAMILIES:
        parameters = family.parameters_of(name)
        if parameters is None:
            continue
        for member, game in family.aliases:
            if parameters == member:
                raise UnknownVariantError(f"{name} is the game registered as {game}: name it {game} instead")
        if parameters in family.accepted:
            return family.make(*parameters)
    return None


def _construct_normal(name: str) -> Variant:
    """A new instance of the game `name` (get_variant found it), for its twin to be made of."""
    made = _construct(name)
    if made is None:
        raise UnknownVariantError(f"unknown variant {name[:64]!r}")
    return made


def get_variant(name: str) -> Variant:
    """The variant registered under `name`; the error lists the valid names."""
    if not isinstance(name, str):  # a library caller's object: a one-line error, not a TypeError deep in here
        raise UnknownVariantError(f"bad variant {str(name)[:40]!r}: give a game's name, e.g. \"zeckendorf\" "
                                  "(zeckdb.api.variants() lists them)")
    if name not in _instances:
        if "," in name:
            flag = opt("variant")
            repeated = " ".join(f"{flag} {part.strip()[:40]}" for part in name.split(",")[:6])
            raise UnknownVariantError(f"unknown variant {name[:64]!r}: {flag} names one game, and repeats for more: "
                                      f"{repeated}")
        variant = _construct(name)
        if variant is None:
            raise UnknownVariantError(f"unknown variant {name[:64]!r}: {did_you_mean(name, _all_names())}"
                                      f"choose one of {_valid_names()}")
        check_contract(variant)
        _instances[name] = variant
    return _instances[name]


__all__ = ["PLUGIN_GROUP", "Family", "Game", "Position", "Probe", "UnknownVariantError", "Variant", "catalog", "games",
           "get_variant", "misere_twins", "plugin_catalogue", "plugins", "probe_all", "probe_plugin", "summary_games",
           "variant_names"]
