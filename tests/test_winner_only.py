"""Summary mode's winner-only state (`zeckdb build --summary-only --winner-only`): one byte a
position, whether it is won, solved in the walk's one pass.

Checked against a win/loss solver written here from docs/games.md's rules (plain tuples,
sharing no code with zeckdb), against the full build and the lean summary (every n <= 60 of
the Zeckendorf, reversed and build-up games), position by position against the lean state
(a position is won exactly when its remoteness is odd; under misère play, even), and as a
user meets it: the stored row, `zeckdb query winners`, verify, the memory budget.
"""

from __future__ import annotations

from functools import cache

import duckdb
import numpy as np
import pytest

import zeckdb
from zeckdb.engine.limits import check_summary, summary_bytes, summary_limit
from zeckdb.engine.summary import layer_bytes, layer_size, solve_summary, walk_layer
from zeckdb.errors import UsageError
from zeckdb.variants import get_variant

from .conftest import rows, run

TOP = 60
GAMES = ["zeckendorf", "reversed", "build-up"]
NULL_IN_WINNER_ONLY = ["min_length", "max_length", "start_remoteness", "games", "games_approx", "expected_length"]
SAME = ["positions", "edges", "start_id", "start_position", "winner", "decomposition_terms", "summary_only"]

# -- a win/loss solver from the rules' text (docs/games.md), nothing of zeckdb's -----------------

FIBS = [1, 2]  # F_1 = 1, F_2 = 2: each Fibonacci number once
while len(FIBS) < 30:
    FIBS.append(FIBS[-1] + FIBS[-2])


def _trim(c: list[int]) -> tuple[int, ...]:
    while c and c[-1] == 0:
        c.pop()
    return tuple(c)


def _apply(p: tuple[int, ...], take: list[int], put: list[int]) -> tuple[int, ...] | None:
    """p with one chip taken from each bin of `take` and one put in each of `put` (1-based
    bins, repeats allowed); None where a bin runs short."""
    c = list(p) + [0] * 4
    for b in take:
        c[b - 1] -= 1
        if c[b - 1] < 0:
            return None
    for b in put:
        c[b - 1] += 1
    return _trim(c)


