"""The distributed build against a real Dask cluster: a scheduler and two worker processes on
loopback, started and stopped by the test; the result must equal a local build."""

from __future__ import annotations

from collections.abc import Iterator
import contextlib
import os
from pathlib import Path
import signal
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


@contextlib.contextmanager
def _cluster(log: Path, workers: int = 2) -> Iterator[tuple[str, list[subprocess.Popen]]]:
    """tcp address of a scheduler with single-threaded worker processes (without a nanny each:
    nothing here restarts a worker, and fewer processes start and stop), and the workers'
    processes."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    common = ["--no-dashboard"]
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), *common], stdout=open(log / "scheduler.log", "w"),  # noqa: SIM115
                              stderr=subprocess.STDOUT)]
    for i in range(workers):
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1",
                                       "--no-nanny", "--nthreads", "1", "--host", "127.0.0.1", *common],
                                      stdout=open(log / f"worker{i}.log", "w"),  # noqa: SIM115 (the process's)
                                      stderr=subprocess.STDOUT))
    try:
        client = distributed.Client(address, timeout=60)
        if workers:
            client.wait_for_workers(workers, timeout=120)
        client.close()
        yield address, procs[1:]
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
def cluster(tmp_path_factory):
    """The address of a cluster of two workers, shared by the tests that leave it whole."""
    with _cluster(tmp_path_factory.mktemp("cluster")) as (address, _):
        yield address


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
    assert not (tmp_path / "cluster.duckdb.shards").exists()  # ingested shards are removed, and their folder
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
    (positions, moves), = _rows(local_db, "SELECT sum(positions), sum(edges) FROM builds "
                                          "WHERE variant = 'reversed' AND n <= 20")
    assert f"({positions:,} positions, {moves:,} moves)" in out
    con = duckdb.connect()
    got = con.execute(f"SELECT n, count(*) FROM read_parquet('{shards}/positions/*/*/*.parquet', hive_partitioning = true) "
                      "GROUP BY n ORDER BY n").fetchall()
    assert got == _rows(local_db, "SELECT n, positions FROM builds WHERE variant = 'reversed' AND n <= 20 ORDER BY n")
    assert _rows(tmp_path / "z.duckdb", "SELECT count(*) FROM builds") == [(0,)]  # nothing stored
    # a rerun resumes: layers written in full are skipped; one without its builds shard (written
    # last: the run stopped while writing that layer) is written again
    args = ["build", "--executor", "dask", "--address", cluster, "--variant", "reversed", "--shards", str(shards),
            "--shards-only", "--db", str(tmp_path / "z.duckdb")]
    code, out, err = run(capsys, *args, "--n", "1..20")
    assert code == 0 and out.startswith("nothing to write: reversed for n = 1..20 already written"), (out, err)
    (shards / "builds" / "variant=reversed" / "n=17" / "part-0.parquet").unlink()
    (shards / "builds" / "variant=reversed" / "n=18" / "part-0.parquet").write_text("not Parquet")  # by hand
    code, out, err = run(capsys, *args, "--n", "1..21")
    (positions, moves), = _rows(local_db, "SELECT sum(positions), sum(edges) FROM builds "
                                          "WHERE variant = 'reversed' AND n IN (17, 18, 21)")
    assert code == 0 and f"wrote 3 layers of reversed ({positions:,} positions, {moves:,} moves)" in out, err
    code, out, err = run(capsys, *args, "--n", "17", "--force")
    assert code == 0 and "wrote 1 layer of reversed" in out, err


def test_ctrl_c_on_the_cluster_keeps_the_shards_written_and_a_rerun_resumes(cluster, tmp_path, capsys):
    shards = tmp_path / "shards"
    args = ["build", "--executor", "dask", "--address", cluster, "--n", "1..110", "--variant", "zeckendorf",
            "--shards", str(shards), "--shards-only", "--db", str(tmp_path / "z.duckdb")]
    proc = subprocess.Popen([sys.executable, "-c", "from zeckdb.launch import main; main()", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    said = []
    for line in proc.stderr or []:  # the first progress line: a task has finished, most are to come
        said.append(line)
        if line.startswith("building zeckendorf"):
            break
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=120)
    assert proc.returncode == 130, "".join(said) + rest
    assert ("".join(said) + rest).splitlines()[-1] == ("zeckdb: interrupted; the layers written as Parquet shards "
                                                       "are kept, run the same command again to resume")
    _wait_until_no_task_runs(cluster)  # Dask lets a running task finish: it may still write its layer
    written = len(list((shards / "builds" / "variant=zeckendorf").iterdir()))
    code, out, err = run(capsys, *args)  # the rerun writes what is missing, and only that
    assert code == 0, err
    assert out.startswith("nothing to write") if written == 110 else out.startswith(
        f"wrote {110 - written} layer"), (written, out)
    assert len(list((shards / "builds" / "variant=zeckendorf").iterdir())) == 110


def _wait_until_no_task_runs(address: str) -> None:
    """Until no worker runs a task, those a driver gone left running included (Dask's
    WorkerState.executing holds them too)."""
    with distributed.Client(address, timeout=30) as client:
        deadline = time.monotonic() + 120
        while any(client.run(lambda dask_worker: len(dask_worker.state.executing)).values()):
            assert time.monotonic() < deadline, "a task ran on for two minutes"
            time.sleep(0.1)


def _shard_seconds(shards: Path) -> dict[tuple[str, int], float]:
    """(variant, n) -> the seconds its builds shard records: the task that solved it measured them."""
    import pyarrow.parquet as pq

    return {(p.parent.parent.name.removeprefix("variant="), int(p.parent.name.removeprefix("n="))):
            pq.read_table(p)["seconds"][0].as_py() for p in shards.glob("builds/*/*/part-0.parquet")}


def test_a_full_build_solves_again_what_a_run_before_left_in_the_folder(cluster, local_db, tmp_path, capsys):
    """Layers left in the shard folder (by --shards-only here; by a run stopped before it
    ingested them, too) were ingested as they were: a forger who can write the folder put the
    start's remoteness 5 higher there, recomputed the builds shard's checksums with zeckdb's own
    function, and the build stored it. Now only shards whose own task shipped their checksums
    are stored: what a run before left is solved again (its builds rows do not keep the seconds
    the first run measured), the forgery is written over, the database equals a local build."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from zeckdb.store import summary_rows_checksum

    shards, db = tmp_path / "shards", tmp_path / "z.duckdb"
    args = ["build", "--executor", "dask", "--address", cluster, "--variant", "zeckendorf", "--variant", "reversed",
            "--shards", str(shards), "--db", str(db)]
    assert run(capsys, *args, "--n", "1..20", "--shards-only")[0] == 0
    first = _shard_seconds(shards)
    assert len(first) == 40
    path = shards / "builds" / "variant=zeckendorf" / "n=15" / "part-0.parquet"
    row = pq.read_table(path).to_pylist()[0]
    row["start_remoteness"] += 5
    lengths = pq.read_table(shards / "length_distribution" / "variant=zeckendorf" / "n=15" / "part-0.parquet")
    played = pq.read_table(shards / "random_play" / "variant=zeckendorf" / "n=15" / "part-0.parquet").to_pylist()[0]
    row["summary_checksum"] = summary_rows_checksum("zeckendorf", 15, {k: v for k, v in row.items()
                                                                       if not k.endswith("_checksum")}, played, lengths)
    pq.write_table(pa.Table.from_pylist([row], schema=pq.read_schema(path)), path)
    code, out, err = run(capsys, *args, "--n", "1..22")
    assert code == 0 and out.startswith("built zeckendorf, reversed for n = 1..22"), err
    stored = {(v, n): t for v, n, t in _rows(db, "SELECT variant, n, seconds FROM builds WHERE n <= 20")}
    assert all(stored[key] != seconds for key, seconds in first.items())  # solved again, every one
    layers = LAYERS.replace("FROM builds", "FROM builds WHERE n <= 22 AND variant IN ('zeckendorf', 'reversed')")
    assert _rows(db, layers) == _rows(local_db, layers)
    assert sorted(p.name for p in shards.iterdir()) == [".zeckdb-shards"]  # ingested shards are removed
    code, out, _ = run(capsys, "verify", "--db", str(db))
    assert code == 0 and "every check passed" in out


