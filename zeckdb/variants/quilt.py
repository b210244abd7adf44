"""The Fibonacci Quilt game (Miller and Newlon 2019), docs/games.md.

Bins hold the quilt terms q_1..q_4 = 1, 2, 3, 4, q_i = q_{i-2} + q_{i-3}. Start:
n ones. Rule 2a is legal only where no other move is; rule 3f uses the
corrected 2 q_6 -> q_2 + q_8 or q_5 + q_7 (docs/games.md). The game can end
in several positions (the FQ-legal decompositions).
"""

from __future__ import annotations

from ..engine.contract import Position, SummaryWalk
from .chips import ChipGame, Rule

MAX_N = 100  # 25,542,767 positions over n = 1..100; 17 bins at n = 151 no longer fit 63-bit keys


def quilt_terms(count: int) -> list[int]:
    q = [1, 2, 3, 4]
    while len(q) < count:
        q.append(q[-2] + q[-3])
    return q[:count]


BINS = sum(1 for q in quilt_terms(40) if q <= MAX_N)


def quilt_rules(bins: int) -> tuple[Rule, ...]:
    """The move table of docs/games.md, dropping moves that need a bin beyond `bins`."""
    def q(i: int) -> str:
        return f"q{i}"

    rules = [Rule("1a q1+q2 -> q3", ((1, 1), (2, 1)), ((3, 1),))]
    rules += [Rule(f"1b {q(i)}+{q(i + 1)} -> {q(i + 3)}", ((i, 1), (i + 1, 1)), ((i + 3, 1),)) for i in range(2, bins)]
    rules.append(Rule("2a q1+q5 -> q2+q4", ((1, 1), (5, 1)), ((2, 1), (4, 1)), fallback=True))
    rules += [Rule(f"2b {q(i)}+{q(i + 4)} -> {q(i + 5)}", ((i, 1), (i + 4, 1)), ((i + 5, 1),)) for i in range(2, bins)]
    rules += [
        Rule("3a 2q1 -> q2", ((1, 2),), ((2, 1),)),
        Rule("3b 2q2 -> q4", ((2, 2),), ((4, 1),)),
        Rule("3c 2q3 -> q2+q4", ((3, 2),), ((2, 1), (4, 1))),
        Rule("3d 2q4 -> q1+q6", ((4, 2),), ((1, 1), (6, 1))),
        Rule("3d 2q4 -> q3+q5", ((4, 2),), ((3, 1), (5, 1))),
        Rule("3e 2q5 -> q1+q7", ((5, 2),), ((1, 1), (7, 1))),
        Rule("3f 2q6 -> q2+q8", ((6, 2),), ((2, 1), (8, 1))),
        Rule("3f 2q6 -> q5+q7", ((6, 2),), ((5, 1), (7, 1))),
    ]
    rules += [Rule(f"3g 2{q(i)} -> {q(i - 5)}+{q(i + 2)}", ((i, 2),), ((i - 5, 1), (i + 2, 1))) for i in range(7, bins)]
    rules += [
        Rule("4a q1+q4 -> q5", ((1, 1), (4, 1)), ((5, 1),)),
        Rule("4a q2+q5 -> q6", ((2, 1), (5, 1)), ((6, 1),)),
        Rule("4b q3+q6 -> q1+q7", ((3, 1), (6, 1)), ((1, 1), (7, 1))),
        Rule("4c q4+q7 -> q1+q8", ((4, 1), (7, 1)), ((1, 1), (8, 1))),
        Rule("4c q5+q8 -> q1+q9", ((5, 1), (8, 1)), ((1, 1), (9, 1))),
        Rule("4d q6+q9 -> q2+q10", ((6, 1), (9, 1)), ((2, 1), (10, 1))),
    ]
    rules += [Rule(f"4e {q(i)}+{q(i + 3)} -> {q(i - 5)}+{q(i + 4)}", ((i, 1), (i + 3, 1)), ((i - 5, 1), (i + 4, 1)))
              for i in range(7, bins)]
    rules.append(Rule("5 q1+q3 -> q4", ((1, 1), (3, 1)), ((4, 1),)))
    return tuple(r for r in rules if all(b <= bins for b, _ in r.take + r.put))


class Quilt(ChipGame):
    name = "quilt"
    title = "The Fibonacci Quilt game"
    source = "Miller and Newlon, The Fibonacci Quilt Game (2019)"
    max_n = MAX_N
    beyond_max_n = "exhaustive quilt builds stop there; `zeckdb simulate quilt --n N` plays random games at any n"
    weights = tuple(quilt_terms(BINS))
    rules = quilt_rules(BINS)

    def start(self, n: int) -> Position:
        return (n,)

    def game_for(self, n: int) -> tuple[tuple[int, ...], tuple[Rule, ...]]:
        bins = max(BINS, sum(1 for q in quilt_terms(60) if q <= n))
        return tuple(quilt_terms(bins)), quilt_rules(bins)

    # Summary mode: rule 2a lowers the colex rank the chip games' walk needs, so the quilt game
    # walks its layers in an order of its own (quilt_summary.py), which every move follows.
    @property
    def has_summary_walk(self) -> bool:
        return True

    def summary_walk(self, n: int) -> SummaryWalk:
        from .quilt_summary import summary_walk

        return summary_walk(*self.game_for(n), self.start(n), n)

