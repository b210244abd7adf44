"""Every named query, on a small built database, against independent computations
(exact fractions from reference.py for n <= 15) and the facts of docs/games.md."""

from __future__ import annotations

from fractions import Fraction
import math
from pathlib import Path
import re
import tempfile

import pytest

import zeckdb
from zeckdb.errors import NotBuiltError, UsageError, as_flag
from .reference import PHI, z_count, z_index_sum
from zeckdb.api import queries as list_queries

from . import reference as ref
from .facts import LEE_BITLER_LINES, TABLE_A1

VARIANTS = ["zeckendorf", "reversed"]
EXACT_N = range(1, 16)
EXAMPLE_PARAMS = {"winning-moves": {"position": "3,1,0,2"}, "omega-b": {"n": "7"}}


@pytest.fixture(scope="module")
def store(small_db):
    with zeckdb.open(small_db) as s:
        yield s


def ask(db, name, variant=None, ns=None, params=None):
    """A named query as (name, variant, n, params): the form of the cases below."""
    return db.query(name, variant=variant, n=ns, params=params)


def query(store, name, variant=None, ns=None, **params) -> list[dict]:
    result = store.query(name, variant=variant, n=ns, params={k: str(v) for k, v in params.items()})
    columns, rows = result.columns, result.rows
    return [dict(zip(columns, r, strict=False)) for r in rows]


@pytest.mark.parametrize("q", list_queries(), ids=lambda q: q.name)
def test_every_named_query_documents_itself_and_runs(store, q):
    assert q.description and q.checks, f"{q.name}: header needs a description and a checks line"
    assert q.required <= set(EXAMPLE_PARAMS.get(q.name, {})), f"add example parameters for {q.name} to this test"
    # a query computed from the graph plays one game: play names it; deterministic is written for one
    result = store.query(q.name, variant="zeckendorf" if q.name == "play" else None, params=EXAMPLE_PARAMS.get(q.name))
    columns, rows = result.columns, result.rows
    assert columns and rows


def test_winners_and_player_one_fraction(store):
    for variant in VARIANTS:
        rows = query(store, "winners", variant)
        assert [r["n"] for r in rows] == list(range(1, 41))
        wins = 0
        for r in rows:
            assert r["winner"] == (1 if ref.solve(variant, ref.start(variant, r["n"]))["win"] else 2)
            wins += r["winner"] == 1
            assert r["p1_fraction"] == pytest.approx(wins / r["n"])
    forward = query(store, "winners", "zeckendorf")
    assert [r["winner"] for r in forward if r["n"] >= 3] == [2] * 38


def test_a_game_specific_column_is_shown_for_the_games_that_declare_it(store):
    """minus_inverse_phi is Conjecture 1.3's distance, the reversed game's: other games' rows show NULL."""
    phi = (1 + 5 ** 0.5) / 2
    for row in query(store, "winners"):
        if row["variant"] == "reversed":
            assert row["minus_inverse_phi"] == pytest.approx(row["p1_fraction"] - 1 / phi)
        else:
            assert row["minus_inverse_phi"] is None, row
    assert {r["variant"] for r in query(store, "winners")} >= {"zeckendorf", "reversed", "quilt"}


def test_every_game_column_is_one_a_query_shows_and_a_game_declares():
    from zeckdb.queries import list_queries
    from zeckdb.variants import get_variant, variant_names

    shown = {c for q in list_queries() for c in q.game_columns}
    declared = {c for name in variant_names(all_members=True) for c in get_variant(name).query_columns}
    assert shown == declared == {"minus_inverse_phi"}


def test_filters_by_n_keep_the_running_fraction_over_all_n(store):
    rows = query(store, "winners", "reversed", [10, 20])
    everything = {r["n"]: r for r in query(store, "winners", "reversed")}
    assert [r["n"] for r in rows] == [10, 20]
    assert [r["p1_fraction"] for r in rows] == [everything[10]["p1_fraction"], everything[20]["p1_fraction"]]