def test_ctrl_c_of_a_full_build_on_the_cluster_names_the_shards_a_rerun_writes_over(cluster, local_db, tmp_path, capsys,
                                                                               monkeypatch):
    """Tasks running at a Ctrl-C finish on the workers (Dask cannot stop them) and leave their
    layers as shards: the message says where; the rerun solves them again (a shard is stored
    only with the checksums its own task shipped) and removes the folder."""
    import inspect

    import zeckdb.distributed

    real = zeckdb.distributed.build_distributed

    def stopped_before_any_task(*args, **kwargs):
        raise KeyboardInterrupt

    def stopped_at_the_first_commit(*args, **kwargs):
        def advance(positions: int, description: str) -> None:  # called once a commit is done
            raise KeyboardInterrupt

        call = inspect.signature(real).bind(*args, **kwargs)
        call.arguments["progress"] = advance
        return real(*call.args, **call.kwargs)

    db = tmp_path / "z.duckdb"
    args = ["build", "--executor", "dask", "--address", cluster, "--n", "1..30", "--variant", "zeckendorf",
            "--variant", "reversed", "--db", str(db)]
    with monkeypatch.context() as patched:  # no task has written: no folder to name
        patched.setattr(zeckdb.distributed, "build_distributed", stopped_before_any_task)
        code, _, err = run(capsys, *args)
    assert code == 130 and err.endswith("nothing is committed, run the same command again to resume\n"), err
    with monkeypatch.context() as patched:
        patched.setattr(zeckdb.distributed, "build_distributed", stopped_at_the_first_commit)
        code, _, err = run(capsys, *args)
    assert code == 130 and err.endswith(f"run the same command again to resume; tasks still running on the cluster "
                                        f"may add shards to {db}.shards: the rerun writes over them\n"), err
    _wait_until_no_task_runs(cluster)
    left = _shard_seconds(Path(f"{db}.shards"))
    assert left, "no layer left to store: the test proves nothing"
    code, _, err = run(capsys, *args)
    assert code == 0, err
    stored = {(v, n): t for v, n, t in _rows(db, "SELECT variant, n, seconds FROM builds")}
    assert all(stored[key] != seconds for key, seconds in left.items())  # solved again, not taken from the folder
    layers = LAYERS.replace("FROM builds", "FROM builds WHERE n <= 30 AND variant IN ('zeckendorf', 'reversed')")
    assert _rows(db, layers) == _rows(local_db, layers)
    assert not Path(f"{db}.shards").exists()


