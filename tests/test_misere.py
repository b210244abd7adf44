"""Misère play: every two-player game's twin `NAME-misere` (the last mover loses), built in full
and in summary mode, against the independent misère solver of reference.py (not zeckdb's own
normal solver); its moves stored once, under the normal game's graph; its bad input refused in
one line."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
import subprocess
import sys

import duckdb
import pytest

import zeckdb

from . import reference as ref
from .conftest import rows, run

# every column of every position of these layers is checked against the reference
CHECKED = {"zeckendorf": range(1, 15), "reversed": range(1, 15), "black-hole-3": range(0, 14),
           "fibonacci-nim": range(0, 21), "build-up": range(1, 10), "ordered": range(1, 10)}


def layer_of(variant: str, n: int) -> set[tuple[int, ...]]:
    if variant == "fibonacci-nim":  # every (r, k) of the pile r = n is stored (tests/test_family.py)
        return {ref.norm([n, k]) for k in range(n + 1)}
    if variant in ("zeckendorf", "reversed"):
        return ref.positions(variant, n)
    return ref.layer_positions(variant, n)


def start_of(variant: str, n: int) -> tuple[int, ...]:
    return ref.start(variant, n) if variant in ("zeckendorf", "reversed") else ref.family_start(variant, n)


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("misere") / "m.duckdb"
    for variant, ns in CHECKED.items():
        zeckdb.build(path, [variant + "-misere"], f"{max(ns[0], 1)}..{ns[-1]}")
    zeckdb.build(path, ["zeckendorf"], "1..14")  # the normal game beside its twin: the comparing queries
    return path


def stored(con, variant: str, n: int) -> dict[tuple[int, ...], dict]:
    out = {}
    for r in rows(con, "SELECT * FROM positions WHERE variant = ? AND n = ?", [variant, n]):
        key = tuple(r["entries"]) if r["entries"] is not None else ref.norm([r[f"c{i}"] or 0 for i in range(1, 17)])
        out[key] = r
    return out


@pytest.mark.parametrize("variant", sorted(CHECKED))
def test_every_position_of_a_twin_matches_the_misere_reference(db, variant):
    con = duckdb.connect(str(db), read_only=True)
    try:
        for n in CHECKED[variant]:
            layer = stored(con, variant + "-misere", n)
            assert set(layer) == layer_of(variant, n), (variant, n)
            for p, row in layer.items():
                want = ref.solve_misere(variant, p)
                where = f"{variant}-misere n={n} {p}"
                assert row["outcome"] == ("win" if want["win"] else "loss"), where
                assert (row["remoteness"], row["winning_moves"]) == (want["remoteness"], want["winning"]), where
                assert (row["min_remaining"], row["max_remaining"], row["games_to_end"]) == \
                    (want["min"], want["max"], want["games"]), where  # the moves' own: no fake move
                assert row["expected_remaining"] == pytest.approx(float(want["expected"]), rel=1e-6), where  # a REAL
                assert row["grundy"] == want["grundy"] and row["legal_moves"] == len(ref.MOVES[variant](p)), where
    finally:
        con.close()


@pytest.mark.parametrize("variant", ["zeckendorf", "reversed", "fibonacci-nim"])
def test_the_starts_winners_and_random_play_odds(db, variant):
    con = duckdb.connect(str(db), read_only=True)
    try:
        played = {r["n"]: r for r in rows(con, "SELECT b.n, b.winner, b.start_remoteness, r.* FROM builds b "
                                               "JOIN random_play r USING (variant, n) WHERE variant = ?",
                                          [variant + "-misere"])}
    finally:
        con.close()
    for n in CHECKED[variant]:
        if n not in played:
            continue
        start = start_of(variant, n)
        want, odds = ref.solve_misere(variant, start), ref.random_odds_misere(variant, start)
        assert played[n]["winner"] == (1 if want["win"] else 2), (variant, n)
        assert played[n]["start_remoteness"] == want["remoteness"], (variant, n)
        assert played[n]["p1_wins_random"] == pytest.approx(float(odds[0]), abs=1e-12), (variant, n)
        assert played[n]["p1_wins_p1_perfect"] == pytest.approx(float(odds[1]), abs=1e-12), (variant, n)
        assert played[n]["p1_wins_p2_perfect"] == pytest.approx(float(1 - odds[2]), abs=1e-12), (variant, n)


def test_the_conventions_differ_where_the_reference_says(db):
    """Not a relabelling: n = 1 is Player 1's under misère play (no move: the opponent moved
    last) and Player 2's under normal play, and the two differ at other n too."""
    normal = [ref.solve("zeckendorf", (n,))["win"] for n in range(1, 15)]
    misere = [ref.solve_misere("zeckendorf", (n,))["win"] for n in range(1, 15)]
    assert misere[0] and not normal[0] and normal != misere and normal != [not w for w in misere]
    con = duckdb.connect(str(db), read_only=True)
    try:
        winners = [w for (w,) in con.execute("SELECT winner FROM builds WHERE variant = 'zeckendorf-misere' "
                                             "AND n BETWEEN 1 AND 14 ORDER BY n").fetchall()]
    finally:
        con.close()
    assert winners == [1 if w else 2 for w in misere]