@pytest.mark.parametrize("variant", VARIANTS)
def test_length_distribution_is_exact(store, variant):
    rows = query(store, "length-distribution", variant, list(EXACT_N))
    for n in EXACT_N:
        prob, count = ref.remaining_lengths(variant, ref.start(variant, n))
        total = sum(count.values())
        lengths = range(min(count), max(count) + 1)
        got_p = {r["length"]: r for r in rows if r["n"] == n and r["measure"] == "P"}
        got_mu = {r["length"]: r for r in rows if r["n"] == n and r["measure"] == "mu"}
        assert sorted(got_p) == sorted(got_mu) == list(lengths)
        for length in lengths:
            assert got_p[length]["probability"] == pytest.approx(float(prob.get(length, 0)), abs=1e-15)
            assert int(got_mu[length]["games_exact"]) == count.get(length, 0) == got_mu[length]["games"]
            assert got_mu[length]["probability"] == pytest.approx(count.get(length, 0) / total, abs=1e-15)


def moments(dist: dict[int, Fraction]) -> dict[str, float]:
    mean = sum(length * q for length, q in dist.items())
    central = {k: sum(q * (length - mean) ** k for length, q in dist.items()) for k in (2, 3, 4, 6)}
    var = central[2]
    out = {"mean": float(mean), "variance": float(var)}
    if var:
        out.update(skewness=float(central[3]) / float(var) ** 1.5, excess_kurtosis=float(central[4] / var**2) - 3,
                   moment4_pct_diff=100 * abs(float(central[4] / var**2) - 3) / 3,
                   moment6_pct_diff=100 * abs(float(central[6] / var**3) - 15) / 15)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_length_moments(store, variant):
    rows = query(store, "length-moments", variant, list(EXACT_N))
    for r in rows:
        prob, count = ref.remaining_lengths(variant, ref.start(variant, r["n"]))
        total = sum(count.values())
        dist = prob if r["measure"] == "P" else {k: Fraction(v, total) for k, v in count.items()}
        for key, value in moments(dist).items():
            assert r[key] == pytest.approx(value, rel=1e-9, abs=1e-9), (r["n"], r["measure"], key)
    assert len(rows) == 2 * len(EXACT_N)


def test_length_mod_and_theorem_3_2(store):
    rows = query(store, "length-mod", "reversed", list(EXACT_N))
    for r in rows:
        prob, count = ref.remaining_lengths("reversed", ref.start("reversed", r["n"]))
        total = sum(count.values())
        dist = prob if r["measure"] == "P" else {k: Fraction(v, total) for k, v in count.items()}
        want = sum(q for length, q in dist.items() if length % r["modulus"] == r["residue"])
        assert r["probability"] == pytest.approx(float(want), abs=1e-12)
    checks = {(r["n"], r["residue"]): r["theorem_3_2"] for r in query(store, "length-mod", "reversed", modulus=2)
              if r["theorem_3_2"] is not None}
    assert sorted({n for n, _ in checks}) == list(range(4, 41, 2))
    assert all(checks.values())
    # the exact value, independently: P(odd) = 1/2 for even n >= 4
    for n in range(4, 16, 2):
        prob, _ = ref.remaining_lengths("reversed", ref.start("reversed", n))
        assert sum(q for length, q in prob.items() if length % 2) == Fraction(1, 2)


@pytest.mark.parametrize("variant", VARIANTS)
def test_length_set(store, variant):
    for r in query(store, "length-set", variant, list(EXACT_N)):
        _, count = ref.remaining_lengths(variant, ref.start(variant, r["n"]))
        missing = [k for k in range(min(count), max(count) + 1) if k not in count]
        assert r["every_length_occurs"] == (not missing) and (r["missing_lengths"] or []) == missing


