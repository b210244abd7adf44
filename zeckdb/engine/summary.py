"""Summary mode: a layer's start values without its positions and moves.

The full build enumerates a layer's keys, links its moves and keeps both; that
is what bounds it (engine.limits). Here the engine solves a layer in one pass over its
ids (kernels.solve_batch), in the order of the game's walk (the contract's summary_walk:
the chip games whose moves go one way in rank, the ordered game), which finds a
position's moves by arithmetic. The state, held here, is a few bytes per position
(engine.limits.summary_bytes): 8 for remoteness and the shortest and longest remaining
game, 40 more for the expected length, the game count (float) and the random-play odds,
kept while they fit the memory budget, and 8 for the teams that can force a win in a
game of three or more players. With winner_only (`--winner-only`) the state is one byte a
position, whether it is won for the player to move: all the winner needs, so the summary
row keeps the winner and the layer's counts and leaves the lengths and remoteness NULL.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import time

import numpy as np

from ..errors import UsageError
from .contract import Summarisable, Variant, mover_wins, terminal_wins
from .kernels import solve_batch, solve_win_batch
from .limits import summary_bytes
from .solve import seats_of

INT_COLUMNS = 4  # remoteness, min_remaining, max_remaining, (padding: 8-byte rows)
FLOAT_COLUMNS = 5  # expected, games, q, a, b
MAX_BATCH = 16384  # positions per call of a game's walk: enough that the calls cost nothing
KIDS_PER_BATCH = 1 << 20  # a batch's children's ids (8 MiB), for games with many moves per position


def supports_summary(variant: Variant) -> bool:
    """Whether summary mode solves the game (Variant.summary_refusal says why not)."""
    return variant.summary_refusal is None


def layer_size(variant: Variant, n: int) -> int:
    """How many positions layer n has, as the game's summary walk numbers them."""
    return variant.summary_size(n)


def layer_bytes(variant: Variant, n: int, floats: bool, winner_only: bool = False) -> int:
    """Memory the one-pass solve of layer n holds (its state per position: engine.limits;
    winner_only: the one byte of --winner-only)."""
    return layer_size(variant, n) * summary_bytes(variant, floats, winner_only)


@dataclass
class Summary:
    """What summary mode keeps of a layer: its start's values and its size."""

    variant: str
    n: int
    positions: int
    edges: int
    start_id: int
    winner: int | None  # games of three or more players: None where no player can force a win
    start_remoteness: int | None  # None in games of three or more players, and with winner_only
    min_length: int | None  # None with winner_only (its state keeps no lengths)
    max_length: int | None
    expected_length: float | None  # None where the float columns did not fit the budget
    games_approx: float | None  # None also where the count passes the float range (n > ~250)
    p1_wins_random: float | None
    p1_wins_p1_perfect: float | None
    p1_wins_p2_perfect: float | None
    seconds: float
    state_bytes: int
    teams: int | None = None  # games of three or more players: the start's team mask (kernels.team_masks)


class SummaryOrderError(RuntimeError):
    """A game's walk stepped a position before one of its children (a bug of the game)."""


@dataclass
class WalkedLayer:
    """A layer solved by summary mode, every position's values kept (solve_summary keeps the
    start's; zeckdb.testing compares them all with the full solve)."""

    start: int  # the start's id
    edges: int
    ints: np.ndarray  # per id: remoteness, fewest and most moves to the end (kernels.solve_from_children);
    # winner_only: one uint8 per id, 1 where the player to move wins (kernels.win_from_children)
    floats: np.ndarray  # per id: 5 columns with floats, else none
    teams: np.ndarray  # games of three or more players: per id, the team mask; else empty


