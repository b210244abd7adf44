"""Summary mode (`zeckdb build --summary-only`): a layer solved in one pass, only its summary kept.

Checked against the full build (every summary column, n <= 60, every variant that has
a summary mode), against the independent reference solver, against docs/games.md's
facts, and as a user meets it: status, queries, lookups, replacement by a full build.
"""

from __future__ import annotations

import math
from pathlib import Path
import re

import duckdb
import numpy as np
import pytest

import zeckdb
from zeckdb.engine.summary import solve_summary, supports_summary
from zeckdb.variants.chips.rules import rank_direction
from zeckdb.variants import get_variant, variant_names
from zeckdb.variants.chips import Rule

from . import reference as ref
from .conftest import rows, run

SUMMARY_N = 60
SUMMARY_VARIANTS = [name for name in variant_names() if supports_summary(get_variant(name))]
# the n checked against the full build: n <= 60, the ordered game n <= 16 (its layers double with n)
# (the quilt game n <= 30: tests/test_quilt_summary.py checks it to 40)
CHECKED_N = {name: {"ordered": 16, "quilt": 30}.get(name, SUMMARY_N) for name in SUMMARY_VARIANTS}
EXACT = ["positions", "edges", "start_id", "start_position", "winner", "min_length", "max_length",
         "start_remoteness"]
FLOATS = ["games_approx", "expected_length"]
ODDS = ["p1_wins_random", "p1_wins_p1_perfect", "p1_wins_p2_perfect"]


def test_the_variants_with_a_summary_mode():
    # the chip games whose moves stay in the layer and go one way in rank, and the ordered game
    # (its own summary walk); the others are built in full
    assert SUMMARY_VARIANTS == ["zeckendorf", "reversed", "quilt", "build-up", "ordered"]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The same layers built in full and with --summary-only, as two databases."""
    folder = tmp_path_factory.mktemp("summary")
    from zeckdb.cli.main import main

    for name in SUMMARY_VARIANTS:
        zeckdb.build(folder / "full.duckdb", [name], f"1..{CHECKED_N[name]}")
    for name in SUMMARY_VARIANTS:
        code = None
        try:
            main(["build", "--summary-only", "--n", f"1..{CHECKED_N[name]}", "--db", str(folder / "summary.duckdb"),
                  "--variant", name])
        except SystemExit as exc:
            code = exc.code
        assert not code
    return folder / "full.duckdb", folder / "summary.duckdb"


def _layers(path) -> dict:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {(r["variant"], r["n"]): r for r in rows(con, "SELECT * FROM builds LEFT JOIN random_play USING (variant, n)")}
    finally:
        con.close()


def test_summary_mode_agrees_with_the_full_build_on_every_summary_column(both):
    full, summary = (_layers(path) for path in both)
    assert set(full) == set(summary) == {(v, n) for v in SUMMARY_VARIANTS for n in range(1, CHECKED_N[v] + 1)}
    for layer, want in full.items():
        got = summary[layer]
        assert got["summary_only"] and not want["summary_only"]
        assert {k: got[k] for k in EXACT} == {k: want[k] for k in EXACT}, layer
        for k in FLOATS + ODDS:  # the same sums in another order of the moves: the last bits may differ
            assert math.isclose(got[k], want[k], rel_tol=1e-12, abs_tol=1e-15), (layer, k, got[k], want[k])
        assert got["games"] is None  # the exact count is the full build's (summary mode keeps the float)


# members of the families that summary mode takes, two-player and of P players (the teams)
FAMILY_MEMBERS = ["nacci-2-3", "reversed-nacci-3-2", "nacci-1-4", "reversed-nacci-1-3", "zeckendorf-p3",
                  "zeckendorf-p6", "nacci-2-2-p4", "nacci-3-3-p5", "nacci-1-3-p3", "nacci-4-2-p6"]
FAMILY_N = 30


def test_every_family_member_agrees_with_its_full_build(tmp_path, capsys):
    """Summary rows of the (c,k)-nacci games, their reversed games and the games of P players
    (winner, lengths, teams) are the full build's, row for row."""
    full, summary = tmp_path / "full.duckdb", tmp_path / "summary.duckdb"
    members = [arg for name in FAMILY_MEMBERS for arg in ("--variant", name)]
    for path, mode in ((full, []), (summary, ["--summary-only"])):
        code, _, err = run(capsys, "build", *mode, *members, "--n", f"1..{FAMILY_N}", "--db", str(path))
        assert code == 0, err
    got, want = _layers(summary), _layers(full)
    assert set(got) == set(want) == {(v, n) for v in FAMILY_MEMBERS for n in range(1, FAMILY_N + 1)}
    for layer, row in want.items():
        assert {k: got[layer][k] for k in [*EXACT, "teams"]} == {k: row[k] for k in [*EXACT, "teams"]}, layer
        assert (row["teams"] is None) == (get_variant(layer[0]).players == 2), layer
        for k in FLOATS:
            assert math.isclose(got[layer][k], row[k], rel_tol=1e-12), (layer, k)


