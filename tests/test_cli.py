"""The command line: outputs, the JSON contract, and one-line errors for bad input."""

from __future__ import annotations

import json
import re
import os
from pathlib import Path
import shutil
import signal
import subprocess
import sys
import time

import pytest

from zeckdb.store import SCHEMA_HEAD

from .conftest import run


def test_position_json_contract(capsys, small_db):
    code, out, err = run(capsys, "position", "zeckendorf", "--start", "10", "--json", "--db", str(small_db))
    assert code == 0, err
    info = json.loads(out)
    assert {"variant", "position", "value", "outcome", "remoteness", "min_remaining", "max_remaining", "games_to_end",
            "expected_remaining_random", "grundy", "moves", "text"} <= set(info)
    assert info["position"] == [10] and info["value"] == 10 and info["outcome"] == "loss"
    assert info["games_to_end"] == "856"  # exact decimal string at the start
    assert info["text"] == "(10)"  # the position as the variant writes it
    assert info["moves"] == [{"move": "merge 2F1", "position": [8, 1], "outcome": "win", "remoteness": info["remoteness"] - 1,
                              "text": "(8,1)", "forcing_seat": None}]  # forcing_seat: games of three or more players
    assert info["players"] == 2 and info["forcing_seat"] is None and info["teams"] is None
    # docs/commands.md names every key printed, the moves' too
    import re

    doc = (Path(__file__).resolve().parent.parent / "docs" / "commands.md").read_text()
    contract = doc[doc.index("## position --format json"):doc.index("## line --format json")]
    top, moves = contract.split("each move with", 1)
    assert set(re.findall(r"`([a-z_]+)`", top)) >= set(info)
    assert set(re.findall(r"`([a-z_]+)`", moves.split(".")[0])) == set(info["moves"][0])


def test_moves_are_ranked_wins_fastest_first_then_losses_slowest_first(capsys, small_db):
    code, out, _ = run(capsys, "position", "zeckendorf", "6,2,1", "--json", "--db", str(small_db))
    moves = json.loads(out)["moves"]
    keys = [(m["outcome"] != "loss", m["remoteness"] if m["outcome"] == "loss" else -m["remoteness"]) for m in moves]
    assert code == 0 and keys == sorted(keys) and len(moves) >= 3


def test_position_text_and_line(capsys, small_db):
    code, out, _ = run(capsys, "position", "reversed", "3,1,0,2", "--db", str(small_db))
    assert code == 0 and "outcome" in out and "moves, best first" in out
    code, out, _ = run(capsys, "line", "zeckendorf", "--start", "7", "--db", str(small_db))
    assert code == 0
    assert [row.split("-> ")[1] for row in out.splitlines()[1:]] == [
        "(5,1)", "(4,0,1)", "(2,1,1)", "(1,0,2)", "(2,0,0,1)", "(0,1,0,1)"]


def test_status_and_db_current(capsys, small_db):
    code, out, _ = run(capsys, "status", "--db", str(small_db))
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert code == 0 and lines["zeckendorf"][1:4] == ["n", "=", "1..40"] and lines["fibonacci-nim"][3] == "0..100"
    assert len({line.index(" n = ") for line in out.splitlines()[1:-1]}) == 1  # aligned
    assert out.splitlines()[-1].startswith("`zeckdb verify` checks every stored row")
    code, out, _ = run(capsys, "db", "current", "--db", str(small_db))
    assert code == 0 and out.strip() == f"{SCHEMA_HEAD} (head)"


@pytest.mark.parametrize("args, code, message", [
    (["position", "zeckendorf", "3,x"], 2,
     "zeckdb: error: malformed position '3,x': write whole numbers (ASCII digits) separated by commas"),
    (["position", "zeckendorf", "3,-1"], 2, "zeckdb: error: malformed position '3,-1': counts cannot be negative"),
    (["position", "zeckendorf", ""], 2, "zeckdb: error: empty position for zeckendorf"),
    (["position", "zeckendorf"], 2, "zeckdb: error: give a position (e.g. 3,1,0,2) or --start N"),
    (["position", "nim", "--start", "5"], 2, "zeckdb: error: unknown variant 'nim': choose one of zeckendorf, reversed"),
    (["position", "zeckendorf", "--start", "60"], 1,
     "holds no zeckendorf positions for n = 60: run `zeckdb build --variant zeckendorf --n 60 --db "),
    (["position", "zeckendorf", "--start", "0"], 2,
     "zeckdb: error: n = 0 is out of range for zeckendorf: choose n from 1 to 200"),
    (["line", "reversed", "60"], 1, "holds no reversed positions for n = 60"),
])
def test_bad_lookups_get_one_line_errors(capsys, small_db, args, code, message):
    got, out, err = run(capsys, *args, "--db", str(small_db))
    assert got == code
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out == ""


@pytest.mark.parametrize("n, message", [
    ("0", "n = 0 is out of range for zeckendorf: choose n from 1 to 200"), ("5..3", "the range 5..3 is empty"),
    ("abc", "bad --n 'abc': write n as 7, 1..150 or 1..20,30"),
    ("1..201", "n = 201 is out of range for zeckendorf: choose n from 1 to 200"),
    ("2000..2010", "no variant can be built exhaustively for n = 2000..2010"),
])
def test_bad_n_writes_nothing(capsys, tmp_path, n, message):
    path = tmp_path / "never.duckdb"
    variant = ["--variant", "zeckendorf"] if n in ("0", "1..201") else []
    code, _, err = run(capsys, "build", "--n", n, *variant, "--db", str(path))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not path.exists()


