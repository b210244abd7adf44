"""Summary mode: a layer's start values without its positions and moves.

The full build enumerates a layer's keys, links its moves and keeps both; that
is what bounds it (engine.limits). Here a game that has a one-pass solve (the contract's
summary_pass: the chip games whose moves go one way in rank, the ordered game) solves
its layer over its ids, finding a position's moves by arithmetic. The state, held
here, is a few bytes per position (engine.limits.summary_bytes): 8 for remoteness and
the shortest and longest remaining game, 40 more for the expected length, the game
count (float) and the random-play odds, kept while they fit the memory budget, and 8
for the teams that can force a win in a game of three or more players.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import time

import numpy as np

from .contract import Summarisable, Variant
from .limits import summary_bytes
from .solve import seats_of

INT_COLUMNS = 4  # remoteness, min_remaining, max_remaining, (padding: 8-byte rows)
FLOAT_COLUMNS = 5  # expected, games, q, a, b


def supports_summary(variant: Variant) -> bool:
    """Whether summary mode solves the game (Variant.summary_refusal says why not)."""
    return variant.summary_refusal is None


def layer_size(variant: Variant, n: int) -> int:
    """How many positions layer n has, as the game's summary pass numbers them."""
    return variant.summary_size(n)


def layer_bytes(variant: Variant, n: int, floats: bool) -> int:
    """Memory the one-pass solve of layer n holds (its state per position: engine.limits)."""
    return layer_size(variant, n) * summary_bytes(variant, floats)


@dataclass
class Summary:
    """What summary mode keeps of a layer: its start's values and its size."""

    variant: str
    n: int
    positions: int
    edges: int
    start_id: int
    winner: int | None  # games of three or more players: None where no player can force a win
    start_remoteness: int | None  # None in games of three or more players
    min_length: int
    max_length: int
    expected_length: float | None  # None where the float columns did not fit the budget
    games_approx: float | None  # None also where the count passes the float range (n > ~250)
    p1_wins_random: float | None
    p1_wins_p1_perfect: float | None
    p1_wins_p2_perfect: float | None
    seconds: float
    state_bytes: int
    teams: int | None = None  # games of three or more players: the start's team mask (kernels.team_masks)


def solve_summary(variant: Summarisable, n: int, floats: bool = True) -> Summary:
    """Layer n solved in one pass; its start's values."""
    t0 = time.perf_counter()
    size = variant.summary_size(n)
    ints = np.empty((size, INT_COLUMNS), dtype=np.int16)
    state = np.empty((size, FLOAT_COLUMNS if floats else 0), dtype=np.float64)
    teams = np.empty(size if variant.players > 2 else 0, dtype=np.uint64)
    s, edges = variant.summary_pass(n, ints, state, teams)
    summary = _summary(variant, n, size, edges, s, ints, state if floats else None, t0)
    summary.state_bytes += teams.nbytes
    if variant.players > 2:
        seat = int(seats_of(teams[s:s + 1], variant.players)[0])  # at the start the seats are the players
        summary.winner, summary.start_remoteness, summary.teams = (seat + 1 if seat >= 0 else None), None, int(teams[s])
        summary.p1_wins_random = summary.p1_wins_p1_perfect = summary.p1_wins_p2_perfect = None  # two-player odds
    return summary


def _summary(variant: Summarisable, n: int, size: int, edges: int, s: int, ints: np.ndarray, state: np.ndarray | None,
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
