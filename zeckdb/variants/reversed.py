"""The reversed Zeckendorf game (Batterman et al. 2023), docs/games.md.

The Zeckendorf game's graph with every edge reversed: start at the Zeckendorf
decomposition of n, end at (n). It shares its graph (and stored edges) with the
forward game.
"""

from __future__ import annotations

from functools import cached_property

from ..fib import zeckendorf_counts
from ..engine.contract import Position
from .chips import Rule
from .zeckendorf import Zeckendorf


def reverse_name(rule: Rule) -> str:
    """The reversed paper's name for the reverse of a forward rule."""
    if rule.name == "merge 2F1":
        return "split F2"
    if rule.name.startswith("combine"):
        ((target, _),) = rule.put
        return f"split F{target}"
    return "combine " + "+".join(f"F{b}" for b, _ in sorted(rule.put))


class Reversed(Zeckendorf):
    name = "reversed"
    title = "The reversed Zeckendorf game"
    source = "Batterman, Jambhale, Miller, Narayanan, Sharma, Yang, Yao, The Reversed Zeckendorf Game (2023)"
    graph = "zeckendorf"
    reversed = True
    longest_bound = "theorem-1.4"  # shortest_is_n_minus_terms: Theorem 1.4 too
    query_columns = frozenset(["minus_inverse_phi"])  # Conjecture 1.3: Player 1's share of n tends to 1/phi

    @cached_property
    def play_rules(self) -> tuple[Rule, ...]:
        return tuple(rule.reverse(reverse_name(rule)) for rule in self.rules)

    def start(self, n: int) -> Position:
        return zeckendorf_counts(n)

    def game_for(self, n: int) -> tuple[tuple[int, ...], tuple[Rule, ...]]:
        weights, forward = super().game_for(n)
        return weights, tuple(rule.reverse(reverse_name(rule)) for rule in forward)
