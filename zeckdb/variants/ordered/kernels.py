"""The ordered game's compiled loops: its positions as cut sets of n (keys), their moves,
counts and entries, and its one-pass summary. Under the engine's numba policy (engine/jit.py)."""

from __future__ import annotations

import numpy as np

from ...engine.jit import jit


@jit
def _ordered_parts(cuts: np.int64, n: int, out: np.ndarray) -> int:
    """The entries of the composition of n with these cuts, left to right, into out; their number."""
    length, start = 0, 0
    for s in range(1, n):
        if cuts >> (n - 1 - s) & 1:
            out[length] = s - start
            length += 1
            start = s
    out[length] = n - start
    return length + 1


@jit
def ordered_edges(keys: np.ndarray, n: int, code: np.ndarray, left: np.ndarray, index_of: np.ndarray):
    """The moves of layer n of the ordered game (variants/ordered.py): (src index, dst key, code)
    for ascending keys; code and left are its move table by pair of Fibonacci indices."""
    mask = (np.int64(1) << (n - 1)) - 1 if n > 1 else np.int64(0)
    total = 0
    parts = np.empty(n + 1, dtype=np.int64)
    for k in range(len(keys)):  # first pass: how many moves
        length = _ordered_parts(keys[k] & mask, n, parts)
        for p in range(length - 1):
            if code[index_of[parts[p]], index_of[parts[p + 1]]] >= 0:
                total += 1
    src = np.empty(total, dtype=np.int32)
    dst = np.empty(total, dtype=np.int64)
    codes = np.empty(total, dtype=np.int16)
    e = 0
    for k in range(len(keys)):
        cuts = keys[k] & mask
        length = _ordered_parts(cuts, n, parts)
        start = 0  # units before entry p
        for p in range(length - 1):
            i, j = index_of[parts[p]], index_of[parts[p + 1]]
            c = code[i, j]
            if c >= 0:
                child = cuts & ~(np.int64(1) << (n - 1 - (start + parts[p])))  # the cut between the two goes
                if left[i, j] > 0:  # two entries again: the new cut after the left one
                    child |= np.int64(1) << (n - 1 - (start + left[i, j]))
                src[e] = k
                dst[e] = keys[k] - cuts + child
                codes[e] = c
                e += 1
            start += parts[p]
    return src, dst, codes


@jit
def ordered_counts(keys: np.ndarray, n: int, index_of: np.ndarray, columns: int) -> np.ndarray:
    mask = (np.int64(1) << (n - 1)) - 1 if n > 1 else np.int64(0)
    out = np.zeros((len(keys), columns), dtype=np.int16)
    parts = np.empty(n + 1, dtype=np.int64)
    for k in range(len(keys)):
        for p in range(_ordered_parts(keys[k] & mask, n, parts)):
            out[k, index_of[parts[p]] - 1] += 1
    return out


@jit
def ordered_entries(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    mask = (np.int64(1) << (n - 1)) - 1 if n > 1 else np.int64(0)
    offsets = np.zeros(len(keys) + 1, dtype=np.int32)
    values = np.empty(len(keys) * n, dtype=np.int16)
    parts = np.empty(n + 1, dtype=np.int64)
    at = 0
    for k in range(len(keys)):
        for p in range(_ordered_parts(keys[k] & mask, n, parts)):
            values[at] = parts[p]
            at += 1
        offsets[k + 1] = at
    return offsets, values[:at]


@jit
def ordered_solving_order(n, masks):
    """The ids of layer n's cut sets (masks, ascending) in the order summary mode solves them,
    children first: by number of entries, ascending, and by id, descending, within (see
    ordered_steps)."""
    size = len(masks)
    per_length = np.zeros(n + 2, dtype=np.int64)
    for i in range(size):
        per_length[_bits(masks[i]) + 1] += 1
    first = np.zeros(n + 2, dtype=np.int64)
    for length in range(1, n + 1):
        first[length + 1] = first[length] + per_length[length]
    order = np.empty(size, dtype=np.int32)
    for i in range(size - 1, -1, -1):
        length = _bits(masks[i]) + 1
        order[first[length]] = i
        first[length] += 1
    return order


@jit
def ordered_steps(first, count, cursor, ids, ends, kids):
    """Summary mode's walk of the ordered game's layer n (contract.SummaryWalk, called by
    engine/summary.py): the positions first .. first + count - 1 of the solving order,
    with their moves' ids. Returns 0, or -1 - id where a move breaks the order.

    cursor (OrderedGame.summary_walk): n, the layer's cut sets in id order (ascending), the
    solving order, rank_terms, the move tables and a scratch for the entries.
    rank_terms[rem, i]: how many compositions of rem begin with an entry larger than F_i,
    so that a position's id is the sum of its entries' terms and a move, which rewrites two
    neighbours and keeps what lies to their right, changes only theirs. Children first: a
    merge removes an entry; a swap or a split keeps the number of entries and moves a cut
    to the left, which raises the id."""
    n, masks, order, rank_terms, code, left, index_of, parts = cursor
    e = 0
    for j in range(count):
        i = np.int64(order[first + j])
        length = _ordered_parts(masks[i], n, parts)
        rem = n  # the value of the entries from p on
        for p in range(length - 1):
            a, b = parts[p], parts[p + 1]
            ia, ib = index_of[a], index_of[b]
            if code[ia, ib] >= 0:
                old = rank_terms[rem, ia] + rank_terms[rem - a, ib]
                c = left[ia, ib]
                if c > 0:  # two entries again, c on the left
                    child = i - old + rank_terms[rem, index_of[c]] + rank_terms[rem - c, index_of[a + b - c]]
                    if child <= i:
                        return -1 - i
                else:
                    child = i - old + rank_terms[rem, index_of[a + b]]
                kids[e] = child
                e += 1
            rem -= a
        ids[j] = i
        ends[j] = e
    return 0


@jit
def _bits(x):
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count
