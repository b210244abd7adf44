"""Strategy profiles (`zeckdb play`): the game from a position when each player follows a
profile, computed exactly on the stored graph of its layer (on demand: nothing is stored).

A profile gives, at every position, the probability of each move for the player to move:

    perfect            the move `zeckdb position` ranks first: the fastest win, else the slowest
                       loss (ties by move code, as it lists them)
    random             every legal move alike: the model of the stored random-play odds
    best-response      the move that maximises its player's chance to win against the other
                       player's profile (ties: the perfect ranking); the other may not be one too
    combine-largest    the Zeckendorf game's deterministic preferences (Li et al.,
    combine-smallest   arXiv:2006.16457): the combine at the largest (smallest) place, else the
    split-largest      split there; split-... prefer a split likewise. A combine is 2F1 -> F2
    split-smallest     (place 1) or F(i-1) + F(i) -> F(i+1) (place i); a split 2F2 -> F3 + F1
                       (place 2) or 2F(i) -> F(i+1) + F(i-2) (place i)

The length of the game is then a random variable: its distribution comes from one sweep of
the layer's moves, weighted by the two profiles in turn (kernels.profile_lengths); the last
mover wins, so Player 1 (the player to move at the position) wins the games of odd length.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
import re
from typing import Any

import numpy as np

from .engine import kernels
from .engine.contract import Position, Variant
from .errors import UsageError, opt

PROFILES = ("perfect", "random", "best-response", "combine-largest", "combine-smallest", "split-largest",
            "split-smallest")
DETERMINISTIC = PROFILES[3:]
# the move names of the Zeckendorf game, by kind and place (its rules module names them so)
PLACES = [(re.compile(r"merge 2F1"), "combine", lambda m: 1),
          (re.compile(r"combine F(\d+)\+F(\d+)"), "combine", lambda m: int(m[2])),
          (re.compile(r"split 2F(\d+)"), "split", lambda m: int(m[1]))]


@dataclass
class PlayResult:
    """A game under two profiles: each player's chance to win, the exact length distribution."""

    variant: str
    position: list[int]
    text: str
    n: int
    p1: str
    p2: str
    p1_wins: float
    p2_wins: float
    expected_length: float
    shortest: int
    longest: int
    lengths: dict[int, float]  # length -> probability (those with a probability above 0)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["lengths"] = {str(k): v for k, v in self.lengths.items()}
        return out


@dataclass
class Layer:
    """A layer's moves in a game's direction (CSR by id), an order with children first, and
    what the perfect ranking reads of each position."""

    offsets: np.ndarray
    targets: np.ndarray
    codes: np.ndarray
    order: np.ndarray
    win: np.ndarray
    remoteness: np.ndarray


def check_profiles(variant: Variant, p1: str, p2: str) -> None:
    for name, profile in ((opt("p1"), p1), (opt("p2"), p2)):
        if profile not in PROFILES:
            raise UsageError(f"unknown profile {profile[:30]!r} for {name}: choose one of {', '.join(PROFILES)}")
        if profile in DETERMINISTIC and variant.name != "zeckendorf":
            raise UsageError(f"{profile} is a preference of the Zeckendorf game's moves (combine or split, by place): "
                             f"{variant.name} has other moves; choose perfect, random or best-response")
    if p1 == p2 == "best-response":
        raise UsageError("both players cannot best-respond: a best response answers a fixed profile of the other "
                         "player; give one of them perfect, random or a preference")
    if variant.players != 2:
        raise UsageError(f"{variant.name} is a game of {variant.players} players: profiles are played by two")


def load(store: Any, variant: Variant, n: int) -> Layer:
    """Layer n of `variant` from the store, in its direction of play."""
    src, dst, codes, leaves = store.layer_moves(variant.graph_name, n)
    if leaves:
        raise UsageError(f"{variant.name}'s moves leave the layer (n changes as it is played): `zeckdb play` follows "
                         "the games of one layer, such as the Zeckendorf, reversed, nacci, build-up and ordered games")
    if variant.reversed:
        src, dst = dst, src
    values = store.layer_values(variant.name, n)
    win, remoteness = values[0], values[1]
    size = len(win)
    offsets, perm = kernels.group(src, size)
    targets, codes = dst[perm], codes[perm]
    order = kernels.topological_order(offsets, targets)
    return Layer(offsets, targets.astype(np.int64), codes.astype(np.int64), order, win, remoteness)


