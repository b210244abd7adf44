"""The rules of a chip game as data: a Rule takes chips from bins and puts chips in others.
What follows from the rules alone (their arrays for the compiled loops, whether every move
goes one way in rank, whether a move changes the value) is here too, so that the game
(game.py) and its one-pass summary (summary.py) both build on it and not on each other."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Rule:
    """One move: take `take` chips and put `put` chips, as ((bin, count), ...), bins from 1.

    `fallback` rules are legal only in positions where no other rule applies
    (the quilt game's rule 2a).
    """

    name: str
    take: tuple[tuple[int, int], ...]
    put: tuple[tuple[int, int], ...]
    fallback: bool = False

    def reverse(self, name: str) -> Rule:
        return Rule(name, self.put, self.take, self.fallback)


def rule_arrays(rules: tuple[Rule, ...]) -> tuple[np.ndarray, ...]:
    """Rules as count arithmetic for the kernels that play on count vectors: per rule
    and slot, the bin (from 0) and count taken and put, and whether it is a fallback."""
    width = max((max(len(r.take), len(r.put)) for r in rules), default=1)
    arrays = [np.zeros((len(rules), width), dtype=np.int64) for _ in range(4)]
    take_bin, take_count, put_bin, put_count = arrays
    for r, rule in enumerate(rules):
        for j, (b, c) in enumerate(rule.take):
            take_bin[r, j], take_count[r, j] = b - 1, c
        for j, (b, c) in enumerate(rule.put):
            put_bin[r, j], put_count[r, j] = b - 1, c
    return take_bin, take_count, put_bin, put_count, np.array([r.fallback for r in rules], dtype=np.bool_)


def rank_direction(weights: tuple[int, ...], rules: tuple[Rule, ...]) -> int:
    """+1 if every move leads to a higher colex rank, -1 if every move to a lower one,
    0 if neither, or if a move changes the value (it leaves the layer).

    A move changes no bin above the highest one it touches, so its net change
    there decides (the heaviest bin is the most significant digit of the rank)."""
    if leaves_layer(weights, rules):
        return 0
    signs = set()
    for rule in rules:
        net: dict[int, int] = {}
        for b, cnt in rule.put:
            net[b] = net.get(b, 0) + cnt
        for b, cnt in rule.take:
            net[b] = net.get(b, 0) - cnt
        top = max(b for b, d in net.items() if d)
        signs.add(0 if top == 1 else 1 if net[top] > 0 else -1)
    return signs.pop() if len(signs) == 1 else 0


def leaves_layer(weights: tuple[int, ...], rules: tuple[Rule, ...]) -> bool:
    """Whether some move changes the value (a chip leaves the board)."""
    return any(sum(weights[b - 1] * c for b, c in rule.put) != sum(weights[b - 1] * c for b, c in rule.take)
               for rule in rules)
