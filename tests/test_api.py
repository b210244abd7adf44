"""zeckdb.api is the library the command line and the service call: a build and a simulation
from Python, with what the command line would print told through callbacks."""

from __future__ import annotations

from pathlib import Path

import pytest

import zeckdb

from zeckdb import api
from zeckdb.variants import get_variant
from zeckdb.errors import UsageError

from . import reference as ref


class Recorder:
    """An api.Progress that keeps what it was told."""

    def __init__(self) -> None:
        self.started: list[tuple[int, str]] = []
        self.advanced = 0
        self.stopped = 0

    def start(self, total: int, verb: str) -> None:
        self.started.append((total, verb))

    def advance(self, positions: int, description: str) -> None:
        self.advanced += positions

    def stop(self) -> None:
        self.stopped += 1


def test_build_then_look_up(tmp_path):
    db = tmp_path / "api.duckdb"
    progress = Recorder()
    result = api.build(db, ["zeckendorf", "ordered"], "1..9", progress=progress)
    sizes = {n: len(ref.positions("zeckendorf", n)) + len(ref.fibonacci_compositions(n)) for n in range(1, 10)}
    assert sorted(result.built) == sorted((v, n) for v in ("zeckendorf", "ordered") for n in range(1, 10))
    assert result.positions == sum(sizes.values()) and not result.summary_only and result.path == str(db)
    assert progress.started[0][1] == "building" and progress.advanced == progress.started[0][0]
    assert progress.stopped == 1
    with api.open(db) as database:
        info = database.position("ordered", "1,2,1,3")
        assert info.text == "[1,2,1,3]" and info.outcome == ("win" if ref.solve("ordered", (1, 2, 1, 3))["win"]
                                                             else "loss")
    again = api.build(db, ["zeckendorf"], [3, 4])
    assert again.built == [] and again.positions == 0


def test_build_tells_what_it_skips_and_summarises(tmp_path, monkeypatch):
    # the ordered game's layer doubles with each n: with its limit lowered to 8 (24 in use, where one
    # layer is 2.6 million positions) the default build skips n = 9 and says so, and summary mode solves it
    monkeypatch.setattr(get_variant("ordered"), "max_n", 8)
    db = tmp_path / "api.duckdb"
    notices: list[str] = []
    result = api.build(db, None, "8..9", notify=notices.append)
    assert ("ordered", 8) in result.built and ("ordered", 9) not in result.built and ("zeckendorf", 9) in result.built
    assert any(line.startswith(f"skipping ordered for n = 9: about {compositions(9)} positions") for line in notices)
    summary = api.build(db, ["ordered"], [9], summary_only=True, lean=True)
    assert summary.summary_only and summary.built == [("ordered", 9)] and summary.positions == compositions(9)


def compositions(n: int) -> int:
    """Compositions of n into Fibonacci parts (an ordered game's layer), by the plain recursion."""
    count = [1] + [0] * n
    for k in range(1, n + 1):
        count[k] = sum(count[k - f] for f in ref.FIB if f <= k)
    return count[n]


@pytest.mark.parametrize("kwargs, message", [
    ({"lean": True}, "lean goes with summary_only"),
    ({"executor": "ray"}, "is not one of local, dask"),
    ({"address": "tcp://127.0.0.1:1"}, "go with executor dask"),
    ({"executor": "dask"}, "needs address"),
    ({"summary_only": True, "variants": ["fibonacci-nim"]}, "fibonacci-nim"),  # a game summary mode cannot walk
    ({"variants": ["ordered"], "ns": "25"}, "n = 25 is out of range for ordered"),
    ({"ns": "0..x"}, "0..x"),
])
def test_build_refuses_bad_arguments_before_touching_the_file(tmp_path, kwargs, message):
    db = tmp_path / "never.duckdb"
    args = {"variants": ["zeckendorf"], "ns": "1..5", **kwargs}
    with pytest.raises(UsageError, match=message):
        api.build(db, args.pop("variants"), args.pop("ns"), **args)
    assert not db.exists()


