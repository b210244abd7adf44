"""The layer checksums as revisions 0012 and 0015 define them, frozen for those migrations.

A migration must write what its revision meant, whatever zeckdb's code computes later, so
revisions 0012 (positions and edges checksums) and 0015 (teams; the summary checksum) take
the hash from here, not from zeckdb.checksums. This is the definition docs/schema.md spells
out, in plain NumPy (no compiled kernels: a migration runs once per file):

    mix(x)     SplitMix64's finaliser          code(v)   a value as a 64-bit word
    row hash   mix(seed + sum_j K_j code(column j)),  K_j = mix(j) | 1
    seed       mix(FNV-1a 64 of "name/n")      checksum  the sum of the row hashes, mod 2^64

A column left out counts as NULL (NULL_CODE), except teams, whose NULL adds nothing (0015).
tests/test_migrations.py checks that this copy and zeckdb.checksums agree today.
"""

from __future__ import annotations

from collections.abc import Iterable
import struct
from typing import Any

import numpy as np

MASK = (1 << 64) - 1
NULL_CODE = 0x9E3779B97F4A7C15
COLUMNS = {
    "positions": ("id", *(f"c{i}" for i in range(1, 17)), "outcome", "remoteness", "min_remaining",
                  "max_remaining", "games_to_end", "expected_remaining", "grundy", "winning_moves",
                  "is_start", "is_terminal", "in_winning_strategies", "legal_moves", "entries",
                  "forcing_seat", "teams"),
    "edges": ("src", "dst", "code", "dst_n"),
}
NULL_FREE_COLUMNS = frozenset(["teams"])
REAL_COLUMNS = frozenset(["expected_remaining"])
DOUBLE_COLUMNS = frozenset(["games_to_end"])
OUTCOME_CODES = {"win": 1, "loss": 0}
SUMMARY_COLUMNS = {
    "builds": ("positions", "edges", "start_id", "start_position", "winner", "min_length", "max_length",
               "start_remoteness", "games", "games_approx", "expected_length", "decomposition_terms", "summary_only",
               "teams"),
    "random_play": ("p1_wins_random", "p1_wins_p1_perfect", "p1_wins_p2_perfect"),
    "length_distribution": ("measure", "length", "probability", "games", "games_exact"),
}


def mix(x: int) -> int:
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def _mix_words(x: np.ndarray) -> np.ndarray:
    """mix() of each uint64 word (NumPy's uint64 arithmetic wraps modulo 2^64)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _fnv(text: str) -> int:
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001B3) & MASK
    return h


def layer_seed(name: str, n: int) -> int:
    return mix(_fnv(f"{name}/{n}"))


def column_factor(j: int) -> int:
    return mix(j) | 1


def checksum(batches: Iterable[Any], table: str, name: str, n: int) -> int:
    """The checksum of a layer's rows of `table` ('positions' or 'edges'), given as pyarrow
    record batches (or a RecordBatchReader) holding any of its COLUMNS."""
    import pyarrow as pa

    seed, total = layer_seed(name, n), 0
    for batch in batches:
        for part in (batch.to_batches() if isinstance(batch, pa.Table) else [batch]):
            total += _batch_sum(part, COLUMNS[table], seed)
    return total & MASK


def _batch_sum(batch: Any, columns: tuple[str, ...], seed: int) -> int:
    with np.errstate(over="ignore"):
        present = {c for c in batch.schema.names if batch.column(c).null_count < batch.num_rows}
        base = (seed + sum(column_factor(j) * NULL_CODE for j, c in enumerate(columns, 1)
                           if c not in present and c not in NULL_FREE_COLUMNS)) & MASK
        sums = np.full(batch.num_rows, base, dtype=np.uint64)
        for j, column in enumerate(columns, 1):
            if column in present:
                sums += np.uint64(column_factor(j)) * _words(column, batch.column(column))
        return int(_mix_words(sums).sum(dtype=np.uint64))


def _words(column: str, array: Any) -> np.ndarray:
    """code() of each row's value as a uint64 word."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(array.type):
        array = array.cast(pa.string())
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        words = np.array([OUTCOME_CODES.get(t, 0) for t in array.fill_null("loss").to_pylist()], dtype=np.uint64)
    elif pa.types.is_list(array.type) or pa.types.is_large_list(array.type):
        words = np.array([_list_code(v or []) for v in array.to_pylist()], dtype=np.uint64)
    else:
        blank = False if pa.types.is_boolean(array.type) else 0
        values = pc.fill_null(array, blank).to_numpy(zero_copy_only=False)
        if column in REAL_COLUMNS:
            words = values.astype(np.float32).view(np.uint32).astype(np.uint64)
        elif column in DOUBLE_COLUMNS:
            words = values.astype(np.float64).view(np.uint64)
        else:
            words = values.astype(np.int64).view(np.uint64) if values.dtype != np.uint64 else values
    if array.null_count:
        words = words.copy()
        words[array.is_null().to_numpy(zero_copy_only=False)] = 0 if column in NULL_FREE_COLUMNS else NULL_CODE
    return words


def _list_code(values: list[int]) -> int:
    c = len(values)
    for v in values:
        c = mix((c + v) & MASK)
    return c


def summary_checksum(tables: dict[str, Any], variant: str, n: int) -> int:
    """The summary checksum of a layer from its rows of SUMMARY_COLUMNS' tables (revision 0015)."""
    import pyarrow as pa

    total = 0
    for table, columns in SUMMARY_COLUMNS.items():
        rows = tables.get(table)
        if rows is None or not rows.num_rows:
            continue
        seed = layer_seed(f"{table}:{variant}", n)
        words = []
        for j, column in enumerate(columns, 1):
            array = rows.column(column).combine_chunks() if column in rows.column_names else pa.nulls(rows.num_rows)
            words.append((column_factor(j), [_code(v, array.type) for v in array.to_pylist()]))
        for i in range(rows.num_rows):
            total += mix((seed + sum(factor * values[i] for factor, values in words)) & MASK)
    return total & MASK


def _code(value: Any, kind: Any) -> int:
    import pyarrow as pa

    if value is None:
        return NULL_CODE
    if pa.types.is_floating(kind):
        return struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return _fnv(value)
    return int(value) & MASK
