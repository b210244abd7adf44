"""The accelerated Zeckendorf game (the Polymath REU, 2020), docs/games.md.

A turn chooses one move of the Zeckendorf game and a multiplicity m >= 1 and makes m copies
of it at once; the chips for all m copies must be there before the move (m merges of 2F1 need
2m ones, m combines of F(i-1) + F(i) need m of each, m splits of 2F(i) need 2m in bin i).
Start: n ones; the last mover wins. The positions are the Zeckendorf game's (every partition
of n into Fibonacci numbers); its moves are more, each a rule "take m times, put m times".
"""

from __future__ import annotations

from ..fib import fib, z_count
from ..engine.contract import Position
from .chips import ChipGame, Rule
from .zeckendorf import BINS, MAX_N, forward_rules


def accelerated_rules(bins: int, top: int) -> tuple[Rule, ...]:
    """Every Zeckendorf move on bins 1..bins, with every multiplicity a position of value at most
    `top` can afford, in code order: the moves of the Zeckendorf game, each m = 1, 2, ..."""
    weights = [fib(i) for i in range(1, bins + 1)]
    rules = []
    for base in forward_rules(bins):
        taken = sum(weights[b - 1] * c for b, c in base.take)  # the value a single copy needs in place
        for m in range(1, top // taken + 1):
            rules.append(Rule(f"{base.name} x{m}", tuple((b, c * m) for b, c in base.take),
                              tuple((b, c * m) for b, c in base.put)))
    return tuple(rules)


class Accelerated(ChipGame):
    name = "accelerated"
    title = "The accelerated Zeckendorf game: a Zeckendorf move made m times at once"
    source = "The accelerated Zeckendorf game of the Polymath REU (2020)"
    max_n = MAX_N
    full_bytes_per_position = 1024  # several times the Zeckendorf game's moves per position
    layers_are_partitions = True  # the Zeckendorf game's positions
    weights = tuple(fib(i) for i in range(1, BINS + 1))
    rules = accelerated_rules(BINS, MAX_N)

    def start(self, n: int) -> Position:
        return (n,)

    def decomposition_terms(self, n: int) -> int:
        return z_count(n)

    def game_for(self, n: int) -> tuple[tuple[int, ...], tuple[Rule, ...]]:
        bins = max(BINS, max(i for i in range(1, 40) if fib(i) <= n))
        return tuple(fib(i) for i in range(1, bins + 1)), accelerated_rules(bins, max(n, MAX_N))