@pytest.mark.parametrize("variant", VARIANTS)
def test_lengths_and_bounds(store, variant):
    for r in query(store, "lengths", variant):
        n = r["n"]
        assert r["n_minus_z"] == n - z_count(n) and r["min_is_n_minus_z"]
        if variant != "reversed":  # Theorem 1.4's bound is the reversed game's
            assert r["max_bound"] is r["max_within_bound"] is r["max_attains_bound"] is None
            continue
        bound = math.floor(PHI**2 * n - z_index_sum(n) - 2 * z_count(n) + PHI - 1)
        assert r["max_bound"] == bound
        assert r["max_within_bound"]  # Theorem 1.4
        assert r["max_attains_bound"] == (r["max_length"] == bound)


def test_lengths_states_n_minus_z_only_where_it_applies(store):
    rows = query(store, "lengths", "quilt")
    assert rows and all(r["n_minus_z"] is None and r["min_is_n_minus_z"] is None for r in rows)


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_winner(store, variant):
    for r in query(store, "random-winner", variant, list(EXACT_N)):
        both, p1_perfect, random_to_move = ref.random_odds(variant, ref.start(variant, r["n"]))
        assert r["p1_wins_random"] == pytest.approx(float(both), abs=1e-12)
        assert r["p1_wins_p1_perfect"] == pytest.approx(float(p1_perfect), abs=1e-12)
        assert r["p1_wins_p2_perfect"] == pytest.approx(float(1 - random_to_move), abs=1e-12)
        assert (r["p1_wins_p1_perfect"] == 1) == (r["winner"] == 1)
        assert (r["p1_wins_p2_perfect"] == 0) == (r["winner"] == 2)


@pytest.mark.parametrize("variant", VARIANTS)
def test_graph_size_matches_table_a1(store, variant):
    rows = {r["n"]: r for r in query(store, "graph-size", variant)}
    for n, (edges, vertices) in TABLE_A1.items():
        assert (rows[n]["edges"], rows[n]["positions"], rows[n]["terminals"]) == (edges, vertices, 1)
        assert rows[n]["edges_per_position"] == pytest.approx(edges / vertices)


def test_omega_b_for_lee_bitler_lines(store):
    for n, line in LEE_BITLER_LINES.items():
        rows = query(store, "omega-b", "zeckendorf", n=n)
        nodes = {r["position"]: r for r in rows}
        want = ref.winning_strategy_graph("zeckendorf", n)
        assert set(nodes) == {"(" + ",".join(map(str, p)) + ")" for p in want}
        omega = {p for p, r in nodes.items() if r["in_omega_b"]}
        assert omega == {"(" + ",".join(map(str, p)) + ")" for p in line[2::2]}  # B's moves in the line
        assert rows[0]["multi_reply_decisions"] == 0 and rows[0]["omega_b_size"] == len(omega)


@pytest.mark.parametrize("variant", VARIANTS)
def test_remoteness_counts_every_position_by_its_remoteness_and_outcome(store, variant):
    rows = query(store, "remoteness", variant, list(EXACT_N))
    got = {(r["n"], r["remoteness"]): (r["wins"], r["losses"]) for r in rows}
    want: dict[tuple[int, int], list[int]] = {}
    for n in EXACT_N:
        for p in ref.positions(variant, n):
            solved = ref.solve(variant, p)
            want.setdefault((n, solved["remoteness"]), [0, 0])[0 if solved["win"] else 1] += 1
    assert got == {key: tuple(counts) for key, counts in want.items()}
    assert [(r["n"], r["remoteness"]) for r in rows] == sorted(got)


def test_winning_line_uniqueness(store):
    rows = {r["n"]: r for r in query(store, "winning-line-unique", "zeckendorf")}
    assert all(rows[n]["unique_winning_line"] for n in range(4, 8))
    assert not rows[16]["unique_winning_line"]  # Lee and Bitler's example
    for n in EXACT_N:
        reduced = ref.winning_strategy_graph("zeckendorf", n)
        decisions = [p for p in reduced if ref.solve("zeckendorf", p)["win"] and ref.solve("zeckendorf", p)["winning"] > 1]
        assert rows[n]["reduced_nodes"] == len(reduced)
        assert rows[n]["multi_reply_decisions"] == len(decisions)
        assert rows[n]["reduced_edges"] == sum(
            len(ref.MOVES["zeckendorf"](p)) if not ref.solve("zeckendorf", p)["win"] else ref.solve("zeckendorf", p)["winning"]
            for p in reduced)


