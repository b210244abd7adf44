"""The ordered Zeckendorf game (Bortnovskyi et al., The Ordered Zeckendorf Game,
arXiv:2508.20222, 2025), docs/games.md conventions (F_1 = 1, F_2 = 2, F_3 = 3, ...).

A position is an ordered list of Fibonacci numbers; the start of n is n copies of
F_1. A move replaces two adjacent entries (a, b), a on the left, in place:
  (F_i, F_{i+1}) -> F_{i+2}            the smaller one on the left, i >= 1
  (F_1, F_1)     -> F_2
  (F_2, F_2)     -> (F_1, F_3)
  (F_i, F_i)     -> (F_{i-2}, F_{i+1})  i >= 3
  (F_i, F_j)     -> (F_j, F_i)          i > j: a swap puts the smaller one first
The last player to move wins; the only end is the Zeckendorf decomposition in
increasing order.

Layer n holds every composition of n into Fibonacci parts (every ordering of
every Fibonacci partition is reachable). A composition is its set of cuts: the
key's low n - 1 bits have bit n - 1 - s set when a part ends after the first s
units, so a move only clears or sets the cuts inside the two entries it replaces.
Ascending keys list the compositions in descending lexicographic order of their
entries, and an id (the index among ascending keys) is computed from the entries
alone by counting the compositions that are lexicographically larger.
The count columns hold how many of each F_i a position has; the order is in the
`entries` column. The compiled loops over a layer's keys live in kernels.py beside this
module, imported only when a layer is built.
"""

from __future__ import annotations

from functools import cache
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import UsageError
from ...fib import fib, z_count
from ...engine.contract import Position, SummaryWalk, Variant, shown_text, unbracket

MAX_N = 24  # 2,593,291 positions at n = 24 (4,915,135 at 25, 120,215,370 at 30)
INDICES = 8  # F_1..F_8 = 1..34: every part of every n the engine's keys allow here
N_SHIFT = 56  # key = n << N_SHIFT | cuts: n - 1 <= 55 cut bits


def replacement(i: int, j: int) -> tuple[str, tuple[int, ...]] | None:
    """The rules above: what adjacent entries F_i, F_j (F_i on the left) become, as
    Fibonacci indices, with the kind of move; None where no rule applies."""
    if i == j == 1:
        return "merge", (2,)
    if j == i + 1:
        return "merge", (i + 2,)
    if i == j == 2:
        return "split", (1, 3)
    if i == j >= 3:
        return "split", (i - 2, i + 1)
    if i > j:
        return "swap", (j, i)
    return None


def _move_table() -> tuple[list[str], np.ndarray, np.ndarray]:
    """Move names by code, and per pair of indices (i, j) its code (-1: no move) and the
    value of the left entry it leaves (0 when the pair merges into one entry)."""
    names: list[str] = []
    code = np.full((INDICES + 1, INDICES + 1), -1, dtype=np.int16)
    left = np.zeros((INDICES + 1, INDICES + 1), dtype=np.int64)
    for i in range(1, INDICES + 1):
        for j in range(1, INDICES + 1):
            rule = replacement(i, j)
            if rule is None or max(rule[1]) > INDICES:
                continue
            kind, result = rule
            code[i, j] = len(names)
            names.append(f"{kind} {fib(i)},{fib(j)} -> {','.join(str(fib(r)) for r in result)}")
            left[i, j] = fib(result[0]) if len(result) == 2 else 0
    return names, code, left


MOVE_NAMES, MOVE_CODE, MOVE_LEFT = _move_table()
INDEX_OF = np.zeros(fib(INDICES) + 1, dtype=np.int64)  # value -> Fibonacci index (0: not a Fibonacci number)
for _i in range(1, INDICES + 1):
    INDEX_OF[fib(_i)] = _i


@cache
def compositions(m: int) -> int:
    """How many compositions of m into Fibonacci parts (1 for m = 0)."""
    return 1 if m == 0 else sum(compositions(m - f) for f in _parts_up_to(m))


def _parts_up_to(m: int) -> list[int]:
    return [fib(i) for i in range(1, INDICES + 1) if fib(i) <= m]


@cache
def larger_first(rem: int, entry: int) -> int:
    """How many compositions of rem begin with a part larger than entry: an entry's term of
    the id (see Ordered.id_of), and the table the summary walk reads them from."""
    return sum(compositions(rem - f) for f in _parts_up_to(rem) if f > entry)