def test_two_writers_of_one_shard_each_put_a_whole_file_in_place(tmp_path):
    """A task a stopped build left running and the rerun's task may write the same layer at
    the same moment: neither may fail, and the file is whole."""
    import threading

    import pyarrow as pa
    import pyarrow.parquet as pq

    from zeckdb.export import write_part

    schema = pa.schema([("x", pa.int64())])
    both_writing = threading.Barrier(2, timeout=30)

    def rows() -> pa.RecordBatchReader:
        def batches():
            yield pa.record_batch([pa.array(range(1000))], schema=schema)
            both_writing.wait()  # each has opened its file and written a batch
            yield pa.record_batch([pa.array(range(1000, 2000))], schema=schema)

        return pa.RecordBatchReader.from_batches(schema, batches())

    path = tmp_path / "positions" / "variant=zeckendorf" / "n=7" / "part-0.parquet"
    failures: list[BaseException] = []

    def write() -> None:
        try:
            write_part(rows(), path)
        except BaseException as exc:
            failures.append(exc)

    writers = [threading.Thread(target=write) for _ in range(2)]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    assert failures == [] and pq.read_table(path).column("x").to_pylist() == list(range(2000))
    assert [p.name for p in path.parent.iterdir()] == ["part-0.parquet"]


@pytest.mark.parametrize("kind", ["positions", "edges", "summary"])
def test_the_checksums_a_worker_ships_are_the_rows_and_a_lie_is_refused(tmp_path, local_db, kind):
    """A worker hashes the rows it writes and ships the checksums with its task's result: they
    are the local build's. The driver hashes the rows it reads against them: a worker whose
    checksum is not its rows' (or rows changed on the way) is refused before anything is
    stored. No cluster: the worker's task runs here."""
    from zeckdb.distributed import ClusterError, read_shards, solve_to_shards

    # as the local build did: its games that share a graph layer solved together
    steps = [("zeckendorf", True, False), ("reversed", True, False)]
    receipts = solve_to_shards(str(tmp_path / "shards"), 12, steps, [])
    assert [r["variant"] for r in receipts] == ["zeckendorf", "reversed"]
    shipped = receipts[0]["checksums"]
    recorded = ("SELECT positions_checksum, edges_checksum, summary_checksum FROM builds "
                "WHERE variant = 'zeckendorf' AND n = 12")
    assert [tuple(shipped[k] for k in ("positions", "edges", "summary"))] == _rows(local_db, recorded)
    layer = read_shards(tmp_path / "shards", "zeckendorf", "zeckendorf", 12, False, True, shipped)
    assert layer.checksums == shipped
    lie = {**shipped, kind: shipped[kind] ^ 1}  # a worker that lies, or whose rows changed on the way
    with pytest.raises(ClusterError, match=rf"\({kind} differ: changed on disk"):
        read_shards(tmp_path / "shards", "zeckendorf", "zeckendorf", 12, False, True, lie)


