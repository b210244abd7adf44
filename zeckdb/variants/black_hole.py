"""Black Hole Zeckendorf games (Cashman, Miller, Shuffelton, Son, arXiv 2409.10981),
docs/games.md.

Parameter m >= 2: the board has bins 1..m-1 and a chip that would land in bin
m falls into the black hole, so the value drops by F_m. A position therefore
belongs to the layer of its value, whatever start reached it; a move from
layer n stays in n or drops to n - F_m, and layer 0 (the empty board) exists.
"""

from __future__ import annotations

from ..fib import fib
from ..engine.contract import Position
from .chips import ChipGame, Rule
from .zeckendorf import forward_rules

MAX_N = 200
M_RANGE = range(2, 13)  # black-hole-12 at n <= 200 has the Zeckendorf game's 11 bins


def black_hole_rules(m: int) -> tuple[Rule, ...]:
    """The Zeckendorf game's moves on bins 1..m-1, chips bound for bin m removed."""
    rules = []
    for rule in forward_rules(m):
        if any(b >= m for b, _ in rule.take):
            continue
        kept = tuple((b, c) for b, c in rule.put if b < m)
        name = rule.name if kept == rule.put else f"{rule.name} (F{m} into the hole)"
        rules.append(Rule(name, rule.take, kept, rule.fallback))
    return tuple(rules)


class BlackHole(ChipGame):
    max_n = MAX_N
    min_n = 0
    family_title = "Black Hole Zeckendorf game: bins 1..M-1, a chip reaching bin M (worth F_M) is removed"

    def __init__(self, m: int):
        self.m = m
        self.name = f"black-hole-{m}"
        self.title = f"Black Hole Zeckendorf game, black hole on F{m} = {fib(m)}"
        self.source = "Cashman, Miller, Shuffelton, Son, Black Hole Zeckendorf Games (arXiv 2409.10981)"
        self.weights = tuple(fib(i) for i in range(1, m))
        self.rules = black_hole_rules(m)

    def start(self, n: int) -> Position:
        return (n,) if n else ()

    def lower_layers(self, n: int) -> list[int]:
        return [n - fib(self.m)] if n >= fib(self.m) else []