def test_winning_moves(store):
    rows = query(store, "winning-moves", "zeckendorf", position="6,2,1")
    p = (6, 2, 1)
    want = sorted(((not ref.solve("zeckendorf", c)["win"], ref.solve("zeckendorf", c)["remoteness"], c)
                   for c in ref.zeckendorf_moves(p)), key=lambda t: (not t[0], t[1] if t[0] else -t[1]))
    assert [r["to_position"] for r in rows] == ["(" + ",".join(map(str, c)) + ")" for _, _, c in want]
    assert [r["verdict"] == "winning" for r in rows] == [w for w, _, _ in want]
    assert query(store, "winning-moves", "zeckendorf", position="0,0,0,0,0,0,0,1") == []  # 34 = F8: terminal
    # without --variant: every variant that stores (3,1,0,2) (not black-hole-empty-board-4: there it would
    # be a board with a 2 while 2 is left to place, which play never reaches)
    counts = ", ".join(f"coalesce(c{i}, 0)" for i in range(1, 17))
    holding = {v for (v,) in store.sql(
        f"SELECT DISTINCT variant FROM positions WHERE [{counts}] = [3, 1, 0, 2{', 0' * 12}] "
        "AND entries IS NULL").rows}  # not an ordered list
    assert {*VARIANTS, "quilt", "build-up", "black-hole-5", "black-hole-empty-board-5"} <= holding
    assert "black-hole-empty-board-4" not in holding
    assert {r["variant"] for r in query(store, "winning-moves", position="3,1,0,2")} == holding


@pytest.mark.parametrize("args, message", [
    (("nope",), "unknown query 'nope': choose one of"),
    (("winners", None, None, {"x": "1"}), "query winners has no parameter 'x': it takes no --param"),
    (("winning-moves",), "query winning-moves needs --param position=...: the position as counts, bin 1 first, e.g. 3,1,0,2 (the "
                           "ordered game: its entries left to right, e.g. 1,2,1,3)"),
    (("winners", "nim"), "unknown variant 'nim'"),
    (("length-distribution", None, None, {"measure": "Q"}), "bad --param measure='Q': measure is P or mu"),
    (("length-distribution", None, None, {"measure": "p"}), "bad --param measure='p': measure is P or mu"),
    (("black-hole-p-positions", None, None, {"mod": "0"}), "bad --param mod='0': mod is an integer >= 1"),
    (("black-hole-p-positions", None, None, {"mod": "x"}), "bad --param mod='x': mod is an integer >= 1"),
    (("black-hole-p-positions", None, None, {"mod": "-3"}), "bad --param mod='-3': mod is an integer >= 1"),
    (("length-mod", None, None, {"modulus": "7"}), "bad --param modulus='7': modulus is an integer from 2 to 6"),
    (("omega-b", None, None, {"n": "seven"}), "bad --param n='seven': n is a built n"),
    (("omega-b", None, [7], {"n": "7"}), "query omega-b does not take --n: it takes --param n"),
    (("winning-moves", None, [7], {"position": "3,1"}), "query winning-moves does not take --n"),
    (("black-hole-p-positions", "reversed"), "query black-hole-p-positions is written for black-hole-M, not reversed"),
    (("reversed-abc", "zeckendorf"), "query reversed-abc is written for reversed, not zeckendorf"),
    (("winning-moves", "zeckendorf", None, {"position": "3,x"}), "malformed position '3,x'"),
    (("winning-moves", None, None, {"position": "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"}),
     "no variant built here accepts it"),
])
def test_query_errors(store, args, message):
    # the command line's wording: the library names parameters, the CLI words them as its flags
    with pytest.raises(UsageError) as caught:
        ask(store, *args)
    assert message in caught.value.worded(as_flag)