@pytest.mark.parametrize("variant", ["zeckendorf", "reversed", "build-up", "ordered"])
def test_summary_mode_agrees_with_the_reference_solver(variant):
    for n in range(1, 16 if variant != "ordered" else 12):
        start = ref.family_start(variant, n) if variant in ("build-up", "ordered") else ref.start(variant, n)
        want = ref.solve(variant, start)
        got = solve_summary(get_variant(variant), n)
        assert (got.winner, got.start_remoteness, got.min_length, got.max_length) == (
            1 if want["win"] else 2, want["remoteness"], want["min"], want["max"]), (variant, n)
        assert got.games_approx == want["games"]
        assert math.isclose(got.expected_length, float(want["expected"]), rel_tol=1e-12)
        q, a, b = ref.random_odds(variant, start)
        assert math.isclose(got.p1_wins_random, float(q), rel_tol=1e-12, abs_tol=1e-15)
        assert math.isclose(got.p1_wins_p1_perfect, float(a), rel_tol=1e-12, abs_tol=1e-15)
        assert math.isclose(got.p1_wins_p2_perfect, float(1 - b), rel_tol=1e-12, abs_tol=1e-15)  # Player 2 perfect


@pytest.mark.parametrize(("variant", "n"), [("zeckendorf", 40), ("reversed", 40), ("build-up", 30), ("ordered", 14),
                                          ("quilt", 40), ("zeckendorf-p3", 30), ("nacci-2-3-p4", 60), ("reversed-nacci-3-2", 80)])
def test_the_walk_solves_the_same_layer_in_batches_of_any_size(variant, n):
    """The engine solves a layer a batch of the game's walk at a time, the walk's state carried
    from one batch to the next: batches of 1 and 7 positions give what one batch gives (which
    the tests above compare with the full build)."""
    game = get_variant(variant)
    whole = solve_summary(game, n)
    assert whole.positions > 7
    for batch in (1, 7):
        got = solve_summary(game, n, batch=batch)
        assert {**got.__dict__, "seconds": 0} == {**whole.__dict__, "seconds": 0}, (variant, n, batch)


def _every_summary_game() -> list[tuple[str, int]]:
    """One member of each game and family with a summary mode, as users name them, at an n
    whose layer spans many blocks of the threaded walk below."""
    examples = {"zeckendorf": 40, "reversed": 40, "build-up": 30, "ordered": 14, "accelerated": 30,
                "reversed-stagnant": 40, "nacci-2-3": 60, "reversed-nacci-3-2": 80, "zeckendorf-p3": 30,
                "nacci-2-3-p4": 60, "reversed-misere": 40, "quilt": 40, "quilt-p3": 20}
    return list(examples.items())


def test_every_summary_game_has_an_example_here():
    """The catalogue's summary games, by their families' examples: none is left out above."""
    from zeckdb.variants import summary_games

    named = {name for name, _ in _every_summary_game()}
    for label in summary_games():
        # nacci-C-K (C = 1..4, ...): its name; GAME-misere: any game's twin
        pattern = re.sub("[A-Z]", "[0-9]+", label.split(" ")[0].replace("GAME", "[a-z0-9-]+"))
        assert any(re.fullmatch(pattern, name) for name in named), label