def test_summary_mode_gives_the_full_builds_rows(db, tmp_path):
    summary = tmp_path / "s.duckdb"
    zeckdb.build(summary, ["zeckendorf-misere", "reversed-misere"], "1..14", summary_only=True)
    columns = "variant, n, winner, start_remoteness, min_length, max_length"
    query = f"SELECT {columns} FROM builds WHERE variant LIKE '%-misere' AND variant NOT LIKE 'fib%' " \
            "AND variant IN ('zeckendorf-misere', 'reversed-misere') ORDER BY variant, n"
    odds = "SELECT variant, n, p1_wins_random, p1_wins_p1_perfect, p1_wins_p2_perfect FROM random_play " \
           "WHERE variant IN ('zeckendorf-misere', 'reversed-misere') ORDER BY variant, n"
    with zeckdb.open(summary) as s, zeckdb.open(db) as f:
        assert s.sql(query).rows == f.sql(query).rows
        for a, b in zip(s.sql(odds).rows, f.sql(odds).rows, strict=True):
            assert a[:2] == b[:2] and a[2:] == pytest.approx(b[2:], abs=1e-12)


def test_a_twin_stores_no_moves_of_its_own(tmp_path):
    """A twin plays on its normal game's stored graph: building it beside the normal game adds
    positions' values, never a move."""
    path = tmp_path / "t.duckdb"
    zeckdb.build(path, ["zeckendorf", "reversed"], "1..12")
    with zeckdb.open(path) as db:
        edges = db.sql("SELECT count(*) FROM edges").rows[0][0]
    zeckdb.build(path, ["zeckendorf-misere", "reversed-misere"], "1..12")
    with zeckdb.open(path) as db:
        assert db.sql("SELECT count(*) FROM edges").rows[0][0] == edges
        assert db.sql("SELECT DISTINCT graph FROM variants WHERE variant LIKE '%-misere'").rows == [("zeckendorf",)]


def test_every_command_works_on_a_twin(db, capsys, tmp_path):
    code, out, err = run(capsys, "position", "zeckendorf-misere", "--start", "7", "--json", "--db", str(db))
    assert code == 0, err
    shown = json.loads(out)
    want = ref.solve_misere("zeckendorf", (7,))
    assert (shown["outcome"], shown["remoteness"]) == ("win" if want["win"] else "loss", want["remoteness"])
    code, out, err = run(capsys, "line", "reversed-misere", "--start", "9", "--db", str(db))
    assert code == 0 and "reversed-misere" in out, err
    code, out, err = run(capsys, "play", "zeckendorf-misere", "--start", "9", "--p1", "perfect", "--p2", "perfect",
                         "--json", "--db", str(db))
    assert code == 0, err
    assert json.loads(out)["p1_wins"] == (1.0 if ref.solve_misere("zeckendorf", (9,))["win"] else 0.0)
    code, out, err = run(capsys, "verify", "--db", str(db))
    assert code == 0 and "every check passed" in out, err
    code, out, err = run(capsys, "query", "conventions", "--variant", "zeckendorf", "-f", "csv", "--db", str(db))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == ("variant,n,normal_winner,misere_winner,agree,normal_p1_fraction,misere_p1_fraction,"
                        "agree_fraction")
    compared = [line.split(",") for line in lines[1:]]
    assert [(int(r[1]), int(r[2]), int(r[3])) for r in compared] == [
        (n, 1 if ref.solve("zeckendorf", (n,))["win"] else 2, 1 if ref.solve_misere("zeckendorf", (n,))["win"] else 2)
        for n in range(1, 15)]
    code, out, err = run(capsys, "query", "misere-positions", "--variant", "zeckendorf", "--n", "7", "-f", "csv",
                         "--db", str(db))
    differ = {ref.norm([int(x) for x in row["position"].strip("()").split(",")])
              for row in csv.DictReader(io.StringIO(out))}
    assert code == 0 and differ == {p for p in ref.positions("zeckendorf", 7)
                                    if ref.solve("zeckendorf", p)["win"] != ref.solve_misere("zeckendorf", p)["win"]}
    code, out, err = run(capsys, "draw", "zeckendorf-misere", "--n", "6", "--db", str(db))
    assert code == 0 and "digraph" in out, err
    out_dir = tmp_path / "export"
    code, out, err = run(capsys, "export", str(out_dir), "--variant", "zeckendorf-misere", "--db", str(db))
    assert code == 0 and (out_dir / "positions" / "variant=zeckendorf-misere").is_dir(), err


