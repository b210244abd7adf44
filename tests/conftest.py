from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from zeckdb.builder import build
from zeckdb.store import Store

SMALL_N = 40  # graph sizes in GAMES.md go up to 40; every column is cross-checked up to 20
QUILT_N = 30


@pytest.fixture(scope="session")
def small_db(tmp_path_factory) -> Path:
    """A database with both core variants built for n = 1..40, and the quilt game for n = 1..30."""
    path = tmp_path_factory.mktemp("db") / "small.duckdb"
    with Store.open_write(path) as store:
        build(store, ["zeckendorf", "reversed"], list(range(1, SMALL_N + 1)))
        build(store, ["quilt"], list(range(1, QUILT_N + 1)))
    return path


@pytest.fixture
def con(small_db):
    c = duckdb.connect(str(small_db), read_only=True)
    yield c
    c.close()


def rows(con, sql: str, params=()) -> list[dict]:
    cur = con.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]
