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


def test_killed_build_keeps_committed_layers_and_resumes(tmp_path):
    path = tmp_path / "kill.duckdb"
    cmd = [sys.executable, "-c", "from zeckdb.cli.main import main; main()", "build", "--n", "1..115",
           "--variant", "zeckendorf", "--variant", "reversed", "--db", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not (path.exists() and path.stat().st_size > 3_000_000):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert consistent(path) == []
    con = duckdb.connect(str(path), read_only=True)
    done_before = con.execute("SELECT count(*) FROM builds").fetchone()[0]
    con.close()
    assert 0 < done_before < 230, "the kill should land mid-build"
    with Store.open_write(path) as store:
        report = build(store, ["zeckendorf", "reversed"], list(range(1, 116)))
    assert len(report.built) == 230 - done_before
    assert consistent(path) == []


def test_ctrl_c_says_what_is_kept_and_exits_130(tmp_path):
    path = tmp_path / "int.duckdb"
    cmd = [sys.executable, "-c", "from zeckdb.cli.main import main; main()", "build", "--n", "1..115",
           "--variant", "zeckendorf", "--db", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    while time.time() < deadline and not (path.exists() and path.stat().st_size > 3_000_000):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate()
    assert proc.returncode == 130, err
    assert err.startswith("zeckdb: interrupted; n = 1..") and err.rstrip().endswith(
        "are committed, run the same command again to resume")
    assert consistent(path) == []


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