@pytest.mark.parametrize(("variant", "n"), _every_summary_game())
@pytest.mark.parametrize("threads", [2, 3])
def test_several_threads_solve_every_position_as_one_does(variant, n, threads):
    """The threaded walk (blocks stepped in pieces, each with a forked cursor, solved while the
    next is stepped) gives every position the values of the one-thread walk, bit for bit: small
    batches make many blocks and pieces of a small layer."""
    from zeckdb.engine.summary import walk_layer

    game = get_variant(variant)
    one = walk_layer(game, n, floats=True)
    for batch in (5, 64):
        many = walk_layer(game, n, floats=True, batch=batch, threads=threads)
        assert (many.start, many.edges) == (one.start, one.edges), (variant, batch)
        assert np.array_equal(many.ints[:, :3], one.ints[:, :3]), (variant, batch)
        assert np.array_equal(many.floats.view(np.int64), one.floats.view(np.int64)), (variant, batch)
        assert np.array_equal(many.teams, one.teams), (variant, batch)
    assert {**solve_summary(game, n, threads=threads).__dict__, "seconds": 0} == \
        {**solve_summary(game, n).__dict__, "seconds": 0}


def test_a_walk_that_breaks_its_order_is_named():
    """A game whose walk steps a position before one of its children (its steps report the
    position) gets an error naming the game, the layer and the position, and no summary."""
    import numba

    from zeckdb.engine.contract import SummaryWalk
    from zeckdb.engine.summary import SummaryOrderError

    @numba.njit
    def broken_steps(first, count, cursor, ids, ends, kids):
        for j in range(count):
            ids[j] = first + j
            ends[j] = 0
        return -1 - 3 if first + count > 3 else 0

    zeckendorf = get_variant("zeckendorf")

    class Broken(type(zeckendorf)):  # type: ignore[misc]
        def summary_walk(self, n):
            return SummaryWalk(10, 0, 1, broken_steps, (np.int64(n),))

    for threads in (1, 2):
        with pytest.raises(SummaryOrderError, match=r"zeckendorf, n = 9: a move from id 3 breaks the game's solving "
                                                    "order"):
            solve_summary(Broken(), 9, batch=2, threads=threads)


BEYOND = (201,)  # past the core games' full-build limit of 200


@pytest.fixture(scope="module")
def beyond():
    """The core games' layers past the full build's limit, each solved once in summary mode."""
    return {(variant, n): solve_summary(get_variant(variant), n, floats=False)
            for variant in ("zeckendorf", "reversed") for n in BEYOND}


def test_summary_mode_beyond_the_full_builds_limit_meets_the_published_facts(beyond):
    # docs/games.md: the shortest game has n - Z(n) moves in both games; Player 2 wins the Zeckendorf game for n >= 3
    for n in BEYOND:
        for variant in ("zeckendorf", "reversed"):
            s = beyond[variant, n]
            assert s.min_length == n - ref.z_count(n), (variant, n)
            assert s.expected_length is None and s.p1_wins_random is None
        assert beyond["zeckendorf", n].winner == 2
        # the longest reversed game is within the reversed paper's bound (Theorem 1.4)
        longest = beyond["reversed", n].max_length
        assert longest <= math.floor(ref.PHI ** 2 * n - ref.z_index_sum(n) - 2 * ref.z_count(n) + ref.PHI - 1)


def test_positions_of_a_layer_counted_against_an_independent_count(beyond):
    # the one-pass solver's layer size is the number of partitions of n into Fibonacci numbers
    def partitions(n: int, parts: list[int]) -> int:
        ways = [1] + [0] * n
        for p in parts:
            for v in range(p, n + 1):
                ways[v] += ways[v - p]
        return ways[n]

    solved = {77: solve_summary(get_variant("reversed"), 77, floats=False), BEYOND[-1]: beyond["reversed", BEYOND[-1]]}
    for n, summary in solved.items():
        assert summary.positions == partitions(n, [f for f in ref.FIB if f <= n])


def test_rank_direction_is_read_from_the_rules():
    assert rank_direction((1, 2, 3), (Rule("up", ((1, 2),), ((2, 1),)),)) == 1
    assert rank_direction((1, 2, 3), (Rule("down", ((2, 1),), ((1, 2),)),)) == -1
    mixed = (Rule("up", ((1, 2),), ((2, 1),)), Rule("down", ((3, 1),), ((1, 1), (2, 1))))
    assert rank_direction((1, 2, 3), mixed) == 0
    assert rank_direction((1, 2, 3), (Rule("leaves", ((1, 2),), ()),)) == 0  # value not kept
    assert not supports_summary(get_variant("fibonacci-nim")) and not supports_summary(get_variant("black-hole-4"))


