"""Every stored column for n <= 20 against the independent solver in reference.py."""

from __future__ import annotations

import pytest

from . import reference as ref
from .conftest import rows

CHECK_N = range(1, 21)


def layer(con, variant: str, n: int) -> dict[tuple, dict]:
    out = {}
    for r in rows(con, "SELECT * FROM positions WHERE variant = ? AND n = ?", [variant, n]):
        counts = ref.norm([r[f"c{i}"] or 0 for i in range(1, 17)])
        assert counts not in out, f"{variant} n={n}: position {counts} stored twice"
        out[counts] = r
    return out


@pytest.mark.parametrize("variant", ["zeckendorf", "reversed", "quilt"])
@pytest.mark.parametrize("n", CHECK_N)
def test_every_column_matches_reference(con, variant, n):
    stored = layer(con, variant, n)
    expected_positions = ref.positions(variant, n)
    assert set(stored) == expected_positions
    start = ref.start(variant, n)
    for p, row in stored.items():
        want = ref.solve(variant, p)
        where = f"{variant} n={n} {p}"
        assert row["outcome"] == ("win" if want["win"] else "loss"), where
        assert row["remoteness"] == want["remoteness"], where
        assert row["min_remaining"] == want["min"], where
        assert row["max_remaining"] == want["max"], where
        assert row["games_to_end"] == want["games"], where
        assert row["expected_remaining"] == pytest.approx(float(want["expected"]), rel=1e-6), where
        assert row["grundy"] == want["grundy"], where
        assert row["winning_moves"] == want["winning"], where
        assert row["is_start"] == (p == start), where
        assert row["is_terminal"] == (want["max"] == 0), where


@pytest.mark.parametrize("variant", ["zeckendorf", "reversed", "quilt"])
@pytest.mark.parametrize("n", CHECK_N)
def test_moves_view_matches_reference(con, variant, n):
    stored = {r["id"]: ref.norm([r[f"c{i}"] or 0 for i in range(1, 17)])
              for r in rows(con, "SELECT * FROM positions WHERE variant = ? AND n = ?", [variant, n])}
    got = sorted((stored[r["src"]], stored[r["dst"]])
                 for r in rows(con, "SELECT src, dst FROM moves WHERE variant = ? AND n = ?", [variant, n]))
    want = sorted((p, c) for p in ref.positions(variant, n) for c in ref.MOVES[variant](p))
    assert got == want


@pytest.mark.parametrize("variant", ["zeckendorf", "reversed", "quilt"])
@pytest.mark.parametrize("n", CHECK_N)
def test_build_summary_matches_reference(con, variant, n):
    (b,) = rows(con, "SELECT * FROM builds WHERE variant = ? AND n = ?", [variant, n])
    want = ref.solve(variant, ref.start(variant, n))
    assert b["positions"] == len(ref.positions(variant, n))
    assert b["winner"] == (1 if want["win"] else 2)
    assert (b["min_length"], b["max_length"], b["start_remoteness"]) == (want["min"], want["max"], want["remoteness"])
    assert int(b["games"]) == want["games"]
    assert b["expected_length"] == pytest.approx(float(want["expected"]), rel=1e-12)


def test_exact_game_counts_far_beyond_64_bits(tmp_path):
    """The start's exact game count (decimal, no float) against the reference's plain-int count,
    at n where it has 60 and more digits; both games, whose counts are the same paths reversed."""
    import duckdb

    import zeckdb

    path = tmp_path / "big.duckdb"
    zeckdb.build(path, ["zeckendorf", "reversed"], [60, 66, 72])
    con = duckdb.connect(str(path), read_only=True)
    for n in (60, 66, 72):
        want = ref.game_count("zeckendorf", ref.start("zeckendorf", n))
        assert want > 2**190
        for variant in ("zeckendorf", "reversed"):
            (stored,) = con.execute("SELECT games FROM builds WHERE variant = ? AND n = ?", [variant, n]).fetchone()
            assert int(stored) == want, (variant, n)
        assert ref.game_count("reversed", ref.start("reversed", n)) == want
    con.close()
