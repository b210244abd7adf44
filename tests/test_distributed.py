"""The distributed build against a real Dask cluster: a scheduler and two worker processes on
loopback, started and stopped by the test; the result must equal a local build."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import duckdb
import pytest


import zeckdb
from .conftest import run

distributed = pytest.importorskip("distributed")

# one worker runs every test here, so one cluster is started for them
pytestmark = pytest.mark.xdist_group("cluster")

VARIANTS = ["zeckendorf", "reversed", "black-hole-4", "zeckendorf-p3", "nacci-2-3"]  # a shared graph, moves that
# leave the layer, a game of three players (on the shared graph) and a (c,k)-nacci game
NS = "1..40"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """tcp address of a scheduler with two single-threaded worker processes (without a nanny
    each: nothing here restarts a worker, and two fewer processes start and stop)."""
    log = tmp_path_factory.mktemp("cluster")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    common = ["--no-dashboard"]
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), *common], stdout=open(log / "scheduler.log", "w"),  # noqa: SIM115
                              stderr=subprocess.STDOUT)]
    for i in range(2):
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1",
                                       "--no-nanny", "--nthreads", "1", "--host", "127.0.0.1", *common],
                                      stdout=open(log / f"worker{i}.log", "w"),  # noqa: SIM115 (the process's)
                                      stderr=subprocess.STDOUT))
    try:
        client = distributed.Client(address, timeout=60)
        client.wait_for_workers(2, timeout=120)
        client.close()
        yield address
    finally:
        try:  # the scheduler closes its workers and itself (a terminate takes the nannies seconds)
            with distributed.Client(address, timeout=10) as client:
                client.shutdown()
        except Exception:  # noqa: BLE001 (not up, or gone already: the processes are stopped below)
            pass
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.fixture(scope="module")
def local_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("local") / "local.duckdb"
    zeckdb.build(path, VARIANTS, NS)
    return path


LAYERS = ("SELECT variant, n, positions, edges, winner, min_length, max_length, start_remoteness, games, "
          "positions_checksum, edges_checksum FROM builds ORDER BY variant, n")


def _rows(path, sql=LAYERS):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_a_build_on_the_cluster_equals_the_local_build(cluster, local_db, tmp_path, capsys):
    db = tmp_path / "cluster.duckdb"
    args = ["build", "--executor", "dask", "--address", cluster, "--n", NS, "--db", str(db)]
    code, out, err = run(capsys, *args, *[a for v in VARIANTS for a in ("--variant", v)])
    assert code == 0, err
    assert out.startswith(f"built {', '.join(VARIANTS)} for n = 0..40")  # black-hole-4's layer 0 too
    want = _rows(local_db)
    assert len(want) == len(VARIANTS) * 40 + 1 and _rows(db) == want  # every layer, checksums of positions and edges equal
    for table in ("length_distribution", "random_play"):
        assert _rows(db, f"SELECT * FROM {table} ORDER BY ALL") == _rows(local_db, f"SELECT * FROM {table} ORDER BY ALL")
    assert not (tmp_path / "cluster.duckdb.shards" / "positions").exists()  # ingested shards are removed
    code, out, _ = run(capsys, "verify", "--db", str(db))
    assert code == 0 and "every check passed" in out
    # resumable like a local build: what is stored is skipped, the rest is built
    code, out, _ = run(capsys, *args, "--variant", "zeckendorf", "--n", "1..42")
    assert code == 0 and "for n = 41..42" in out


def test_shards_only_leaves_parquet_for_duckdb(cluster, local_db, tmp_path, capsys):
    shards = tmp_path / "shards"
    code, out, err = run(capsys, "build", "--executor", "dask", "--address", cluster, "--n", "1..20", "--variant",
                         "reversed", "--shards", str(shards), "--shards-only", "--db", str(tmp_path / "z.duckdb"))
    assert code == 0 and "as Parquet shards" in out, err
    con = duckdb.connect()
    got = con.execute(f"SELECT n, count(*) FROM read_parquet('{shards}/positions/*/*/*.parquet', hive_partitioning = true) "
                      "GROUP BY n ORDER BY n").fetchall()
    assert got == _rows(local_db, "SELECT n, positions FROM builds WHERE variant = 'reversed' AND n <= 20 ORDER BY n")
    assert _rows(tmp_path / "z.duckdb", "SELECT count(*) FROM builds") == [(0,)]  # nothing stored


def test_an_unreachable_scheduler_is_one_line_and_touches_nothing(tmp_path, capsys, monkeypatch):
    import zeckdb.distributed

    monkeypatch.setattr(zeckdb.distributed, "CONNECT_SECONDS", 2)
    db = tmp_path / "z.duckdb"
    t0 = time.perf_counter()
    code, out, err = run(capsys, "build", "--executor", "dask", "--address", f"tcp://127.0.0.1:{_free_port()}",
                         "--n", "5", "--variant", "zeckendorf", "--db", str(db))
    assert code != 0 and not out and "cannot reach a Dask scheduler at" in err and err.count("\n") == 1, err
    assert not db.exists() and time.perf_counter() - t0 < 30


@pytest.mark.parametrize("args, message", [
    (["--executor", "dask"], "--executor dask needs --address"),
    (["--executor", "dask", "--address", "tcp://127.0.0.1:1", "--shards", "/no/such/folder/shards"],
     "cannot write into /no/such/folder/shards: the folder /no/such/folder does not exist"),
    (["--executor", "dask", "--address", "tcp://127.0.0.1:1", "--shards", "{tmp}/z.duckdb.locks"],
     "it is the open database's .locks folder"),
    (["--executor", "dask", "--address", "tcp://127.0.0.1:1", "--shards", "{tmp}/mine"],
     "it exists and is not empty"),
    (["--executor", "ray", "--address", "x"], "--executor 'ray' is not one of local, dask"),
    (["--shards-only"], "go with --executor dask"),
    (["--executor", "dask", "--address", "tcp://127.0.0.1:1", "--summary-only"], "builds in full"),
])
def test_bad_executor_options(tmp_path, capsys, args, message):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("a folder of the user's: the shards never go there")
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    code, out, err = run(capsys, "build", "--n", "5", *args, "--db", str(tmp_path / "z.duckdb"))
    assert code != 0 and message in err and err.count("\n") == 1 and not (tmp_path / "z.duckdb").exists(), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"] and len(list((tmp_path / "mine").iterdir())) == 1


def test_a_task_failing_on_the_cluster_is_one_line(cluster, tmp_path, capsys, monkeypatch):
    # a shard folder the workers cannot write: here, a file where a table's folder should be
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "positions").write_text("not a folder")
    code, out, err = run(capsys, "build", "--executor", "dask", "--address", cluster, "--n", "3", "--variant",
                         "zeckendorf", "--shards", str(shards), "--db", str(tmp_path / "z.duckdb"))
    assert code == 1 and "the task of n = 3 failed on the cluster" in err and err.count("\n") == 1, err