def test_simulate_is_the_command_lines():
    sim = api.simulate("ordered", 9, games=300, seed=5)
    shortest, longest = ref.solve("ordered", (1,) * 9)["min"], ref.solve("ordered", (1,) * 9)["max"]
    assert sim.games == 300 and shortest <= sim.lengths.min() and sim.lengths.max() <= longest


@pytest.mark.parametrize("variant, n", [("zeckendorf", 14), ("reversed", 13), ("black-hole-3", 20),
                                        ("fibonacci-nim", 12), ("quilt", 12), ("zeckendorf-p3", 10)])
def test_lookups_read_what_the_view_shows(small_db, variant, n):
    """Lookups read the tables behind the view positions and compute in Python what position_rows
    stores by other columns (revision 0013): every position of a layer as the view's SQL shows it."""
    from zeckdb.store import PROBE_COLUMNS, Store

    with Store.open_read(small_db) as store:
        shown = store.rows(f"SELECT n, id, {', '.join(PROBE_COLUMNS)} FROM positions WHERE variant = ? AND n = ?",
                           [variant, n])
        found = store.probe(variant, [(n, i) for i in range(len(shown))] + [(n, len(shown))])  # and one past the end
    assert len(shown) > 10
    assert found == {(row[0], row[1]): dict(zip(["n", "id", *PROBE_COLUMNS], row, strict=True)) for row in shown}
    assert {type(v["outcome"]) for v in found.values()} <= {str, type(None)}


@pytest.mark.parametrize(("call", "says"), [
    (lambda db: db.position("zeckendorf", start="7"), "bad start '7' (str): give n as a whole number"),
    (lambda db: db.position("zeckendorf", start=7.0), "bad start '7.0' (float)"),
    (lambda db: db.position("zeckendorf", start=True), "bad start 'True' (bool)"),
    (lambda db: db.position("zeckendorf", 7), "bad position '7' (int)"),
    (lambda db: db.position("zeckendorf", ["a"]), "bad position"),
    (lambda db: db.query("winners", varient="zeckendorf"), "has no parameter 'varient' (did you mean variant?)"),
    (lambda db: db.summary("zeckendorf", n=["1", "2"]), "bad n"),
    (lambda db: db.summary("zeckendorf", n=3.5), "bad n"),
    (lambda db: db.position(5, start=5), "bad variant '5': give a game's name"),
    (lambda db: db.game(None), "bad variant 'None': give a game's name"),
    (lambda db: db.query("winners", variant=b"zeckendorf"), "bad variant \"b'zeckendorf'\": give a game's name"),
])
def test_the_library_gives_wrong_types_one_line(tmp_path_factory, call, says):
    from zeckdb.errors import ZeckdbError

    db = _typed_db(tmp_path_factory)
    with zeckdb.open(db) as database, pytest.raises(ZeckdbError) as refused:
        call(database)
    assert says in str(refused.value) and "\n" not in str(refused.value)


def _typed_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.getbasetemp() / "typed.duckdb"
    if not db.exists():
        zeckdb.build(db, "zeckendorf", "1..7")  # one name alone is that game, not its letters
    return db


def test_build_takes_one_name_as_that_game_and_refuses_other_types(tmp_path):
    from zeckdb.errors import ZeckdbError

    result = zeckdb.build(tmp_path / "one.duckdb", "reversed", "1..4")
    assert result.variants == ["reversed"]
    with pytest.raises(ZeckdbError, match="bad variant "):
        zeckdb.build(tmp_path / "two.duckdb", [1, 2], "1..4")
    assert not (tmp_path / "two.duckdb").exists()