def test_the_library_names_parameters_not_flags(store):
    with pytest.raises(UsageError) as caught:
        store.query("omega-b", variant=None, n=[7], params={"n": "7"})
    assert str(caught.value) == "query omega-b does not take n: it takes parameter n"
    assert caught.value.worded(as_flag) == "query omega-b does not take --n: it takes --param n"
    with pytest.raises(UsageError, match=re.escape("query winning-moves needs parameter position=...")):
        store.query("winning-moves")


@pytest.mark.parametrize("args, message", [
    (("winners", "reversed", [41]), "n = 41 is not built for reversed (built: n = 1..40): "
                                    "run `zeckdb build --variant reversed --n 41 --db "),  # the test's file
    (("winners", None, [500, 501]), "n = 500..501 is not built for any variant (built: n = 0..100)"),
    (("omega-b", "zeckendorf", None, {"n": "41"}), "n = 41 is not built for zeckendorf"),
    (("winning-moves", "zeckendorf", None, {"position": "0,0,0,0,0,0,0,0,1"}), "n = 55 is not built for zeckendorf"),
])
def test_unbuilt_n_and_variants_are_named_not_answered_with_no_rows(store, args, message):
    with pytest.raises(NotBuiltError, match=re.escape(message)):
        ask(store, *args)


def test_a_variant_not_built_is_named(tmp_path):
    zeckdb.build(tmp_path / "one.duckdb", ["zeckendorf"], "1..3")
    with zeckdb.open(tmp_path / "one.duckdb") as db, \
            pytest.raises(NotBuiltError, match="black-hole-9 is not built in .*: run `zeckdb build --variant black-hole-9 "
                                               "--db .*one.duckdb`"):
        db.query("winners", variant="black-hole-9")


def test_every_declared_parameter_type_is_listed():
    declared = {p.name: p.allowed for q in list_queries() for p in q.params.values()}
    assert declared == {"mod": "an integer >= 1", "measure": "P or mu", "modulus": "an integer from 2 to 6",
                        "n": "a built n", "position": "a position, e.g. 3,1,0,2",
                        "team": "a team: its players, e.g. 1,3", "max_n": "an integer from 1 to 10000000",
                        "rows": "all or first",
                        **{p: "an integer >= 1" for p in ("first_n", "last_n", "max_period")},
                        **{p: "perfect or random or best-response or combine-largest or combine-smallest or "
                              "split-largest or split-smallest" for p in ("p1", "p2")}}


def test_sql_runs_reads_and_reports_errors(store):
    result = store.sql("SELECT z(100), fib(10)")
    assert (result.columns, result.rows, result.total_rows) == (["z(100)", "fib(10)"], [(3, 89)], 1)
    with pytest.raises(UsageError, match="SQL error: Catalog Error: Table with name nothing does not exist"):
        store.sql("SELECT * FROM nothing")


def test_the_library_returns_every_row_of_sql_and_named_queries_alike(store):
    # the command line and the service cut at their own limits; the library's default is every row
    sql = store.sql("SELECT * FROM range(1500)")
    named = store.query("graph-size", variant="zeckendorf")
    assert len(sql.rows) == sql.total_rows == 1500 and not sql.truncated
    assert len(named.rows) == named.total_rows and not named.truncated


