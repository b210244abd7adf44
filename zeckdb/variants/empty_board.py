"""The Empty-Board pre-game of the Black Hole games (Cashman, Miller, Shuffelton,
Son, arXiv 2409.10981), docs/games.md.

The board starts empty with n to place; the players alternately place a chip in
bin 1 or bin m-1 (if it fits in what is left) until n is placed, then play the
black-hole game from there, the alternation carrying on. A position is the
board (c_1..c_{m-1}) followed by the value still to place, so a layer holds
the positions of total value n, and removals drop it by F_m as in the black-hole
game. Once nothing is left to place the positions are the black-hole game's.

Placing is always possible while something remains (a 1 fits), so the
black-hole moves are rules that apply only where no placement does.

A layer holds only what play can reach: the black-hole positions of value n
(nothing left to place; ids as in the black-hole game), then the boards with
chips in bins 1 and m-1 only and something left to place. Every count vector
of the value would be 25 times as many at m = 5, n = 150.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property

import numpy as np

from ..errors import UsageError
from ..fib import fib
from ..engine.contract import Position
from .black_hole import BlackHole, black_hole_rules
from .chips import Rule


def empty_board_rules(m: int) -> tuple[Rule, ...]:
    remaining = m  # the column after the m-1 board bins
    outer = sorted({1, m - 1})
    placements = tuple(Rule(f"place F{b}", take=((remaining, fib(b)),), put=((b, 1),)) for b in outer)
    return placements + tuple(replace(rule, fallback=True) for rule in black_hole_rules(m))


class BlackHoleEmptyBoard(BlackHole):
    family_title = ("Empty-Board Black Hole game: place chips in bin 1 or M-1 until n is placed, then the "
                    "black-hole game; position (c1..c{M-1}, left to place)")

    def __init__(self, m: int):
        super().__init__(m)
        self.name = f"black-hole-empty-board-{m}"
        self.title = (f"Empty-Board Black Hole game on F{m} = {fib(m)}: placement, then the black-hole game; "
                      f"position (c1..c{m - 1}, left to place)")
        self.weights = self.weights + (1,)
        self.rules = empty_board_rules(m)

    def start(self, n: int) -> Position:
        return (0,) * (self.m - 1) + (n,) if n else ()

    # -- the layer: black-hole positions, then placements -------------------------
    @cached_property
    def _board(self) -> BlackHole:
        return BlackHole(self.m)  # same bins, same max_n: its keys are ours with nothing left to place

    @property
    def _outer(self) -> int:
        return fib(self.m - 1)  # weight of the outer bin m-1 (bin 1 itself when m = 2)

    def _placements_before(self, n: int, b: int) -> int:
        """Placement positions of layer n with fewer than b chips in bin m-1 (then a = 0..n-1-b*w)."""
        if self.m == 2:
            return 0
        return b * n - self._outer * b * (b - 1) // 2

    def _placements(self, n: int) -> int:
        if self.m == 2:
            return n  # (a, left) with a = 0..n-1
        return self._placements_before(n, (n - 1) // self._outer + 1) if n else 0

    def estimate_positions(self, n: int) -> int:
        return self._board.estimate_positions(n) + self._placements(n)

    def id_of(self, position: Position) -> int:
        counts = list(position) + [0] * (self.m - len(position))
        board, left = counts[:-1], counts[-1]
        n = self.value(tuple(counts))
        if left == 0:
            return self._board.id_of(tuple(board))
        if any(board[1:-1]):
            raise UsageError(f"position {self.format(position)} cannot occur: while chips remain to be placed, "
                             f"only bins 1 and {self.m - 1} hold chips")
        if self.m == 2:
            return self._board.estimate_positions(n) + board[0]
        return self._board.estimate_positions(n) + self._placements_before(n, board[-1]) + board[0]

    def layer_keys(self, n: int) -> np.ndarray:
        offsets, m = self._offsets, self.m
        if self.m == 2:
            a = np.arange(n, dtype=np.int64)
            placed = (a << offsets[0]) | ((n - a) << offsets[m - 1])
        else:
            b = np.arange((n - 1) // self._outer + 1 if n else 0, dtype=np.int64)
            per_b = n - b * self._outer  # a = 0..per_b-1 leaves something to place
            row = np.repeat(np.arange(len(b)), per_b)
            a = np.arange(len(row), dtype=np.int64) - (np.cumsum(per_b) - per_b)[row]
            left = n - a - b[row] * self._outer
            placed = (a << offsets[0]) | (b[row] << offsets[m - 2]) | (left << offsets[m - 1])
        return np.concatenate([self._board.layer_keys(n), placed])