def test_games_that_start_at_0_build_from_0(capsys, tmp_path):
    """`--n 0..30` was refused for every game, though Black Hole and Fibonacci nim start at n = 0
    (an empty board: one position, the player to move has lost). Each game now starts where it
    does: n = 0 is built for those, left out for the others of the same build, and refused only
    when no game of the build takes it."""
    import duckdb

    db = tmp_path / "zero.duckdb"
    code, out, err = run(capsys, "build", "--variant", "black-hole-3", "--variant", "zeckendorf",
                         "--variant", "fibonacci-nim", "--n", "0..6", "--db", str(db))
    assert code == 0, err
    with duckdb.connect(str(db), read_only=True) as con:
        firsts = dict(con.execute("SELECT variant, min(n) FROM builds GROUP BY variant").fetchall())
        zero = con.execute("SELECT variant, positions, winner FROM builds WHERE n = 0 ORDER BY variant").fetchall()
    assert firsts == {"black-hole-3": 0, "fibonacci-nim": 0, "zeckendorf": 1}
    assert zero == [("black-hole-3", 1, 2), ("fibonacci-nim", 1, 2)]  # no move: Player 1 has lost
    code, out, err = run(capsys, "build", "--variant", "zeckendorf", "--variant", "reversed", "--n", "0",
                         "--db", str(db))
    assert code == 2 and "n = 0 is below where every game of this build starts" in err
    code, out, err = run(capsys, "build", "--summary-only", "--variant", "ordered", "--n", "0..4", "--db", str(db))
    assert code == 0 and "for n = 1..4" in out, err  # summary mode starts at 1


def test_missing_database(capsys, tmp_path):
    path = tmp_path / "missing.duckdb"
    code, _, err = run(capsys, "position", "zeckendorf", "--start", "5", "--db", str(path))
    assert code == 1 and f"no database at {path}: build one with `zeckdb build --db {path}`" in err
    assert not path.exists()


def test_not_a_duckdb_file(capsys, tmp_path):
    path = tmp_path / "notes.duckdb"
    path.write_text("these are my notes\n" * 100)
    for args in (["position", "zeckendorf", "--start", "5"], ["build", "--n", "3"], ["status"]):
        code, _, err = run(capsys, *args, "--db", str(path))
        assert code == 1 and "is not a DuckDB database file" in err, args
    assert path.read_text() == "these are my notes\n" * 100


def test_read_only_database(capsys, tmp_path, small_db):
    path = tmp_path / "ro.duckdb"
    shutil.copy(small_db, path)
    os.chmod(path, 0o444)
    before = path.read_bytes()
    code, _, err = run(capsys, "build", "--n", "41", "--db", str(path))
    assert code == 1 and f"{path} is read-only: make it writable" in err
    code, out, _ = run(capsys, "position", "zeckendorf", "--start", "5", "--db", str(path))  # reading still works
    assert code == 0 and "loss" in out
    assert path.read_bytes() == before


def test_env_var_selects_the_database(capsys, small_db, monkeypatch):
    monkeypatch.setenv("ZECKDB_DB", str(small_db))
    code, out, _ = run(capsys, "position", "zeckendorf", "--start", "5")
    assert code == 0 and "(5)" in out


def test_a_build_counts_in_words_that_agree(capsys, tmp_path):
    """n = 1 is one chip and no move, n = 2 two positions and one move (the reference solver
    counts them): "1 position, 0 moves", not "1 positions"."""
    from . import reference as ref

    path = str(tmp_path / "one.duckdb")
    for n, said in ((1, "1 position, 0 moves"), (2, "2 positions, 1 move")):
        positions = ref.positions("zeckendorf", n)
        moves = sum(len(ref.MOVES["zeckendorf"](p)) for p in positions)
        assert f"{len(positions)} position{'s' * (len(positions) != 1)}, {moves} move{'s' * (moves != 1)}" == said
        code, out, _ = run(capsys, "build", "--n", str(n), "--variant", "zeckendorf", "--db", path)
        assert code == 0 and out.startswith(f"built zeckendorf for n = {n}: {said} stored in"), out
    code, out, _ = run(capsys, "build", "--n", "2", "--summary-only", "--variant", "reversed", "--db", path)
    assert code == 0 and out.startswith("summarised reversed for n = 2: 2 positions, 1 move solved in"), out


def test_build_summary_and_nothing_to_do(capsys, tmp_path):
    path = tmp_path / "b.duckdb"
    code, out, _ = run(capsys, "build", "--n", "1..6,9", "--variant", "reversed", "--db", str(path))
    assert code == 0 and out.startswith("built reversed for n = 1..6,9: 41 positions, 57 moves stored in")
    code, out, _ = run(capsys, "build", "--n", "1..6", "--variant", "reversed", "--db", str(path))
    assert code == 0 and out.startswith("nothing to build: reversed for n = 1..6 already in")
    # the two core games share one graph: its moves are stored, and counted, once
    code, out, _ = run(capsys, "build", "--n", "1..8", "--variant", "zeckendorf", "--variant", "reversed", "--db",
                       str(tmp_path / "two.duckdb"))
    import duckdb

    stored = duckdb.connect(str(tmp_path / "two.duckdb"), read_only=True).execute("SELECT count(*) FROM edges").fetchone()
    from . import reference as ref

    moves = sum(len(ref.MOVES["zeckendorf"](p)) for n in range(1, 9) for p in ref.positions("zeckendorf", n))
    assert code == 0 and stored == (moves,) and f"{moves:,} moves stored" in out, out


def test_version(capsys):
    from zeckdb import __version__

    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"zeckdb {__version__}" and __version__.count(".") == 2


