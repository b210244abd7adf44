"""The accelerated Zeckendorf game (the Polymath REU, 2020), docs/games.md.

A turn chooses one move of the Zeckendorf game and a multiplicity m >= 1 and makes m copies
of it at once; the chips for all m copies must be there before the move (m merges of 2F1 need
2m ones, m combines of F(i-1) + F(i) need m of each, m splits of 2F(i) need 2m in bin i).
Start: n ones; the last mover wins. The positions are the Zeckendorf game's (every partition
of n into Fibonacci numbers); its moves are more, each a rule "take m times, put m times".
"""

from __future__ import annotations

from ..fib import fib
from .chips import Rule
from .zeckendorf import BINS, MAX_N, Zeckendorf, forward_rules


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


class Accelerated(Zeckendorf):
    """The Zeckendorf game's positions, start and layers; its moves made m times at once."""

    name = "accelerated"
    title = "The accelerated Zeckendorf game: a Zeckendorf move made m times at once"
    source = "The accelerated Zeckendorf game of the Polymath REU (2020)"
    full_bytes_per_position = 1024  # several times the Zeckendorf game's moves per position
    shortest_is_n_minus_terms = False  # a turn may combine many chips at once
    rules = accelerated_rules(BINS, MAX_N)

    def rules_on(self, bins: int, n: int) -> tuple[Rule, ...]:
        return accelerated_rules(bins, max(n, MAX_N))
