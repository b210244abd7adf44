"""The reversed Zeckendorf game with a stagnant one (Batterman et al. 2023, section 6 (iv)),
docs/games.md.

The reversed game without the moves that need a 1: "all chips with value one are removed
from the game (or equivalently, any move requiring a one cannot be played)". Of the reversed
moves those are F_1 + F_3 -> 2 F_2 and F_1 + F_4 -> 2 F_3 (the reverses of the forward
splits that make a 1); every other reversed move stays. Start: the Zeckendorf decomposition
of n; the one terminal is (n), n ones (a chip above bin 1 can always be split).

Its moves are a subset of the reversed game's, so it cannot play the `zeckendorf` graph's
stored edges (a lookup or a query reading them would see the two moves it lacks): it owns a
graph of its own, stored in its direction of play. A layer holds every partition of n, as
the reversed game's does; since ones are never used up, not every one is reachable from the
start (the columns of the unreachable ones are still their own game's values).
"""

from __future__ import annotations

from ..fib import zeckendorf_counts
from ..engine.contract import Position
from .chips import Rule
from .reversed import reverse_name
from .zeckendorf import BINS, Zeckendorf, forward_rules


def needs_a_one(rule: Rule) -> bool:
    """Whether a move takes a chip from bin 1 (a one)."""
    return any(b == 1 for b, _ in rule.take)


def stagnant_rules(bins: int) -> tuple[Rule, ...]:
    """The reversed game's moves on bins 1..bins, in its code order, without those needing a one."""
    reversed_moves = (rule.reverse(reverse_name(rule)) for rule in forward_rules(bins))
    return tuple(rule for rule in reversed_moves if not needs_a_one(rule))


class ReversedStagnant(Zeckendorf):
    """The reversed game's positions, start and terminal; its moves less the two that need a one."""

    name = "reversed-stagnant"
    title = "The reversed Zeckendorf game with a stagnant one: no move may take a 1"
    source = ("Batterman, Jambhale, Miller, Narayanan, Sharma, Yang, Yao, The Reversed Zeckendorf Game (2023), "
              "section 6 (iv)")
    # graph: its own (None), in its direction of play, so reversed stays False
    # every partition is stored, as in the reversed game (not every one is reachable: ones stay)
    layers_are_partitions = True
    # every split stays, and each adds one chip: Z(n) chips become n in n - Z(n) moves at best
    shortest_is_n_minus_terms = True
    # its games are some of the reversed game's, so that game's bound holds for them
    longest_bound = "theorem-1.4"
    rules = stagnant_rules(BINS)

    def start(self, n: int) -> Position:
        return zeckendorf_counts(n)

    def rules_on(self, bins: int, n: int) -> tuple[Rule, ...]:
        return stagnant_rules(bins)
