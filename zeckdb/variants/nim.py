"""Fibonacci nim (Knuth, TAOCP Vol. 1, Exercise 1.2.8-37), docs/games.md.

A pile of n chips; the first move takes anything but the whole pile, then each
move takes at least one chip and at most twice the previous take; taking the
last chip wins. A position (r, k) has r chips left, of which at most k may be
taken (k <= r); the start of n is (n, n - 1). Layer r holds (r, 0..r), id k.
Taking t leads to (r - t, min(2t, r - t)) in layer r - t: every move leaves
the layer, and layer 0 holds the end (0, 0).
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..engine.contract import Position, Variant, unbracket

MAX_N = 1000
K_BITS = 11  # k <= r <= MAX_N < 2**11; key = r << K_BITS | k


class FibonacciNim(Variant):
    name = "fibonacci-nim"
    title = "Fibonacci nim; position (r,k): r chips left, at most k may be taken"
    source = "Knuth, The Art of Computer Programming Vol. 1, Exercise 1.2.8-37"
    max_n = MAX_N
    min_n = 0
    columns = ["c1", "c2"]
    text_width = 2  # (r,k), also (5,0)
    column_weights = (1, 0)  # the layer is r
    move_names = [f"take {t}" for t in range(1, MAX_N + 1)]  # code t - 1

    def parse(self, text: str) -> Position:
        counts = super().parse(text)  # trailing zeros dropped: (5,0) is (5,)
        if len(unbracket(text).split(",")) != 2:
            raise UsageError(f"position {text[:40]!r}: write it as r,k (r chips left, at most k may be taken), e.g. 10,9")
        return counts

    def _rk(self, position: Position) -> tuple[int, int]:
        r, k = (list(position) + [0, 0])[:2]
        if k > r:
            raise UsageError(f"position {self.format(position)}: at most r = {r} chips can be taken, so k <= r")
        return r, k

    def layer_of(self, position: Position) -> int:
        r, _ = self._rk(position)
        self.check_n(r)
        return r

    def key_of(self, position: Position) -> int:
        r, k = self._rk(position)
        return r << K_BITS | k

    def id_of(self, position: Position) -> int:
        return self._rk(position)[1]

    def start(self, n: int) -> Position:
        return (n, max(n - 1, 0))

    def layer_keys(self, n: int) -> np.ndarray:
        return (np.int64(n) << K_BITS) | np.arange(n + 1, dtype=np.int64)

    def decode(self, keys: np.ndarray) -> np.ndarray:
        keys = np.asarray(keys, dtype=np.int64)
        return np.stack([keys >> K_BITS, keys & ((1 << K_BITS) - 1)], axis=1).astype(np.int16)

    def layers_of(self, keys: np.ndarray) -> np.ndarray:
        return np.asarray(keys, dtype=np.int64) >> K_BITS

    def lower_layers(self, n: int) -> list[int]:
        return list(range(n - 1, -1, -1))

    def estimate_positions(self, n: int) -> int:
        return n + 1

    def estimate_work(self, n: int) -> int:
        return n + 1 + n * (n + 1) // 2  # its moves dominate: k moves from (n, k)

    def graph_edges(self, n: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        takes = np.minimum(keys & ((1 << K_BITS) - 1), n)  # k, and never more than the pile
        src = np.repeat(np.arange(len(keys), dtype=np.int32), takes)
        first = np.cumsum(takes) - takes
        t = np.arange(len(src), dtype=np.int64) - first[src] + 1
        left = n - t
        return src, (left << K_BITS) | np.minimum(2 * t, left), (t - 1).astype(np.int16)

    def play_moves(self, position: Position) -> list[tuple[int, Position]]:
        r, k = self._rk(position)
        return [(t - 1, (r - t, min(2 * t, r - t))) for t in range(1, min(k, r) + 1)]
