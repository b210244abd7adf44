"""The engine's compiled loops, generic over games: link, order and solve a layer's graph,
count its games, its length distributions, random play and strategies, and summary mode's
solve of one position from its children. A game's own loops (its moves, its one-pass
summary) live with the game (zeckdb/variants/chips/kernels.py, .../ordered/kernels.py).

Kernels see only arrays, under the one numba policy of engine/jit.py.
"""

from __future__ import annotations

import numpy as np

from .jit import inline_jit, jit


@jit
def link(keys, child_keys, code, n_codes):
    """Index of each child key in the sorted `keys`; -1 where it is missing.

    Searches gallop from where the previous child of the same move code was
    found: for chip games a code's child keys rise with the source key, so
    each search is short. Any order is still linked correctly.
    """
    out = np.empty(child_keys.shape[0], dtype=np.int32)
    n = keys.shape[0]
    cursor = np.zeros(n_codes, dtype=np.int64)
    for e in range(child_keys.shape[0]):
        x = child_keys[e]
        lo = cursor[code[e]]
        if lo >= n or keys[lo] > x:
            lo = 0
        step = 1
        hi = lo + 1
        while hi < n and keys[hi] < x:  # gallop: keys[lo] <= x, find hi with keys[hi] >= x
            lo = hi
            step *= 2
            hi = lo + step
        if hi > n:
            hi = n
        while lo < hi:
            mid = (lo + hi) >> 1
            if keys[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        cursor[code[e]] = lo
        out[e] = lo if lo < n and keys[lo] == x else -1
    return out


@jit
def group(src, n_nodes):
    """Stable counting sort of edges by source: (offsets per node, edge permutation)."""
    offsets = np.zeros(n_nodes + 1, dtype=np.int64)
    for e in range(src.shape[0]):
        offsets[src[e] + 1] += 1
    for i in range(n_nodes):
        offsets[i + 1] += offsets[i]
    fill = offsets[:-1].copy()
    perm = np.empty(src.shape[0], dtype=np.int64)
    for e in range(src.shape[0]):
        perm[fill[src[e]]] = e
        fill[src[e]] += 1
    return offsets, perm


@jit
def edges_by_code(src, dst, code, n_codes):
    """The edges (src, dst, code) stably sorted by move code: a counting sort that moves the
    three columns at once, rather than a permutation and a gather of each."""
    fill = np.zeros(n_codes, dtype=np.int64)
    for e in range(code.shape[0]):
        fill[code[e]] += 1
    start = 0
    for c in range(n_codes):
        count = fill[c]
        fill[c] = start
        start += count
    out_src, out_dst, out_code = np.empty_like(src), np.empty_like(dst), np.empty_like(code)
    for e in range(code.shape[0]):
        c = code[e]
        i = fill[c]
        fill[c] = i + 1
        out_src[i] = src[e]
        out_dst[i] = dst[e]
        out_code[i] = c
    return out_src, out_dst, out_code


@jit
def topological_order(offsets, targets):
    """Node ids with every node after all its children (Kahn's algorithm, run from
    the sources and reversed). Shorter than the node count when there is a cycle."""
    n = offsets.shape[0] - 1
    parents = np.zeros(n, dtype=np.int32)
    for e in range(targets.shape[0]):
        parents[targets[e]] += 1
    queue = np.empty(n, dtype=np.int32)
    tail = 0
    for v in range(n):
        if parents[v] == 0:
            queue[tail] = v
            tail += 1
    head = 0
    while head < tail:
        v = queue[head]
        head += 1
        for e in range(offsets[v], offsets[v + 1]):
            w = targets[e]
            parents[w] -= 1
            if parents[w] == 0:
                queue[tail] = w
                tail += 1
    return queue[:tail][::-1].copy()


@jit
def solve(offsets, targets, order, win, remoteness, min_rem, max_rem, games, expected, grundy, n_winning, misere):
    """Solve the nodes of `order`, a topological order (children first), in place.

    Per node: win (player to move wins), remoteness, min and max moves to the end,
    number of complete games (float), expected moves under uniform random play,
    Grundy value (normal play's: the mex of the moves', whatever the convention), and
    number of winning moves. A terminal is lost for the player to move, or won under
    misère play (remoteness 0 either way: the winner hurries, the loser delays). Nodes
    outside `order` are read, never written: they hold the solved values of lower layers.
    """
    seen = np.zeros(1024, dtype=np.bool_)
    for i in order:
        lo, hi = offsets[i], offsets[i + 1]
        if lo == hi:
            games[i] = 1.0
            win[i] = misere
            continue
        best_win = 32767  # fewest moves to a win, over children that lose
        best_loss = -1  # most moves to a loss, over children that win
        mn, mx, g, ex, wins = 32767, -1, 0.0, 0.0, 0
        for e in range(lo, hi):
            c = targets[e]
            if not win[c]:
                wins += 1
                if remoteness[c] < best_win:
                    best_win = remoteness[c]
            elif remoteness[c] > best_loss:
                best_loss = remoteness[c]
            if min_rem[c] < mn:
                mn = min_rem[c]
            if max_rem[c] > mx:
                mx = max_rem[c]
            g += games[c]
            ex += expected[c]
            if grundy[c] < 1024:
                seen[grundy[c]] = True
        win[i] = wins > 0
        n_winning[i] = wins
        remoteness[i] = 1 + (best_win if wins > 0 else best_loss)
        min_rem[i] = 1 + mn
        max_rem[i] = 1 + mx
        games[i] = g
        expected[i] = 1.0 + ex / (hi - lo)
        mex = 0
        while seen[mex]:
            mex += 1
        grundy[i] = mex
        for e in range(lo, hi):
            c = targets[e]
            if grundy[c] < 1024:
                seen[grundy[c]] = False


_ONE = np.uint64(1)
_NONE = np.uint64(0)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@inline_jit
def terminal_teams(players):
    """The teams that win where nobody can move: those holding the seat that just moved
    (players - 1 seats after the one who would move)."""
    out = _NONE
    for t in range(1 << players):
        if (t >> (players - 1)) & 1:
            out |= _ONE << np.uint64(t)
    return out


@inline_jit
def teams_from_children(some, every, players):
    """A position's team mask from its children's: `some` the OR of their masks, `every`
    the AND. Bit t stands for the team of the seats whose bits t holds (bit j: the player j
    seats after the one to move). After a move the seats turn by one: the mover becomes the
    child's seat players - 1, and seat j >= 1 its seat j - 1. A team holding the mover
    forces if some move leaves it forcing; a team without the mover must be left forcing
    by every move (the other players, one coalition, choose)."""
    out = _NONE
    top = players - 1
    for t in range(1, 1 << players):
        child = (t >> 1) | ((t & 1) << top)
        source = some if t & 1 else every
        if (source >> np.uint64(child)) & _ONE:
            out |= _ONE << np.uint64(t)
    return out


@jit
def team_masks(offsets, targets, order, players, masks):
    """The games of `players` players (at most 6) who move in turn, the last mover winning:
    per node of `order` (children first), bit t of masks[node] is set when the team of the
    seats in t (counted from the player to move) can force the last mover to be one of
    theirs, against every joint play of the others (teams_from_children). A single seat's
    team is that player alone. Nodes outside `order` are read, never written."""
    terminal = terminal_teams(players)
    for i in order:
        lo, hi = offsets[i], offsets[i + 1]
        if lo == hi:
            masks[i] = terminal
            continue
        some = _NONE
        every = _ALL
        for e in range(lo, hi):
            m = masks[targets[e]]
            some |= m
            every &= m
        masks[i] = teams_from_children(some, every, players)


LIMB_BITS = 62
LIMB_MASK = (1 << LIMB_BITS) - 1
_BITS = np.uint64(LIMB_BITS)
_MASK = np.uint64(LIMB_MASK)


@jit
def add_limbs(acc, value):
    """acc += value, both exact non-negative integers as base-2^62 limbs (least significant first)."""
    carry = np.uint64(0)
    for j in range(acc.shape[0]):
        s = acc[j] + value[j] + carry
        acc[j] = s & _MASK
        carry = s >> _BITS


def limb_bits_for(max_in_degree: int) -> int:
    """Bits per limb leaving each uint64 lane room for max_in_degree additions of carried limbs."""
    return min(LIMB_BITS, 64 - (max(1, max_in_degree) - 1).bit_length())


@jit
def carry_limbs(acc, bits, lanes):
    """Carry acc's lanes in place into base-2^bits limbs (least significant first), given
    that lanes from `lanes` on are zero; returns how many limbs are in use (the highest
    non-zero one, plus one)."""
    mask = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    carry = np.uint64(0)
    used = 0
    j = 0
    while j < acc.shape[0] and (j < lanes or carry):
        s = acc[j] + carry
        acc[j] = s & mask
        carry = s >> np.uint64(bits)
        if acc[j]:
            used = j + 1
        j += 1
    return used


@jit
def exact_games(offsets, targets, order, count):
    """Number of complete games from the nodes of `order`, exactly, as base-2^62 limbs
    (count: zeros there, the counts of lower layers' nodes elsewhere), in place."""
    for i in order:
        lo, hi = offsets[i], offsets[i + 1]
        if lo == hi:
            count[i, 0] = 1
            continue
        for e in range(lo, hi):
            add_limbs(count[i], count[targets[e]])


@jit
def _child_span(offsets, targets):
    """The smallest and largest child of each node (n and -1 for a node without moves)."""
    n = offsets.shape[0] - 1
    first = np.empty(n, dtype=np.int64)
    last = np.empty(n, dtype=np.int64)
    for v in range(n):
        a, b = n, -1
        for e in range(offsets[v], offsets[v + 1]):
            a = min(a, targets[e])
            b = max(b, targets[e])
        first[v], last[v] = a, b
    return first, last


@jit
def length_distribution(offsets, targets, start, max_len, mirror):
    """Distribution of the length of a game from `start`, one length step at a time.

    Returns, per length: the probability under P (each player picks a uniformly
    random move), the number of complete games of that length (float), and, when
    `mirror`, the probability under P of the mirrored game: the one
    played backwards along these moves from the graph's only terminal to `start`
    (engine.solve.mirrors); zeros without. A game of the mirror is one of these read
    backwards, chosen with probability the product of 1 / (number of moves into each
    node but `start`), so the same sweep carries it at the cost of one more value per
    move (a sweep without it moves two values a move: _sweep, _sweep_mirrored). Memory
    is linear in the nodes (the current and the next step). Each step sweeps the nodes
    holding mass in id order, which keeps the scattered writes of each move kind moving
    forward together (a frontier list in arrival order was 5x slower at n = 150). The
    exact counts are a sweep of their own (exact_length_counts): carried in this one,
    their tests slowed every sweep.
    """
    if mirror:
        return _sweep_mirrored(offsets, targets, start, max_len)
    out_p, out_g = _sweep(offsets, targets, start, max_len)
    return out_p, out_g, np.zeros(max_len + 1)


@jit
def _inverse_degrees(offsets, targets, incoming):
    """1 / the number of moves out of (or, `incoming`, into) each node; 0 where there are none."""
    n = offsets.shape[0] - 1
    inverse = np.zeros(n)
    if incoming:
        for e in range(targets.shape[0]):
            inverse[targets[e]] += 1.0
    else:
        for v in range(n):
            inverse[v] = offsets[v + 1] - offsets[v]
    for v in range(n):
        if inverse[v] > 0.0:
            inverse[v] = 1.0 / inverse[v]
    return inverse


# The sweeps index with unsigned integers: numba then leaves out the test for a negative
# index (counted from the end) on every access, which the moves' inner loop repeats for each
# of its values. A node's values lie in a row of a flat array.


@jit
def _sweep(offsets, targets, start, max_len):
    """length_distribution's sweep of two values a node: the probability under P of reaching
    it in k moves, and the number of such paths."""
    n = offsets.shape[0] - 1
    first, last = _child_span(offsets, targets)
    inv_degree = _inverse_degrees(offsets, targets, False)
    one, two = np.uint64(1), np.uint64(2)
    cur = np.zeros(2 * n)
    nxt = np.zeros(2 * n)
    out_p = np.zeros(max_len + 1)
    out_g = np.zeros(max_len + 1)
    cur[2 * start] = 1.0
    cur[2 * start + 1] = 1.0
    lo_id, hi_id = start, start  # nodes holding mass lie in [lo_id, hi_id]
    for k in range(max_len + 1):
        new_lo, new_hi = n, -1
        for node in range(lo_id, hi_id + 1):
            v = np.uint64(node)
            row = two * v
            gv = cur[row + one]
            if gv == 0.0:  # not reached (a reached node has a path; P alone can underflow on long games)
                continue
            pv = cur[row]
            lo, hi = np.uint64(offsets[v]), np.uint64(offsets[v + one])
            if lo == hi:
                out_p[k] += pv
                out_g[k] += gv
            else:
                share = pv * inv_degree[v]
                for e in range(lo, hi):
                    to = two * np.uint64(targets[e])
                    nxt[to] += share
                    nxt[to + one] += gv
                new_lo = min(new_lo, first[v])
                new_hi = max(new_hi, last[v])
            cur[row] = 0.0
            cur[row + one] = 0.0
        cur, nxt = nxt, cur
        lo_id, hi_id = new_lo, new_hi
    return out_p, out_g


@jit
def _sweep_mirrored(offsets, targets, start, max_len):
    """_sweep with a third value a node: the mirror's probability of the paths (the factor of
    the node itself applied when it is swept)."""
    n = offsets.shape[0] - 1
    first, last = _child_span(offsets, targets)
    inv_degree = _inverse_degrees(offsets, targets, False)
    inv_in_degree = _inverse_degrees(offsets, targets, True)
    one, two, three = np.uint64(1), np.uint64(2), np.uint64(3)
    cur = np.zeros(3 * n)
    nxt = np.zeros(3 * n)
    out_p = np.zeros(max_len + 1)
    out_g = np.zeros(max_len + 1)
    out_m = np.zeros(max_len + 1)
    cur[3 * start] = 1.0
    cur[3 * start + 1] = 1.0
    cur[3 * start + 2] = 1.0
    lo_id, hi_id = start, start
    for k in range(max_len + 1):
        new_lo, new_hi = n, -1
        for node in range(lo_id, hi_id + 1):
            v = np.uint64(node)
            row = three * v
            gv = cur[row + one]
            if gv == 0.0:
                continue
            pv = cur[row]
            mv = cur[row + two]
            if k > 0:
                mv *= inv_in_degree[v]
            lo, hi = np.uint64(offsets[v]), np.uint64(offsets[v + one])
            if lo == hi:
                out_p[k] += pv
                out_g[k] += gv
                out_m[k] += mv
            else:
                share = pv * inv_degree[v]
                for e in range(lo, hi):
                    to = three * np.uint64(targets[e])
                    nxt[to] += share
                    nxt[to + one] += gv
                    nxt[to + two] += mv
                new_lo = min(new_lo, first[v])
                new_hi = max(new_hi, last[v])
            cur[row] = 0.0
            cur[row + one] = 0.0
            cur[row + two] = 0.0
        cur, nxt = nxt, cur
        lo_id, hi_id = new_lo, new_hi
    return out_p, out_g, out_m


@jit
def exact_length_counts(offsets, targets, start, max_len, limbs, limb_bits):
    """The number of complete games from `start` of each length, exactly, as `limbs`
    base-2^limb_bits limbs (least significant first): length_distribution's sweep, of
    counts that outgrow a float.

    The counts move without carries: a move adds its node's limbs to its target's
    lane by lane, and a node's limbs are carried once, when it is swept. limb_bits leaves
    each lane room for one addition per move into a node (limb_bits_for), so no lane
    overflows in between; carrying on every move was most of the sweep's time. A move adds
    only the limbs its node uses: the counts grow over the game, and the first steps'
    counts need a few of the limbs the last ones need.
    """
    n = offsets.shape[0] - 1
    first, last = _child_span(offsets, targets)
    x_cur = np.zeros((n, limbs), dtype=np.uint64)
    x_nxt = np.zeros((n, limbs), dtype=np.uint64)
    out_x = np.zeros((max_len + 1, limbs), dtype=np.uint64)
    x_cur[start, 0] = 1
    lo_id, hi_id = start, start  # nodes holding counts lie in [lo_id, hi_id]
    width = 1  # x_cur's lanes from `width` on are zero (carry_limbs carries into them)
    for k in range(max_len + 1):
        new_lo, new_hi = n, -1
        new_width = 0
        for v in range(lo_id, hi_id + 1):
            used = carry_limbs(x_cur[v], limb_bits, width)
            if used == 0:  # not reached
                continue
            new_width = max(new_width, used)
            lo, hi = offsets[v], offsets[v + 1]
            if lo == hi:
                for j in range(used):
                    out_x[k, j] += x_cur[v, j]
                carry_limbs(out_x[k], limb_bits, limbs)
            else:
                for e in range(lo, hi):
                    w = targets[e]
                    for j in range(used):
                        x_nxt[w, j] += x_cur[v, j]
                new_lo = min(new_lo, first[v])
                new_hi = max(new_hi, last[v])
            for j in range(used):
                x_cur[v, j] = 0
        x_cur, x_nxt = x_nxt, x_cur
        lo_id, hi_id = new_lo, new_hi
        width = new_width
    return out_x


@jit
def random_play(offsets, targets, order, q, a, b, misere):
    """Per node of `order`, in place: q, the probability that the player to move wins
    when both move uniformly at random; a, that a perfect player to move beats a
    random one; b, that a perfect player wins when the random one is to move.
    (Player 1 perfect from the start: a; Player 2 perfect: 1 - b.)
    """
    for i in order:
        lo, hi = offsets[i], offsets[i + 1]
        if lo == hi:  # the player to move cannot: lost (normal play) or won (misère play)
            q[i] = 1.0 if misere else 0.0
            a[i] = 1.0 if misere else 0.0
            b[i] = 0.0 if misere else 1.0
            continue
        sq, best, sa = 0.0, 0.0, 0.0
        for e in range(lo, hi):
            c = targets[e]
            sq += 1.0 - q[c]
            if b[c] > best:
                best = b[c]
            sa += a[c]
        q[i] = sq / (hi - lo)
        a[i] = best
        b[i] = sa / (hi - lo)


@jit
def winning_strategies(offsets, targets, order, win, start):
    """Nodes on some winning strategy of the player who wins from `start`: reachable
    when the winner moves only to lost positions and the loser moves anywhere
    (following the nodes of `order` only)."""
    reach = np.zeros(offsets.shape[0] - 1, dtype=np.bool_)
    reach[start] = True
    for t in range(order.shape[0] - 1, -1, -1):  # parents before children
        i = order[t]
        if not reach[i]:
            continue
        for e in range(offsets[i], offsets[i + 1]):
            c = targets[e]
            if not win[i] or not win[c]:
                reach[c] = True
    return reach


@inline_jit
def solve_from_children(i, kids, lo, hi, ints, floats, misere):
    """Summary mode's values of position i from those of its children kids[lo:hi] (solved):
    ints[:, 0..2] remoteness (odd: a win; under misère play, even), fewest and most moves to
    the end; with floats (5 columns, else 0) expected moves under uniform random play,
    complete games and the random-play odds q, a, b (as random_play)."""
    keep_floats = floats.shape[1] > 0
    k = hi - lo
    if k == 0:
        ints[i, 0] = 0
        ints[i, 1] = 0
        ints[i, 2] = 0
        if keep_floats:
            floats[i, 0] = 0.0
            floats[i, 1] = 1.0
            floats[i, 2] = 1.0 if misere else 0.0  # the player to move cannot: won under misère play
            floats[i, 3] = 1.0 if misere else 0.0
            floats[i, 4] = 0.0 if misere else 1.0  # the random player cannot move
        return
    best_win = 32767
    best_loss = -1
    mn = 32767
    mx = -1
    wins = 0
    ex = 0.0
    games = 0.0
    sq = 0.0
    best_b = 0.0
    sa = 0.0
    for m in range(lo, hi):
        child = kids[m]
        rem = ints[child, 0]
        if (rem % 2 == 0) != misere:  # the child is lost for its mover
            wins += 1
            if rem < best_win:
                best_win = rem
        elif rem > best_loss:
            best_loss = rem
        if ints[child, 1] < mn:
            mn = ints[child, 1]
        if ints[child, 2] > mx:
            mx = ints[child, 2]
        if keep_floats:
            ex += floats[child, 0]
            games += floats[child, 1]
            sq += 1.0 - floats[child, 2]
            if floats[child, 4] > best_b:
                best_b = floats[child, 4]
            sa += floats[child, 3]
    ints[i, 0] = 1 + (best_win if wins > 0 else best_loss)
    ints[i, 1] = 1 + mn
    ints[i, 2] = 1 + mx
    if keep_floats:
        floats[i, 0] = 1.0 + ex / k
        floats[i, 1] = games
        floats[i, 2] = sq / k
        floats[i, 3] = best_b
        floats[i, 4] = sa / k


@inline_jit
def teams_of_children(i, kids, lo, hi, players, teams):
    """Summary mode's team mask of position i (a game of `players` players) from those of its
    children kids[lo:hi] (solved), as team_masks finds it."""
    if lo == hi:
        teams[i] = terminal_teams(players)
        return
    some = _NONE
    every = _ALL
    for m in range(lo, hi):
        some |= teams[kids[m]]
        every &= teams[kids[m]]
    teams[i] = teams_from_children(some, every, players)


@jit
def solve_batch(count, ids, ends, kids, ints, floats, players, teams, misere):
    """Summary mode (engine/summary.py): a batch of positions that a game's walk stepped
    (contract.SummaryWalk), children first, each solved from its children
    (solve_from_children; teams_of_children where teams is not empty)."""
    lo = 0
    for j in range(count):
        i = ids[j]
        hi = ends[j]
        solve_from_children(i, kids, lo, hi, ints, floats, misere)
        if teams.shape[0] > 0:
            teams_of_children(i, kids, lo, hi, players, teams)
        lo = hi


# -- summary mode on several threads ----------------------------------------------------------


@jit
def chunk_spans(count, chunk, moves, ends, starts):
    """A block stepped as pieces of `chunk` positions, each writing its children from
    kids[p * chunk * moves] on with ends counted from there: per position, where its children
    begin and end in kids as a whole (ends rewritten in place, starts filled)."""
    before = 0
    for j in range(count):
        base = (j // chunk) * chunk * moves
        if j % chunk == 0:
            before = 0
        starts[j] = base + before
        before = ends[j]
        ends[j] = base + before


@jit
def solve_block(count, ids, starts, ends, kids, ints, floats, players, teams, misere):
    """solve_batch for a block whose children's spans are starts[j]..ends[j] (chunk_spans)."""
    for j in range(count):
        i = ids[j]
        solve_from_children(i, kids, starts[j], ends[j], ints, floats, misere)
        if teams.shape[0] > 0:
            teams_of_children(i, kids, starts[j], ends[j], players, teams)


# -- summary mode, the winner only -----------------------------------------------------------


@inline_jit
def win_from_children(i, kids, lo, hi, win, misere):
    """Summary mode's winner-only state (--winner-only): win[i] = 1 where position i is won
    for the player to move, from its children kids[lo:hi] (solved): won exactly when some move
    leads to a lost position, or, with no move left, when terminal positions win (misère)."""
    if lo == hi:
        win[i] = 1 if misere else 0
        return
    w = 0
    for m in range(lo, hi):
        if win[kids[m]] == 0:
            w = 1
            break
    win[i] = w


@jit
def solve_win_batch(count, ids, ends, kids, win, misere):
    """solve_batch keeping only who wins each position (win_from_children)."""
    lo = 0
    for j in range(count):
        hi = ends[j]
        win_from_children(ids[j], kids, lo, hi, win, misere)
        lo = hi


@jit
def solve_win_block(count, ids, starts, ends, kids, win, misere):
    """solve_block keeping only who wins each position (win_from_children)."""
    for j in range(count):
        win_from_children(ids[j], kids, starts[j], ends[j], win, misere)


# -- strategy profiles: any pair of (possibly random) strategies, exactly ----------------------


@jit
def profile_lengths(offsets, targets, start, max_len, first, second):
    """The distribution of the length of a game from `start` when the player to move there plays
    by the edge weights `first` and the other by `second` (per edge, the probability that the
    mover at its source takes it; they alternate, `first` at even lengths). One length step at
    a time, sweeping the nodes that may hold mass in id order, as length_distribution does (and
    for its reason: the scattered writes move forward together)."""
    n = offsets.shape[0] - 1
    first_child, last_child = _child_span(offsets, targets)
    out = np.zeros(max_len + 1, dtype=np.float64)
    cur = np.zeros(n, dtype=np.float64)
    nxt = np.zeros(n, dtype=np.float64)
    cur[start] = 1.0
    lo_id, hi_id = start, start  # nodes holding mass lie in [lo_id, hi_id]
    for length in range(max_len + 1):
        weights = first if length % 2 == 0 else second
        new_lo, new_hi = n, -1
        for node in range(lo_id, hi_id + 1):
            v = np.uint64(node)
            mass = cur[v]
            if mass == 0.0:
                continue
            cur[v] = 0.0
            lo, hi = np.uint64(offsets[v]), np.uint64(offsets[v + np.uint64(1)])
            if lo == hi:
                out[length] += mass
                continue
            for e in range(lo, hi):
                w = weights[e]
                if w > 0.0:
                    nxt[np.uint64(targets[e])] += mass * w
            new_lo = min(new_lo, first_child[v])
            new_hi = max(new_hi, last_child[v])
        cur, nxt = nxt, cur
        lo_id, hi_id = new_lo, new_hi
        if hi_id < 0:
            break
    return out


@jit
def best_response(offsets, targets, order, opponent, preference, chosen, misere):
    """The strategy that maximises its player's chance to win against the opponent's fixed edge
    weights (the last mover wins; under misère play, loses), over the nodes of `order` (children first): per node, the
    value with the best responder to move (mine) and with the opponent to move (theirs), and in
    `chosen` the edge the best responder takes (ties: the lowest `preference`). Returns (mine,
    theirs)."""
    n = offsets.shape[0] - 1
    mine = np.zeros(n, dtype=np.float64)
    theirs = np.zeros(n, dtype=np.float64)
    for i in order:
        lo, hi = offsets[i], offsets[i + 1]
        if lo == hi:  # to move with no move: the opponent moved last
            mine[i] = 1.0 if misere else 0.0
            theirs[i] = 0.0 if misere else 1.0
            chosen[i] = -1
            continue
        best, pick, rank = -1.0, -1, 0
        expected = 0.0
        for e in range(lo, hi):
            c = targets[e]
            value = theirs[c]
            if value > best + 1e-15 or (abs(value - best) <= 1e-15 and preference[e] < rank):
                best, pick, rank = value, e, preference[e]
            expected += opponent[e] * mine[c]
        mine[i] = best
        theirs[i] = expected
        chosen[i] = pick
    return mine, theirs


@jit
def lowest_edges(offsets, key):
    """One-hot edge weights of a deterministic profile: at each position with moves, 1.0 on its
    move of the lowest key (the first of them in edge order on a tie), 0.0 elsewhere."""
    n = offsets.shape[0] - 1
    out = np.zeros(offsets[n], dtype=np.float64)
    for v in range(n):
        lo, hi = offsets[v], offsets[v + 1]
        if lo == hi:
            continue
        best = lo
        for e in range(lo + 1, hi):
            if key[e] < key[best]:
                best = e
        out[best] = 1.0
    return out


@jit
def profile_values(offsets, targets, order, first, second, misere):
    """The game under two profiles (edge weights `first` and `second`, as profile_lengths takes
    them) from every position at once, over the nodes of `order` (children first). Per node v
    and side s (0: the `first` player to move at v, 1: the other), in one pass over the moves:
    win[s, v] and lose[s, v], the probabilities that the `first` player wins (moves last; under
    misère play, does not) and loses, each summed over its own games (1 - win would print the
    rounding of win as a chance where none is); mean[s, v], the expected number of moves left;
    shortest[s, v] and longest[s, v], the fewest and most moves left over the games of
    probability above 0."""
    n = offsets.shape[0] - 1
    win = np.zeros((2, n), dtype=np.float64)
    lose = np.zeros((2, n), dtype=np.float64)
    mean = np.zeros((2, n), dtype=np.float64)
    shortest = np.zeros((2, n), dtype=np.int64)
    longest = np.zeros((2, n), dtype=np.int64)
    for v in order:
        lo, hi = offsets[v], offsets[v + 1]
        if lo == hi:  # the `first` player to move with no move has lost (misère: won); the other, the reverse
            win[0 if misere else 1, v] = 1.0
            lose[1 if misere else 0, v] = 1.0
            continue
        for s in range(2):
            weights = first if s == 0 else second
            w, x, m, fewest, most = 0.0, 0.0, 0.0, np.iinfo(np.int64).max, -1
            for e in range(lo, hi):
                p = weights[e]
                if p > 0.0:
                    c = targets[e]
                    w += p * win[1 - s, c]
                    x += p * lose[1 - s, c]
                    m += p * mean[1 - s, c]
                    fewest = min(fewest, shortest[1 - s, c])
                    most = max(most, longest[1 - s, c])
            win[s, v] = w
            lose[s, v] = x
            mean[s, v] = 1.0 + m
            shortest[s, v] = 1 + fewest
            longest[s, v] = 1 + most
    return win, lose, mean, shortest, longest


@jit
def walk(offsets, targets, start, first, second):
    """The length of the one game from `start` when both profiles are deterministic (one-hot edge
    weights, as profile_lengths takes them): the moves taken until a position has none."""
    v, length = start, 0
    while offsets[v] < offsets[v + 1]:
        weights = first if length % 2 == 0 else second
        for e in range(offsets[v], offsets[v + 1]):
            if weights[e] > 0.0:
                v = targets[e]
                break
        length += 1
    return length