def _pick(layer: Layer, key: np.ndarray) -> np.ndarray:
    """One-hot edge weights: at each position, the move of the lowest key."""
    weights = np.zeros(len(layer.targets), dtype=np.float64)
    starts = layer.offsets[:-1]
    moving = np.flatnonzero(layer.offsets[1:] > starts)
    if len(moving):
        # argmin per position: sort the edges by (position, key), take each position's first
        source = np.repeat(np.arange(len(starts)), np.diff(layer.offsets))
        ranked = np.lexsort((key, source))
        first = ranked[np.searchsorted(source[ranked], moving)]
        weights[first] = 1.0
    return weights


def perfect_key(layer: Layer) -> np.ndarray:
    """Per move, its place in `zeckdb position`'s ranking (lower first): a move to a lost position
    wins, fastest first; then the losing moves, slowest first; ties by move code."""
    child = layer.targets
    rem = layer.remoteness[child].astype(np.int64)
    wins = layer.win[child] == 0
    top = int(rem.max(initial=0)) + 1
    codes = int(layer.codes.max(initial=0)) + 1
    return np.where(wins, rem, top + (top - rem)) * codes + layer.codes


def preference_key(layer: Layer, variant: Variant, profile: str) -> np.ndarray:
    """Per move of the Zeckendorf game, its place under a deterministic preference (lower first)."""
    kinds, places = [], []
    for name in variant.move_names:
        for pattern, kind, place in PLACES:
            match = pattern.fullmatch(name)
            if match:
                kinds.append(kind)
                places.append(place(match))
                break
        else:
            raise UsageError(f"{profile} does not know the move {name!r} of {variant.name}")
    kind = np.array([k == profile.split("-")[0] for k in kinds])[layer.codes]  # the preferred kind first
    place = np.array(places, dtype=np.int64)[layer.codes]
    return np.where(kind, 0, 1000) + (-place if profile.endswith("largest") else place)


def weights(layer: Layer, variant: Variant, profile: str) -> np.ndarray:
    """The edge weights of a profile that does not depend on the other player's."""
    if profile == "random":
        degree = np.diff(layer.offsets)
        return 1.0 / np.repeat(degree, degree).astype(np.float64)
    if profile == "perfect":
        return _pick(layer, perfect_key(layer))
    return _pick(layer, preference_key(layer, variant, profile))


def play(store: Any, variant: Variant, position: Position, n: int, start_id: int, p1: str, p2: str) -> PlayResult:
    check_profiles(variant, p1, p2)
    layer = load(store, variant, n)
    profiles = {p: weights(layer, variant, p) for p in {p1, p2} if p != "best-response"}
    if "best-response" in (p1, p2):
        other = profiles[p2 if p1 == "best-response" else p1]
        chosen = np.empty(len(layer.offsets) - 1, dtype=np.int64)
        kernels.best_response(layer.offsets, layer.targets, layer.order, other, perfect_key(layer), chosen)
        answer = np.zeros(len(layer.targets), dtype=np.float64)
        answer[chosen[chosen >= 0]] = 1.0
        profiles["best-response"] = answer
    longest = len(layer.order) + 1  # a bound: every move goes down the order
    dist = kernels.profile_lengths(layer.offsets, layer.targets, start_id, longest, profiles[p1], profiles[p2])
    lengths = {int(t): float(p) for t, p in enumerate(dist) if p > 0}
    p1_wins = float(sum(p for t, p in lengths.items() if t % 2 == 1))
    return PlayResult(variant.name, list(position), variant.format(position), n, p1, p2, p1_wins, 1.0 - p1_wins,
                      float(sum(t * p for t, p in lengths.items())), min(lengths), max(lengths), lengths)