def test_shards_without_checksums_are_hashed_by_the_driver(tmp_path, local_db):
    """Shards from a worker that sends no checksums (an older zeckdb): the driver hashes the
    rows it reads, and the layer's checksums are the local build's."""
    import pyarrow.parquet as pq

    from zeckdb.builder import game_record
    from zeckdb.distributed import CHECKSUMS, read_shards, solve_to_shards
    from zeckdb.store import StoreWriter
    from zeckdb.variants import get_variant

    shards = tmp_path / "shards"
    solve_to_shards(str(shards), 12, [("zeckendorf", True, False), ("reversed", True, False)], [])
    builds = shards / "builds" / "variant=zeckendorf" / "n=12" / "part-0.parquet"
    pq.write_table(pq.read_table(builds).drop_columns(list(CHECKSUMS.values())), builds)
    layer = read_shards(shards, "zeckendorf", "zeckendorf", 12, replace=False, with_graph=True)
    assert set(layer.checksums or {}) == {"positions", "edges", "summary"}  # hashed on reading
    db = tmp_path / "z.duckdb"
    with StoreWriter.open_write(db) as store:
        store.register_variant(game_record(get_variant("zeckendorf")))
        store.write_layers([layer])
    recorded = ("SELECT positions_checksum, edges_checksum, summary_checksum FROM builds "
                "WHERE variant = 'zeckendorf' AND n = 12")
    assert _rows(db, recorded) == _rows(local_db, recorded)


# what a peer that is no Dask scheduler sends when a client connects (None: nothing, ever)
PEERS = {"a silent peer": None, "garbage": [b"\x17\x03\x03garbage garbage garbage"],
         "an HTTP answer": [b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"],
         "a huge length": [(1 << 62).to_bytes(8, "little")], "a byte a second": [b"\x3a"] * 8}


@pytest.mark.parametrize("peer", ["nothing listens", *PEERS])
def test_an_unreachable_scheduler_is_one_line_and_touches_nothing(tmp_path, capsys, monkeypatch, peer):
    """Nothing listening, a peer that accepts and never speaks (it held the driver for as long
    as the peer lived), or one that speaks something else: garbage or an HTTP answer (86 lines
    of traceback), a huge length prefix (Dask allocated 4 EiB for it), a byte a second
    (struct.error). One line within the setting's bound, and no allocation the peer sizes."""
    import threading

    monkeypatch.setenv("ZECKDB_CLUSTER_CONNECT_SECONDS", "2")
    db = tmp_path / "z.duckdb"  # the connection gives up after its setting's seconds (a hang meets the suite's timeout)
    stop = threading.Event()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))

        def answer() -> None:
            server.settimeout(0.2)
            while not stop.is_set():
                try:
                    conn, _ = server.accept()
                except OSError:
                    continue
                with conn:
                    for piece in PEERS[peer] or []:
                        if stop.wait(1.0 if peer == "a byte a second" else 0):
                            break
                        conn.sendall(piece)
                    stop.wait(10)

        if peer != "nothing listens":
            server.listen(8)  # the kernel completes the connection
            threading.Thread(target=answer, daemon=True).start()
        try:
            code, out, err = run(capsys, "build", "--executor", "dask", "--address",
                                 f"tcp://127.0.0.1:{server.getsockname()[1]}", "--n", "5", "--variant", "zeckendorf",
                                 "--db", str(db))
        finally:
            stop.set()
    said = {"nothing listens": "cannot reach a Dask scheduler at", "a silent peer": "did not open as a Dask scheduler",
            "a byte a second": "did not open as a Dask scheduler"}.get(peer, "is not a Dask scheduler (it sent")
    assert code != 0 and not out and said in err and err.count("\n") == 1, err
    assert not db.exists()


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
    (["--executor", "dask", "--address", "tcp://127.0.0.1:1", "--summary-only", "--shards-only"],
     "--shards and --shards-only go with a full build"),
])
def test_bad_executor_options(tmp_path, capsys, args, message):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("a folder of the user's: the shards never go there")
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    code, out, err = run(capsys, "build", "--n", "5", *args, "--db", str(tmp_path / "z.duckdb"))
    assert code != 0 and message in err and err.count("\n") == 1 and not (tmp_path / "z.duckdb").exists(), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"] and len(list((tmp_path / "mine").iterdir())) == 1


