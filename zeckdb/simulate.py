"""Monte Carlo: random games played with moves generated on the fly (no database).

For sizes the exhaustive build cannot hold; where the database has the exact
distribution (length_distribution, measure P), use that instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import UsageError
from .variants import get_variant
from .variants.chips import ChipGame

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
        return {int(v): int(c) for v, c in zip(values, counts)}


def simulate(variant_name: str, n: int, games: int = 10_000, seed: int = 0) -> Simulation:
    """Play `games` games of n, both players choosing uniformly among the legal moves."""
    from .engine.kernels import random_game_lengths

    variant = get_variant(variant_name)
    if not isinstance(variant, ChipGame):
        raise UsageError(f"zeckdb simulate does not support {variant.name} yet: it plays chip games")
    if n < 1:
        raise UsageError(f"n = {n} is out of range: n starts at 1")
    if not 1 <= games <= MAX_GAMES:
        raise UsageError(f"--games {games} is out of range: play 1 to {MAX_GAMES:,} games")
    weights, rules = variant.game_for(n)
    start = np.zeros(len(weights), dtype=np.int64)
    for i, c in enumerate(variant.start(n)):
        start[i] = c
    lengths = random_game_lengths(start, *ChipGame.rule_arrays(rules), games, seed)
    return Simulation(variant.name, n, games, seed, lengths)
