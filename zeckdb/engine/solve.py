"""Enumerate, link and solve one layer (one n) of any variant."""

from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np

from ..variants import Variant
from . import kernels


class EngineError(RuntimeError):
    """A rules module broke the variant contract (a bug, not a user error)."""


@dataclass
class Graph:
    """One layer of a graph in the graph's own direction, nodes numbered by id.

    Edges are grouped by source id (offsets[i]..offsets[i+1] are node i's).
    """

    n: int
    keys: np.ndarray  # int64 key of each id
    order: np.ndarray  # ids in a topological order: children before parents
    offsets: np.ndarray  # int64, len(keys) + 1
    src: np.ndarray  # int32 id
    dst: np.ndarray  # int32 id
    code: np.ndarray  # int16 move code

    @property
    def size(self) -> tuple[int, int]:
        return len(self.keys), len(self.src)


@dataclass
class Play:
    """A layer's moves in one variant's direction of play: CSR by id, and a topological order."""

    offsets: np.ndarray
    targets: np.ndarray
    order: np.ndarray  # children before parents


@dataclass
class Distribution:
    """Length of a complete game from the start, indexed by length."""

    probability: np.ndarray  # under P: both players pick uniformly random moves
    games: np.ndarray  # number of complete games of each length (float)
    games_exact: list[int] | None  # the same, exactly, for n <= EXACT_LENGTH_COUNTS_MAX_N


# Exact per-length game counts cost up to 2x the float pass (more limbs as n grows);
# the issue asks for them up to n = 60, and the float counts carry on beyond.
EXACT_LENGTH_COUNTS_MAX_N = 60


@dataclass
class Solution:
    """Every solved column of one layer, for one variant, indexed by id."""

    win: np.ndarray
    remoteness: np.ndarray
    min_remaining: np.ndarray
    max_remaining: np.ndarray
    games: np.ndarray
    expected: np.ndarray
    grundy: np.ndarray
    winning_moves: np.ndarray
    in_strategies: np.ndarray  # on some winning strategy of the winner from the start
    start: int  # id of the start position
    start_games: int  # exact number of complete games from the start
    p1_wins_random: float  # both players random
    p1_wins_p1_perfect: float  # Player 1 perfect, Player 2 random
    p1_wins_p2_perfect: float  # Player 2 perfect, Player 1 random
    play: Play
    mirror: "Solution | None" = None  # a solution whose games are this one's, reversed (see `mirrors`)


def build_graph(variant: Variant, n: int) -> Graph:
    variant.check_n(n)
    keys = variant.layer_keys(n)
    by_key = np.argsort(keys).astype(np.int32)  # keys are distinct: no need for a stable sort
    sorted_keys = keys[by_key]
    src, child_keys, code = variant.graph_edges(n, sorted_keys)
    dst = kernels.link(sorted_keys, child_keys, code, len(variant.move_names))
    if len(dst) and dst.min() < 0:
        bad = int(child_keys[np.argmin(dst)])
        raise EngineError(f"{variant.name}, n={n}: a move leads to key {bad}, which is not a position of the layer")
    src_id, dst_id = by_key[src], by_key[dst]
    offsets, perm = kernels.group(src_id, len(keys))
    src_id, dst_id = src_id[perm], dst_id[perm]
    order = kernels.topological_order(offsets, dst_id)
    if len(order) < len(keys):
        raise EngineError(f"{variant.name}, n={n}: the moves form a cycle; a game must always end")
    return Graph(n, keys, order, offsets, src_id, dst_id, code[perm])


def play_graph(variant: Variant, graph: Graph) -> Play:
    if variant.reversed:  # children have larger keys
        offsets, perm = kernels.group(graph.dst, len(graph.keys))
        return Play(offsets, graph.src[perm], graph.order[::-1].copy())
    return Play(graph.offsets, graph.dst, graph.order)


def mirrors(a: Solution, b: Solution) -> bool:
    """True when b plays a's graph backwards from a's only terminal to a's start (and so
    b's complete games are a's, reversed: same number, same lengths)."""
    def only_terminal(s: Solution) -> int | None:
        ends = np.flatnonzero(s.max_remaining == 0)
        return int(ends[0]) if len(ends) == 1 else None

    return a.play is not b.play and only_terminal(a) == b.start and only_terminal(b) == a.start


def solve_graph(variant: Variant, graph: Graph, solved: list[Solution] = ()) -> Solution:
    """Solve a layer in the variant's direction of play. `solved`: solutions of other
    variants on the same graph layer; a mirror among them lends its game count."""
    play = play_graph(variant, graph)
    win, rem, mn, mx, games, expected, grundy, n_win = kernels.solve(play.offsets, play.targets, play.order)
    start = variant.id_of(variant.start(graph.n))
    sol = Solution(
        win, rem, mn, mx, games, expected, grundy, n_win,
        in_strategies=kernels.winning_strategies(play.offsets, play.targets, play.order, win, start),
        start=start,
        start_games=0,
        **dict(zip(["p1_wins_random", "p1_wins_p1_perfect", "p1_wins_p2_perfect"],
                   kernels.random_play(play.offsets, play.targets, play.order, start))),
        play=play,
    )
    sol.mirror = next((other for other in solved if mirrors(other, sol)), None)
    sol.start_games = sol.mirror.start_games if sol.mirror else _exact_games(play, games[start], start)
    return sol


def length_distribution(solution: Solution, n: int, count_games: bool = True) -> Distribution:
    """The exact distribution of the length of a game from the start, under P and mu
    (count_games=False: P only; the caller takes the game counts from a mirror)."""
    max_len = int(solution.max_remaining[solution.start])
    limbs = 0
    if count_games and n <= EXACT_LENGTH_COUNTS_MAX_N:
        limbs = int(math.log2(max(solution.games[solution.start], 1.0)) // kernels.LIMB_BITS) + 2
    p, games, exact = kernels.length_distribution(solution.play.offsets, solution.play.targets, solution.start,
                                                  max_len, count_games, limbs)
    return Distribution(p, games, [_limbs_to_int(row) for row in exact] if limbs else None)


def _exact_games(play: Play, approx: float, start: int) -> int:
    bits = math.log2(approx) if math.isfinite(approx) else 1100.0
    limbs = int(bits // kernels.LIMB_BITS) + 2
    return _limbs_to_int(kernels.exact_games(play.offsets, play.targets, play.order, limbs)[start])


def _limbs_to_int(limbs: np.ndarray) -> int:
    return sum(int(limb) << (kernels.LIMB_BITS * j) for j, limb in enumerate(limbs))
