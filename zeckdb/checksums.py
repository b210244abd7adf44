"""Layer checksums: zeckdb's own fixed 64-bit hash of a layer's rows (schema revision 0012).

A layer's checksum is the sum, modulo 2^64, of one hash per row, so the order of the rows
does not matter. The build computes it from the arrays it writes, `zeckdb verify` from the
rows it reads back; neither asks DuckDB, whose `hash` may change from one release to the
next. The definition is fixed (docs/schema.md spells it out, and a test recomputes it in
plain Python); all arithmetic is modulo 2^64:

    mix(x)     SplitMix64's finaliser: x ^= x >> 30; x *= 0xBF58476D1CE4E5B9;
               x ^= x >> 27; x *= 0x94D049BB133111EB; x ^= x >> 31
    code(v)    a value as a 64-bit word: a whole number as its two's complement, a boolean
               as 1 or 0, a DOUBLE as its IEEE-754 bits, a REAL as its 32 bits, an outcome
               `win` as 1 and `loss` as 0, a list [x1, .., xk] as mix(..mix(mix(k + x1) + x2)..
               + xk), NULL as NULL_CODE
    row hash   mix(seed + sum over j of K_j * code(column j))   (j = 1.. over the table's
               COLUMNS, in their order)
    K_j        mix(j) | 1
    seed       mix(FNV-1a 64 of the UTF-8 text "variant/n", or "graph/n" for the moves)

K_j is odd and mix a bijection, so a change of any one value always changes its row's hash
and the checksum; only several changes at once can cancel, with odds of 2^-64.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
import struct
from typing import Any

import numpy as np

from .engine.jit import inline_jit, jit

MASK = (1 << 64) - 1
NULL_CODE = 0x9E3779B97F4A7C15
# The columns of the views `positions` and `edges` that a checksum covers, in order (variant and
# n, graph and n are the layer's and go into the seed).
COLUMNS = {
    "positions": ("id", *(f"c{i}" for i in range(1, 17)), "outcome", "remoteness", "min_remaining",
                  "max_remaining", "games_to_end", "expected_remaining", "grundy", "winning_moves",
                  "is_start", "is_terminal", "in_winning_strategies", "legal_moves", "entries",
                  "forcing_seat", "teams"),
    "edges": ("src", "dst", "code", "dst_n"),
}
# Columns added after revision 0012 (teams, revision 0015): NULL adds nothing to a row's sum,
# so the checksums of the layers stored before them stay what they were. Their values are never
# 0 (every player together always wins), so a value cannot pass for a NULL.
NULL_FREE_COLUMNS = frozenset(["teams"])
REAL_COLUMNS = frozenset(["expected_remaining"])  # stored as 32-bit floats: hashed as such
DOUBLE_COLUMNS = frozenset(["games_to_end"])
OUTCOME_CODES = {"win": 1, "loss": 0}
BLOCK_ROWS = 1 << 16  # rows hashed column by column at a time: the sums stay in the cache


def mix(x: int) -> int:
    """SplitMix64's finaliser, on Python integers."""
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def column_factor(j: int) -> int:
    """K_j of the j-th column (from 1)."""
    return mix(j) | 1


def layer_seed(name: str, n: int) -> int:
    """The seed of a layer: mix of the FNV-1a 64 of "name/n"."""
    h = 0xCBF29CE484222325
    for byte in f"{name}/{n}".encode():
        h = ((h ^ byte) * 0x100000001B3) & MASK
    return mix(h)


@inline_jit
def _mix(x: Any) -> Any:
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@jit
def _add_column(sums: Any, values: Any, factor: Any) -> None:
    """sums[i] += factor * values[i] (two's complement words, modulo 2^64)."""
    for i in range(sums.shape[0]):
        sums[i] += np.uint64(np.int64(values[i])) * factor


@jit
def _list_codes(offsets: Any, values: Any) -> Any:
    """code() of each list of a list column (offsets into values)."""
    out = np.empty(offsets.shape[0] - 1, dtype=np.uint64)
    for i in range(out.shape[0]):
        c = np.uint64(offsets[i + 1] - offsets[i])
        for j in range(offsets[i], offsets[i + 1]):
            c = _mix(c + np.uint64(np.int64(values[j])))
        out[i] = c
    return out