class Ordered(Variant):
    name = "ordered"
    title = "The ordered Zeckendorf game; a position is its list of entries, left to right"
    source = "Bortnovskyi et al., The Ordered Zeckendorf Game (2025), arXiv:2508.20222"
    max_n = MAX_N
    beyond_max_n = ("the layer doubles with each n: `zeckdb build --summary-only --variant ordered` solves it without "
                    "storing positions (n = 31 in 90 s), `zeckdb simulate ordered --n N` plays random games to n = 54")
    simulate_max_n = 54  # F_9 - 1: play_moves meets no entry above F_8 = 34
    summary_max_n = 63
    summary_max_n_reason = "a position's cut set is a 64-bit mask"
    shortest_is_n_minus_terms = True  # Bortnovskyi et al. 2025
    columns = [f"c{i}" for i in range(1, INDICES + 1)]  # how many of F_1, F_2, ... (the order is in `entries`)
    column_weights = tuple(fib(i) for i in range(1, INDICES + 1))
    move_names = MOVE_NAMES

    def decomposition_terms(self, n: int) -> int:
        return z_count(n)

    def parse(self, text: str) -> Position:
        """Entries left to right, e.g. '1,2,1,3' or '[1,2,1,3]'; each a Fibonacci number."""
        from ...ranges import parse_count

        shown = shown_text(text)
        raw = unbracket(text)
        parts = raw.split(",")
        if len(parts) > self.max_n:
            raise UsageError(f"position {shown} has {len(parts)} entries; {self.name} goes up to n = {self.max_n}")
        entries = [parse_count(p) for p in parts]
        if not raw or any(e is None or e == 0 for e in entries):
            raise UsageError(f"malformed position {shown}: write the entries left to right, Fibonacci numbers "
                             "separated by commas, e.g. 1,2,1,3")
        wrong = [e for e in entries if e is not None and (e >= len(INDEX_OF) or INDEX_OF[e] == 0)]
        if wrong:
            raise UsageError(f"position {shown}: {wrong[0]} is not a Fibonacci number (1, 2, 3, 5, 8, 13, 21, ...)")
        return tuple(entries)  # type: ignore[arg-type]  # no None left

    def format(self, position: Sequence[int]) -> str:
        return "[" + ",".join(str(int(e)) for e in position) + "]"

    def _checked(self, position: Position) -> Position:
        if not position or any(e < 1 or e >= len(INDEX_OF) or INDEX_OF[e] == 0 for e in position):
            raise UsageError(f"position {self.format(position)}: entries are Fibonacci numbers 1, 2, 3, 5, ...")
        return position

    def layer_of(self, position: Position) -> int:
        n = sum(self._checked(position))
        self.check_n(n)
        return n

    def key_of(self, position: Position) -> int:
        n = self.layer_of(position)
        cuts, s = 0, 0
        for e in position[:-1]:
            s += e
            cuts |= 1 << (n - 1 - s)
        return n << N_SHIFT | cuts

    def id_of(self, position: Position) -> int:
        """How many compositions of n are lexicographically larger (the smaller keys)."""
        left, rank = self.layer_of(position), 0
        for e in position:
            rank += larger_first(left, e)
            left -= e
        return rank

    def start(self, n: int) -> Position:
        return (1,) * n

    def layer_keys(self, n: int) -> np.ndarray:
        return (np.int64(n) << N_SHIFT) | np.sort(_cut_sets(n))

    def decode(self, keys: np.ndarray) -> np.ndarray:
        keys = np.asarray(keys, dtype=np.int64)
        n = int(keys[0] >> N_SHIFT) if len(keys) else 1
        from .kernels import ordered_counts

        return ordered_counts(keys, n, INDEX_OF, INDICES)

    def entries(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each position's entries left to right: (offsets, values) of a list column."""
        from .kernels import ordered_entries

        keys = np.asarray(keys, dtype=np.int64)
        return ordered_entries(keys, int(keys[0] >> N_SHIFT) if len(keys) else 1)

    def estimate_positions(self, n: int) -> int:
        return compositions(n)

    def estimate_work(self, n: int) -> int:
        return compositions(n) * max(n // 2, 1)  # about n / 2 moves per position

    def graph_edges(self, n: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from .kernels import ordered_edges

        return ordered_edges(np.asarray(keys, dtype=np.int64), n, MOVE_CODE, MOVE_LEFT, INDEX_OF)

    summary_overhead = 12  # its cut set (8 bytes) and its place in the solving order (4)

    def summary_walk(self, n: int) -> SummaryWalk:
        from .kernels import ordered_solving_order, ordered_steps

        terms = np.zeros((n + 1, INDICES + 1), dtype=np.int64)  # id terms: see id_of
        for rem in range(n + 1):
            for i in range(1, INDICES + 1):
                terms[rem, i] = larger_first(rem, fib(i))
        masks = np.sort(_cut_sets(n))
        shared = (np.int64(n), masks, ordered_solving_order(n, masks), terms, MOVE_CODE, MOVE_LEFT, INDEX_OF)

        def fork() -> tuple[Any, ...]:  # the walk keeps no state: a cursor of its own is a scratch of its own
            return (*shared, np.empty(n + 1, dtype=np.int64))

        # the start, n ones, cuts everywhere: the largest cut set; a position of k entries has k - 1 moves at most
        return SummaryWalk(len(masks), len(masks) - 1, max(n - 1, 1), ordered_steps, fork(), fork)

    def play_moves(self, position: Position) -> list[tuple[int, Position]]:
        position = self._checked(position)
        out = []
        for p in range(len(position) - 1):
            i, j = int(INDEX_OF[position[p]]), int(INDEX_OF[position[p + 1]])
            rule = replacement(i, j)
            if rule is not None:
                out.append((int(MOVE_CODE[i, j]), position[:p] + tuple(fib(r) for r in rule[1]) + position[p + 2:]))
        return out


def _cut_sets(m: int) -> np.ndarray:
    """The cut sets of every composition of m into Fibonacci parts: a first part f, then
    (if anything is left) a cut after it and a composition of the rest."""
    by_size: dict[int, np.ndarray] = {0: np.zeros(1, dtype=np.int64)}
    for size in range(1, m + 1):
        blocks = []
        for f in _parts_up_to(size):
            rest = by_size[size - f]
            blocks.append(rest if f == size else rest | (np.int64(1) << (size - 1 - f)))
        by_size[size] = np.concatenate(blocks)
        by_size.pop(size - fib(INDICES), None)  # no part is larger: never needed again
    return by_size[m]