def test_a_task_failing_on_the_cluster_is_one_line(cluster, tmp_path, capsys, monkeypatch):
    # a shard folder the workers cannot write: here, a file where a table's folder should be (in
    # a folder zeckdb marked as its own: a folder of the user's is not taken at all)
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / ".zeckdb-shards").touch()
    (shards / "positions").write_text("not a folder")
    code, out, err = run(capsys, "build", "--executor", "dask", "--address", cluster, "--n", "3", "--variant",
                         "zeckendorf", "--shards", str(shards), "--db", str(tmp_path / "z.duckdb"))
    assert code == 1 and "the task of n = 3 failed on the cluster" in err and err.count("\n") == 1, err


SUMMARY_VARIANTS = ["zeckendorf", "reversed", "zeckendorf-p3"]  # two players (sharing a graph) and three
SUMMARY_ROWS = ("SELECT b.variant, b.n, positions, edges, start_id, start_position, winner, min_length, max_length, "
                "start_remoteness, games_approx, expected_length, decomposition_terms, summary_only, teams, "
                "summary_checksum, p1_wins_random, p1_wins_p1_perfect, p1_wins_p2_perfect FROM builds b "
                "LEFT JOIN random_play r USING (variant, n) ORDER BY b.variant, b.n")


def test_summary_mode_on_the_cluster_equals_the_local_one(cluster, tmp_path, capsys):
    local, remote = tmp_path / "local.duckdb", tmp_path / "cluster.duckdb"
    zeckdb.build(local, SUMMARY_VARIANTS, "1..45", summary_only=True)
    choose = [a for v in SUMMARY_VARIANTS for a in ("--variant", v)]
    args = ["build", "--summary-only", "--executor", "dask", "--address", cluster, "--db", str(remote), *choose]
    code, out, err = run(capsys, *args, "--n", "1..45")
    assert code == 0 and out.startswith(f"summarised {', '.join(sorted(SUMMARY_VARIANTS))} for n = 1..45"), err
    want = _rows(local, SUMMARY_ROWS)
    assert len(want) == 3 * 45 and _rows(remote, SUMMARY_ROWS) == want  # every column, the checksum too
    assert not any(tmp_path.glob("*.shards"))  # only summaries travel: nothing written beside the file
    code, out, _ = run(capsys, "verify", "--db", str(remote))
    assert code == 0 and "every check passed" in out
    code, out, err = run(capsys, *args, "--n", "40..47")  # resumable: only what is missing is solved
    assert code == 0 and "for n = 46..47" in out, err


def test_a_large_summary_layer_takes_every_thread_of_a_task_on_the_cluster(cluster, tmp_path, capsys, monkeypatch):
    """A worker of one task slot (as each of this cluster's) solves a large layer on all the
    threads it may use, with the one-thread solve's result."""
    import zeckdb.distributed

    with distributed.Client(cluster, timeout=60) as client:
        threads = client.submit(zeckdb.distributed.task_threads, pure=False).result()
        shipped = client.submit(zeckdb.distributed.task_threads, zeckdb.Settings(threads=3), pure=False).result()
    assert threads == len(os.sched_getaffinity(0)) and shipped == 3  # the driver's settings, not the worker's
    monkeypatch.setattr(zeckdb.distributed, "THREADED_LAYER", 0)  # every layer counts as large
    local, remote = tmp_path / "local.duckdb", tmp_path / "cluster.duckdb"
    zeckdb.build(local, ["zeckendorf", "reversed"], "30..40", summary_only=True, threads=1)
    code, out, err = run(capsys, "build", "--summary-only", "--executor", "dask", "--address", cluster, "--db",
                         str(remote), "--variant", "zeckendorf", "--variant", "reversed", "--n", "30..40")
    assert code == 0, err
    want = _rows(local, SUMMARY_ROWS)
    assert len(want) == 2 * 11 and _rows(remote, SUMMARY_ROWS) == want


