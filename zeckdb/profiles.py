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

The length of the game is then a random variable. Who wins (the last mover: Player 1, the
player to move at the position, wins the games of odd length), the expected length and the
shortest and longest game come from one pass over the layer, per position and side to move
(kernels.profile_values); the whole length distribution from a sweep of the layer's moves per
length, weighted by the two profiles in turn (kernels.profile_lengths), the costly part.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
import re
import time
from typing import Any
from collections.abc import Callable

import numpy as np

# (zeckdb.engine.kernels is imported in the functions that run kernels: importing it may wait for
# another process's compile, and a profile's name is checked, check_profiles, before anything waits)
from .engine.contract import Position, Variant, mover_wins, terminal_wins
from .errors import QueryLimitError, UsageError, did_you_mean, opt

PROFILES = ("perfect", "random", "best-response", "combine-largest", "combine-smallest", "split-largest",
            "split-smallest")
DETERMINISTIC = PROFILES[3:]
# the move names of the Zeckendorf game, by kind and place (its rules module names them so)
PLACES: list[tuple[re.Pattern[str], str, Callable[[re.Match[str]], int]]] = [
          (re.compile(r"merge 2F1"), "combine", lambda m: 1),
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
    lengths: dict[int, float] | None  # length -> probability (those above 0); None when not asked for
    p1_moves: list[dict[str, Any]]  # Player 1's moves at the position its profile may take, with their probability

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        if self.lengths is None:
            del out["lengths"]
        else:
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
            raise UsageError(f"unknown profile {profile[:30]!r} for {name}: {did_you_mean(profile, list(PROFILES))}"
                             f"choose one of {', '.join(PROFILES)}")
        if profile in DETERMINISTIC and not has_preferences(variant):
            raise UsageError(f"{profile} is a preference of the Zeckendorf game's moves (combine or split, by place): "
                             f"{variant.name} has other moves; choose perfect, random or best-response")
    if p1 == p2 == "best-response":
        raise UsageError("both players cannot best-respond: a best response answers a fixed profile of the other "
                         "player; give one of them perfect, random or a preference")
    if variant.players != 2:
        raise UsageError(f"{variant.name} is a game of {variant.players} players: profiles are played by two")


def has_preferences(variant: Variant) -> bool:
    """Whether the deterministic preferences (Li et al.) rank the game's moves: every move is one
    of the Zeckendorf game's (a merge, combine or split at a place), as in that game and its
    misère twin. The game's moves say it, not its name."""
    return all(any(pattern.fullmatch(name) for pattern, _, _ in PLACES) for name in variant.move_names)


def load(store: Any, variant: Variant, n: int) -> Layer:
    """Layer n of `variant` from the store, in its direction of play."""
    from .engine import kernels

    src, dst, codes, leaves = store.layer_moves(variant.graph_name, n)
    if leaves:
        raise UsageError(f"{variant.name}'s moves leave the layer (n changes as it is played): `zeckdb play` follows "
                         "the games of one layer, such as the Zeckendorf, reversed, nacci, build-up and ordered games")
    if variant.reversed:
        src, dst = dst, src
    values = store.positions.layer_values(variant.name, n)
    win, remoteness = values[0], values[1]
    size = len(win)
    offsets, perm = kernels.group(src, size)
    targets, codes = dst[perm], codes[perm]
    order = kernels.topological_order(offsets, targets)
    return Layer(offsets, targets.astype(np.int64), codes.astype(np.int64), order, win, remoteness)


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


class Profiles:
    """The edge weights of profiles on one layer, each computed once."""

    def __init__(self, layer: Layer, variant: Variant):
        self.layer = layer
        self.variant = variant
        self._weights: dict[str, np.ndarray] = {}
        self._responses: dict[str, np.ndarray] = {}
        self._perfect_key: np.ndarray | None = None

    def perfect_key(self) -> np.ndarray:
        if self._perfect_key is None:
            self._perfect_key = perfect_key(self.layer)
        return self._perfect_key

    def weights(self, profile: str) -> np.ndarray:
        """A profile that does not depend on the other player's."""
        from .engine import kernels

        if profile not in self._weights:
            layer = self.layer
            if profile == "random":
                degree = np.diff(layer.offsets)
                self._weights[profile] = 1.0 / np.repeat(degree, degree).astype(np.float64)
            elif profile == "perfect":
                self._weights[profile] = kernels.lowest_edges(layer.offsets, self.perfect_key())
            else:
                self._weights[profile] = kernels.lowest_edges(layer.offsets,
                                                              preference_key(layer, self.variant, profile))
        return self._weights[profile]

    def best_response(self, other: str) -> np.ndarray:
        """The best response to the fixed profile `other`, whichever seat it plays."""
        from .engine import kernels

        if other not in self._responses:
            layer = self.layer
            chosen = np.empty(len(layer.offsets) - 1, dtype=np.int64)
            kernels.best_response(layer.offsets, layer.targets, layer.order, self.weights(other), self.perfect_key(),
                                  chosen, terminal_wins(self.variant))
            answer = np.zeros(len(layer.targets), dtype=np.float64)
            answer[chosen[chosen >= 0]] = 1.0
            self._responses[other] = answer
        return self._responses[other]

    def pair(self, p1: str, p2: str) -> tuple[np.ndarray, np.ndarray]:
        """The edge weights of Player 1 (the player to move at the position) and Player 2."""
        first = self.best_response(p2) if p1 == "best-response" else self.weights(p1)
        second = self.best_response(p1) if p2 == "best-response" else self.weights(p2)
        return first, second


def play(store: Any, variant: Variant, position: Position, n: int, start_id: int, p1: str, p2: str,
         distribution: bool = True) -> PlayResult:
    """The game from `position` (id `start_id` in layer n) under the two profiles; with
    `distribution`, its length distribution too (a sweep per length, the costly part)."""
    from .engine import kernels

    check_profiles(variant, p1, p2)
    layer = load(store, variant, n)
    first, second = Profiles(layer, variant).pair(p1, p2)
    win, lose, mean, shortest, longest = kernels.profile_values(layer.offsets, layer.targets, layer.order, first,
                                                                second, terminal_wins(variant))
    lengths = None
    if distribution:
        dist = kernels.profile_lengths(layer.offsets, layer.targets, start_id, int(longest[0, start_id]), first,
                                       second)
        lengths = {int(t): float(p) for t, p in enumerate(dist) if p > 0}
    ids = {(code, variant.id_of(child)): child for code, child in variant.play_moves(position)}
    moves = []
    for e in range(layer.offsets[start_id], layer.offsets[start_id + 1]):
        child = ids[int(layer.codes[e]), int(layer.targets[e])]
        if first[e] > 0:
            moves.append({"move": variant.move_names[int(layer.codes[e])], "position": list(child),
                          "text": variant.format(child), "probability": float(first[e])})
    return PlayResult(variant.name, list(position), variant.format(position), n, p1, p2, float(win[0, start_id]),
                      float(lose[0, start_id]),
                      float(mean[0, start_id]), int(shortest[0, start_id]), int(longest[0, start_id]), lengths,
                      moves)


# -- the relations the named queries `play` and `deterministic` read: computed when asked -----------------

RELATION_COLUMNS = ("variant", "n", "player_1", "player_2", "p1_wins", "p2_wins", "expected_length", "shortest",
                    "longest")
ONE_MOVE = {"perfect", "best-response", *DETERMINISTIC}  # profiles that make one move per position


def starts(store: Any, variant: Variant, ns: list[int], pairs: list[tuple[str, str]],
           deadline: float | None = None) -> tuple[Any, int | None]:
    """Per n of `ns` and profile pair, the start of n played out (RELATION_COLUMNS) as a
    pyarrow.Table: one layer loaded at a time, so memory is that of the largest. A pair of
    profiles that each make one move is followed down its one game; others take a pass over the
    layer. Past `deadline` (time.monotonic()) it stops: (the rows of the n done, the n it
    stopped at; None when it did them all). Stopped before the first n: QueryLimitError."""
    import pyarrow as pa

    from .engine import kernels

    for p1, p2 in pairs:
        check_profiles(variant, p1, p2)
    rows: list[tuple[Any, ...]] = []
    stopped = None
    for n in ns:
        if deadline is not None and time.monotonic() > deadline:
            if not rows:
                raise QueryLimitError(f"the query was stopped at its time limit at n = {n}, computing the games from "
                                      f"the stored graph: ask for fewer n ({opt('n')}) or raise the limit "
                                      f"({opt('timeout')})")
            stopped = n
            break
        layer = load(store, variant, n)
        profiles = Profiles(layer, variant)
        start = variant.id_of(variant.start(n))
        for p1, p2 in pairs:
            first, second = profiles.pair(p1, p2)
            if p1 in ONE_MOVE and p2 in ONE_MOVE:
                length = int(kernels.walk(layer.offsets, layer.targets, start, first, second))
                p1_wins = float(mover_wins(length, terminal_wins(variant)))
                mean, shortest, longest = float(length), length, length
                p2_wins = 1.0 - p1_wins  # 0 or 1: one game
            else:
                win, lose, means, fewest, most = kernels.profile_values(layer.offsets, layer.targets, layer.order,
                                                                        first, second, terminal_wins(variant))
                p1_wins, p2_wins, mean = float(win[0, start]), float(lose[0, start]), float(means[0, start])
                shortest, longest = int(fewest[0, start]), int(most[0, start])
            rows.append((variant.name, n, p1, p2, p1_wins, p2_wins, mean, shortest, longest))
    types = [pa.string(), pa.int32(), pa.string(), pa.string(), pa.float64(), pa.float64(), pa.float64(), pa.int32(),
             pa.int32()]
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(types)
    return (pa.table([pa.array(list(c), t) for c, t in zip(columns, types, strict=True)], names=list(RELATION_COLUMNS)),
            stopped)


def _profile_games(store: Any, variant: Variant, ns: list[int], params: dict[str, Any],
                   deadline: float | None) -> tuple[Any, int | None]:
    return starts(store, variant, ns, [(params["p1"] or "perfect", params["p2"] or "random")], deadline)


def _deterministic_games(store: Any, variant: Variant, ns: list[int], params: dict[str, Any],
                         deadline: float | None) -> tuple[Any, int | None]:
    return starts(store, variant, ns, [(a, b) for a in DETERMINISTIC for b in DETERMINISTIC], deadline)


# name -> the function computing it for one variant and its n (a query's checked parameters passed
# on): (its rows, the n where its time ran out, None when it computed them all)
RELATIONS = {"profile_games": _profile_games, "deterministic_games": _deterministic_games}
