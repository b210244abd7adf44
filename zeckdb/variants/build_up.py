"""The build-up 1-2-3 game (Batterman et al. 2023, Theorem 5.1), docs/games.md.

From an empty board the players alternately put down a 1, a 2 or a 3 (never
more than is left of n) until the pieces sum to n; then the reversed game is
played from the (a, b, c) they built, the alternation carrying on. A position
is (a, b, c, remaining): the pieces of each size placed so far and the value
still to place, so the whole game lives in one layer of value n.

Placing is always possible while something remains (a 1 fits), so the
reversed moves are rules that apply only where no placement does: the
fallback mechanism the quilt game's rule 2a uses. From pieces 1, 2, 3 the
reversed game never needs a bin beyond 3.
"""

from __future__ import annotations

from dataclasses import replace

from ..fib import fib
from ..engine.contract import Position
from .chips import ChipGame, Rule
from .reversed import reverse_name
from .zeckendorf import forward_rules

MAX_N = 200
REMAINING = 4  # the bin holding the value still to place (worth 1 per unit)


def build_up_rules() -> tuple[Rule, ...]:
    placements = tuple(Rule(f"place {fib(i)}", take=((REMAINING, fib(i)),), put=((i, 1),)) for i in (1, 2, 3))
    reversed_moves = tuple(replace(rule.reverse(reverse_name(rule)), fallback=True) for rule in forward_rules(3))
    return placements + reversed_moves


class BuildUp(ChipGame):
    name = "build-up"
    title = "The build-up 1-2-3 game (placement, then the reversed game); position (a,b,c,remaining)"
    source = "Batterman, Jambhale, Miller, Narayanan, Sharma, Yang, Yao, The Reversed Zeckendorf Game (2023), Theorem 5.1"
    max_n = MAX_N
    bins_are_complete = True  # pieces 1, 2, 3 and the value to place: every position of any n
    weights = (fib(1), fib(2), fib(3), 1)
    rules = build_up_rules()

    def start(self, n: int) -> Position:
        return (0, 0, 0, n)