def test_help_explains_every_command(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in ["build", "status", "position", "line", "query", "sql", "verify", "simulate", "variants", "db"]:
        assert command in out
        code, sub, _ = run(capsys, command, "--help")
        assert code == 0 and len(sub) > 200


def test_variants_lists_every_game_once(capsys):
    from zeckdb.engine.limits import reach
    from zeckdb.variants import get_variant

    from .conftest import GAMES

    code, out, _ = run(capsys, "variants", "--format", "json")
    from zeckdb import api

    installed = set(api.plugin_names())  # a game plugin in this environment is listed last: not zeckdb's own
    listing = {row["variant"]: row for row in json.loads(out) if row["variant"] not in installed}
    assert code == 0 and list(listing) == [*GAMES, "black-hole-M (M = 2..12)", "black-hole-empty-board-M (M = 2..12)",
                                           "black-hole-empty-board-any-M (M = 4..12)",
                                           "nacci-C-K (C = 1..4, K = 2..4)", "reversed-nacci-C-K (C = 1..4, K = 2..4)",
                                           "zeckendorf-pP (P = 3..6)", "quilt-pP (P = 3..6)",
                                           "nacci-C-K-pP (C = 1..4, K = 2..4, P = 3..6)",
                                           "GAME-misere (every two-player game)"]
    twins = listing["GAME-misere (every two-player game)"]
    assert {"zeckendorf-misere", "reversed-misere", "black-hole-12-misere", "reversed-nacci-4-4-misere",
            "fibonacci-nim-misere"} <= set(twins["members"]) and "zeckendorf-p3-misere" not in twins["members"]
    # the games, black holes and nacci games, both kinds, and the empty board placing in any bin (M = 4..12)
    assert len(twins["members"]) == len(GAMES) + 2 * 11 + 2 * 11 + 9
    players = listing["nacci-C-K-pP (C = 1..4, K = 2..4, P = 3..6)"]
    assert len(players["members"]) == 44 and "nacci-4-4-p6" in players["members"] and players["family"] == "nacci-C-K-pP"
    nacci = listing["reversed-nacci-C-K (C = 1..4, K = 2..4)"]
    assert nacci["start_of_5"] == "(2,1)"  # 5 = 2 G1 + G2 of (2,2): 1, 3, 8, ...
    # the reach is the engine's (tests/test_limits.py): the least and the most of the members
    assert nacci["full_n"] == f"1..{min(reach(get_variant(m)).full for m in nacci['members'])} to " \
                              f"1..{max(reach(get_variant(m)).full for m in nacci['members'])}"
    assert "nacci-1-2" not in listing["nacci-C-K (C = 1..4, K = 2..4)"]["members"] and \
        len(nacci["members"]) == 11 and "reversed-nacci-4-4" in nacci["members"]
    assert listing["ordered"]["start_of_5"] == "[1,1,1,1,1]" and listing["ordered"]["family"] is None
    assert listing["fibonacci-nim"]["start_of_5"] == "(5,4)" and listing["fibonacci-nim"]["full_n"] == "0..1000"
    assert listing["fibonacci-nim"]["summary_n"] is None and listing["zeckendorf"]["summary_n"] is not None
    family = listing["black-hole-empty-board-M (M = 2..12)"]
    assert family["start_of_5"] == "(0,0,0,5)" and family["family"] == "black-hole-empty-board-M"
    assert family["members"] == [f"black-hole-empty-board-{m}" for m in range(2, 13)]
    code, out, _ = run(capsys, "variants", "--format", "csv")
    assert code == 0 and out.splitlines()[0] == "variant,full build,summary mode,start of 5,game,source"
    code, out, _ = run(capsys, "variants", "nacci-C-K")
    assert code == 0 and len(out.splitlines()) == 2 + 11 + 1 and "nacci-4-4" in out and "reversed" not in out
    code, out, _ = run(capsys, "variants", "nacci-2-3-p5", "-f", "json")
    assert [row["variant"] for row in json.loads(out)] == ["nacci-2-3-p5"]
    code, _, err = run(capsys, "variants", "nacci-9-9")
    assert code == 2 and "unknown variant 'nacci-9-9'" in err
    code, out, _ = run(capsys, "variants", "nacci", "-f", "json")  # a family's name without its numbers
    assert code == 0 and [row["family"] for row in json.loads(out)] == ["nacci-C-K", "nacci-C-K-pP"]
    code, out, _ = run(capsys, "variants", "black-hole", "-f", "json")  # one family: its members
    assert code == 0 and [row["variant"] for row in json.loads(out)] == [f"black-hole-{m}" for m in range(2, 13)]
    for name in ("black-hole-2", "black-hole-12", "black-hole-empty-board-7", "nacci-4-4", "reversed-nacci-1-3"):
        get_variant(name)  # every advertised member is accepted


def test_variants_fits_the_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, wide, _ = run(capsys, "variants")
    assert code == 0 and wide.splitlines()[0].split()[-1] == "game" and "The Zeckendorf game" in wide
    assert max(len(line) for line in wide.splitlines()) <= 200 and "left out" not in wide
    monkeypatch.setenv("COLUMNS", "100")
    code, narrow, _ = run(capsys, "variants")
    lines = narrow.splitlines()
    assert code == 0 and max(len(line) for line in lines) <= 100, narrow
    assert lines[0].split()[-3:] == ["start", "of", "5"] and "The Zeckendorf game" not in narrow
    assert lines[-1] == "(left out to fit the terminal: game; --format markdown has all)"


def test_query_lists_and_runs_in_every_format(capsys, small_db):
    import csv
    import io

    code, out, _ = run(capsys, "query", "--db", str(small_db))
    assert code == 0 and "winners" in out and "length-distribution" in out
    assert "takes: --variant; --param n=... (a built n, required)" in out  # omega-b: no --n
    assert "takes: --variant (black-hole-M); --n; --param mod=... (an integer >= 1)" in out
    code, out, _ = run(capsys, "query", "-f", "json", "--db", str(small_db))
    listed = {q["query"]: q["parameters"] for q in json.loads(out)}
    assert listed["length-distribution"] == "--variant; --n; --param measure=... (P or mu)"
    code, out, _ = run(capsys, "query", "winners", "--variant", "zeckendorf", "--n", "1..3", "-f", "json", "--db", str(small_db))
    assert code == 0
    assert [(r["n"], r["winner"]) for r in json.loads(out)] == [(1, 2), (2, 1), (3, 2)]
    code, out, _ = run(capsys, "query", "winners", "--variant", "zeckendorf", "--n", "1..3", "-f", "csv", "--db", str(small_db))
    assert list(csv.DictReader(io.StringIO(out)))[1]["winner"] == "1"
    code, out, _ = run(capsys, "query", "winners", "--variant", "zeckendorf", "--n", "2", "-f", "markdown", "--db", str(small_db))
    assert out.splitlines()[:2] == ["| variant | n | winner | p1_fraction | minus_inverse_phi |",
                                    "| --- | --- | --- | --- | --- |"]
    code, out, _ = run(capsys, "query", "omega-b", "--variant", "zeckendorf", "--param", "n=4", "--db", str(small_db))
    assert code == 0 and "(1,0,1)" in out


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown", "table"])
def test_a_long_answer_streamed_in_blocks_reads_as_one(capsys, small_db, fmt):
    """The rows come from DuckDB in blocks; a CSV block after the first dropped its header by
    cutting at the first line break, which a quoted column name holding one is not."""
    import csv
    import io

    count = 30_000  # DuckDB's blocks are 2,048 rows
    code, out, err = run(capsys, "sql", f'SELECT i AS "line\nbreak", i % 7 AS "a|b" FROM range({count}) t(i)',
                         "--max-rows", str(count), "-f", fmt, "--db", str(small_db))
    assert code == 0, err
    if fmt == "csv":
        assert list(csv.reader(io.StringIO(out))) == [["line\nbreak", "a|b"], *([str(i), str(i % 7)] for i in range(count))]
    elif fmt == "json":
        assert json.loads(out) == [{"line\nbreak": i, "a|b": i % 7} for i in range(count)]
    else:
        lines = out.splitlines()
        body = lines[2:] if fmt == "markdown" else lines[2:-1]
        assert len(body) == count and len(lines) == count + (2 if fmt == "markdown" else 3)
        assert [int(re.findall(r"\d+", line)[0]) for line in body] == list(range(count))


def test_sql_params_are_bound_as_numbers_or_texts(capsys, small_db):
    code, out, err = run(capsys, "sql", "SELECT n, ? AS t FROM builds WHERE variant = ? AND n = ?", "--param", "007",
                         "--param", "reversed", "--param", "40", "-f", "csv", "--db", str(small_db))
    assert code == 0 and out.splitlines() == ["n,t", "40,7"], err  # 007 is a number, reversed a text
    code, out, err = run(capsys, "sql", "SELECT ? AS a, ? AS b, ? AS c", "--param", "1.5", "--param", "1e3",
                         "--param", "-", "-f", "json", "--db", str(small_db))
    assert code == 0 and json.loads(out) == [{"a": 1.5, "b": "1e3", "c": "-"}], err
    code, out, err = run(capsys, "sql", "SELECT n, ? AS t FROM builds WHERE variant = ? AND n = ?", "--arg", "007",
                         "--arg", "reversed", "--arg", "40", "-f", "csv", "--db", str(small_db))
    assert code == 0 and out.splitlines() == ["n,t", "40,7"], err  # --arg: the same, by its own name
    code, out, err = run(capsys, "sql", "SELECT ?, ?", "--arg", "1", "--db", str(small_db))
    assert code != 0 and not out and err.count("\n") == 1, err
    assert err == "zeckdb: error: the statement takes 2 ? values, in order, and 1 was given (--arg VALUE each)\n"


def test_sql_command_reads_stdin_and_refuses_writes(capsys, small_db, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT count(*) AS n FROM builds"))
    code, out, _ = run(capsys, "sql", "-", "-f", "json", "--db", str(small_db))
    # the fixture: 2 core variants to 40, quilt to 30, 8 Black Hole variants 0..50 and 14 more 1..15 (with
    # layer 0 for the two M = 6 games only: F_6 = 13 <= 15 lets a chip fall), nim 0..100, build-up to 40, ordered to 18,
    # the accelerated game, 3 games of more players and nacci-2-2 to 20, the 2 misère twins to 20
    assert code == 0 and json.loads(out) == [{"n": 2 * 40 + 30 + 8 * 51 + 14 * 15 + 2 + 101 + 40 + 18 + 5 * 20 + 2 * 20}]
    code, out, err = run(capsys, "sql", "DELETE FROM builds", "--db", str(small_db))
    assert code == 2 and err.strip() == ("zeckdb: error: a DELETE statement is refused: zeckdb's SQL is read-only, "
                                         "use SELECT, WITH ... SELECT, VALUES, DESCRIBE, SUMMARIZE, SHOW, or EXPLAIN "
                                         "without ANALYZE (`zeckdb build` writes the database)")
    code, _, err = run(capsys, "sql", "SELECT 1", "-f", "xml", "--db", str(small_db))
    assert code == 2 and "unknown format 'xml': choose one of table, csv, json, markdown" in err
    code, _, err = run(capsys, "query", "winners", "--param", "oops", "--db", str(small_db))
    assert code == 2 and "bad --param 'oops': write KEY=VALUE" in err


def test_default_build_skips_what_a_variant_cannot_build(capsys, tmp_path, monkeypatch):
    import zeckdb.variants
    from zeckdb.variants.quilt import Quilt

    class SmallQuilt(Quilt):
        max_n = 6  # as if quilt stopped at n = 6

    monkeypatch.setitem(zeckdb.variants._instances, "quilt", SmallQuilt())
    path = tmp_path / "all.duckdb"
    code, out, err = run(capsys, "build", "--n", "5..8", "--db", str(path))
    assert code == 0
    assert "skipping quilt for n = 7..8: about 14 positions at n = 7 alone, beyond its exhaustive limit n = 6" in err
    # what the default build leaves out is said: the generalized games are built when named
    assert ("built on request, with --variant NAME: accelerated, reversed-stagnant, black-hole-empty-board-any-M, "
            "nacci-C-K, reversed-nacci-C-K, zeckendorf-pP, quilt-pP, nacci-C-K-pP") in err
    assert "`zeckdb simulate quilt --n N`" in err
    from zeckdb.variants import variant_names

    assert out.startswith(f"built {', '.join(variant_names())} for n = ")
    assert "black-hole-empty-board-5" in out
    code, _, err = run(capsys, "build", "--n", "7", "--variant", "quilt", "--db", str(path))
    assert code == 2 and "n = 7 is out of range for quilt: choose n from 1 to 6; exhaustive quilt builds stop there" in err


def test_expected_moves_are_shown_with_the_digits_they_are_stored_with(capsys, small_db):
    """Starts show the build's exact double; other positions the digits their REAL holds (29/6 is
    4.8333335 as a float32, not 4.833333492279053); the JSON keeps numbers."""
    import struct

    from . import reference as ref

    def as_real(x: float) -> float:  # the float32 nearest x, printed with the fewest digits that round-trip
        stored = struct.unpack("f", struct.pack("f", x))[0]
        for digits in range(1, 10):
            if struct.unpack("f", struct.pack("f", float(f"{stored:.{digits}g}")))[0] == stored:
                return float(f"{stored:.{digits}g}")
        return stored

    code, out, _ = run(capsys, "position", "zeckendorf", "--start", "7", "--json", "--db", str(small_db))
    want = ref.solve("zeckendorf", (7,))["expected"]
    assert json.loads(out)["expected_remaining_random"] == float(want)  # 107/18 as a double
    code, out, _ = run(capsys, "position", "zeckendorf", "--start", "7", "--db", str(small_db))
    assert f"expected moves    {float(want)!r} (both players random)" in out
    for position in [(3, 1, 1), (6, 2, 1), (2, 0, 0, 2)]:
        code, out, _ = run(capsys, "position", "zeckendorf", ",".join(map(str, position)), "--json", "--db", str(small_db))
        shown = json.loads(out)["expected_remaining_random"]
        assert isinstance(shown, float) and shown == as_real(float(ref.solve("zeckendorf", position)["expected"]))
    code, out, _ = run(capsys, "sql", "SELECT (29 / 6)::REAL AS x", "-f", "csv", "--db", str(small_db))
    assert out.splitlines() == ["x", "4.8333335"]


def zeckdb_imports(path: Path, package: str) -> set[str]:
    """The zeckdb modules (and names of the package itself) a file of `package` imports."""
    import ast

    reached = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        module = node.module or ""
        if node.level:  # relative: from . import api, from .errors import opt
            module = ".".join([package, *([module] if module else [])])
        if module == "zeckdb":
            reached |= {f"zeckdb.{a.name}" for a in node.names}
        elif module.startswith("zeckdb"):
            reached.add(module)
    return reached


ROOT = Path(__file__).resolve().parent.parent


def test_the_command_line_and_the_service_go_through_the_api_only():
    """cli/ (main.py and its command groups) imports zeckdb.api, the text helpers (render, errors, the range syntax and
    the settings' help) and the service to start it; the service imports the same, its page's
    files and its own pool of worker processes. Each of them uses only the api's public names
    (zeckdb.api.__all__: the Database object and its results), so every command, endpoint and
    worker job is a call of the library's one public door, the one a user calls. The
    command's entry point imports only errors, interrupts and children (light modules) before
    it loads the command line."""
    import re

    from zeckdb import api

    helpers = {"zeckdb.api", "zeckdb.render", "zeckdb.errors", "zeckdb.ranges", "zeckdb.settings", "zeckdb.__version__",
               "zeckdb.version", "zeckdb.progress"}
    commands = [path for path in sorted((ROOT / "cli").glob("*.py")) if path.name != "__init__.py"]
    assert {path.stem for path in commands} >= {"main", "app", "building", "lookups", "querying", "figures", "serving"}
    own = {f"zeckdb.cli.{path.stem}" for path in commands}  # the command groups import each other's helpers
    for path in commands:  # main.py run as a process (`python -m`) reaps what it started, as the entry point does
        entry = {"zeckdb.children"} if path.stem == "main" else set()
        assert zeckdb_imports(path, "zeckdb.cli") <= helpers | own | entry | {"zeckdb.service", "zeckdb.cli"}, path.name
    assert zeckdb_imports(ROOT / "zeckdb" / "service.py", "zeckdb") <= helpers | {"zeckdb.resources",
                                                                                  "zeckdb.sqlworkers", "zeckdb.servelog"}
    assert zeckdb_imports(ROOT / "zeckdb" / "sqlworkers.py", "zeckdb") <= helpers | {"zeckdb.executor",
                                                                                     "zeckdb.apart", "zeckdb.children"}
    for path in (*[c for c in commands if "api." in c.read_text()], ROOT / "zeckdb" / "service.py",
                 ROOT / "zeckdb" / "sqlworkers.py"):
        used = set(re.findall(r"\bapi\.(\w+)", path.read_text()))
        assert used and used <= set(api.__all__), (path.name, used - set(api.__all__))
    assert all(not name.startswith("_") and getattr(api, name) is not None for name in api.__all__)
    assert zeckdb_imports(ROOT / "cli" / "__init__.py", "zeckdb.cli") <= {"zeckdb.errors", "zeckdb.interrupts",
                                                                            "zeckdb.children", "zeckdb.cli.main"}


@pytest.mark.parametrize("setting, expected", [(None, "False"), ("1", "True")])
def test_the_command_line_asks_numpy_for_small_pages_unless_told_otherwise(setting, expected):
    """zeckdb sets NUMPY_MADVISE_HUGEPAGE=0 before NumPy is imported (as the command line
    imports it), keeping a value the user set."""
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    if setting is not None:
        env["NUMPY_MADVISE_HUGEPAGE"] = setting
    probe = ("import zeckdb.cli.main\n"
             "try:\n    from numpy._core.multiarray import _get_madvise_hugepage\n"
             "except ImportError:\n    from numpy.core.multiarray import _get_madvise_hugepage\n"
             "print(_get_madvise_hugepage())")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == expected


CTRL_C_WHILE_DUCKDB_LOADS = """
import signal, sys

def stack(frame):
    while frame is not None:
        yield frame.f_code.co_filename
        frame = frame.f_back

def ctrl_c_in_duckdb_init(frame, event, arg):  # DuckDB's module, as it initialises, creates its enums
    if (event == "call" and frame.f_code.co_filename.endswith("enum.py") and frame.f_back is not None
            and frame.f_back.f_code.co_name == "_call_with_frames_removed"
            and any("duckdb" in name for name in stack(frame))):
        sys.setprofile(None)
        signal.raise_signal(signal.SIGINT)

sys.setprofile(ctrl_c_in_duckdb_init)
sys.argv = ["zeckdb", "--help"]
from zeckdb.cli import main
main()
"""


def test_ctrl_c_while_duckdb_loads_is_an_interrupt():
    """A KeyboardInterrupt inside the Python calls of DuckDB's initialisation aborts the
    process (nanobind's "Critical error", SIGABRT); the command holds a Ctrl-C until DuckDB
    has loaded and exits 130."""
    out = subprocess.run([sys.executable, "-c", CTRL_C_WHILE_DUCKDB_LOADS], capture_output=True, text=True,
                         timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (out.returncode, out.stderr.strip()) == (130, "zeckdb: interrupted"), out.stderr[-800:]


def test_the_first_build_of_an_install_says_it_compiles(capsys, tmp_path, monkeypatch):
    """Before a build waits for the kernels' first compile it says so, at once (not after the
    silence of the compile); a build that finds them compiled says nothing of it."""
    import zeckdb.engine.jit

    db = str(tmp_path / "c.duckdb")
    monkeypatch.setattr(zeckdb.engine.jit, "compiled_before", lambda kernel: False)
    code, _, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..3", "--db", db)
    assert code == 0 and err.startswith("zeckdb: compiling the game kernels first (once per install"), err
    monkeypatch.setattr(zeckdb.engine.jit, "compiled_before", lambda kernel: True)
    code, _, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "4", "--db", db)
    assert code == 0 and "compiling" not in err


ZECKDB = str(Path(sys.executable).with_name("zeckdb"))  # the installed command: its entry point guards the streams


@pytest.fixture(scope="module")
def tiny_db(tmp_path_factory) -> Path:
    from zeckdb import api

    path = tmp_path_factory.mktemp("tiny") / "tiny.duckdb"
    api.build(path, ["zeckendorf"], "1..5")
    return path


@pytest.mark.parametrize("args", [["--help"], ["status"], ["sql", "SELECT 1"], ["position", "zeckendorf", "--start", "5"]])
def test_standard_output_that_fails_is_one_line(tiny_db, args):
    with open("/dev/full", "w") as full:
        done = subprocess.run([ZECKDB, *args, "--db", str(tiny_db)] if args != ["--help"] else [ZECKDB, *args],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert done.stderr == ("zeckdb: error: cannot write to standard output: No space left on device; free space "
                           "where it goes, or send it elsewhere\n")


def test_standard_output_closed_is_said_and_nothing_lands_in_the_database(tiny_db):
    """With descriptor 1 closed, the database would be the next file opened on it."""
    before = tiny_db.read_bytes()
    done = subprocess.run(["bash", "-c", f'exec "{ZECKDB}" status --db "{tiny_db}" >&-'], stderr=subprocess.PIPE,
                          text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.startswith("zeckdb: error: standard output is closed:") and len(done.stderr.splitlines()) == 1
    assert tiny_db.read_bytes() == before


def test_a_reader_that_leaves_early_ends_the_command_quietly(tiny_db):
    done = subprocess.run(["bash", "-c", f'"{ZECKDB}" sql "SELECT * FROM range(200000)" --max-rows 200000 '
                          f'--db "{tiny_db}" | head -1; exit ${{PIPESTATUS[0]}}'], capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.strip() and "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert done.returncode == 1 and done.stderr == ""


def test_sql_takes_named_parameters_as_name_value(capsys, small_db):
    """One rule with `zeckdb query`: --param NAME=VALUE binds $NAME, --arg VALUE the next ?.
    `--param variant=reversed` for a ? bound the text 'variant=reversed' and printed no rows,
    exit 0; a $ inside a string literal flipped the mode. What the statement takes is DuckDB's
    parser's word, and a value for a parameter it does not take, or none for one it does, is one line."""
    code, out, err = run(capsys, "sql", "SELECT winner FROM builds WHERE variant = $v AND n = $n", "--param",
                         "v=zeckendorf", "--param", "n=7", "-f", "csv", "--db", str(small_db))
    assert code == 0 and out.splitlines() == ["winner", "2"], err
    refused = {
        ("SELECT $n AS n", "--param", "7"): "the statement names its parameters ($n): give each as --param NAME=VALUE",
        ("SELECT winner FROM builds WHERE variant = ? AND n = ?", "--param", "variant=reversed", "--param", "n=7"):
            "the statement takes 2 ? values, in order: give them with --arg VALUE (--param NAME=VALUE binds $NAME",
        ("SELECT $n AS n", "--param", "m=7"): "the statement has no parameter $m: it takes $n",
        ("SELECT $n + $k AS n", "--param", "n=7"): "the statement takes $k: give it with --param k=VALUE",
        ("SELECT '$x' AS t", "--param", "x=1"): "the statement takes no parameters, and 1 was given",
    }
    for (statement, *given), says in refused.items():
        code, out, err = run(capsys, "sql", statement, *given, "--db", str(small_db))
        assert code == 2 and not out and says in err and len(err.splitlines()) == 1, (statement, err)
    code, out, err = run(capsys, "sql", "SELECT ? AS v, '$x' AS t", "--arg", "a=b", "-f", "csv", "--db", str(small_db))
    assert code == 0 and out.splitlines() == ["v,t", "a=b,$x"]  # for a ?, any text is a value; '$x' is text


def test_sql_params_take_ascii_numbers_a_name_once_and_a_plain_name(capsys, small_db):
    """int() reads ٣ and ５ as 3 and 5, and the settings refuse such digits: a --param is a number
    only in ASCII digits. A name given twice is refused, not the last kept; a parameter named
    $"weird name" has no --param spelling, and the advice says how to name it."""
    for digit in ("٣", "５"):
        code, out, err = run(capsys, "sql", "SELECT typeof($n) AS t", "--param", f"n={digit}", "-f", "csv",
                             "--db", str(small_db))
        assert code == 0 and out.splitlines() == ["t", "VARCHAR"], err
    for command in (["sql", "SELECT $a AS a"], ["query", "omega-b", "--variant", "zeckendorf"]):
        name = "a" if command[0] == "sql" else "n"
        code, out, err = run(capsys, *command, "--param", f"{name}=1", "--param", f"{name}=2", "--db", str(small_db))
        assert code == 2 and not out and err == (f"zeckdb: error: --param {name} is given twice ('1' and '2'): give "
                                                 "each parameter once\n"), err
    code, out, err = run(capsys, "sql", 'SELECT $"weird name" AS w', "--param", "weird name=1", "--db", str(small_db))
    assert code == 2 and not out and len(err.splitlines()) == 1, err
    assert "$'weird name' has no --param spelling" in err and "(e.g. $weird_name)" in err, err


@pytest.mark.parametrize("args, says", [
    (["position", "zeckendorff", "--start", "5"], "unknown variant 'zeckendorff': did you mean zeckendorf? choose one"),
    (["position", "reversed-misre", "--start", "5"], "did you mean reversed-misere?"),
    (["query", "winers"], "unknown query 'winers': did you mean winners? choose one"),
    (["plot", "winers", "--variant", "zeckendorf", "--out", "x.png"], "unknown plot 'winers': did you mean winners?"),
    (["play", "zeckendorf", "--start", "7", "--p1", "randm"], "unknown profile 'randm' for --p1: did you mean random?"),
    (["position", "qqqq", "--start", "5"], "unknown variant 'qqqq': choose one of"),  # nothing close: no guess
])
def test_a_typo_gets_the_closest_name(capsys, small_db, tmp_path, monkeypatch, args, says):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *args, "--db", str(small_db))
    assert code != 0 and not out and says in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_terminal_control_sequences_in_a_table_are_shown_escaped(capsys, small_db, fmt):
    """Text from a crafted database reached the terminal raw: CSI was stripped (by Click, and only
    off a terminal), OSC 52 (which writes some terminals' clipboard) not at all. A table shows
    every control character escaped, in cells and column names."""
    sql = ("SELECT chr(27) || ']52;c;aGVsbG8=' || chr(7) AS osc, chr(27) || '[2J' AS csi, chr(155) || 'm' AS c1, "
           "'ok' AS \"x\u001b[1m\"")
    code, out, err = run(capsys, "sql", sql, "-f", fmt, "--db", str(small_db))
    assert code == 0, err
    assert not any(ord(ch) < 32 and ch != "\n" or 127 <= ord(ch) < 160 for ch in out), repr(out)
    assert "\\x1b]52;c;aGVsbG8=\\x07" in out and "\\x1b[2J" in out and "\\x9bm" in out and "x\\x1b[1m" in out


def test_the_database_option_may_come_before_the_command(capsys, small_db, tmp_path):
    """`zeckdb --db X status`, a common habit, was refused: the option before the command is the
    command's --db (it beats $ZECKDB_DB), and ends with the command."""
    code, out, err = run(capsys, "--db", str(small_db), "status")
    assert code == 0 and "zeckendorf" in out, err
    code, out, err = run(capsys, "--db", str(small_db), "position", "zeckendorf", "--start", "7", "--json")
    assert code == 0 and json.loads(out)["outcome"] == "loss", err
    code, out, err = run(capsys, "status", "--db", str(tmp_path / "none.duckdb"))  # the next command: its own
    assert code == 1 and "no database at" in err


def test_status_in_json_and_csv(capsys, small_db):
    """zeckdb status had no --format json (the service's /v1/status had): the same object, and a
    row per variant in csv."""
    from zeckdb import api

    code, out, err = run(capsys, "status", "-f", "json", "--db", str(small_db))
    assert code == 0, err
    shown = json.loads(out)
    with api.open(small_db) as db:
        assert shown["variants"] == db.status().to_json()["variants"]
    assert shown["schema_revision"] == "0018" and shown["build_running"] is False
    code, out, err = run(capsys, "status", "-f", "csv", "--db", str(small_db))
    lines = out.splitlines()
    assert code == 0 and lines[0] == "variant,ns,summary_ns,positions,edges,seconds"
    assert any(line.startswith("zeckendorf,1..40,,") for line in lines), lines[:5]


def test_a_log_of_a_long_build_shows_it_alive(capsys, tmp_path, monkeypatch):
    """With output to a file, a 41-minute build printed 10 lines, the first 6 minutes in: a line
    comes at each tenth of the work and at least every LOG_SECONDS, inside a long layer too."""
    from zeckdb import builder, progress

    real = builder._compute_layer

    def slow(n, *args, **kwargs):
        if n == 3:
            time.sleep(1.2)  # a long layer: the heartbeat speaks while it is solved
        return real(n, *args, **kwargs)

    monkeypatch.setattr(builder, "_compute_layer", slow)
    monkeypatch.setattr(progress.Lines, "LOG_SECONDS", 0.3)  # the progress lines shared by the commands
    code, _, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..6", "--db", str(tmp_path / "p.duckdb"))
    assert code == 0, err
    lines = [line for line in err.splitlines() if "of the work done" in line]
    assert any("still working" in line and "elapsed" in line for line in lines), lines
    assert lines[-1].endswith("100% of the work done"), lines


@pytest.mark.parametrize("args, message", [
    (["play", "zeckendorf", "--start", "9", "--p1", "randm"], "unknown profile 'randm' for --p1: did you mean random?"),
    (["export", "{tmp}/no/such/folder", "--variant", "zeckendorf"], "cannot write into"),
])
def test_bad_arguments_are_refused_before_waiting_for_a_compile(small_db, tmp_path, monkeypatch, args, message):
    """`zeckdb play ... --p1 randm` waited for another process's kernel compile (up to 30 s)
    before it said the profile was unknown. With the compile turn held by someone else, a bad
    argument is refused without waiting for it (the wait would be said on standard error)."""
    import fcntl

    from zeckdb.engine import jit

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))  # a cache and a compile turn of this test's own
    with open(jit._TurnsAcrossProcesses.path(), "w") as turn:
        fcntl.flock(turn, fcntl.LOCK_EX)  # another process compiling, for as long as the command runs
        done = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", *[a.format(tmp=tmp_path) for a in args],
                               "--db", str(small_db)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and message in done.stderr, done.stderr
    assert "waiting for another zeckdb process" not in done.stderr and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize("args, said", [
    (["build", "--varient", "zeckendorf"], "zeckdb: error: no such option: --varient (did you mean --variant?) "
                                           "(`zeckdb build --help` says what it takes)"),
    (["build", "--v"], "zeckdb: error: no such option: --v (did you mean --variant?) "),
    (["sql", "SELECT 1", "--parm", "a=1"], "zeckdb: error: no such option: --parm (did you mean --param?) "),
    (["build", "--threads", "two"], "zeckdb: error: invalid value for '--threads': "),
    (["positon"], "zeckdb: error: no such command 'positon'. Did you mean 'position'?"),
    (["query", "winners", "--param", "n=5"], "zeckdb: error: query winners takes n as --n, not as a parameter of its "
                                             "own: give --n 5"),
    (["build", "--variant", "reversed,zeckendorf", "--n", "3"], "--variant names one game, and repeats for more: "
                                                                "--variant reversed --variant zeckendorf"),
])
def test_usage_errors_are_one_line_in_zeckdbs_form(capsys, small_db, args, said):
    """Click's own errors were three lines (Usage, Try, Error); the others named a query's own
    option as a parameter it lacks ("did you mean 'n'?"), or a list as a game it does not know."""
    code, out, err = run(capsys, *args, "--db", str(small_db))
    assert code == 2 and not out and len(err.splitlines()) == 1 and said in err, err


def test_progress_lines_name_the_games_being_built(tmp_path):
    """"building n=22" for minutes left the reader guessing which game."""
    done = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "build", "--variant", "zeckendorf", "--variant",
                           "black-hole-3", "--n", "1..25", "--db", str(tmp_path / "p.duckdb")],
                          capture_output=True, text=True, timeout=600)
    progress = [line for line in done.stderr.splitlines() if line.startswith("building")]
    assert done.returncode == 0 and progress, done.stderr
    assert all(re.match(r"building (zeckendorf|black-hole-3)(, (zeckendorf|black-hole-3))? n=\d+: ", line)
               for line in progress), progress


