"""Summary mode: a layer's start values without its positions and moves.

The full build enumerates a layer's keys, links its moves and keeps both; that
is what bounds it (n = 200). Here a chip game's layer is solved in one pass over
its ids (colex ranks, computable from the counts): where every move goes one way
in rank, an order of ranks is a topological order, and a position's moves are
found by arithmetic on its counts. The state is a few bytes per position: 6 for
remoteness and the shortest and longest remaining game, 40 more for the expected
length, the game count (float) and the random-play odds, kept while they fit the
memory budget (SUMMARY_FLOAT_BYTES).
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import time

import numpy as np

from ..errors import UsageError
from ..variants.base import Variant
from ..variants.chips import ChipGame, Rule
from . import kernels

INT_COLUMNS = 4  # remoteness, min_remaining, max_remaining, (padding: 8-byte rows)
FLOAT_COLUMNS = 5  # expected, games, q, a, b
INT_BYTES = 2 * INT_COLUMNS
FLOAT_BYTES = 8 * FLOAT_COLUMNS


class SummaryEngineError(RuntimeError):
    """A move went the wrong way in rank: the variant cannot be solved in one pass (a bug)."""


def rank_direction(weights: tuple[int, ...], rules: tuple[Rule, ...]) -> int:
    """+1 if every move leads to a higher colex rank, -1 if every move to a lower one,
    0 if neither, or if a move changes the value (it leaves the layer).

    A move changes no bin above the highest one it touches, so its net change
    there decides (the heaviest bin is the most significant digit of the rank)."""
    signs = set()
    for rule in rules:
        net: dict[int, int] = {}
        for b, cnt in rule.put:
            net[b] = net.get(b, 0) + cnt
        for b, cnt in rule.take:
            net[b] = net.get(b, 0) - cnt
        if sum(weights[b - 1] * d for b, d in net.items()):
            return 0
        top = max(b for b, d in net.items() if d)
        signs.add(0 if top == 1 else 1 if net[top] > 0 else -1)
    return signs.pop() if len(signs) == 1 else 0


def supports_summary(variant: Variant) -> bool:
    """Summary mode solves chip games whose moves stay in the layer and go one way in rank,
    and the games that bring their own one-pass solve (Variant.summary_pass), of two players."""
    if variant.players != 2:
        return False
    if isinstance(variant, ChipGame):
        return rank_direction(*variant.game_for(variant.max_n)) != 0
    return variant.has_summary_pass


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


def layer_size(variant: Variant, n: int) -> int:
    """How many positions layer n has: counted from the ways table for a chip game; a game
    with its own summary pass states it exactly (estimate_positions)."""
    if not isinstance(variant, ChipGame):
        return variant.estimate_positions(n)
    weights, _ = variant.game_for(n)
    return int(ways_table(weights, n)[-1, n])


def position_bytes(variant: Variant, floats: bool) -> int:
    """The one-pass solve's state per position: the solved columns and what the variant's pass adds."""
    return INT_BYTES + (FLOAT_BYTES if floats else 0) + variant.summary_overhead


def layer_bytes(variant: Variant, n: int, floats: bool) -> int:
    """Memory the one-pass solve of layer n holds (its state per position)."""
    return layer_size(variant, n) * position_bytes(variant, floats)


@dataclass
class Summary:
    """What summary mode keeps of a layer: its start's values and its size."""

    variant: str
    n: int
    positions: int
    edges: int
    start_id: int
    winner: int
    start_remoteness: int
    min_length: int
    max_length: int
    expected_length: float | None  # None where the float columns did not fit the budget
    games_approx: float | None  # None also where the count passes the float range (n > ~250)
    p1_wins_random: float | None
    p1_wins_p1_perfect: float | None
    p1_wins_p2_perfect: float | None
    seconds: float
    state_bytes: int


def solve_summary(variant: Variant, n: int, floats: bool = True) -> Summary:
    """Layer n solved in one pass; its start's values."""
    t0 = time.perf_counter()
    if not isinstance(variant, ChipGame):
        size = variant.estimate_positions(n)
        ints = np.empty((size, INT_COLUMNS), dtype=np.int16)
        state = np.empty((size, FLOAT_COLUMNS if floats else 0), dtype=np.float64)
        s, edges = variant.summary_pass(n, ints, state)
        return _summary(variant, n, size, edges, s, ints, state if floats else None, t0)
    weights, rules = variant.game_for(n)
    direction = rank_direction(weights, rules)
    if direction == 0:
        raise UsageError(f"{variant.name} has no summary mode: its moves do not all go one way in rank "
                         "(or leave the layer); build it in full")
    # only the bins a vector of value n can use (the others would be 0 throughout)
    used = sum(1 for w in weights if w <= n) if all(a <= b for a, b in zip(weights, weights[1:], strict=False)) else len(weights)
    weights = tuple(weights[:used])
    rules = tuple(r for r in rules if all(b <= used for b, _ in r.take + r.put))
    ways = ways_table(weights, n)
    size = int(ways[-1, n])
    ints = np.empty((size, INT_COLUMNS), dtype=np.int16)
    state = np.empty((size, FLOAT_COLUMNS if floats else 0), dtype=np.float64)
    w = np.asarray(weights, dtype=np.int64)
    edges = kernels.summary_layer(n, w, ways, *ChipGame.rule_arrays(rules), direction > 0, ints,  # type: ignore[call-arg]
                                  state)
    if edges < 0:
        raise SummaryEngineError(f"{variant.name}, n = {n}: a move from id {-1 - edges} goes the wrong way in rank")
    start = np.zeros(len(weights), dtype=np.int64)
    start[: len(variant.start(n))] = variant.start(n)
    s = int(kernels.colex_rank(start, w, ways, n))
    return _summary(variant, n, size, int(edges), s, ints, state if floats else None, t0)


def _summary(variant: Variant, n: int, size: int, edges: int, s: int, ints: np.ndarray, state: np.ndarray | None,
             t0: float) -> Summary:
    """The Summary of a solved layer: the start's row (id s) of ints and state (None: no floats)."""
    remoteness = int(ints[s, 0])
    row = None if state is None else state[s]

    def value(j: int) -> float | None:
        return None if row is None or not math.isfinite(row[j]) else float(row[j])

    return Summary(
        variant.name, n, size, int(edges), s, 1 if remoteness % 2 else 2, remoteness, int(ints[s, 1]), int(ints[s, 2]),
        expected_length=value(0), games_approx=value(1), p1_wins_random=value(2), p1_wins_p1_perfect=value(3),
        p1_wins_p2_perfect=None if row is None else 1.0 - float(row[4]),
        seconds=time.perf_counter() - t0,
        state_bytes=ints.nbytes + (0 if state is None else state.nbytes) + size * variant.summary_overhead,
    )