@jit
def _sum_of_hashes(sums: Any, seed: Any) -> Any:
    total = np.uint64(0)
    for i in range(sums.shape[0]):
        total += _mix(seed + sums[i])
    return total


def checksum(batches: Iterable[Any], table: str, name: str, n: int) -> int:
    """The checksum of a layer's rows of `table` ('positions' or 'edges'), given as pyarrow
    tables or record batches holding any of its COLUMNS (a column left out is NULL)."""
    import pyarrow as pa

    seed = layer_seed(name, n)
    total = 0
    for batch in batches:
        for part in (batch.to_batches() if isinstance(batch, pa.Table) else [batch]):
            total += _batch_sum(part, COLUMNS[table], seed)
    return total & MASK


def by_layer(rows: Any, column: str = "n") -> dict[int, Any]:
    """The rows of a pyarrow table or record batch cut by layer: {n: its rows, without the
    column n}, each layer's rows in the order they came (sorted by n first if they are not)."""
    ns = np.asarray(rows.column(column))
    rows = rows.select([name for name in rows.schema.names if name != column])
    if len(ns) and np.any(ns[1:] < ns[:-1]):
        order = np.argsort(ns, kind="stable")
        ns, rows = ns[order], rows.take(order)
    cuts = [0, *(np.flatnonzero(np.diff(ns)) + 1).tolist(), len(ns)] if len(ns) else [0]
    return {int(ns[a]): rows.slice(a, b - a) for a, b in zip(cuts, cuts[1:], strict=False)}


def checksums_by_layer(batches: Iterable[Any], table: str, name: str) -> dict[int, int]:
    """The checksum of each layer of `name` whose rows of `table` the record batches hold, the
    layer in their column `n` (the rows of several layers, in any order): {n: checksum}."""
    totals: dict[int, int] = {}
    for batch in batches:
        for n, part in by_layer(batch).items():
            totals[n] = totals.get(n, 0) + _batch_sum(part, COLUMNS[table], layer_seed(name, n))
    return {n: total & MASK for n, total in totals.items()}


def _batch_sum(batch: Any, columns: tuple[str, ...], seed: int) -> int:
    # a column NULL on every row (c12..c16 of most games, read back) counts as one left out
    names = {name for name in batch.schema.names if batch.column(name).null_count < batch.num_rows}
    unknown = set(batch.schema.names) - set(columns)
    if unknown:
        raise ValueError(f"no checksum covers the column {sorted(unknown)[0]}")
    # the columns left out add the same to every row's sum
    base = (seed + sum(column_factor(j) * NULL_CODE for j, column in enumerate(columns, 1)
                       if column not in names and column not in NULL_FREE_COLUMNS)) & MASK
    words = [(column_factor(j), _words(column, batch.column(column)))
             for j, column in enumerate(columns, 1) if column in names]
    sums = np.empty(min(BLOCK_ROWS, batch.num_rows), dtype=np.uint64)
    total = 0
    for start in range(0, batch.num_rows, BLOCK_ROWS):
        block = sums[: min(BLOCK_ROWS, batch.num_rows - start)]
        block[:] = 0
        stop = start + block.shape[0]
        for factor, values in words:
            _add_column(block, values[start:stop], np.uint64(factor))
        total += int(_sum_of_hashes(block, np.uint64(base)))
    return total


def _outcome_codes(column: str, words: Any) -> np.ndarray:
    """code() of each word of an outcome column (or dictionary)."""
    texts = words.to_pylist()
    unknown = set(texts) - set(OUTCOME_CODES)
    if unknown:
        raise ValueError(f"{column} holds {sorted(unknown)[0]!r}: only {sorted(OUTCOME_CODES)} have a code")
    return np.array([OUTCOME_CODES[t] for t in texts], dtype=np.int8)


