"""The Empty-Board Black Hole game in every column: the pre-game of Cashman, Miller,
Shuffelton, Son (arXiv 2409.10981), section 6's future work, docs/games.md.

The board starts empty with n to place; the players alternately place a chip in any bin
b = 1..m-1 whose weight F_b fits in what is left, until n is placed, then play the
black-hole game from there, the alternation carrying on. The paper lets them place only in
the outermost bins 1 and m-1 (empty_board.py); for m = 2 and 3 those are every bin, so the
family starts at m = 4 and names the paper's game for m = 2 and 3.

A position is the board (c_1..c_{m-1}) followed by the value still to place, as in
empty_board.py. A layer holds what play can reach: the black-hole positions of value n
(nothing left to place; ids as in the black-hole game), then every board of value v < n
with n - v left to place, by v, each v's boards in the black-hole game's order (any board
of value v < n is reached by placing its chips in any order, each fitting in what is
left).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property

import numpy as np

from ..engine.contract import Position
from ..fib import fib
from .black_hole import black_hole_rules
from .chips import Rule
from .empty_board import BlackHoleEmptyBoard


def empty_board_any_rules(m: int) -> tuple[Rule, ...]:
    """A placement in each bin 1..m-1 (the value to place is column m), then the black-hole
    moves as fallbacks: they apply only where no placement does, once nothing is left."""
    placements = tuple(Rule(f"place F{b}", take=((m, fib(b)),), put=((b, 1),)) for b in range(1, m))
    return placements + tuple(replace(rule, fallback=True) for rule in black_hole_rules(m))


class BlackHoleEmptyBoardAny(BlackHoleEmptyBoard):
    family_title = ("Empty-Board Black Hole game in every column: place chips in any bin 1..M-1 until n is "
                    "placed, then the black-hole game; position (c1..c{M-1}, left to place)")

    def __init__(self, m: int):
        super().__init__(m)
        self.name = f"black-hole-empty-board-any-{m}"
        self.title = (f"Empty-Board Black Hole game on F{m} = {fib(m)}, placing in any bin: placement, then the "
                      f"black-hole game; position (c1..c{m - 1}, left to place)")
        self.source = ("Cashman, Miller, Shuffelton, Son, Black Hole Zeckendorf Games (arXiv 2409.10981), "
                       "section 6: placing in any bin")
        self.rules = empty_board_any_rules(m)

    @cached_property
    def _boards_below(self) -> list[int]:
        """[v]: the boards of value less than v (v = 0..max_n), the placement positions of layer v."""
        ways = self._board._ways[-1]
        return [0, *np.cumsum(ways, dtype=object).tolist()]

    def _placements(self, n: int) -> int:
        if n > self.max_n:  # a cost asked for past the table (the engine's limits look ahead)
            return sum(self._board._ways_table(n)[-1][:n])
        return self._boards_below[n]

    def estimate_positions(self, n: int) -> int:
        return self._board.estimate_positions(n) + self._placements(n)

    def id_of(self, position: Position) -> int:
        counts = list(position) + [0] * (self.m - len(position))
        board, left = tuple(counts[:-1]), counts[-1]
        if left == 0:
            return self._board.id_of(board)
        n = self.value(tuple(counts))
        return self._board.estimate_positions(n) + self._boards_below[n - left] + self._board.id_of(board)

    def layer_keys(self, n: int) -> np.ndarray:
        shift = self._offsets[self.m - 1]
        placed = [self._board.layer_keys(v) | np.int64(n - v) << shift for v in range(n)]
        return np.concatenate([self._board.layer_keys(n), *placed])