def test_reversed_abc_matches_theorem_1_6(store):
    from .facts import THEOREM_1_6

    got = query(store, "reversed-abc")
    assert len(got) > 500 and all(r["agrees"] for r in got)
    # every layer holds every partition of n: each a, b, c with a + 2b + 3c = n is one row
    built = {r["n"] for r in got}
    assert len(got) == sum(1 for n in built for c in range(n // 3 + 1) for b in range((n - 3 * c) // 2 + 1))
    for r in got:
        assert r["theorem_1_6"] == THEOREM_1_6[(r["a"] % 2, r["b"] % 2, r["c"] % 2)](r["a"], r["c"])
        assert r["a"] + 2 * r["b"] + 3 * r["c"] == r["n"]


def test_missing_sql_folder_is_explained(monkeypatch, tmp_path):
    import zeckdb.resources
    from zeckdb.errors import DatabaseError

    monkeypatch.setattr(zeckdb.resources, "_PACKAGE", tmp_path / "nowhere" / "zeckdb")
    with pytest.raises(DatabaseError, match="zeckdb's sql/ folder is missing .*: reinstall zeckdb"):
        list_queries()


def test_the_database_writes_positions_as_their_games_do(con):
    """The view position_texts (the SQL macro game_text) and Variant.format agree on every
    position of every variant built, at small n; and a few as a reader writes them."""
    from zeckdb.variants import get_variant

    got = con.execute("""
        SELECT t.variant, t.position, p.entries, [p.c1, p.c2, p.c3, p.c4, p.c5, p.c6, p.c7, p.c8, p.c9, p.c10, p.c11,
                                                  p.c12, p.c13, p.c14, p.c15, p.c16]
        FROM position_texts t JOIN positions p USING (variant, n, id) WHERE t.n <= 8""").fetchall()
    assert len({variant for variant, *_ in got}) > 20
    for variant, text, entries, counts in got:
        game = get_variant(variant)
        position = entries if entries is not None else [c or 0 for c in counts[: len(game.columns)]]
        assert text == game.format(position), (variant, position)
    texts = dict(con.execute("""
        SELECT variant || ' ' || n || ' ' || id, position FROM position_texts
        WHERE (variant = 'fibonacci-nim' AND n = 5) OR (variant = 'ordered' AND n = 3) OR (variant = 'zeckendorf' AND n = 4)
        """).fetchall()).values()
    assert {"(5,0)", "(5,4)", "[1,2]", "[2,1]", "[1,1,1]", "[3]", "(1,0,1)", "(2,1)", "(4)"} <= set(texts)


def test_every_computed_query_names_a_relation_zeckdb_computes():
    from zeckdb.profiles import RELATIONS

    computed = [query for query in list_queries() if query.computes is not None]
    assert computed and all(query.computes in RELATIONS for query in computed)


def test_commands_that_compile_nothing_import_no_compiler():
    """A lookup, a line, a listing or a query of stored rows imports neither numba nor pyarrow:
    they would cost their import and wait for another process's compile (zeckdb.engine.jit)."""
    import subprocess
    import sys

    from zeckdb import api

    script = ("import sys, contextlib, io\n"
              "sys.argv = ['zeckdb', *sys.argv[1:]]\n"
              "try:\n"
              "    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
              "        from zeckdb.cli import main; main()\n"
              "except SystemExit:\n"
              "    pass\n"
              "print(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'llvmlite', 'pyarrow', 'matplotlib'}))")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "z.duckdb"
        api.build(db, ["zeckendorf"], "1..6")
        for args in (["query"], ["position", "zeckendorf", "--start", "6"], ["line", "zeckendorf", "--start", "6"],
                     ["query", "winners", "--variant", "zeckendorf"], ["status"], ["variants"]):
            done = subprocess.run([sys.executable, "-c", script, *args, "--db", str(db)] if args != ["variants"]
                                  else [sys.executable, "-c", script, *args], capture_output=True, text=True, check=True)
            assert done.stdout.strip().splitlines()[-1] == "[]", (args, done.stdout[-300:], done.stderr)


def test_a_running_fraction_over_holes_is_null(tmp_path):
    """In a file holding only n = 20..23, winners showed p1_fraction 1.0 or 0.0 at n = 20, a
    fraction of the n stored, not of n <= 20: it is NULL until every n from 1 is stored."""
    path = tmp_path / "holes.duckdb"
    zeckdb.build(path, ["reversed"], "20..23", summary_only=True)
    zeckdb.build(path, ["zeckendorf"], "1..4")
    with zeckdb.open(path) as db:
        rows = db.query("winners").rows
    assert [(r[0], r[1], r[3]) for r in rows if r[0] == "reversed"] == [("reversed", n, None) for n in range(20, 24)]
    wins = [1 if ref.solve("zeckendorf", (n,))["win"] else 0 for n in range(1, 5)]
    assert [r[3] for r in rows if r[0] == "zeckendorf"] == pytest.approx(
        [sum(wins[:n]) / n for n in range(1, 5)])