def _words(column: str, array: Any) -> np.ndarray:
    """A column's code() of each row, as whole numbers whose two's complement it is."""
    words = _values(column, array)
    if not array.null_count:
        return words
    words = words.astype(np.uint64)  # two's complement kept, and room for NULL_CODE
    words[array.is_null().to_numpy(zero_copy_only=False)] = 0 if column in NULL_FREE_COLUMNS else NULL_CODE
    return words


def _values(column: str, array: Any) -> np.ndarray:
    """code() of each non-NULL value of a column (whatever stands in a NULL's place)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(array.type):  # the outcome: code() of each word of the dictionary, by index
        lookup = _outcome_codes(column, array.dictionary)
        indices = pc.fill_null(array.indices, 0).to_numpy(zero_copy_only=False)
        return lookup[indices] if len(lookup) else np.zeros(len(array), dtype=np.int8)
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        _outcome_codes(column, pc.unique(array.drop_null()))  # only words with a code
        return pc.equal(array, "win").fill_null(False).to_numpy(zero_copy_only=False).view(np.uint8)
    if pa.types.is_list(array.type) or pa.types.is_large_list(array.type):
        offsets = array.offsets.to_numpy() - array.offsets[0].as_py()
        return _list_codes(offsets, pc.fill_null(array.flatten(), 0).to_numpy())
    blank = False if pa.types.is_boolean(array.type) else 0  # a NULL's stand-in, of the column's type
    values = (pc.fill_null(array, blank) if array.null_count else array).to_numpy(zero_copy_only=False)
    if column in REAL_COLUMNS:
        return values.astype(np.float32, copy=False).view(np.uint32)
    if column in DOUBLE_COLUMNS:
        return values.astype(np.float64, copy=False).view(np.uint64)
    if values.dtype == np.bool_:
        return values.view(np.uint8)
    if values.dtype == np.uint64:  # a team mask: its 64 bits as they are
        return values.view(np.int64)
    if not np.issubdtype(values.dtype, np.integer):
        raise ValueError(f"{column} holds {values.dtype} values, not whole numbers")
    return values


# -- the summary checksum: a layer's builds row, random_play row and length distribution ---------
# (revision 0015) The same hash, each value coded by its SQL type: whole numbers and booleans as
# above, DOUBLE as its IEEE-754 bits, text as the FNV-1a 64 of its UTF-8 bytes, NULL as NULL_CODE;
# each table's rows seeded with "table:variant/n". The columns, in order:
SUMMARY_COLUMNS = {
    "builds": ("positions", "edges", "start_id", "start_position", "winner", "min_length", "max_length",
               "start_remoteness", "games", "games_approx", "expected_length", "decomposition_terms", "summary_only",
               "teams"),
    "random_play": ("p1_wins_random", "p1_wins_p1_perfect", "p1_wins_p2_perfect"),
    "length_distribution": ("measure", "length", "probability", "games", "games_exact"),
}


def text_code(text: str) -> int:
    """FNV-1a 64 of a text's UTF-8 bytes."""
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001B3) & MASK
    return h


def summary_checksum(tables: dict[str, Any], variant: str, n: int) -> int:
    """The summary checksum of a layer from its rows of SUMMARY_COLUMNS' tables (pyarrow tables
    with those columns, as SQL types them; a table left out has no rows)."""
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
            code = _coder(array.type)
            words.append((column_factor(j), [NULL_CODE if v is None else code(v) for v in array.to_pylist()]))
        for i in range(rows.num_rows):
            total += mix((seed + sum(factor * values[i] for factor, values in words)) & MASK)
    return total & MASK


def _coder(kind: Any) -> Callable[[Any], int]:
    """The code of a value (not None) of a column of Arrow type `kind`."""
    import pyarrow as pa

    if pa.types.is_floating(kind):
        return _float_code
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return text_code
    return _whole_code


def _float_code(value: float) -> int:
    return int.from_bytes(struct.pack("<d", float(value)), "little")


def _whole_code(value: int) -> int:
    return int(value) & MASK  # whole numbers (two's complement) and booleans