def test_every_command_of_a_game_takes_variant_and_every_result_a_format(capsys, small_db):
    """The game was positional in position, line, play, simulate and draw and --variant in the
    others; position, line and play took --json, `db current` no format at all."""
    db = ["--db", str(small_db)]
    for args in (["position", "--variant", "reversed", "3,1,0,2"], ["line", "--variant", "zeckendorf", "--start", "7"],
                 ["play", "--variant", "zeckendorf", "--start", "6"], ["draw", "--variant", "zeckendorf", "--n", "3"],
                 ["simulate", "--variant", "quilt", "--n", "8", "--games", "50"]):
        shorthand = [args[0], args[2], *args[3:]]  # the game as the first argument
        needs = [] if args[0] == "simulate" else db  # simulate plays its games without a database
        code, out, err = run(capsys, *args, *needs)
        assert code == 0, (args, err)
        assert run(capsys, *shorthand, *needs)[1] == out, args
    for args in (["position", "reversed", "3,1,0,2"], ["line", "zeckendorf", "--start", "7"],
                 ["play", "zeckendorf", "--start", "6"], ["db", "current"]):
        code, out, err = run(capsys, *args, "--format", "json", *db)
        assert code == 0 and isinstance(json.loads(out), (dict, list)), (args, err)
        if args[0] != "db":
            assert run(capsys, *args, "--json", *db)[1] == out  # --json: the same, by its old name
    code, out, err = run(capsys, "position", "--start", "5", *db)
    assert code == 2 and err == "zeckdb: error: give the game: --variant VARIANT (or as the first argument)\n"
    code, out, err = run(capsys, "position", "reversed", "3,1", "--variant", "zeckendorf", *db)
    assert code == 2 and "the game is given twice" in err
