"""Monte Carlo: random games played with moves generated on the fly (no database).

For sizes the exhaustive build cannot hold; where the database has the exact
distribution (length_distribution, measure P), use that instead.
"""

from __future__ import annotations

from dataclasses import dataclass
import random

import numpy as np

from .errors import UsageError, opt
from .variants import Variant

MAX_GAMES = 10_000_000


@dataclass
class Simulation:
    variant: str
    n: int
    games: int
    seed: int
    lengths: np.ndarray

    def moments(self) -> dict[str, float]:
        """The length_moments view's quantities, from the sample."""
        x = self.lengths.astype(np.float64)
        mean = x.mean()
        d = x - mean
        var = (d**2).mean()
        out = {"mean": mean, "variance": var}
        if var > 0:
            m4, m6 = (d**4).mean() / var**2, (d**6).mean() / var**3
            out.update(skewness=(d**3).mean() / var**1.5, excess_kurtosis=m4 - 3,
                       moment4_pct_diff=100 * abs(m4 - 3) / 3, moment6_pct_diff=100 * abs(m6 - 15) / 15)
        return {k: float(v) for k, v in out.items()}

    def histogram(self) -> dict[int, int]:
        values, counts = np.unique(self.lengths, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts, strict=False)}


def simulate(variant: Variant, n: int, games: int = 10_000, seed: int = 0) -> Simulation:
    """Play `games` games of n, both players choosing uniformly among the legal moves.

    A game with a compiled loop of its own (random_lengths: the chip games, on their rule
    data, for any n) plays them there; every other variant through its own move generator
    (`play_moves`), up to its simulate_max_n (by default the n it builds)."""
    if n < max(variant.min_n, 1):
        raise UsageError(f"n = {n} is out of range: n starts at {max(variant.min_n, 1)}")
    if not 1 <= games <= MAX_GAMES:
        raise UsageError(f"{opt('games')} {games} is out of range: play 1 to {MAX_GAMES:,} games")
    lengths = variant.random_lengths(n, games, seed)
    if lengths is None:
        largest = variant.simulate_max_n or variant.max_n
        if n > largest:
            raise UsageError(f"n = {n} is out of range for simulating {variant.name}: its moves are generated "
                             f"one position at a time, up to n = {largest}")
        if games > MAX_GENERIC_GAMES:
            raise UsageError(f"{opt('games')} {games} is out of range for {variant.name}: play 1 to {MAX_GENERIC_GAMES:,} "
                             "games (its moves are generated in Python)")
        lengths = _play_moves(variant, n, games, seed)
    return Simulation(variant.name, n, games, seed, lengths)


#: games played through a variant's play_moves (Python, a list of moves per position)
MAX_GENERIC_GAMES = 100_000


def _play_moves(variant: Variant, n: int, games: int, seed: int) -> np.ndarray:
    rng = random.Random(seed)
    start = variant.start(n)
    lengths = np.empty(games, dtype=np.int64)
    for g in range(games):
        position, length = start, 0
        while moves := variant.play_moves(position):
            position = rng.choice(moves)[1]
            length += 1
        lengths[g] = length
    return lengths