def test_sql_binds_parameters_never_splices_them(small_db):
    import zeckdb
    from zeckdb.errors import UsageError

    with zeckdb.open(small_db) as db:
        assert db.sql("SELECT n FROM builds WHERE variant = ? AND n = ?", ["zeckendorf", 40]).rows == [(40,)]
        assert db.sql("SELECT n FROM builds WHERE variant = $v AND n < $n ORDER BY n",
                      {"v": "reversed", "n": 3}).rows == [(1,), (2,)]
        assert db.sql("SELECT count(*) FROM builds WHERE variant = ?", ["zeckendorf' OR '1' = '1"]).rows == [(0,)]
        assert db.sql("SELECT count(*) FROM builds WHERE list_contains(?, n) AND variant = ?",
                      [[1, 2, 3], "zeckendorf"]).rows == [(3,)]
        for params, message in [([object()], "bad parameter"), ([[[1]]], "bad parameter"), ("40", "bad parameters str"),
                                ({"a b": 1}, "bad parameter names"), ([1], "has 2 parameters")]:
            with pytest.raises(UsageError, match=message):
                db.sql("SELECT ?, ?" if message == "has 2 parameters" else "SELECT ?", params)
        for sql, params, message in [("SELECT $a", {"b": 1}, r"parameters are \$a: no value for \$a"),
                                     ("SELECT $a", [1], r"names its parameters \(\$a\)"),
                                     ("SELECT 1", [1], r"has 0 parameters \(\?\) and 1 value was given")]:
            with pytest.raises(UsageError, match=message):
                db.sql(sql, params)


def test_arrow_keeps_duckdbs_types_even_without_rows(small_db):
    import pyarrow as pa

    import zeckdb

    sql = ("SELECT 1::TINYINT AS a, 2 AS b, 'x' AS c, [1, 2]::SMALLINT[] AS d, 1.5::FLOAT AS e, 7::UBIGINT AS f, "
           "'win'::ENUM('win', 'loss') AS g FROM range(?)")
    want = [pa.int8(), pa.int32(), pa.string(), pa.list_(pa.int16()), pa.float32(), pa.uint64(), pa.string()]
    with zeckdb.open(small_db) as db:
        full, empty = db.sql(sql, [2]), db.sql(sql, [0])
        layers = db.query("winners", variant="zeckendorf", n="1..3")
    assert full.types[:2] == ["TINYINT", "INTEGER"]
    assert [f.type for f in full.arrow().schema] == want and [f.type for f in empty.arrow().schema] == want
    assert full.arrow().column("d").to_pylist() == [[1, 2], [1, 2]] and empty.arrow().num_rows == 0
    table = layers.arrow()
    assert table.column_names == layers.columns and table.schema.field("n").type == pa.int32()


def test_one_vocabulary_the_flags_names(small_db, tmp_path):
    """The library's keywords are the command line's flags: variant, n, format."""
    import inspect

    import zeckdb
    from zeckdb import api
    from zeckdb.errors import UsageError

    for function in (api.build, api.Database.draw, api.Database.export, api.Database.plot, api.Database.query,
                     api.Database.verify, api.simulate, api.run_sql_apart):
        names = set(inspect.signature(function).parameters)
        assert not names & {"fmt", "variants", "variant_name"}, (function.__name__, names)
    with zeckdb.open(small_db) as db:
        assert db.draw("zeckendorf", "7") == db.draw("zeckendorf", 7) == db.draw("zeckendorf", [7], format="dot")
        with pytest.raises(UsageError, match="draw takes one layer"):
            db.draw("zeckendorf", "6..7")
        manifest = db.export(tmp_path / "out", format="csv", variant="reversed", n=3)
    assert manifest.tables["positions"].files[0].path.startswith("positions/variant=reversed/n=3/")
    assert manifest.rows == sum(t.rows for t in manifest.tables.values()) > 0
    import json

    assert json.loads((tmp_path / "out" / "manifest.json").read_text()) == manifest.to_json()


def test_bind_parameters_as_python_writes_them(small_db):
    """DB-API users pass a tuple, NumPy users np.int64: both bind; NaN and infinity, which
    DuckDB binds as no number, are refused in one line."""
    import numpy as np

    from zeckdb.errors import UsageError

    with zeckdb.open(small_db) as db:
        sql = "SELECT count(*) FROM builds WHERE variant = ? AND n <= ?"
        assert db.sql(sql, ("zeckendorf", np.int64(5))).rows == db.sql(sql, ["zeckendorf", 5]).rows == [(5,)]
        assert db.sql("SELECT list_sum(?)", [(np.int32(1), 2.5)]).rows == [(3.5,)]
        for bad in (float("nan"), float("inf"), np.float64("-inf")):
            with pytest.raises(UsageError, match="give a finite number"):
                db.sql("SELECT ?", [bad])


