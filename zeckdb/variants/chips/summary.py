"""Summary mode for chip games: a layer solved in one pass over its ids (colex ranks,
computable from the counts). Where every move goes one way in rank, an order of ranks is a
topological order, and a position's moves are found by arithmetic on its counts, so neither
the positions nor the moves are kept (engine/summary.py holds the state per position)."""

from __future__ import annotations

import numpy as np

from ...errors import UsageError
from .rules import Rule, rank_direction, rule_arrays


class SummaryEngineError(RuntimeError):
    """A move went the wrong way in rank: the game cannot be solved in one pass (a bug)."""


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


def summary_pass(name: str, weights: tuple[int, ...], rules: tuple[Rule, ...], start_counts: tuple[int, ...],
                 players: int, n: int, ints: np.ndarray, floats: np.ndarray, teams: np.ndarray) -> tuple[int, int]:
    """Layer n into ints and floats (one row per id, as kernels.solve_from_children fills
    them) and, for a game of three or more players, teams (kernels.teams_of_children); the
    start's id and the number of moves."""
    from .kernels import colex_rank, summary_layer

    direction = rank_direction(weights, rules)
    if direction == 0:
        raise UsageError(f"{name} has no summary mode: its moves do not all go one way in rank "
                         "(or leave the layer); build it in full")
    # only the bins a vector of value n can use (the others would be 0 throughout)
    used = sum(1 for w in weights if w <= n) if all(a <= b for a, b in zip(weights, weights[1:], strict=False)) else len(weights)
    weights = tuple(weights[:used])
    rules = tuple(r for r in rules if all(b <= used for b, _ in r.take + r.put))
    ways = ways_table(weights, n)
    w = np.asarray(weights, dtype=np.int64)
    edges = summary_layer(n, w, ways, *rule_arrays(rules), direction > 0, ints, floats,  # type: ignore[call-arg]
                          players, teams)
    if edges < 0:
        raise SummaryEngineError(f"{name}, n = {n}: a move from id {-1 - edges} goes the wrong way in rank")
    start = np.zeros(len(weights), dtype=np.int64)
    start[: len(start_counts)] = start_counts
    return int(colex_rank(start, w, ways, n)), int(edges)