@pytest.mark.parametrize("name, says", [
    ("zeckendorff-misere", "unknown variant 'zeckendorff-misere': did you mean zeckendorf-misere? a misère twin is "
                           "named after its normal game"),
    ("zeckendorf-p3-misere", "misère play is defined for two-player games, and zeckendorf-p3 has 3 players"),
    ("zeckendorf-misere-misere", "zeckendorf-misere is played under misère play already"),
])
def test_a_bad_twin_is_one_line(capsys, tmp_path, name, says):
    code, out, err = run(capsys, "build", "--variant", name, "--n", "1..5", "--db", str(tmp_path / "b.duckdb"))
    assert code != 0 and not out and says in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "b.duckdb").exists()


def test_beyond_its_limit_a_twin_says_its_range(capsys, tmp_path):
    code, _, err = run(capsys, "build", "--variant", "zeckendorf-misere", "--n", "5000", "--db",
                       str(tmp_path / "b.duckdb"))
    assert code != 0 and "zeckendorf-misere" in err and len(err.splitlines()) == 1, err


def test_a_plugin_declaring_an_unknown_convention_is_refused_naming_it(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "zeckdb_odd.py").write_text("from zeckdb.variants.zeckendorf import Zeckendorf\n\n\n"
                                        "class Odd(Zeckendorf):\n    name = 'odd'\n    convention = 'sideways'\n")
    info = site / "zeckdb_odd-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zeckdb-odd\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[zeckdb.games]\nodd = zeckdb_odd:Odd\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "build", "--variant", "odd", "--n", "1..4",
                           "--db", str(tmp_path / "o.duckdb")], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "odd" in done.stderr and "its convention 'sideways' is not one zeckdb knows" in done.stderr, done.stderr
    listed = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "variants", "-f", "json"], capture_output=True,
                            text=True, env=env, timeout=600)
    assert listed.returncode == 0 and "zeckendorf" in [g["variant"] for g in json.loads(listed.stdout)]


@pytest.mark.parametrize("convention, normal_of", [("normal", "zeckendorf"), ("misere", "claimed")])
def test_only_a_twin_says_which_game_it_is_the_twin_of(convention, normal_of):
    """normal_of is what the comparing queries pair games by: a game of normal play claiming it,
    or a game naming itself, is refused by the contract, one line naming what it said."""
    from zeckdb.engine.contract import ContractError, check_contract
    from zeckdb.variants.zeckendorf import Zeckendorf

    class Claiming(Zeckendorf):
        name = "claimed"

    Claiming.convention, Claiming.normal_of = convention, normal_of
    with pytest.raises(ContractError, match=f"it says normal_of '{normal_of}', which only a misère twin"):
        check_contract(Claiming())