def test_a_user_meets_summary_layers(tmp_path, capsys):
    db = str(tmp_path / "z.duckdb")
    code, out, err = run(capsys, "build", "--summary-only", "--n", "1..30", "--db", db)
    assert code == 0 and "summarised reversed, zeckendorf for n = 1..30" in out
    code, out, _ = run(capsys, "status", "--db", db)
    assert "of which summary only (no positions stored): n = 1..30" in out
    code, out, _ = run(capsys, "query", "winners", "--variant", "reversed", "--n", "30", "--format", "csv", "--db", db)
    assert code == 0 and "reversed,30," in out
    code, out, err = run(capsys, "position", "reversed", "--start", "30", "--db", db)
    assert code == 1 and not out and err.count("\n") == 1
    assert "n = 30 was built with --summary-only: build it in full to look up positions" in err
    code, out, err = run(capsys, "query", "remoteness", "--variant", "reversed", "--n", "30", "--db", db)
    assert code == 1 and "only summary layers" in err
    # a second run has nothing to do; a full build of one n replaces its summary
    code, out, _ = run(capsys, "build", "--summary-only", "--n", "1..30", "--db", db)
    assert code == 0 and "nothing to build" in out
    code, out, _ = run(capsys, "build", "--variant", "reversed", "--n", "30", "--db", db)
    assert code == 0
    code, out, _ = run(capsys, "position", "reversed", "--start", "30", "--db", db)
    assert code == 0 and out
    code, out, _ = run(capsys, "status", "--db", db)
    assert "n = 1..29\n" in out  # reversed: summary only below 30 now
    # --force recomputes summaries, never turns a full layer back into one
    code, out, _ = run(capsys, "build", "--summary-only", "--force", "--variant", "reversed", "--n", "29..30", "--db", db)
    assert code == 0 and "n = 29:" in out
    code, out, _ = run(capsys, "position", "reversed", "--start", "30", "--db", db)
    assert code == 0
    # the service: the page offers the n that can be looked up; a summary n answers 404 with the same line
    from .http import get, serving

    with serving(Path(db)) as server:
        code, body, _ = get(server + "/v1/variants")
        games = {g["variant"]: g for g in body}
        assert (games["reversed"]["built"], games["reversed"]["summary_only"]) == ("30", "1..29")
        assert (games["zeckendorf"]["built"], games["zeckendorf"]["summary_only"]) == (None, "1..30")
        code, body, _ = get(server + "/v1/zeckendorf/starts/12")
        assert code == 404 and "was built with --summary-only" in body["error"]
        code, body, _ = get(server + "/v1/zeckendorf/summary?n=12")
        assert code == 200 and body[0]["summary_only"] and body[0]["winner"] == 2


def test_lean_summaries_keep_the_four_columns(tmp_path, capsys):
    db = str(tmp_path / "z.duckdb")
    code, out, _ = run(capsys, "build", "--summary-only", "--lean", "--variant", "reversed", "--n", "10..12", "--db", db)
    assert code == 0
    con = duckdb.connect(db, read_only=True)
    got = rows(con, "SELECT n, winner, start_remoteness, min_length, max_length, expected_length, games_approx "
                    "FROM builds ORDER BY n")
    assert con.execute("SELECT count(*) FROM random_play").fetchone()[0] == 0
    con.close()
    for row in got:
        want = ref.solve("reversed", ref.start("reversed", row["n"]))
        assert (row["winner"], row["start_remoteness"], row["min_length"], row["max_length"]) == (
            1 if want["win"] else 2, want["remoteness"], want["min"], want["max"])
        assert row["expected_length"] is None and row["games_approx"] is None
    # the random-play query still lists those n, with their winner, and says the odds are missing (NULL)
    from zeckdb import api

    with api.open(db) as database:
        answer = database.query("random-winner", variant="reversed", n=[10, 11, 12])
    answer = [dict(zip(answer.columns, r, strict=False)) for r in answer.rows]
    assert [(r["n"], r["winner"], r["p1_wins_random"]) for r in answer] == [
        (r["n"], r["winner"], None) for r in got]


