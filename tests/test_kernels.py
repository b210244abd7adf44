"""The compiled kernels on small hand-made graphs whose answers are known exactly."""

from __future__ import annotations

import numpy as np

from zeckdb.engine import kernels


def chain_with_dead_ends(length: int):
    """Nodes 0..length on a chain; each chain node i < length may also move to its own
    terminal dead end, so the P-mass of reaching node k is 2^-k."""
    targets, offsets = [], [0]
    dead_end = length + 1
    for i in range(length):
        targets += [i + 1, dead_end + i]
        offsets.append(len(targets))
    offsets += [len(targets)] * (length + 1)  # the chain's end and the dead ends are terminal
    return np.array(offsets, dtype=np.int64), np.array(targets, dtype=np.int32)


def test_path_counts_survive_probability_underflow():
    length = 1100  # 2^-1100 underflows a double
    offsets, targets = chain_with_dead_ends(length)
    p, games, _ = kernels.length_distribution(offsets, targets, 0, length, True, 0)
    assert games[1:length].tolist() == [1] * (length - 1)  # into the dead end of node k - 1 after k moves
    assert games[length] == 2  # the whole chain, or the last node's dead end
    assert p[length] == 0.0 and p[1] == 0.5


def test_topological_order_puts_children_first_and_detects_cycles():
    offsets, targets = chain_with_dead_ends(5)
    order = kernels.topological_order(offsets, targets)
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    for v in range(len(offsets) - 1):
        for e in range(offsets[v], offsets[v + 1]):
            assert position[targets[e]] < position[v]
    cycle = kernels.topological_order(np.array([0, 1, 2], dtype=np.int64), np.array([1, 0], dtype=np.int32))
    assert len(cycle) < 2
