"""Summary mode for the Fibonacci Quilt game: its own walk (the contract's summary_walk).

The chip games' walk (chips/summary.py) steps a layer in colex rank, which every quilt move
raises but rule 2a (q1 + q5 -> q2 + q4: it takes from q5, the highest bin it changes). This
walk steps it in another order that every move follows: fewer chips first, and among as many
chips a larger (c2, c1, c3, c4, ...) first. Every rule takes two chips and puts one or two, so
no move adds a chip; one that keeps their number puts a chip below every bin it takes from
(2a: q2 against q1, ranked first), so the key rises. The ids stay the full build's colex
ranks (computed from the counts), so the engine's state is indexed as for the other chip
games, and the walk itself holds only the vector it is at and a table of which (value, chips)
the bins from each place of the key on can hold.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.contract import SummaryWalk
from ..engine.jit import jit
from .chips.kernels import colex_rank, legal_rules
from .chips.rules import Rule
from .chips.summary import layer_rules


def key_order(bins: int) -> np.ndarray:
    """The bins (from 0) in the order of the key: c2, c1, c3, c4, ..."""
    return np.array([1, 0, *range(2, bins)] if bins > 1 else [0], dtype=np.int64)


def holdable(weights: tuple[int, ...], order: np.ndarray, n: int) -> np.ndarray:
    """[t, v, k]: whether the bins order[t:] hold some vector of value v with k chips."""
    bins = len(order)
    table = np.zeros((bins + 1, n + 1, n + 1), dtype=np.bool_)
    table[bins, 0, 0] = True
    for t in range(bins - 1, -1, -1):
        w = weights[int(order[t])]
        row = table[t + 1].copy()
        for v in range(w, n + 1):  # one more chip in this bin: value + w, chips + 1
            row[v, 1:] |= row[v - w, :-1]
        table[t] = row
    return table


@jit
def _fill(c: np.ndarray, t0: int, value: int, chips: int, weights: np.ndarray, order: np.ndarray, table: np.ndarray) -> None:
    """c[order[t0:]] <- the largest (in key order) vector of that value and number of chips."""
    for t in range(t0, order.shape[0]):
        b = order[t]
        m = min(chips, value // weights[b])
        while m > 0 and not table[t + 1, value - m * weights[b], chips - m]:
            m -= 1
        c[b] = m
        value -= m * weights[b]
        chips -= m


@jit
def _first(c: np.ndarray, chips: np.ndarray, n: int, weights: np.ndarray, order: np.ndarray, table: np.ndarray) -> None:
    """c <- the first vector of the order with at least chips[0] chips; chips[0] <- its chips."""
    k = chips[0]
    while k <= n and not table[0, n, k]:
        k += 1
    chips[0] = k
    _fill(c, 0, n, k, weights, order, table)


@jit
def _next(c: np.ndarray, chips: np.ndarray, n: int, weights: np.ndarray, order: np.ndarray, table: np.ndarray) -> None:
    """c -> the next vector of the order: the next smaller key with as many chips (the last
    place of the key that can give chips to the places after it gives the fewest it can, and
    those places take the largest key they can hold), else the first vector of more chips."""
    value = 0  # value and chips held by the places after t
    held = 0
    for t in range(order.shape[0] - 1, -1, -1):
        b = order[t]
        for give in range(1, c[b] + 1):  # the fewest chips that place can give the places after it
            if table[t + 1, value + give * weights[b], held + give]:
                c[b] -= give
                _fill(c, t + 1, value + give * weights[b], held + give, weights, order, table)
                return
        value += c[b] * weights[b]
        held += c[b]
    chips[0] += 1
    _first(c, chips, n, weights, order, table)


@jit
def quilt_steps(first: int, count: int, cursor: tuple[Any, ...], ids: np.ndarray, ends: np.ndarray, kids: np.ndarray) -> int:
    """The quilt game's summary walk (contract.SummaryWalk): the positions first .. first +
    count - 1 of the order "fewer chips, then a larger (c2, c1, c3, ...)", their ids (colex
    ranks) and their children's, found by arithmetic on the counts. Returns 0, or -1 - id
    where a move does not go down the order (a bug: every child must come before).

    cursor (summary_walk): n, the bins' weights, the ways table, the rules (taken bins and
    counts, fallback, per rule its change to each bin), the key order, the holdable table,
    and the walk's state: the vector c of the last step, its chips, the step it is at, and
    scratch for the legal rules and a child. A call whose first is not that step walks
    there from the beginning (the engine steps in order: it never does)."""
    (n, weights, ways, take_bin, take_count, fallback, delta, order, table,
     c, chips, at, legal, child) = cursor
    bins = weights.shape[0]
    if first != at[0]:
        chips[0] = 0
        _first(c, chips, n, weights, order, table)
        for _ in range(first):
            _next(c, chips, n, weights, order, table)
    elif first > 0:
        _next(c, chips, n, weights, order, table)
    else:
        chips[0] = 0
        _first(c, chips, n, weights, order, table)
    e = 0
    for j in range(count):
        if j > 0:
            _next(c, chips, n, weights, order, table)
        i = colex_rank(c, weights, ways, n)
        k = legal_rules(c, take_bin, take_count, fallback, legal)
        for m in range(k):
            r = legal[m]
            gained = 0
            for b in range(bins):
                child[b] = c[b] + delta[r, b]
                gained += delta[r, b]
            if gained > 0:
                return -1 - i
            if gained == 0:  # as many chips: the key must rise (its first changed place gains)
                for t in range(bins):
                    d = delta[r, order[t]]
                    if d < 0:
                        return -1 - i
                    if d > 0:
                        break
            kids[e] = colex_rank(child, weights, ways, n)
            e += 1
        ids[j] = i
        ends[j] = e
    at[0] = first + count
    return 0


def summary_walk(weights: tuple[int, ...], rules: tuple[Rule, ...], start_counts: tuple[int, ...],
                 n: int) -> SummaryWalk:
    """Layer n of the quilt game (bins `weights`, `rules`) for summary mode, in the order above."""
    weights, rules, ways, w, (take_bin, take_count, fallback), delta = layer_rules(weights, rules, n)
    bins, n_rules = len(weights), len(rules)
    order = key_order(bins)
    table = holdable(weights, order, n)
    cursor: tuple[Any, ...] = (np.int64(n), w, ways, take_bin, take_count, fallback, delta, order, table,
                               np.zeros(bins, dtype=np.int64), np.zeros(1, dtype=np.int64),
                               np.full(1, -1, dtype=np.int64), np.empty(max(n_rules, 1), dtype=np.int64),
                               np.zeros(bins, dtype=np.int64))
    start = np.zeros(bins, dtype=np.int64)
    start[: len(start_counts)] = start_counts
    size = int(ways[bins - 1, n])
    return SummaryWalk(size, int(colex_rank(start, w, ways, n)), max(n_rules, 1), quilt_steps, cursor)
