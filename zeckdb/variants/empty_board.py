"""The Empty-Board pre-game of the Black Hole games (Cashman, Miller, Shuffelton,
Son, arXiv 2409.10981), GAMES.md section 3.

The board starts empty with n to place; the players alternately place a chip in
bin 1 or bin m-1 (if it fits in what is left) until n is placed, then play the
black-hole game from there, the alternation carrying on. A position is the
board (c_1..c_{m-1}) followed by the value still to place, so a layer holds
the positions of total value n, and removals drop it by F_m as in the black-hole
game. Once nothing is left to place the positions are the black-hole game's.

Placing is always possible while something remains (a 1 fits), so the
black-hole moves are rules that apply only where no placement does.
"""

from __future__ import annotations

from dataclasses import replace

from ..fib import fib
from .base import Position
from .black_hole import BlackHole, black_hole_rules
from .chips import Rule


def empty_board_rules(m: int) -> tuple[Rule, ...]:
    remaining = m  # the column after the m-1 board bins
    outer = sorted({1, m - 1})
    placements = tuple(Rule(f"place F{b}", take=((remaining, fib(b)),), put=((b, 1),)) for b in outer)
    return placements + tuple(replace(rule, fallback=True) for rule in black_hole_rules(m))


class BlackHoleEmptyBoard(BlackHole):
    def __init__(self, m: int):
        super().__init__(m)
        self.name = f"black-hole-empty-board-{m}"
        self.title = (f"Empty-Board Black Hole game on F{m} = {fib(m)}: placement, then the black-hole game; "
                      f"position (c1..c{m - 1}, left to place)")
        self.weights = self.weights + (1,)
        self.rules = empty_board_rules(m)

    def start(self, n: int) -> Position:
        return (0,) * (self.m - 1) + (n,) if n else ()
