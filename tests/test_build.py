"""Builds are incremental, forceable, atomic per (variant, n), and resume after a kill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import duckdb

from zeckdb.builder import build
from zeckdb.store import Store


def consistent(path) -> list:
    """Rows that break atomicity: a build row whose positions or edges are not all there, or orphans."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("""
            SELECT 'positions', b.variant, b.n FROM builds b
            LEFT JOIN (SELECT variant, n, count(*) AS k FROM positions GROUP BY ALL) p USING (variant, n)
            WHERE coalesce(p.k, 0) <> b.positions
            UNION ALL
            SELECT 'orphan positions', variant, n FROM (SELECT DISTINCT variant, n FROM positions)
            WHERE (variant, n) NOT IN (SELECT (variant, n) FROM builds)
            UNION ALL
            SELECT 'edges', g.graph, g.n FROM graph_layers g
            LEFT JOIN (SELECT graph, n, count(*) AS k FROM edges GROUP BY ALL) e USING (graph, n)
            WHERE coalesce(e.k, 0) <> g.edges
            UNION ALL
            SELECT 'orphan edges', graph, n FROM (SELECT DISTINCT graph, n FROM edges)
            WHERE (graph, n) NOT IN (SELECT (graph, n) FROM graph_layers)""").fetchall()
    finally:
        con.close()


def test_incremental_build_computes_only_what_is_missing(tmp_path):
    path = tmp_path / "inc.duckdb"
    with Store.open_write(path) as store:
        first = build(store, ["zeckendorf", "reversed"], list(range(1, 6)))
        assert len(first.built) == 10
        second = build(store, ["zeckendorf", "reversed"], list(range(1, 9)))
        assert sorted(second.built) == sorted((v, n) for v in ["zeckendorf", "reversed"] for n in (6, 7, 8))
        assert build(store, ["zeckendorf"], list(range(1, 9))).built == []
        only_reversed = build(store, ["reversed"], [9])  # the graph layer is stored by whichever variant comes first
        assert only_reversed.built == [("reversed", 9)]
        assert build(store, ["zeckendorf"], [9]).built == [("zeckendorf", 9)]
        forced = build(store, ["zeckendorf", "reversed"], [4, 9], force=True)
        assert len(forced.built) == 4
    assert consistent(path) == []
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT count(*) FROM positions WHERE n = 9").fetchone()[0] == 2 * 17
    assert con.execute("SELECT count(*) FROM edges WHERE n = 9").fetchone()[0] == 32
    # a layer's edges are written by move code, then source (so that their targets compress)
    stored = con.execute("SELECT code, src FROM edge_rows JOIN graph_ids USING (graph_id) "
                         "WHERE graph = 'zeckendorf' AND n = 8").fetchall()  # in the order written
    assert len(stored) > 10 and len({c for c, _ in stored}) > 2 and stored == sorted(stored)


def test_a_failed_distribution_rolls_back_its_layers_written_meanwhile(tmp_path, monkeypatch):
    """The writer inserts a layer's positions and edges while its length distribution is still
    being computed; when that computation fails, none of them may be committed."""
    from zeckdb.engine import solve

    real = solve.length_distribution

    def failing_at_7(solution, n, mirror=None):
        if n == 7:
            raise RuntimeError("distribution failed")
        return real(solution, n, mirror)

    monkeypatch.setattr(solve, "length_distribution", failing_at_7)
    path = tmp_path / "fail.duckdb"
    with Store.open_write(path) as store:
        try:
            build(store, ["zeckendorf", "reversed"], list(range(1, 10)))
        except RuntimeError as exc:
            assert str(exc) == "distribution failed"
        else:
            raise AssertionError("the build went on past a failed distribution")
    assert consistent(path) == []
    con = duckdb.connect(str(path), read_only=True)
    try:
        built = {n for (n,) in con.execute("SELECT DISTINCT n FROM builds").fetchall()}
        # what the failed write took with n = 7 is rolled back with it; a layer handed over after may commit
        assert 7 not in built
        assert con.execute("SELECT count(*) FROM positions WHERE n = 7").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM edges WHERE n = 7").fetchone()[0] == 0
    finally:
        con.close()
    monkeypatch.setattr(solve, "length_distribution", real)
    with Store.open_write(path) as store:  # and a build resumes from there
        resumed = build(store, ["zeckendorf", "reversed"], list(range(1, 10))).built
        assert ("zeckendorf", 7) in resumed and ("reversed", 7) in resumed
        assert store.built_ns("zeckendorf") == store.built_ns("reversed") == set(range(1, 10))
    assert consistent(path) == []


KILL_N = 90  # the kill comes once a megabyte of layers was committed, well before n = 90; resuming stays short


def wait_for_layers(path, committed: int = 1_000_000) -> None:
    """Return once a build writing `path` has committed layers, or after two minutes: a commit
    writes its transaction to the write-ahead log (NAME.wal), which holds `committed` bytes
    long before the build's first checkpoint moves it into the file (the file's own size says
    nothing: registering the variants gives tables their first blocks before any layer)."""
    wal = path.with_name(path.name + ".wal")
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if wal.stat().st_size > committed:
                return
        except FileNotFoundError:  # not yet, or a checkpoint just removed it
            pass
        time.sleep(0.01)


def test_killed_build_keeps_committed_layers_and_resumes(tmp_path):
    path = tmp_path / "kill.duckdb"
    cmd = [sys.executable, "-c", "from zeckdb.cli.main import main; main()", "build", "--n", f"1..{KILL_N}",
           "--variant", "zeckendorf", "--variant", "reversed", "--db", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_layers(path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert consistent(path) == []
    con = duckdb.connect(str(path), read_only=True)
    done_before = con.execute("SELECT count(*) FROM builds").fetchone()[0]
    con.close()
    assert 0 < done_before < 2 * KILL_N, "the kill should land mid-build"
    with Store.open_write(path) as store:
        report = build(store, ["zeckendorf", "reversed"], list(range(1, KILL_N + 1)))
    assert len(report.built) == 2 * KILL_N - done_before
    assert consistent(path) == []


def test_ctrl_c_says_what_is_kept_and_exits_130(tmp_path):
    path = tmp_path / "int.duckdb"
    cmd = [sys.executable, "-c", "from zeckdb.cli.main import main; main()", "build", "--n", "1..115",
           "--variant", "zeckendorf", "--db", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # The first progress line comes at 10 % of the work, when the small layers are written and
    # most of the work is still ahead, however fast or loaded the machine is.
    first = proc.stderr.readline()
    assert first.startswith("building n="), first
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate()
    assert proc.returncode == 130, first + rest
    *progress, last = (first + rest).splitlines()
    assert all(line.startswith("building n=") for line in progress), progress
    assert last.startswith("zeckdb: interrupted; n = 1..") and last.endswith(
        "are committed, run the same command again to resume"), last
    assert consistent(path) == []


def test_ctrl_c_inside_compiled_code_is_an_interrupt(tmp_path, monkeypatch):
    """Ctrl-C landing while a numba kernel calls back into Python reaches the build as a
    SystemError caused by the KeyboardInterrupt: it is an interrupt all the same (exit 130,
    not a traceback). Any other SystemError is not."""
    import pytest

    from zeckdb import api, builder

    def raising(cause: BaseException):
        def run(*args, **kwargs):
            try:
                raise cause
            except BaseException as exc:
                raise SystemError("CPUDispatcher(<function chip_moves>) returned a result with an exception set") \
                    from exc
        return run

    monkeypatch.setattr(builder, "build", raising(KeyboardInterrupt()))
    with pytest.raises(api.BuildInterrupted):
        api.build(tmp_path / "a.duckdb", ["zeckendorf"], "1..3")
    monkeypatch.setattr(builder, "build", raising(ValueError("a bug")))
    with pytest.raises(SystemError):
        api.build(tmp_path / "b.duckdb", ["zeckendorf"], "1..3")


def test_default_build_with_force_on_variants_that_share_a_graph(tmp_path, capsys):
    """zeckendorf and reversed share one graph: --force writes each graph layer once, on a new
    file and on a built one (it used to fail with a duplicate key)."""
    from zeckdb.cli.main import main

    path = tmp_path / "force.duckdb"
    for _ in range(2):
        try:
            main(["build", "--n", "1..4", "--force", "--db", str(path)])
        except SystemExit as exc:
            assert not exc.code, capsys.readouterr().err
        assert capsys.readouterr().out.startswith("built zeckendorf, reversed, quilt")
    assert consistent(path) == []
    try:
        main(["verify", "--db", str(path)])
    except SystemExit as exc:
        assert not exc.code, capsys.readouterr().err