def test_the_outcome_rule_reads_the_same_in_sql_python_and_arrow():
    """store.layout.OUTCOME's three forms, on every case: a move wins or none does, moves left
    or none, terminal positions won or lost. Expected values written out from the rule's
    statement (docs/games.md, "Misère play"), not from the code."""
    import pyarrow as pa

    from zeckdb.store.layout import OUTCOME, outcome_sql

    cases = [(w, m, t) for w in (0, 1, 3) for m in (0, 1, 2) for t in (False, True) if w <= m or m == 0]
    # a position with no move is won exactly when terminal positions win; else when a move wins
    expected = [(m == 0 and t) or w > 0 for w, m, t in cases]
    assert [OUTCOME.value(w, m, t) for w, m, t in cases] == expected
    for terminal in (False, True):
        chosen = [(w, m) for w, m, t in cases if t == terminal]
        want = [e for e, (_, _, t) in zip(expected, cases, strict=True) if t == terminal]
        table = pa.table({"winning_moves": [w for w, _ in chosen], "legal_moves": [m for _, m in chosen]})
        assert OUTCOME.arrow(table, terminal).to_pylist() == want
        with duckdb.connect() as con:
            con.register("t", table)
            got = con.execute(f"SELECT {outcome_sql(terminal)} = 'win' FROM t").fetchall()
            by_column = con.execute(f"SELECT {OUTCOME.sql('v.terminal_wins')} FROM t, "
                                    f"(SELECT {terminal} AS terminal_wins) v").fetchall()
        assert [g for (g,) in got] == want and [g for (g,) in by_column] == want


def test_the_file_says_which_game_a_twin_is_of_and_what_its_terminals_are_worth(db):
    """variants.terminal_wins and variants.normal_of, as the queries and the view read them."""
    with duckdb.connect(str(db), read_only=True) as con:
        stored = dict(((v, (t, o)) for v, t, o in con.execute(
            "SELECT variant, terminal_wins, normal_of FROM variants").fetchall()))
    assert stored["zeckendorf"] == (False, None) and stored["zeckendorf-misere"] == (True, "zeckendorf")
    assert all(stored[f"{name}-misere"] == (True, name) for name in CHECKED)


@pytest.mark.parametrize("name", ["zeckendorf", "reversed", "black-hole-3", "fibonacci-nim", "ordered", "nacci-2-3"])
def test_a_twin_shares_nothing_its_game_keeps(name):
    """A twin is an instance of its game of its own: a memo the normal game filled (its layers'
    closures) or any mutable state it holds is not the twin's; the twin's facts are its own."""
    from zeckdb.variants import get_variant

    base = get_variant(name)
    base.closure(12)  # fills the game's memo
    twin = get_variant(name + "-misere")
    assert twin is not base and type(twin) is type(base)
    shared = [key for key, value in vars(base).items() if isinstance(value, dict | list | set | bytearray)
              and vars(twin).get(key) is value]
    assert not shared, shared
    assert (twin.convention, twin.normal_of, twin.graph_name) == ("misere", name, base.graph_name)
    assert (base.convention, base.normal_of) == ("normal", None) and twin.closure(12) == base.closure(12)


def test_a_games_own_cache_is_not_its_twins():
    """A plugin's game may keep a cache of its own under any name: the twin is made from a new
    instance of the game, so what the normal game cached (here, under an attribute zeckdb
    knows nothing of) never answers for the twin."""
    from zeckdb.variants import misere
    from zeckdb.variants.zeckendorf import Zeckendorf

    class Remembering(Zeckendorf):
        def __init__(self) -> None:
            super().__init__()
            self.remembered: dict[int, str] = {}

    base = Remembering()
    base.remembered[7] = "the normal game's"
    twin = misere.twin(base, Remembering)
    assert twin.remembered == {} and base.remembered == {7: "the normal game's"}
    assert (twin.name, twin.normal_of, twin.graph_name) == ("zeckendorf-misere", "zeckendorf", "zeckendorf")


@pytest.mark.parametrize("tampered", ["terminal_wins = true", "normal_of = 'zeckendorf-misere'",
                                      "convention = 'misere'"])
def test_verify_names_a_tampered_convention_fact(tmp_path, capsys, tampered):
    """Lookups read a lean row's outcome by variants.terminal_wins, and the queries pair twins by
    normal_of: verify compares both (and the convention) with the game's own."""
    path = tmp_path / "t.duckdb"
    zeckdb.build(path, ["zeckendorf", "zeckendorf-misere"], "1..6")
    with duckdb.connect(str(path)) as con:
        con.execute(f"UPDATE variants SET {tampered} WHERE variant = 'zeckendorf'")
    code, out, err = run(capsys, "verify", "--db", str(path), "--variant", "zeckendorf")
    assert code == 1 and "catalog: zeckendorf: the variants row says" in out + err, out + err
