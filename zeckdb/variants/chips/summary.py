"""Summary mode for chip games: a layer solved in one pass over its ids (colex ranks,
computable from the counts). Where every move goes one way in rank, an order of ranks is a
topological order, and a position's moves are found by arithmetic on its counts, so neither
the positions nor the moves are kept (engine/summary.py holds the state per position)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.contract import SummaryWalk
from ...errors import UsageError
from .rules import Rule, rank_direction, rule_arrays


def ways_table(weights: tuple[int, ...], n: int) -> np.ndarray:
    """[j, v]: count vectors of value v using bins 1..j+1 (ChipGame._ways_table, as an array)."""
    table = np.zeros((len(weights), n + 1), dtype=np.int64)
    row = np.zeros(n + 1, dtype=object)
    row[0] = 1
    for j, w in enumerate(weights):
        row = row.copy()
        for v in range(w, n + 1):
            row[v] += row[v - w]
        if row[n] >= 2**62:
            raise UsageError(f"n = {n} has more than 2^62 positions: summary mode cannot number them")
        table[j] = row.astype(np.int64)
    return table


def layer_size(weights: tuple[int, ...], n: int) -> int:
    """How many count vectors of value n the bins hold."""
    return int(ways_table(weights, n)[-1, n])


def layer_rules(weights: tuple[int, ...], rules: tuple[Rule, ...], n: int) -> tuple[Any, ...]:
    """What a walk of layer n steps with: the bins a vector of value n can use (the others would
    be 0 throughout) and the rules on them, the ways table, the weights as an array, the arrays
    of what each rule takes (bin, count) and whether it is a fallback, and each rule's change to
    each bin."""
    used = sum(1 for w in weights if w <= n) if all(a <= b for a, b in zip(weights, weights[1:], strict=False)) else len(weights)
    weights = tuple(weights[:used])
    rules = tuple(r for r in rules if all(b <= used for b, _ in r.take + r.put))
    take_bin, take_count, put_bin, put_count, fallback = rule_arrays(rules)
    delta = np.zeros((len(rules), len(weights)), dtype=np.int64)
    np.subtract.at(delta, (np.arange(len(rules))[:, None], take_bin), take_count)
    np.add.at(delta, (np.arange(len(rules))[:, None], put_bin), put_count)
    return (weights, rules, ways_table(weights, n), np.asarray(weights, dtype=np.int64), (take_bin, take_count, fallback),
            delta)


def summary_walk(name: str, weights: tuple[int, ...], rules: tuple[Rule, ...], start_counts: tuple[int, ...],
                 n: int) -> SummaryWalk:
    """Layer n's walk for summary mode: its ranks in a solving order, stepped by kernels.chip_steps."""
    from .kernels import chip_steps, colex_rank

    direction = rank_direction(weights, rules)
    if direction == 0:
        raise UsageError(f"{name} has no summary mode: its moves do not all go one way in rank "
                         "(or leave the layer); build it in full")
    weights, rules, ways, w, (take_bin, take_count, fallback), delta = layer_rules(weights, rules, n)
    bins, n_rules = len(weights), len(rules)
    touched = [np.flatnonzero(row) for row in delta]
    lowest = np.array([max(int(t.min()), 1) if len(t) else bins for t in touched], dtype=np.int64)
    highest = np.array([int(t.max()) if len(t) else 0 for t in touched], dtype=np.int64)
    descending = direction > 0  # every move to a higher rank: solved from the highest rank down
    c = np.zeros(bins, dtype=np.int64)
    if descending:  # the highest rank: the greedy (lexicographically largest) vector
        low = n
        for k in range(bins - 1, 0, -1):
            c[k], low = divmod(low, weights[k])
        c[0] = low
    else:
        c[0] = n
    held = np.zeros(bins, dtype=np.int64)  # value in bins 0..j
    held[bins - 1] = n
    size = int(ways[bins - 1, n])
    shared = (np.int64(n), w, ways, take_bin, take_count, fallback, descending, np.int64(size))
    rules_of = (delta, lowest, highest)

    def fork() -> tuple[Any, ...]:
        """A cursor of its own (the walk's state: vector, values held, rank terms, scratch),
        positioned nowhere: its first call starts afresh at its first step."""
        return (*shared, c.copy(), held.copy(), np.zeros(bins, dtype=np.int64), np.empty(n_rules, dtype=np.int64),
                *rules_of, np.full(1, -1, dtype=np.int64))

    cursor = (*shared, c, held, np.zeros(bins, dtype=np.int64), np.empty(n_rules, dtype=np.int64), *rules_of,
              np.zeros(1, dtype=np.int64))
    start = np.zeros(bins, dtype=np.int64)
    start[: len(start_counts)] = start_counts
    return SummaryWalk(size, int(colex_rank(start, w, ways, n)), max(n_rules, 1), chip_steps, cursor, fork)
