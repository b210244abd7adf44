"""The (c,k)-nacci games (Miller, Sosis, Ye, arXiv:2211.14973; Cusenza et al., arXiv:2009.03708)
and their reversed games, docs/games.md.

Bin i holds chips worth G_i: G_j = (c+1)^(j-1) for j <= k, G_(k+1) = (c+1)^k - 1, then
G_(i+1) = c (G_i + ... + G_(i-k+1)). Start: n chips in bin 1. Each move is an identity of
the sequence (combine, split, up, low combine); every game ends at the legal decomposition
of n (coefficients 0..c, no k consecutive bins all holding c). With c = 1, k = 2 the game is
the Zeckendorf game, registered as `zeckendorf`.
"""

from __future__ import annotations

from functools import cached_property

from ..engine.contract import Position
from .chips import ChipGame, Rule

C_RANGE = range(1, 5)
K_RANGE = range(2, 5)


KEY_BITS = 63  # a position's key: one bit field per bin, wide enough for n // G_i chips
MAX_BINS = 16  # the count columns a stored position has (positions.c1 .. c16)


def max_n_of(c: int, k: int) -> int:
    """The largest n whose positions zeckdb can number: every key fits KEY_BITS bits and
    every position MAX_BINS bins. What a build reaches is smaller, set by the cost of a
    layer (zeckdb.engine.limits)."""
    def fits(top: int) -> bool:
        terms = nacci_terms(c, k, top)
        return len(terms) <= MAX_BINS and sum(max(1, (top // g).bit_length()) for g in terms) <= KEY_BITS

    lo, hi = 1, 2
    while fits(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def nacci_terms(c: int, k: int, top: int) -> list[int]:
    """G_1, G_2, ... up to the last term <= top (at least k + 1 terms)."""
    terms = [(c + 1) ** j for j in range(k)] + [(c + 1) ** k - 1]
    while terms[-1] <= top:
        terms.append(c * sum(terms[-k:]))
    while len(terms) > k + 1 and terms[-1] > top:
        terms.pop()
    return terms


def nacci_rules(c: int, k: int, bins: int) -> tuple[Rule, ...]:
    """The move table of docs/games.md on bins 1..bins, leaving out moves that need a bin beyond."""
    rules = [Rule(f"combine {c}x(G{i - k + 1}..G{i})", tuple((j, c) for j in range(i - k + 1, i + 1)), ((i + 1, 1),))
             for i in range(k, bins)]
    rules += [Rule(f"split {c + 1}G{i}", ((i, c + 1),), ((i - k, c), (i + 1, 1))) for i in range(k + 1, bins)]
    if k < bins:
        rules.append(Rule(f"split {c + 1}G{k}", ((k, c + 1),), ((1, 1), (k + 1, 1))))
    rules += [Rule(f"up {c + 1}G{i}", ((i, c + 1),), ((i + 1, 1),)) for i in range(1, min(k, bins))]
    rules += [Rule(f"low combine {c + 1}G1+{c}x(G2..G{i})", ((1, c + 1), *((j, c) for j in range(2, i + 1))),
                   ((i + 1, 1),)) for i in range(2, min(k, bins))]
    return tuple(rules)


def legal_decomposition(c: int, k: int, n: int) -> Position:
    """The greedy decomposition of n: the unique one with coefficients 0..c and no k
    consecutive bins all holding c (Miller and Wang's theorem for these sequences)."""
    terms = nacci_terms(c, k, max(n, 1))
    counts = [0] * len(terms)
    for i in range(len(terms) - 1, -1, -1):
        counts[i], n = divmod(n, terms[i])
    while counts and counts[-1] == 0:
        counts.pop()
    return tuple(counts)


def _reverse_name(rule: Rule) -> str:
    return "undo " + rule.name


class Nacci(ChipGame):
    family_title = "The (c,k)-nacci game: bins worth G_i, moves the sequence's identities"
    source = "Miller, Sosis, Ye, Winning strategies for the generalized Zeckendorf game (arXiv:2211.14973)"

    def __init__(self, c: int, k: int):
        self.c, self.k = c, k
        self.name = f"nacci-{c}-{k}"
        self.title = f"The ({c},{k})-nacci game"
        self.max_n = max_n_of(c, k)
        self.weights = tuple(nacci_terms(c, k, self.max_n))
        self.rules = nacci_rules(c, k, len(self.weights))

    def start(self, n: int) -> Position:
        return (n,)

    def decomposition_terms(self, n: int) -> int:
        return sum(legal_decomposition(self.c, self.k, n))

    def game_for(self, n: int) -> tuple[tuple[int, ...], tuple[Rule, ...]]:
        weights = tuple(nacci_terms(self.c, self.k, max(n, self.max_n)))
        return weights, nacci_rules(self.c, self.k, len(weights))


class ReversedNacci(Nacci):
    family_title = "The reversed (c,k)-nacci game: from the legal decomposition back to n ones"
    reversed = True

    def __init__(self, c: int, k: int):
        super().__init__(c, k)
        self.graph = self.name
        self.name = f"reversed-{self.name}"
        self.title = f"The reversed ({c},{k})-nacci game"

    @cached_property
    def play_rules(self) -> tuple[Rule, ...]:
        return tuple(rule.reverse(_reverse_name(rule)) for rule in self.rules)

    def start(self, n: int) -> Position:
        return legal_decomposition(self.c, self.k, n)

    def game_for(self, n: int) -> tuple[tuple[int, ...], tuple[Rule, ...]]:
        weights, forward = super().game_for(n)
        return weights, tuple(rule.reverse(_reverse_name(rule)) for rule in forward)
