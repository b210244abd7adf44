"""The chip games' compiled loops: their moves as key arithmetic (the full build), random
games on count vectors (`zeckdb simulate`), and the one-pass summary of a layer over colex
ranks (summary mode). Under the engine's numba policy (engine/jit.py)."""

from __future__ import annotations

import numpy as np

from ...engine.jit import jit


@jit
def chip_moves(keys, shift, mask, need, delta, fallback):  # noqa: C901 (one compiled loop nest)
    """Apply every rule to every key: (source index, child key, rule code) per edge.

    A rule applies when every condition (key >> shift) & mask >= need holds;
    fallback rules apply only to keys no ordinary rule applies to. The rules that apply
    to a key are tested once, kept as the bits of a mask, and counted; the edges are
    written from the masks (testing every rule again to write them cost a third more).
    """
    n_keys = keys.shape[0]
    n_rules, width = shift.shape
    words = (n_rules + 63) // 64
    applies = np.zeros((n_keys, words), dtype=np.uint64)  # bit r % 64 of word r // 64: rule r applies
    ordinary = np.zeros(words, dtype=np.uint64)
    fallbacks = np.zeros(words, dtype=np.uint64)
    one = np.uint64(1)
    count = 0
    for i in range(n_keys):
        k = keys[i]
        ordinary[:] = 0
        fallbacks[:] = 0
        any_ordinary = False
        for r in range(n_rules):
            good = True
            for j in range(width):
                if ((k >> shift[r, j]) & mask[r, j]) < need[r, j]:
                    good = False
                    break
            if good:
                bit = one << np.uint64(r & 63)
                if fallback[r]:
                    fallbacks[r >> 6] |= bit
                else:
                    ordinary[r >> 6] |= bit
                    any_ordinary = True
        for w in range(words):
            bits = ordinary[w] if any_ordinary else fallbacks[w]
            applies[i, w] = bits
            while bits:
                count += 1
                bits &= bits - one
    src = np.empty(count, dtype=np.int32)
    dst = np.empty(count, dtype=np.int64)
    code = np.empty(count, dtype=np.int16)
    e = 0
    for i in range(n_keys):
        for w in range(words):
            bits = applies[i, w]
            r = 64 * w
            while bits:
                if bits & one:
                    src[e] = i
                    dst[e] = keys[i] + delta[r]
                    code[e] = r
                    e += 1
                bits >>= one
                r += 1
    return src, dst, code


@jit
def legal_rules(c, take_bin, take_count, fallback, legal):
    """The rules that apply to the count vector c, into legal[:k]; returns k. Fallback
    rules count only where no other rule applies."""
    n_rules, width = take_bin.shape
    k = 0
    for use_fallback in (False, True):
        for r in range(n_rules):
            if fallback[r] != use_fallback:
                continue
            ok = True
            for j in range(width):
                if take_count[r, j] > 0 and c[take_bin[r, j]] < take_count[r, j]:
                    ok = False
                    break
            if ok:
                legal[k] = r
                k += 1
        if k:
            break
    return k


@jit
def random_game_lengths(start, take_bin, take_count, put_bin, put_count, fallback, games, seed):
    """Lengths of `games` games from the count vector `start`, each move drawn uniformly
    from the legal ones (fallback rules only where nothing else is legal)."""
    np.random.seed(seed)
    n_rules, width = take_bin.shape
    legal = np.empty(n_rules, dtype=np.int64)
    lengths = np.empty(games, dtype=np.int64)
    for g in range(games):
        c = start.copy()
        length = 0
        while True:
            k = legal_rules(c, take_bin, take_count, fallback, legal)
            if k == 0:
                break
            r = legal[np.random.randint(k)]
            for j in range(width):
                c[take_bin[r, j]] -= take_count[r, j]
                c[put_bin[r, j]] += put_count[r, j]
            length += 1
        lengths[g] = length
    return lengths


# -- summary mode: a layer solved in one pass, without its moves -------------------


@jit
def colex_rank(c, weights, ways, n):
    """Rank of the count vector c (value n) among the vectors of value n, heaviest bin
    most significant: the id of the full build (ChipGame.id_of)."""
    rank = 0
    remaining = n
    for j in range(c.shape[0] - 1, 0, -1):
        if c[j]:
            rank += ways[j, remaining] - ways[j, remaining - c[j] * weights[j]]
            remaining -= c[j] * weights[j]
    return rank


