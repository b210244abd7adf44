"""`zeckdb export`: read back with DuckDB (and pyarrow), every row count and whole layers of
values against the database, the manifest's checksums, and bad input writing nothing."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import duckdb
import pytest

from zeckdb.store import SCHEMA_HEAD

from .conftest import run

# one worker runs every test here, and exports the small database once for them: a session
# fixture (a module fixture would be set up again whenever the worker's tests of this module
# are interleaved with others)
pytestmark = pytest.mark.xdist_group("export")


@pytest.fixture(scope="session")
def exported(small_db, tmp_path_factory):
    folder = tmp_path_factory.mktemp("export") / "out"
    done = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "export", str(folder), "--db", str(small_db)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("exported ") and "parquet files" in done.stdout
    return folder


def test_the_tests_of_this_module_share_one_worker(request):
    """Under xdist's loadgroup a grouped test's id carries its group, which is what keeps the
    group on one worker (pytest 9.2 with pytest-xdist 3.8 lost it: the export ran on both)."""
    if getattr(request.config.option, "loadgroup", False):
        assert request.node.nodeid.endswith("@export"), request.node.nodeid


def test_every_row_comes_back(exported, con):
    back = duckdb.connect()
    for table, key in [("positions", "variant"), ("length_distribution", "variant"), ("edges", "graph")]:
        want = dict(((k, n), c) for k, n, c in con.execute(
            f"SELECT {key}, n, count(*) FROM {table} GROUP BY ALL").fetchall())
        got = dict(((k, int(n)), c) for k, n, c in back.execute(
            f"SELECT {key}, n, count(*) FROM read_parquet('{exported}/{table}/*/*/*.parquet', hive_partitioning = true) "
            "GROUP BY ALL").fetchall())
        assert got == want, table
    for table in ("builds", "random_play", "variants", "move_names", "variant_columns", "graph_layers"):
        assert back.execute(f"SELECT count(*) FROM '{exported}/{table}.parquet'").fetchone() == \
            con.execute(f"SELECT count(*) FROM {table}").fetchone(), table


def test_values_come_back_exactly(exported, con):
    back = duckdb.connect()
    for variant, n in [("zeckendorf", 17), ("reversed", 40), ("quilt", 12), ("black-hole-3", 0), ("fibonacci-nim", 60),
                       ("ordered", 9)]:  # the ordered game's entries come back as lists
        want = con.execute("SELECT * EXCLUDE (variant, n) FROM positions WHERE variant = ? AND n = ? ORDER BY id",
                           [variant, n]).fetchall()
        got = back.execute(f"SELECT * EXCLUDE (variant, n) FROM read_parquet('{exported}/positions/*/*/*.parquet', "
                           "hive_partitioning = true) WHERE variant = ? AND n = ? ORDER BY id", [variant, n]).fetchall()
        assert got == want and want, (variant, n)
    want = con.execute("SELECT * FROM builds ORDER BY variant, n").fetchall()
    assert back.execute(f"SELECT * FROM '{exported}/builds.parquet' ORDER BY variant, n").fetchall() == want


def test_pyarrow_reads_it_as_a_dataset(exported, con):
    import pyarrow.dataset as ds

    edges = ds.dataset(exported / "edges", format="parquet", partitioning="hive")
    assert edges.count_rows() == con.execute("SELECT count(*) FROM edges").fetchone()[0]


def test_the_manifest_names_every_file(exported):
    manifest = json.loads((exported / "manifest.json").read_text())
    assert manifest["schema_revision"] == SCHEMA_HEAD and manifest["format"] == "parquet"
    listed = {f["path"]: f for t in manifest["tables"].values() for f in t["files"]}
    on_disk = {p.relative_to(exported).as_posix() for p in exported.rglob("*.parquet")}
    assert set(listed) == on_disk
    for path, f in list(listed.items())[::25]:
        data = (exported / path).read_bytes()
        assert hashlib.sha256(data).hexdigest() == f["sha256"] and len(data) == f["bytes"]
    assert "read_parquet" in (exported / "README.txt").read_text()


def test_csv_of_some_variants_and_n(capsys, small_db, tmp_path, con):
    folder = tmp_path / "csv"
    code, out, err = run(capsys, "export", str(folder), "--format", "csv", "--variant", "reversed", "--n", "5..9",
                         "--db", str(small_db))
    assert code == 0, err
    back = duckdb.connect()
    got = back.execute(f"SELECT n, count(*) FROM read_csv('{folder}/positions/*/*/*.csv', hive_partitioning = true) "
                       "GROUP BY n ORDER BY n").fetchall()
    want = con.execute("SELECT n, count(*) FROM positions WHERE variant = 'reversed' AND n BETWEEN 5 AND 9 "
                       "GROUP BY n ORDER BY n").fetchall()
    assert [(int(n), c) for n, c in got] == want
    assert {p.name for p in (folder / "positions").iterdir()} == {"variant=reversed"}
    assert {p.name for p in (folder / "edges").iterdir()} == {"graph=zeckendorf"}  # reversed plays zeckendorf's graph


def test_csv_writes_an_ordered_position_as_its_list(capsys, small_db, tmp_path, con):
    folder = tmp_path / "csv"
    code, _, err = run(capsys, "export", str(folder), "--format", "csv", "--variant", "ordered", "--n", "7",
                       "--db", str(small_db))
    assert code == 0, err
    got = duckdb.connect().execute(f"SELECT id, entries FROM read_csv('{folder}/positions/*/*/*.csv', "
                                   "hive_partitioning = true, all_varchar = true) ORDER BY id::INTEGER").fetchall()
    want = con.execute("SELECT id, entries FROM positions WHERE variant = 'ordered' AND n = 7 ORDER BY id").fetchall()
    assert [e for _, e in got] == ["[" + ",".join(map(str, e)) + "]" for _, e in want] and len(want) == 49


@pytest.mark.parametrize("args, message", [
    (["--format", "xlsx"], "unknown format 'xlsx': choose parquet or csv"),
    (["--variant", "nope"], "unknown variant"),
    (["--n", "1..x"], "bad"),
    (["--variant", "zeckendorf", "--n", "150"], "nothing to export: no built layer matches"),
])
def test_bad_input_writes_nothing(capsys, small_db, tmp_path, args, message):
    folder = tmp_path / "out"
    code, out, err = run(capsys, "export", str(folder), *args, "--db", str(small_db))
    assert code != 0 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_is_not_overwritten(capsys, small_db, tmp_path):
    folder = tmp_path / "full"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    code, _, err = run(capsys, "export", str(folder), "--db", str(small_db))
    assert code != 0 and "it exists and is not empty; name a new or empty folder" in err
    assert [p.name for p in folder.iterdir()] == ["keep.txt"]
    code, _, err = run(capsys, "export", str(tmp_path / "no" / "such"), "--db", str(small_db))
    assert code != 0 and "does not exist" in err


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_small_layers_read_together_are_the_layers_read_alone(capsys, small_db, tmp_path, monkeypatch, fmt):
    """Small layers of a table are read in one query and cut into their files by n; each file
    holds the rows a read of its layer alone writes (the ordered game's lists as text in CSV)."""
    import zeckdb.export

    folders, sizes = {}, {}
    write_group = zeckdb.export._write_group
    for together in (True, False):
        folders[together] = folder = tmp_path / f"together-{together}"
        sizes[together] = seen = []
        with monkeypatch.context() as patched:
            if not together:
                patched.setattr(zeckdb.export, "SMALL_LAYER_ROWS", 0)  # every layer alone
            patched.setattr(zeckdb.export, "_write_group",
                            lambda store, root, group, *rest, seen=seen: seen.append(len(group))
                            or write_group(store, root, group, *rest))
            code, _, err = run(capsys, "export", str(folder), "--format", fmt, "--variant", "reversed", "--variant",
                               "ordered", "--n", "3..12", "--db", str(small_db))
        assert code == 0, err
    assert max(sizes[True]) == 10 and set(sizes[False]) == {1}  # a table's ten layers of a variant in one read
    back = duckdb.connect()
    manifests = {k: json.loads((f / "manifest.json").read_text()) for k, f in folders.items()}
    files = [f["path"] for t in manifests[True]["tables"].values() for f in t["files"]]
    assert files == [f["path"] for t in manifests[False]["tables"].values() for f in t["files"]]
    assert len(files) > 50
    read = "read_parquet" if fmt == "parquet" else "read_csv"
    for path in files:
        rows = [sorted(back.execute(f"SELECT * FROM {read}('{folders[k] / path}')").fetchall(), key=repr)
                for k in (True, False)]
        assert rows[0] == rows[1], path
