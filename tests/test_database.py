"""The library's face (zeckdb.open, zeckdb.build): each verb answers as the command line does,
results give rows, columns and Arrow, and bad input is the same one-line error."""

from __future__ import annotations

import pytest

import zeckdb
from zeckdb.errors import DatabaseError, NotBuiltError, UsageError

from . import reference as ref


def test_the_verbs_of_an_open_database(small_db):
    with zeckdb.open(small_db) as db:
        info = db.position("zeckendorf", start=10)
        assert info.outcome == ("win" if ref.solve("zeckendorf", (10,))["win"] else "loss")
        assert db.position("zeckendorf", (10,)).text == info.text == "(10)"
        line = db.line("zeckendorf", start=7)
        assert line[0][0] is None and len(line) == ref.solve("zeckendorf", (7,))["remoteness"] + 1
        winners = db.query("winners", variant="zeckendorf", n="3..5")
        assert winners.columns[:3] == ["variant", "n", "winner"] and [r[2] for r in winners.rows] == [2, 2, 2]
        table = db.query("winners", variant="zeckendorf", n=[3, 4]).arrow()
        assert table.num_rows == 2 and table.column("n").to_pylist() == [3, 4]
        assert db.sql("SELECT 6 * 7 AS x").rows == [(42,)]
        assert db.summary("zeckendorf", 7)[0].winner == 2
        assert db.verify("zeckendorf", n=7).ok


def test_bad_input_is_the_same_one_line(small_db):
    with zeckdb.open(small_db) as db:
        with pytest.raises(UsageError, match="malformed position"):
            db.position("zeckendorf", "3,x")
        with pytest.raises(NotBuiltError, match=f"run `zeckdb build --variant zeckendorf --n 999 --db {small_db}`"):
            db.query("winners", variant="zeckendorf", n=999)
        with pytest.raises(UsageError, match="is refused"):
            db.sql("DELETE FROM builds")
        result = db.sql("SELECT 1 AS x")
        try:
            import pandas  # noqa: F401
        except ImportError:  # not a dependency of zeckdb: .df() says so in one line
            with pytest.raises(UsageError, match="needs pandas"):
                result.df()
        else:
            assert result.df()["x"].tolist() == [1]


def test_build_takes_a_range_a_list_or_one_n(tmp_path):
    path = tmp_path / "b.duckdb"
    assert zeckdb.build(path, ["zeckendorf"], "1..3").built == [("zeckendorf", n) for n in (1, 2, 3)]
    assert zeckdb.build(path, ["zeckendorf"], [5, 4]).built == [("zeckendorf", 4), ("zeckendorf", 5)]
    assert zeckdb.build(path, ["zeckendorf"], 6).built == [("zeckendorf", 6)]
    with zeckdb.open(path) as db:
        assert db.status().variants[0].ns == "1..6"
        # DuckDB opens a file once per process: a build into a file this process reads is named as such
        with pytest.raises(DatabaseError, match=r"is open for reading in this process \(zeckdb.open\(\)\): close it first"):
            zeckdb.build(path, ["zeckendorf"], 7)
    assert zeckdb.build(path, ["zeckendorf"], 7).built == [("zeckendorf", 7)]  # closed: it builds
    with zeckdb.Database(path, memory_limit="1GB"), pytest.raises(DatabaseError, match="open it with the same settings"):
        zeckdb.open(path)


def test_play_built_and_a_shared_database(small_db):
    """The verbs the command line and the service call: play against the plain solver's exact
    odds, the n built, a line as JSON, a figure's bytes, limits as keywords; a shared database
    (the service's) answers as a private one."""
    with zeckdb.open(small_db) as db:
        for n in (5, 9, 12):
            mover, perfect_first, _ = ref.random_odds("zeckendorf", (n,))
            assert db.play("zeckendorf", start=n, p1="random", p2="random").p1_wins == pytest.approx(float(mover))
            assert db.play("zeckendorf", start=n, p1="best-response",
                           p2="random").p1_wins == pytest.approx(float(perfect_first))
        full, summary = db.built()["zeckendorf"]
        assert full == list(range(1, 41)) and summary == []
        assert db.built()["black-hole-3"][0][0] == 0  # a game that starts at n = 0
        steps = db.line("zeckendorf", start=6).to_json()
        assert [s["ply"] for s in steps] == list(range(1, len(steps) + 1)) and steps[-1]["text"] == "(1,0,0,1)"  # 6 = 1 + 5
        assert db.plot("winners", "zeckendorf", "1..10").image("svg").lstrip().startswith(b"<?xml")
        assert len(db.query("winners", variant="zeckendorf", max_rows=3).rows) == 3
        assert db.query("winning-moves", variant="zeckendorf", params={"position": "3,1"}).rows == \
            db.query("winning-moves", variant="zeckendorf", position="3,1").rows
        with pytest.raises(UsageError, match="bad timeout 0: give seconds"):
            db.sql("SELECT 1", timeout=0)
        own = [db.position("reversed", start=n) for n in range(1, 15)]
    shared = zeckdb.Database(small_db, shared=True)
    try:
        assert [shared.position("reversed", start=n) for n in range(1, 15)] == own
        assert shared.status().variants and shared.path == own_path(small_db)
    finally:
        shared.close()


def own_path(path):
    import os

    return type(path)(os.path.realpath(path))
