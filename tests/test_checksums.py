"""The layer checksums are the hash docs/schema.md defines (revision 0012), recomputed here in
plain Python, row by row from what SQL reads back, for every kind of column: whole numbers,
booleans, the outcome, DOUBLE and REAL floats, lists, NULLs, moves into other layers."""

from __future__ import annotations

import struct

import duckdb
import pyarrow as pa
import pytest

from zeckdb.checksums import checksum, checksums_by_layer

M = (1 << 64) - 1
NULL_CODE = 0x9E3779B97F4A7C15
POSITIONS = ["id", *(f"c{i}" for i in range(1, 17)), "outcome", "remoteness", "min_remaining", "max_remaining",
             "games_to_end", "expected_remaining", "grundy", "winning_moves", "is_start", "is_terminal",
             "in_winning_strategies", "legal_moves", "entries", "forcing_seat", "teams"]
EDGES = ["src", "dst", "code", "dst_n"]


def mix(x: int) -> int:  # SplitMix64's finaliser
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
    return x ^ (x >> 31)


def seed(name: str, n: int) -> int:
    h = 0xCBF29CE484222325  # FNV-1a, 64 bits
    for byte in f"{name}/{n}".encode():
        h = ((h ^ byte) * 0x100000001B3) & M
    return mix(h)


def code(column: str, value) -> int:
    if value is None:
        return 0 if column == "teams" else NULL_CODE  # a column added after revision 0012: NULL adds nothing
    if column == "outcome":
        return {"win": 1, "loss": 0}[value]
    if column == "games_to_end":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if column == "expected_remaining":
        return struct.unpack("<I", struct.pack("<f", value))[0]
    if isinstance(value, list):
        c = len(value)
        for x in value:
            c = mix((c + x) & M)
        return c
    return int(value) & M  # whole numbers and booleans


def plain_checksum(rows, columns, name, n) -> int:
    s = seed(name, n)
    factors = [mix(j) | 1 for j in range(1, len(columns) + 1)]
    return sum(mix((s + sum(k * code(c, v) for k, c, v in zip(factors, columns, row, strict=True))) & M)
               for row in rows) & M


LAYERS = [("zeckendorf", 10), ("reversed", 12), ("quilt", 12), ("black-hole-3", 20), ("fibonacci-nim", 9),
          ("build-up", 8), ("ordered", 9), ("zeckendorf-p3", 9), ("black-hole-empty-board-4", 11)]


@pytest.mark.parametrize("variant, n", LAYERS)
def test_recorded_checksums_are_the_documented_hash_of_the_rows(small_db, variant, n):
    con = duckdb.connect(str(small_db), read_only=True)
    graph = con.execute("SELECT graph FROM variants WHERE variant = ?", [variant]).fetchone()[0]
    positions = con.execute(f"SELECT {', '.join(POSITIONS)} FROM positions WHERE variant = ? AND n = ?",
                            [variant, n]).fetchall()
    edges = con.execute(f"SELECT {', '.join(EDGES)} FROM edges WHERE graph = ? AND n = ?", [graph, n]).fetchall()
    recorded = con.execute("SELECT positions_checksum, edges_checksum FROM builds WHERE variant = ? AND n = ?",
                           [variant, n]).fetchone()
    con.close()
    assert positions and recorded == (plain_checksum(positions, POSITIONS, variant, n),
                                      plain_checksum(edges, EDGES, graph, n))


def test_a_checksum_refuses_what_it_has_no_code_for():
    with pytest.raises(ValueError, match="no checksum covers the column colour"):
        checksum([pa.table({"id": [1], "colour": [2]})], "positions", "zeckendorf", 3)
    outcome = pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int8()), pa.array(["win", "draw"]))
    with pytest.raises(ValueError, match="outcome holds 'draw'"):
        checksum([pa.table({"outcome": outcome})], "positions", "zeckendorf", 3)


def test_a_checksum_is_the_same_for_any_batching_and_type_of_the_same_values():
    words = pa.DictionaryArray.from_arrays(pa.array([1, 0, 1], pa.int8()), pa.array(["loss", "win"]))
    one = pa.table({"id": pa.array([0, 1, 2], pa.int16()), "outcome": words, "expected_remaining": [0.1, 2.5, 0.0]})
    other = pa.table({"id": pa.array([2, 0, 1], pa.int64()), "outcome": pa.array(["win", "win", "loss"]),
                      "expected_remaining": pa.array([0.0, 0.1, 2.5], pa.float32())})
    assert checksum([one], "positions", "zeckendorf", 3) == checksum(other.to_batches(max_chunksize=2),
                                                                      "positions", "zeckendorf", 3)
    assert checksum([one], "positions", "zeckendorf", 3) != checksum([one], "positions", "zeckendorf", 4)
    assert checksum([one.slice(0, 0)], "positions", "zeckendorf", 3) == 0


def test_layers_hashed_together_are_hashed_as_each_alone(small_db):
    """verify reads the layers of a batch in one query and cuts the rows by n (record batches
    mixing layers, in any order): each layer's checksum is its rows' plain checksum."""
    from zeckdb.store import Store

    ns = [3, 10, 12, 17]
    con = duckdb.connect(str(small_db), read_only=True)
    want = {n: plain_checksum(con.execute(f"SELECT {', '.join(POSITIONS)} FROM positions WHERE variant = "
                                          "'zeckendorf' AND n = ?", [n]).fetchall(), POSITIONS, "zeckendorf", n)
            for n in ns}
    con.close()
    with Store.open_read(small_db) as store:
        assert store.layer_checksums("positions", "zeckendorf", ns) == want
    mixed = pa.table({"n": [12, 3, 12, 3], "id": [0, 0, 1, 1]})
    alone = {n: checksum([pa.table({"id": [0, 1]})], "positions", "zeckendorf", n) for n in (3, 12)}
    assert checksums_by_layer(mixed.to_batches(max_chunksize=3), "positions", "zeckendorf") == alone


def test_a_checksum_that_fails_midway_is_the_error_the_builder_reports(monkeypatch, tmp_path):
    """The builder hashes a graph layer written before on its write connection. A hash that
    fails midway closes its open result, so the build reports that failure, not a DuckDB
    "connection has an open result" from the statements that follow on the connection."""
    import zeckdb
    import zeckdb.checksums

    db = tmp_path / "b.duckdb"
    zeckdb.build(db, ["zeckendorf"], "1..5")

    def fail(batches, table, name):
        for _ in batches:  # a result open, a batch read
            raise ValueError("midway")
        return {}  # a layer without moves: nothing to fail on

    monkeypatch.setattr(zeckdb.checksums, "checksums_by_layer", fail)
    with pytest.raises(ValueError, match="midway"):
        zeckdb.build(db, ["zeckendorf-p3"], "1..5")  # its moves are zeckendorf's, stored already
