"""Fibonacci numbers indexed for uniqueness (F_1 = 1, F_2 = 2) and Zeckendorf decompositions."""

from __future__ import annotations

from functools import cache
import math

PHI = (1 + math.sqrt(5)) / 2


@cache
def fib(i: int) -> int:
    """F_i with F_1 = 1, F_2 = 2, F_{i+1} = F_i + F_{i-1} (docs/games.md conventions)."""
    if i < 1:
        raise ValueError(f"Fibonacci index must be >= 1, got {i}")
    a, b = 1, 2
    for _ in range(i - 1):
        a, b = b, a + b
    return a


def fibs_up_to(n: int) -> list[int]:
    """[F_1, F_2, ...] up to the largest F_i <= n (empty for n < 1)."""
    out: list[int] = []
    i = 1
    while fib(i) <= n:
        out.append(fib(i))
        i += 1
    return out


def zeckendorf_indices(n: int) -> list[int]:
    """Indices of the Zeckendorf decomposition of n, largest first (greedy)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    indices: list[int] = []
    i = len(fibs_up_to(n))
    while n > 0:
        while fib(i) > n:
            i -= 1
        indices.append(i)
        n -= fib(i)
        i -= 2  # the next term is never adjacent
    return indices


def z_count(n: int) -> int:
    """Z(n): the number of terms of the Zeckendorf decomposition of n."""
    return len(zeckendorf_indices(n))


def zeckendorf_counts(n: int) -> tuple[int, ...]:
    """The Zeckendorf decomposition of n as a count vector, bin 1 first."""
    idx = zeckendorf_indices(n)
    if not idx:
        return ()
    counts = [0] * max(idx)
    for i in idx:
        counts[i - 1] += 1
    return tuple(counts)