@pytest.mark.parametrize("args, env, message", [
    (["--n", "10", "--lean"], "full", "--lean goes with --summary-only"),
    (["--variant", "black-hole-4", "--n", "10"], None, "black-hole-4 has no summary mode"),
    (["--variant", "fibonacci-nim", "--n", "10"], None, "fibonacci-nim has no summary mode"),
    (["--n", "3000"], None, "n = 3000 needs 373,900,542.56 GiB in summary mode"),
    (["--n", "1..200"], "0.01", "n = 200 needs 0.04 GiB in summary mode"),
    (["--n", "10"], "lots", "ZECKDB_SUMMARY_MEMORY='lots' is not a memory size"),
    (["--n", "10"], "-3", "is not a memory size"),
])
def test_bad_summary_requests_get_one_line_and_write_nothing(tmp_path, capsys, monkeypatch, args, env, message):
    if env not in (None, "full"):
        monkeypatch.setenv("ZECKDB_SUMMARY_MEMORY", env)
    db = tmp_path / "z.duckdb"
    code, out, err = run(capsys, "build", *([] if env == "full" else ["--summary-only"]), *args, "--db", str(db))
    assert code != 0 and not out and message in err and err.count("\n") == 1, err
    assert not db.exists() and not list(tmp_path.iterdir())  # refused before the file is touched


def test_a_layer_too_big_is_counted_in_its_own_positions(tmp_path, capsys):
    """The refusal names the layer's real size, also for a game whose summary walk holds more
    than the solved columns per position (the ordered game's count, by an independent recursion)."""
    ways = [1]
    for m in range(1, 41):
        ways.append(sum(ways[m - f] for f in ref.FIB if f <= m))
    db = tmp_path / "z.duckdb"
    code, out, err = run(capsys, "build", "--summary-only", "--variant", "ordered", "--n", "40", "--db", str(db))
    assert code != 0 and not out and f"(ordered: {ways[40]:,} positions, " in err, err
    assert not db.exists()


def test_ordered_summary_beyond_the_full_builds_limit(capsys, tmp_path):
    """n = 25 (4,915,135 positions, past max_n = 24): the paper's last n, Player 1 wins; the
    shortest game is n - Z(n); the layer holds every composition of 25 into Fibonacci parts."""
    db = str(tmp_path / "o.duckdb")
    code, _, err = run(capsys, "build", "--summary-only", "--variant", "ordered", "--n", "25", "--db", db)
    assert code == 0, err
    con = duckdb.connect(db, read_only=True)
    (b,) = rows(con, "SELECT * FROM builds WHERE variant = 'ordered'")
    con.close()
    compositions = [1] + [0] * 25  # independent count: c(m) = sum over Fibonacci f <= m of c(m - f)
    for m in range(1, 26):
        compositions[m] = sum(compositions[m - f] for f in ref.FIB if f <= m)
    assert (b["n"], b["positions"], b["winner"], b["summary_only"]) == (25, compositions[25], 1, True)
    assert b["positions"] == 4_915_135 and b["min_length"] == 25 - len(ref.zeckendorf_indices(25))


def test_ctrl_c_during_summary_mode_keeps_every_finished_layer(tmp_path):
    """Summary mode under the full build's Ctrl-C discipline: a Ctrl-C once a tenth of the work
    is done exits 130 in one line, every layer it finished committed and true (Player 2 wins
    the Zeckendorf game for n >= 3, Baird-Smith et al.; n = 1, 2 from the plain solver)."""
    import signal
    import subprocess
    import sys

    db = tmp_path / "stopped.duckdb"
    proc = subprocess.Popen([sys.executable, "-c", "from zeckdb.launch import main; main()", "build", "--summary-only",
                             "--variant", "zeckendorf", "--n", "1..200", "--db", str(db)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as under a terminal
    said = []
    assert proc.stderr is not None
    for line in proc.stderr:  # the first progress line comes at a tenth of the work, most of it still ahead
        said.append(line)
        if line.startswith("summarising "):
            break
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=300)
    lines = ("".join(said) + rest).splitlines()
    assert proc.returncode == 130 and lines[-1] == ("zeckdb: interrupted; every finished n is committed, run the "
                                                    "same command again to resume"), lines
    with duckdb.connect(str(db), read_only=True) as con:
        stored = con.execute("SELECT n, winner FROM builds WHERE variant = 'zeckendorf' ORDER BY n").fetchall()
    assert stored and len(stored) < 200  # stopped part of the way
    want = {n: 1 if ref.solve("zeckendorf", (n,))["win"] else 2 for n in range(1, 3)}  # n = 1, 2 by the plain solver
    assert all(winner == want.get(n, 2) for n, winner in stored), stored