def forward_moves(p: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The Zeckendorf game: 2 F_1 -> F_2; F_{i-1} + F_i -> F_{i+1}; 2 F_2 -> F_1 + F_3;
    2 F_i -> F_{i-2} + F_{i+1} (i >= 3)."""
    out = [_apply(p, [1, 1], [2]), _apply(p, [2, 2], [1, 3])]
    for i in range(2, len(p) + 1):
        out.append(_apply(p, [i - 1, i], [i + 1]))
    for i in range(3, len(p) + 1):
        out.append(_apply(p, [i, i], [i - 2, i + 1]))
    return [q for q in out if q is not None]


def reversed_moves(p: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The reversed game: F_{i+1} -> F_i + F_{i-1} (i >= 2); F_2 -> 2 F_1;
    F_{i-2} + F_{i+1} -> 2 F_i (i >= 3); F_3 + F_1 -> 2 F_2."""
    out = [_apply(p, [2], [1, 1]), _apply(p, [1, 3], [2, 2])]
    for i in range(2, len(p)):
        out.append(_apply(p, [i + 1], [i, i - 1]))
    for i in range(3, len(p)):
        out.append(_apply(p, [i - 2, i + 1], [i, i]))
    return [q for q in out if q is not None]


@cache
def wins(game: str, p: tuple[int, ...], misere: bool = False) -> bool:
    """Whether the player to move at p wins (the last mover wins; under misère play, loses)."""
    moves = forward_moves(p) if game == "zeckendorf" else reversed_moves(p)
    if not moves:
        return misere
    return any(not wins(game, q, misere) for q in moves)


def start(game: str, n: int) -> tuple[int, ...]:
    """(n) for the Zeckendorf game; n's Zeckendorf decomposition (greedy) for the reversed game."""
    if game == "zeckendorf":
        return (n,)
    c = [0] * len(FIBS)
    for i in range(len(FIBS) - 1, -1, -1):
        if FIBS[i] <= n:
            c[i], n = 1, n - FIBS[i]
    return _trim(c)


SOLVER_N = 30  # the plain solver's reach here: quick in Python

# -- the tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["zeckendorf", "reversed"])
def test_the_winner_only_state_gives_the_plain_solvers_winner(game):
    for n in range(1, SOLVER_N + 1):
        got = solve_summary(get_variant(game), n, winner_only=True)
        assert got.winner == (1 if wins(game, start(game, n)) else 2), (game, n)
        misere = solve_summary(get_variant(f"{game}-misere"), n, winner_only=True)
        assert misere.winner == (1 if wins(game, start(game, n), True) else 2), (game, "misère", n)


@pytest.mark.parametrize("game", [*GAMES, "reversed-misere"])
def test_every_position_is_won_exactly_where_the_lean_state_says(game):
    """Position by position, on one thread and on two (small batches: many blocks), the
    winner-only byte is the parity of the lean state's remoteness (odd: won; misère: even)."""
    v = get_variant(game)
    misere = game.endswith("-misere")
    for n in (1, 2, 7, 23, 40, TOP):
        lean = walk_layer(v, n, floats=False)
        want = (lean.ints[:, 0] % 2 == 0) == misere
        for threads, batch in ((1, None), (1, 7), (2, 5)):
            got = walk_layer(v, n, floats=False, batch=batch, threads=threads, winner_only=True)
            assert got.ints.dtype == np.uint8 and got.ints.shape == (len(lean.ints),)
            assert (got.start, got.edges) == (lean.start, lean.edges), (game, n, threads)
            assert np.array_equal(got.ints.astype(bool), want), (game, n, threads, batch)


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """n = 1..60 of the three games: a full build, a lean summary and a winner-only summary."""
    folder = tmp_path_factory.mktemp("winner_only")
    full, lean, bits = folder / "full.duckdb", folder / "lean.duckdb", folder / "winner.duckdb"
    zeckdb.build(full, GAMES, f"1..{TOP}")
    zeckdb.build(lean, GAMES, f"1..{TOP}", summary_only=True, lean=True)
    from zeckdb.cli.main import main

    try:  # as a user types it
        main(["build", "--summary-only", "--winner-only", "--n", f"1..{TOP}", "--db", str(bits),
              *[arg for game in GAMES for arg in ("--variant", game)]])
    except SystemExit as exc:
        assert not exc.code
    return full, lean, bits


def _builds(path) -> dict:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {(r["variant"], r["n"]): r for r in rows(con, "SELECT * FROM builds")}
    finally:
        con.close()


def test_every_winner_to_60_is_the_full_builds_and_the_lean_summarys(three):
    full, lean, bits = (_builds(path) for path in three)
    assert set(bits) == set(full) == set(lean) == {(g, n) for g in GAMES for n in range(1, TOP + 1)}
    for layer, row in bits.items():
        assert {k: row[k] for k in SAME if k != "summary_only"} == {k: full[layer][k] for k in SAME
                                                                    if k != "summary_only"}, layer
        assert {k: row[k] for k in SAME} == {k: lean[layer][k] for k in SAME}, layer
        assert {k: row[k] for k in NULL_IN_WINNER_ONLY} == dict.fromkeys(NULL_IN_WINNER_ONLY), layer
        assert row["teams"] is None


def test_winner_only_rows_keep_no_random_play_odds(three):
    con = duckdb.connect(str(three[2]), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM random_play").fetchone() == (0,)
    finally:
        con.close()


def test_the_winners_query_reads_winner_only_rows(three, capsys):
    """`zeckdb query winners` on winner-only rows: each n's winner and the running fraction of
    n that Player 1 wins, the plain solver's for n <= 30."""
    code, out, err = run(capsys, "query", "winners", "--variant", "reversed", "--format", "json", "--db", str(three[2]))
    assert code == 0, err
    import json

    got = json.loads(out)
    assert [r["n"] for r in got] == list(range(1, TOP + 1))
    p1 = 0
    for r in got[:SOLVER_N]:
        p1 += wins("reversed", start("reversed", r["n"]))
        assert r["winner"] == (1 if wins("reversed", start("reversed", r["n"])) else 2), r
        assert r["p1_fraction"] == pytest.approx(p1 / r["n"], abs=1e-12), r


def test_verify_solves_winner_only_rows_again_in_their_own_state(three, capsys, tmp_path):
    code, out, err = run(capsys, "verify", "--db", str(three[2]))
    assert code == 0, out + err
    # a winner flipped by hand: its checksum says so
    import shutil

    copy = tmp_path / "flipped.duckdb"
    shutil.copyfile(three[2], copy)
    con = duckdb.connect(str(copy))
    con.execute("UPDATE builds SET winner = 3 - winner WHERE variant = 'reversed' AND n = 7")
    con.close()
    code, out, err = run(capsys, "verify", "--db", str(copy))
    assert code != 0 and "reversed n=7" in out + err


def test_the_memory_budget_counts_one_byte_a_position():
    v = get_variant("reversed")
    assert summary_bytes(v, winner_only=True) == 1 + v.summary_overhead
    assert layer_bytes(v, 50, floats=False, winner_only=True) == layer_size(v, 50) * (1 + v.summary_overhead)
    budget = layer_bytes(v, 50, floats=False, winner_only=True)  # exactly layer 50 in one byte a position
    assert summary_limit(v, budget, winner_only=True) == 50
    assert summary_limit(v, budget) < 50  # the lean state's 8 bytes reach less far
    check_summary(v, 50, budget, ["reversed"], winner_only=True)
    with pytest.raises(UsageError, match="needs"):
        check_summary(v, 51, budget, ["reversed"], winner_only=True)
    with pytest.raises(UsageError, match="needs"):
        check_summary(v, 50, budget, ["reversed"])


def test_winner_only_is_refused_where_it_cannot_serve(capsys, tmp_path):
    db = str(tmp_path / "x.duckdb")
    code, _, err = run(capsys, "build", "--winner-only", "--n", "5", "--variant", "reversed", "--db", db)
    assert code != 0 and "--winner-only goes with --summary-only" in err
    code, _, err = run(capsys, "build", "--summary-only", "--winner-only", "--n", "5", "--variant", "zeckendorf-p3",
                       "--db", db)
    assert code != 0 and "--winner-only is for two-player games" in err


def test_a_cluster_task_solves_in_the_winner_only_state():
    """The task `--executor dask` submits (distributed.summarise) hands winner_only on."""
    from zeckdb.distributed import summarise

    got = summarise("reversed", 25, False, False, winner_only=True)
    assert (got.winner, got.min_length, got.start_remoteness) == (1 if wins("reversed", start("reversed", 25)) else 2,
                                                                  None, None)
