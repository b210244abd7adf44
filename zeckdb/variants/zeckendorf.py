"""The Zeckendorf game (Baird-Smith, Epstein, Flint, Miller 2020), docs/games.md.

Start: n chips in bin 1. Moves: merge two F1 into F2; combine F_{i-1}+F_i into
F_{i+1}; split 2F2 into F1+F3; split 2F_i (i >= 3) into F_{i-2}+F_{i+1}.
"""

from __future__ import annotations

from ..fib import fib, z_count
from ..engine.contract import Position
from .chips import ChipGame, Rule

MAX_N = 200  # n = 200 alone has 5,192,004 positions
BINS = max(i for i in range(1, 20) if fib(i) <= MAX_N)


def forward_rules(bins: int) -> tuple[Rule, ...]:
    """The four move kinds, skipping those that would need a bin beyond `bins`."""
    rules = [Rule("merge 2F1", take=((1, 2),), put=((2, 1),))]
    for i in range(2, bins):
        rules.append(Rule(f"combine F{i - 1}+F{i}", take=((i - 1, 1), (i, 1)), put=((i + 1, 1),)))
    rules.append(Rule("split 2F2", take=((2, 2),), put=((1, 1), (3, 1))))
    for i in range(3, bins):
        rules.append(Rule(f"split 2F{i}", take=((i, 2),), put=((i - 2, 1), (i + 1, 1))))
    return tuple(rules)


class Zeckendorf(ChipGame):
    name = "zeckendorf"
    title = "The Zeckendorf game"
    source = "Baird-Smith, Epstein, Flint, Miller, The Zeckendorf Game (2020)"
    max_n = MAX_N
    layers_are_partitions = True  # every partition of n is reachable from n ones
    shortest_is_n_minus_terms = True  # Baird-Smith et al. 2020
    weights = tuple(fib(i) for i in range(1, BINS + 1))
    rules = forward_rules(BINS)

    def start(self, n: int) -> Position:
        return (n,)

    def decomposition_terms(self, n: int) -> int:
        return z_count(n)

    def game_for(self, n: int) -> tuple[tuple[int, ...], tuple[Rule, ...]]:
        bins = max(BINS, max(i for i in range(1, 40) if fib(i) <= n))
        return tuple(fib(i) for i in range(1, bins + 1)), self.rules_on(bins, n)

    def rules_on(self, bins: int, n: int) -> tuple[Rule, ...]:
        """The moves on bins 1..bins, for layers of value up to n."""
        return forward_rules(bins)