def test_a_worker_killed_mid_task_loses_nothing(tmp_path):
    """A worker dies holding a task: the build finishes on the other worker, equal to a local one."""
    db, local = tmp_path / "cluster.duckdb", tmp_path / "local.duckdb"
    ns = "150..163"  # layers of about half a second each on a worker
    zeckdb.build(local, "zeckendorf", ns, summary_only=True)
    zeckdb_command = str(Path(sys.executable).with_name("zeckdb"))
    with _cluster(tmp_path) as (address, workers), distributed.Client(address, timeout=30) as client:
        pids = client.run(os.getpid)  # worker address -> its process
        build = subprocess.Popen([zeckdb_command, "build", "--summary-only", "--executor", "dask", "--address", address,
                                  "--n", ns, "--variant", "zeckendorf", "--db", str(db)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            victim = _stop_a_worker_holding_a_task(client, pids, build)
            os.kill(victim, signal.SIGKILL)  # its task is unfinished: the worker was frozen holding it
            out, err = build.communicate(timeout=300)
        finally:
            build.kill()
        assert victim in [w.pid for w in workers]
    assert build.returncode == 0 and "summarised zeckendorf for n = 150..163" in out, err
    assert _rows(db, SUMMARY_ROWS) == _rows(local, SUMMARY_ROWS)


def test_a_frozen_worker_is_named_in_one_line_and_the_build_goes_on(tmp_path):
    """A worker frozen (SIGSTOP) holding a task stalled the build with no word for as long as it
    stayed frozen. The driver now names it once it has been silent for the
    cluster_silent_seconds setting, and the build finishes when the worker wakes."""
    import threading

    db = tmp_path / "cluster.duckdb"
    zeckdb_command = str(Path(sys.executable).with_name("zeckdb"))
    with _cluster(tmp_path) as (address, _), distributed.Client(address, timeout=30) as client:
        pids = client.run(os.getpid)
        build = subprocess.Popen([zeckdb_command, "build", "--summary-only", "--executor", "dask", "--address", address,
                                  "--n", "150..163", "--variant", "zeckendorf", "--db", str(db)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env={**os.environ, "ZECKDB_CLUSTER_SILENT_SECONDS": "2"})
        said: list[str] = []
        reader = threading.Thread(target=lambda: said.extend(build.stderr), daemon=True)  # type: ignore[arg-type]
        reader.start()
        try:
            victim = _stop_a_worker_holding_a_task(client, pids, build)
            frozen = next(a for a, pid in pids.items() if pid == victim)
            deadline = time.monotonic() + 120  # the bound is 2 s of silence; the rest is room for a busy machine
            while not any("has not been heard from" in line for line in said) and time.monotonic() < deadline:
                time.sleep(0.2)
            os.kill(victim, signal.SIGCONT)
            out = build.stdout.read()  # type: ignore[union-attr]
            build.wait(timeout=300)
            reader.join(timeout=30)
        finally:
            build.kill()
    named = [line for line in said if "has not been heard from" in line]
    assert len(named) == 1 and f"the Dask worker {frozen} has not been heard from for" in named[0], said
    assert build.returncode == 0 and "summarised zeckendorf for n = 150..163" in out, said


def _stop_a_worker_holding_a_task(client, pids: dict[str, int], build: subprocess.Popen) -> int:
    """Freeze (SIGSTOP) a worker while the scheduler sees it run a task; once it is frozen
    and still holds one, that task cannot have finished. The worker's pid."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and build.poll() is None:
        for address, keys in client.processing().items():
            if keys and address in pids:
                os.kill(pids[address], signal.SIGSTOP)
                time.sleep(0.5)  # messages the worker sent before it froze have arrived by now
                if client.processing().get(address):
                    return pids[address]
                os.kill(pids[address], signal.SIGCONT)
        time.sleep(0.05)
    raise AssertionError(f"no worker was seen holding a task (build exit status {build.poll()})")


@pytest.mark.parametrize("summary_only", [True, False])
def test_a_cluster_without_workers_stops_the_build_in_one_line(tmp_path, capsys, monkeypatch, summary_only):
    import zeckdb.distributed

    monkeypatch.setattr(zeckdb.distributed, "WORKERLESS_SECONDS", 2.0)
    db = tmp_path / "z.duckdb"
    with _cluster(tmp_path, workers=0) as (address, _):
        code, out, err = run(capsys, "build", *(["--summary-only"] if summary_only else []), "--executor", "dask",
                             "--address", address, "--n", "1..5", "--variant", "zeckendorf", "--db", str(db))
    assert code == 1 and not out and err.count("\n") == 1, err
    assert "the cluster has had no worker for 2 s" in err and "run the same command again to resume" in err


def test_a_shard_folder_another_driver_holds_is_refused(tmp_path):
    """Two builds given one --shards folder: one died with a 30-line traceback when the other
    ingested and removed the shards it was reading. One driver at a time holds the folder; the
    other is refused in one line before it submits anything (no cluster is needed to see it)."""
    from zeckdb.distributed import build_distributed, folder_lock
    from zeckdb.errors import UsageError
    from zeckdb.store import StoreWriter

    shards = tmp_path / "shared.shards"
    shards.mkdir()
    with (StoreWriter.open_write(tmp_path / "a.duckdb") as store, folder_lock(shards),
          pytest.raises(UsageError, match=r"in use by another build \(one driver at a time\)")):
        build_distributed(store, None, {}, shards)
    with StoreWriter.open_write(tmp_path / "b.duckdb") as store:  # released: the next driver takes it
        assert build_distributed(store, None, {}, shards) == ([], 0, 0)


@pytest.mark.parametrize("tamper", ["duplicate rows", "flip a winner", "escape in the start"])
def test_shards_that_are_not_what_their_task_wrote_are_refused(tmp_path, tamper):
    """A full build on a cluster ingested whatever its shard folder held: duplicated position
    rows, a flipped winner with its summary checksum recomputed, a start position holding
    terminal escapes. The driver now hashes the rows it reads against the checksums the task
    shipped with its result (not through the folder), and refuses a layer that differs."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from zeckdb.builder import LowerLayers, Step, _compute, analyse, layer_tables
    from zeckdb.distributed import ClusterError, _write_shards, read_shards
    from zeckdb.store import summary_rows_checksum
    from zeckdb.variants import get_variant

    from . import reference as ref

    game = get_variant("zeckendorf")
    todo = {9: [Step(game, True)]}
    records, _ = _compute(9, todo[9], {"zeckendorf": set()}, LowerLayers(todo))
    for job in analyse(records):
        job()
    root = tmp_path / "shards"
    shipped = _write_shards(root, layer_tables(records[0]))
    honest = read_shards(root, "zeckendorf", "zeckendorf", 9, False, True, shipped)
    assert honest.checksums == shipped and len(honest.positions) == len(ref.positions("zeckendorf", 9))
    if tamper == "duplicate rows":
        path = root / "positions" / "variant=zeckendorf" / "n=9" / "part-0.parquet"
        rows = pq.read_table(path)
        pq.write_table(pa.concat_tables([rows, rows]), path)
    else:
        path = root / "builds" / "variant=zeckendorf" / "n=9" / "part-0.parquet"
        row = pq.read_table(path).to_pylist()[0]
        if tamper == "flip a winner":
            row["winner"] = 3 - row["winner"]
        else:
            row["start_position"] = "\x1b]52;c;aGVsbG8=\x07(9)"
        checksum_free = {k: v for k, v in row.items() if not k.endswith("_checksum")}
        row["summary_checksum"] = summary_rows_checksum("zeckendorf", 9, checksum_free, honest.random_play,
                                                        honest.length_rows())  # recomputed, as a forger would
        pq.write_table(pa.Table.from_pylist([row], schema=pq.read_schema(path)), path)
    with pytest.raises(ClusterError, match=r"the shards of zeckendorf n = 9 in .* do not hold the rows its task wrote"):
        read_shards(root, "zeckendorf", "zeckendorf", 9, False, True, shipped)


def _honest_shards(root: Path) -> dict[str, int]:
    """Layer n = 9 of the Zeckendorf game written as a worker writes it; the checksums it ships."""
    from zeckdb.distributed import solve_to_shards

    (receipt,) = solve_to_shards(str(root), 9, [("zeckendorf", True, False)], [])
    return receipt["checksums"]


def test_a_link_in_the_shard_folder_leads_no_write_read_or_removal_elsewhere(tmp_path):
    """A layer's folder replaced by a link to a folder of the user's: the worker wrote its
    part-0.parquet through it (over the user's file of that name); the clean-up removed what the
    link led to. Every step below the folder is opened without following a link."""
    from zeckdb import shardfolder
    from zeckdb.distributed import ClusterError, read_shards, solve_to_shards

    root, users = tmp_path / "shards", tmp_path / "users"
    users.mkdir()
    (users / "part-0.parquet").write_bytes(b"the user's own file")
    (root / "positions" / "variant=zeckendorf").mkdir(parents=True)
    (root / "positions" / "variant=zeckendorf" / "n=9").symlink_to(users, target_is_directory=True)
    with pytest.raises(ClusterError, match="in the shard folder is not a folder .a link, or a file.."):
        solve_to_shards(str(root), 9, [("zeckendorf", True, False)], [])
    assert (users / "part-0.parquet").read_bytes() == b"the user's own file"
    (root / "positions" / "variant=zeckendorf" / "n=9").unlink()
    shipped = _honest_shards(root)
    (root / "builds" / "variant=zeckendorf" / "n=9" / "part-0.parquet").unlink()
    (root / "builds" / "variant=zeckendorf" / "n=9" / "part-0.parquet").symlink_to(users / "part-0.parquet")
    with pytest.raises(ClusterError, match="cannot be opened"):
        read_shards(root, "zeckendorf", "zeckendorf", 9, False, True, shipped)
    shardfolder.remove_layer(root, "zeckendorf", "zeckendorf", 9)
    shardfolder.tidy(root, remove_root=True)
    assert (users / "part-0.parquet").read_bytes() == b"the user's own file"  # the link is not zeckdb's: left
    assert [p.relative_to(root).as_posix() for p in root.rglob("*")] == [
        "builds", "builds/variant=zeckendorf", "builds/variant=zeckendorf/n=9",
        "builds/variant=zeckendorf/n=9/part-0.parquet"]


def test_a_folder_of_the_users_is_not_taken_as_a_shard_folder(tmp_path):
    """--shards naming a folder of the user's that holds only folders named like the tables
    (positions/thesis.txt) was accepted, and the clean-up deleted them."""
    from zeckdb.distributed import build_distributed
    from zeckdb.errors import UsageError
    from zeckdb.store import StoreWriter

    shards = tmp_path / "thesis"
    (shards / "positions").mkdir(parents=True)
    (shards / "positions" / "thesis.txt").write_text("four years")
    with StoreWriter.open_write(tmp_path / "a.duckdb") as store, \
            pytest.raises(UsageError, match="holds files zeckdb did not put there: name a new or empty folder"):
        build_distributed(store, None, {}, shards)
    assert (shards / "positions" / "thesis.txt").read_text() == "four years"
    (shards / "positions" / "thesis.txt").unlink()
    (shards / "positions").rmdir()
    with StoreWriter.open_write(tmp_path / "b.duckdb") as store:  # empty: taken, marked, tidied, left (the user's)
        assert build_distributed(store, None, {}, shards) == ([], 0, 0)
    assert [p.name for p in shards.iterdir()] == [".zeckdb-shards"]


@pytest.mark.parametrize("shard", ["a FIFO", "cut short", "a link to a text file", "a link to /dev/zero"])
def test_a_shard_that_is_no_parquet_file_is_one_line_and_no_hang(tmp_path, shard):
    """A FIFO as a shard hung the build ("still working" until killed); a truncated shard, a
    link to a text file or to /dev/zero gave a 40-line pyarrow traceback."""
    from zeckdb.distributed import ClusterError, read_shards

    root = tmp_path / "shards"
    shipped = _honest_shards(root)
    path = root / "positions" / "variant=zeckendorf" / "n=9" / "part-0.parquet"
    whole = path.read_bytes()
    path.unlink()
    if shard == "a FIFO":
        os.mkfifo(path)
    elif shard == "cut short":
        path.write_bytes(whole[: len(whole) // 2])
    elif shard == "a link to a text file":
        (tmp_path / "notes.txt").write_text("not parquet\n")
        path.symlink_to(tmp_path / "notes.txt")
    else:
        path.symlink_to("/dev/zero")
    with pytest.raises(ClusterError) as refused:
        read_shards(root, "zeckendorf", "zeckendorf", 9, False, True, shipped)
    assert "\n" not in str(refused.value) and "nothing of its layer is stored" in str(refused.value)


def test_every_wait_on_the_cluster_is_watched():
    """A frozen worker holding a finished task's result held the driver in future.result(), with
    no bound, so the watch that names a silent worker never ran. Every wait is now a wait of
    IDLE_SECONDS at most, the watch run between them (no cluster: a future that times out)."""
    from zeckdb.distributed import _result, _WorkerWatch

    class Fetching:  # a result held by a worker that does not answer, until it wakes
        tries = 0

        def result(self, timeout=None):
            assert timeout is not None  # never an unbounded wait
            self.tries += 1
            if self.tries < 3:
                raise TimeoutError
            return ["receipt"]

    class Watched(_WorkerWatch):
        def __init__(self):
            super().__init__(client=None, silent_seconds=60.0)
            self.checks = 0
            self.idled = 0
            self.idle = lambda: setattr(self, "idled", self.idled + 1)

        def check(self):
            self.checks += 1

    watch = Watched()
    assert _result(Fetching(), 9, watch) == ["receipt"]
    assert (watch.idled, watch.checks) == (2, 3)  # idle and a look at the cluster after each time out