@jit
def colex_unrank(rank, c, weights, ways, n):
    """c <- the count vector of value n whose colex_rank is `rank`: per bin from the heaviest,
    the most chips that the vectors ranked below leave room for."""
    remaining = n
    for j in range(c.shape[0] - 1, 0, -1):
        k = 0
        while (k + 1) * weights[j] <= remaining and ways[j, remaining] - ways[j, remaining - (k + 1) * weights[j]] <= rank:
            k += 1
        c[j] = k
        if k:
            rank -= ways[j, remaining] - ways[j, remaining - k * weights[j]]
            remaining -= k * weights[j]
    c[0] = remaining


@jit
def _next_colex(c, weights):
    """c -> the vector of next higher rank (bin 2 varies fastest). Returns the highest bin
    changed (bins above it are as they were), 0 after the last vector."""
    low = c[0]  # value held in the bins below j
    for j in range(1, c.shape[0]):
        if weights[j] <= low:  # room for one more chip in bin j
            low -= weights[j]
            c[j] += 1
            for k in range(1, j):
                c[k] = 0
            c[0] = low
            return j
        low += c[j] * weights[j]
    return 0


@jit
def _previous_colex(c, weights):
    """c -> the vector of next lower rank; the highest bin changed, 0 before the first
    (all chips in bin 1)."""
    low = c[0]
    for j in range(1, c.shape[0]):
        if c[j] > 0:
            c[j] -= 1
            low += weights[j]
            for k in range(j - 1, 0, -1):
                c[k] = low // weights[k]
                low -= c[k] * weights[k]
            c[0] = low
            return j
    return 0


@jit
def chip_steps(first, count, cursor, ids, ends, kids):
    """Summary mode's walk of a chip game's layer (contract.SummaryWalk, called by
    engine/summary.py): the positions first .. first + count - 1 of a solving order of
    ranks, their moves found by arithmetic on their counts, nothing of the graph stored.
    Returns 0, or -1 - id where a move does not go the one way in rank the order needs.

    cursor (chips/summary.py): n, the bins' weights, the ways table, the rules (taken bins
    and counts, fallback), whether the order is descending (every move to a higher rank:
    the highest rank solved first), the layer's size, and the walk's state: the count
    vector c of the last position stepped, per bin the value held in bins 0..j and its term
    of the rank, a scratch for the legal rules, per rule its change to each bin and the
    lowest and highest bins it touches, and the step the walk is at ([next step]). A call
    whose first is not that step starts afresh there (the vector unranked), so any batch may
    be stepped, by any cursor of the layer's (chips/summary.py forks them for threads).
    """
    (n, weights, ways, take_bin, take_count, fallback, descending, size,
     c, held, term, legal, delta, lowest, highest, at) = cursor
    e = 0
    afresh = first != at[0]
    if afresh:
        colex_unrank(size - 1 - first if descending else first, c, weights, ways, n)
    for j in range(count):
        step = first + j
        # The bins above the highest one the step to this vector changed keep their rank
        # terms, and the value held below them.
        top = weights.shape[0] - 1
        if step > 0 and not (afresh and j == 0):
            top = _previous_colex(c, weights) if descending else _next_colex(c, weights)
        i = size - 1 - step if descending else step
        remaining = held[top]
        for b in range(top, 0, -1):
            held[b] = remaining
            term[b] = ways[b, remaining] - ways[b, remaining - c[b] * weights[b]]
            remaining -= c[b] * weights[b]
        # A move changes only the rank terms of the bins from the lowest to the highest it
        # touches (below, counts and the value held are unchanged; above, counts are), so a
        # child's rank is the parent's with those few terms recomputed.
        k = legal_rules(c, take_bin, take_count, fallback, legal)
        for m in range(k):
            r = legal[m]
            child = i
            value = held[highest[r]]
            for b in range(highest[r], lowest[r] - 1, -1):
                placed = (c[b] + delta[r, b]) * weights[b]
                child += ways[b, value] - ways[b, value - placed] - term[b]
                value -= placed
            if (child <= i) if descending else (child >= i):
                return -1 - i
            kids[e] = child
            e += 1
        ids[j] = i
        ends[j] = e
    at[0] = first + count
    return 0


# -- the ordered game: a layer's keys are cut sets of compositions (variants/ordered.py) ---------------------
