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
    order: np.ndarray  # ids by ascending key: children before parents
    offsets: np.ndarray  # int64, len(keys) + 1
    src: np.ndarray  # int32 id
    dst: np.ndarray  # int32 id
    code: np.ndarray  # int16 move code

    @property
    def size(self) -> tuple[int, int]:
        return len(self.keys), len(self.src)


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
    start: int  # id of the start position
    start_games: int  # exact number of complete games from the start


def build_graph(variant: Variant, n: int) -> Graph:
    variant.check_n(n)
    keys = variant.layer_keys(n)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    src, child_keys, code = variant.graph_edges(n, sorted_keys)
    dst = kernels.link(sorted_keys, child_keys, code, len(variant.move_names))
    if len(dst) and dst.min() < 0:
        bad = int(child_keys[np.argmin(dst)])
        raise EngineError(f"{variant.name}, n={n}: a move leads to key {bad}, which is not a position of the layer")
    if len(dst) and not (dst < src).all():
        raise EngineError(f"{variant.name}, n={n}: some move does not lower the key; the keys are not topological")
    src_id, dst_id = order[src].astype(np.int32), order[dst].astype(np.int32)
    offsets, perm = kernels.group(src_id, len(keys))
    return Graph(n, keys, order, offsets, src_id[perm], dst_id[perm], code[perm])


def solve_graph(variant: Variant, graph: Graph) -> Solution:
    """Solve a layer in the variant's direction of play."""
    if variant.reversed:
        offsets, perm = kernels.group(graph.dst, len(graph.keys))
        targets = graph.src[perm]
        order = graph.order[::-1].copy()  # children have larger keys
    else:
        offsets, targets, order = graph.offsets, graph.dst, graph.order
    win, rem, mn, mx, games, expected, grundy, n_win = kernels.solve(offsets, targets, order)
    start = variant.id_of(variant.start(graph.n))
    return Solution(
        win, rem, mn, mx, games, expected, grundy, n_win,
        start=start,
        start_games=_exact_games(offsets, targets, order, games[start], start),
    )


def _exact_games(offsets, targets, order, approx: float, start: int) -> int:
    bits = math.log2(approx) if math.isfinite(approx) else 1100.0
    limbs = int(bits // kernels.LIMB_BITS) + 2
    count = kernels.exact_games(offsets, targets, order, limbs)[start]
    return sum(int(limb) << (kernels.LIMB_BITS * j) for j, limb in enumerate(count))