def test_a_database_shared_by_threads_answers_each_as_one_alone(small_db):
    """16 threads walking positions of one zeckdb.open() object got 3 results and 16 errors, among
    them false "not built" and "rebuild" errors (the layers were there), KeyError and DuckDB's
    "connection is busy": each thread now reads on a connection of its own."""
    from concurrent.futures import ThreadPoolExecutor

    def walk(db, k: int) -> list[tuple[int, str]]:
        game = db.game("reversed" if k % 2 else "zeckendorf")
        seen = []
        for n in range(5, 21):
            position = game.start(n)
            while position.moves:
                position = position.play(position.best_move)
                seen.append((n, str(position)))
        return seen

    with zeckdb.open(small_db) as db:
        alone = [walk(db, k) for k in range(2)]
        with ThreadPoolExecutor(16) as pool:
            together = list(pool.map(lambda k: (k, walk(db, k)), range(16)))  # 16 at once, as they failed
    assert all(seen == alone[k % 2] for k, seen in together)


def test_html_and_dot_carry_no_raw_control_or_reordering_mark(small_db):
    """A stored text's ESC made the SVG drawing no well-formed XML, and U+202E reached every HTML
    display raw (it shows what follows backwards): both are written as their escapes."""
    from zeckdb.draw import _quote

    with zeckdb.open(small_db) as db:
        shown = db.sql("SELECT chr(27) || '[31m' AS \"a\u202eb\", chr(8238) || '<i>' AS t")._repr_html_()
    assert "\x1b" not in shown and "\u202e" not in shown and "<i>" not in shown, shown
    assert "\\x1b[31m" in shown and "a\\u202eb" in shown and "\\u202e&lt;i&gt;" in shown, shown
    dot = _quote("F1\x1b]52;c;x\x07 \u202e\n\"q\"")
    assert not any(ord(c) < 32 or c == "\u202e" for c in dot), dot
    assert dot == '"F1\\\\x1b]52;c;x\\\\x07 \\\\u202e\\n\\"q\\""', dot


def test_answers_show_themselves_in_a_notebook(small_db):
    """A result printed every row (9.96 MB in one cell); a plot and a drawing showed a dataclass
    and a bytes repr; a Database, its address. Each now has what a notebook displays, bounded."""
    with zeckdb.open(small_db) as db:
        assert repr(db).startswith(f"<zeckdb Database {small_db}, schema revision ") and "zeckendorf n = 1..40" in repr(db)
        result = db.sql("SELECT * FROM positions", max_rows=0)
        assert len(result.rows) > 50_000 and len(repr(result)) < 20_000 and len(result._repr_html_()) < 50_000
        assert f"<caption>{len(result.rows):,} rows</caption>" in result._repr_html_()
        assert db.plot("winners", "reversed")._repr_png_().startswith(b"\x89PNG")
        drawing = db.draw("zeckendorf", 5, format="svg")
        assert drawing._repr_svg_().startswith("<?xml") and bytes(drawing).startswith(b"<?xml")
        start = db.game("zeckendorf").start(7)
        shown = start._repr_html_()
        assert "zeckendorf (7)" in shown and "a loss for the player to move, remoteness 6" in shown
        assert "merge 2F1 → (5,1): loses (leaves the opponent a win, remoteness 5)" in shown
        from . import reference as ref

        moves = db.game("reversed").start(10).moves  # each move's verdict, from the reference solver
        assert {tuple(m.counts[:5]) + (0,) * (5 - len(m.counts)): m.wins for m in moves} == {
            tuple(child) + (0,) * (5 - len(child)): not ref.solve("reversed", child)["win"]
            for child in ref.MOVES["reversed"](ref.start("reversed", 10))}