def _state(variant: Summarisable, size: int, floats: bool,
           winner_only: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A layer's solved values, one row per position: the integers, the floats (if kept) and,
    in a game of three or more players, the teams; winner_only: one byte a position."""
    if winner_only:
        if variant.players > 2:
            raise UsageError(f"{variant.name}: the winner-only state is two-player (a game of "
                                  f"{variant.players} players needs the teams that can force a win)")
        return (np.empty(size, dtype=np.uint8), np.empty((size, 0), dtype=np.float64),
                np.empty(0, dtype=np.uint64))
    return (np.empty((size, INT_COLUMNS), dtype=np.int16),
            np.empty((size, FLOAT_COLUMNS if floats else 0), dtype=np.float64),
            np.empty(size if variant.players > 2 else 0, dtype=np.uint64))


def walk_layer(variant: Summarisable, n: int, floats: bool = True, batch: int | None = None,
               threads: int = 1, winner_only: bool = False) -> WalkedLayer:
    """Layer n solved in one pass over the game's walk. batch: positions per call of the
    walk (default: as many as MAX_BATCH and KIDS_PER_BATCH allow). threads: more than one
    solves it in blocks on that many threads (_walk_threaded), to the same values.
    winner_only: keep only whether each position is won (ints: one uint8 per id; floats ignored)."""
    if threads > 1:
        return _walk_threaded(variant, n, floats, threads, batch, winner_only)
    walk = variant.summary_walk(n)
    size = walk.size
    ints, state, teams = _state(variant, size, floats, winner_only)
    # The game steps a batch of positions, the engine solves them: two compiled calls per
    # batch, so that neither compiles the other in (numba's cache cannot keep a kernel that
    # takes another kernel as an argument: it would compile anew in every process).
    moves = max(walk.max_moves, 1)
    batch = max(1, min(size, batch or min(KIDS_PER_BATCH // moves, MAX_BATCH)))
    ids = np.empty(batch, dtype=np.int64)
    ends = np.empty(batch, dtype=np.int64)
    kids = np.empty(batch * moves, dtype=np.int64)
    misere = terminal_wins(variant)
    edges = 0
    for first in range(0, size, batch):
        count = min(batch, size - first)
        bad = walk.steps(first, count, walk.cursor, ids, ends, kids)
        if bad < 0:
            raise SummaryOrderError(f"{variant.name}, n = {n}: a move from id {-1 - bad} breaks the game's solving "
                                    "order (a bug of the game's summary_walk)")
        if winner_only:
            solve_win_batch(count, ids, ends, kids, ints, misere)
        else:
            solve_batch(count, ids, ends, kids, ints, state, variant.players, teams, misere)
        edges += int(ends[count - 1])
    return WalkedLayer(walk.start, edges, ints, state, teams)


BLOCK_POSITIONS = 1 << 20  # positions of a block stepped on several threads
BLOCK_KIDS = 1 << 23  # the most children's ids a block holds (64 MiB; two blocks are held)
PIECES_PER_THREAD = 4  # a block's stepping is cut in this many pieces a thread: threads that finish early take more


def _walk_threaded(variant: Summarisable, n: int, floats: bool, threads: int, batch: int | None,
                   winner_only: bool = False) -> WalkedLayer:
    """walk_layer on `threads` threads, a block of positions at a time: while one thread solves
    block k in the walk's order (each position from its children, as on one thread, so the
    values are the same bit for bit), the others step block k + 1, cut in pieces, each piece
    with a cursor of its own (the game's walk must fork them; else a block is stepped in
    order on one thread). Solving in the walk's order keeps a position's children near the
    last one's in memory; an order of independent waves, solved by every thread at once,
    measured four times slower a position (docs/scaling.md)."""
    from concurrent.futures import wait

    from ..settings import pool as named_pool

    from .kernels import chunk_spans, solve_block, solve_win_block

    walk = variant.summary_walk(n)
    size = walk.size
    ints, state, teams = _state(variant, size, floats, winner_only)
    misere = terminal_wins(variant)
    moves = max(walk.max_moves, 1)
    block = max(1, min(size, batch * threads if batch else BLOCK_POSITIONS, BLOCK_KIDS // moves))
    pieces = threads * PIECES_PER_THREAD if walk.fork is not None else 1
    chunk = -(-block // pieces)
    cursors = [walk.fork() for _ in range(pieces)] if walk.fork is not None else [walk.cursor]
    buffers = [(np.empty(block, dtype=np.int64), np.empty(block, dtype=np.int64), np.empty(block, dtype=np.int64),
                np.empty(chunk * pieces * moves, dtype=np.int64)) for _ in range(2)]

    def step(first: int, count: int, piece: int, buffer: int) -> int:
        ids, ends, _, kids = buffers[buffer]
        lo = piece * chunk
        return walk.steps(first + lo, count, cursors[piece], ids[lo:lo + count], ends[lo:lo + count],
                          kids[lo * moves:(lo + count) * moves])

    def solve(count: int, buffer: int) -> int:
        ids, ends, starts, kids = buffers[buffer]
        if winner_only:
            solve_win_block(count, ids, starts, ends, kids, ints, misere)
        else:
            solve_block(count, ids, starts, ends, kids, ints, state, variant.players, teams, misere)
        return 0

    edges = 0
    blocks = [(first, min(block, size - first)) for first in range(0, size, block)]
    with named_pool(threads, "zeckdb-summary") as pool:
        for k in range(len(blocks) + 1):
            jobs = [pool.submit(solve, blocks[k - 1][1], (k - 1) % 2)] if k else []  # first: it is the long one
            if k < len(blocks):
                first, count = blocks[k]
                parts = [(p, min(chunk, count - p * chunk)) for p in range(pieces) if p * chunk < count]
                steps = [pool.submit(step, first, c, p, k % 2) for p, c in parts]
                jobs += steps
            wait(jobs)
            for job in jobs:
                job.result()  # a kernel's error, raised here
            if k < len(blocks):
                for job in steps:
                    if job.result() < 0:
                        bad = -1 - job.result()
                        raise SummaryOrderError(f"{variant.name}, n = {n}: a move from id {bad} breaks the game's "
                                                "solving order (a bug of the game's summary_walk)")
                ids, ends, starts, _ = buffers[k % 2]
                edges += sum(int(ends[p * chunk + c - 1]) for p, c in parts)
                chunk_spans(count, chunk, moves, ends, starts)
    return WalkedLayer(walk.start, edges, ints, state, teams)


def solve_summary(variant: Summarisable, n: int, floats: bool = True, batch: int | None = None,
                  threads: int = 1, winner_only: bool = False) -> Summary:
    """Layer n solved in one pass (walk_layer, on `threads` threads); its start's values.
    winner_only: one byte a position (floats ignored); the summary has the winner and the
    layer's counts, None for the start's remoteness, lengths and the float columns."""
    t0 = time.perf_counter()
    layer = walk_layer(variant, n, floats and not winner_only, batch, threads, winner_only)
    s, teams = layer.start, layer.teams
    if winner_only:
        return Summary(variant.name, n, len(layer.ints), layer.edges, s, 1 if layer.ints[s] else 2, None, None, None,
                       expected_length=None, games_approx=None, p1_wins_random=None, p1_wins_p1_perfect=None,
                       p1_wins_p2_perfect=None, seconds=time.perf_counter() - t0,
                       state_bytes=layer.ints.nbytes + len(layer.ints) * variant.summary_overhead)
    summary = _summary(variant, n, len(layer.ints), layer.edges, s, layer.ints, layer.floats if floats else None, t0)
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
        variant.name, n, size, int(edges), s, 1 if mover_wins(remoteness, terminal_wins(variant)) else 2, remoteness,
        int(ints[s, 1]), int(ints[s, 2]),
        expected_length=value(0), games_approx=value(1), p1_wins_random=value(2), p1_wins_p1_perfect=value(3),
        p1_wins_p2_perfect=None if row is None else 1.0 - float(row[4]),
        seconds=time.perf_counter() - t0,
        state_bytes=ints.nbytes + (0 if state is None else state.nbytes) + size * variant.summary_overhead,
    )
