"""Builds are incremental, forceable, atomic per (variant, n), and resume after a kill."""

from __future__ import annotations

import os
from pathlib import Path
import signal
import subprocess
import sys
import threading
import time

import duckdb
import pytest

from .conftest import as_games, run

from zeckdb.builder import build, game_record
from zeckdb.store import Store, StoreWriter


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
    with StoreWriter.open_write(path) as store:
        first = build(store, as_games(["zeckendorf", "reversed"]), list(range(1, 6)))
        assert len(first.built) == 10
        second = build(store, as_games(["zeckendorf", "reversed"]), list(range(1, 9)))
        assert sorted(second.built) == sorted((v, n) for v in ["zeckendorf", "reversed"] for n in (6, 7, 8))
        assert build(store, as_games(["zeckendorf"]), list(range(1, 9))).built == []
        only_reversed = build(store, as_games(["reversed"]), [9])  # the graph layer is stored by whichever variant comes first
        assert only_reversed.built == [("reversed", 9)]
        assert build(store, as_games(["zeckendorf"]), [9]).built == [("zeckendorf", 9)]
        forced = build(store, as_games(["zeckendorf", "reversed"]), [4, 9], force=True)
        assert len(forced.built) == 4
    assert consistent(path) == []
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT count(*) FROM positions WHERE n = 9").fetchone()[0] == 2 * 17
    assert con.execute("SELECT count(*) FROM edges WHERE n = 9").fetchone()[0] == 32
    # a layer's edges are written by move code, then source (so that their targets compress)
    stored = con.execute("SELECT code, src FROM edge_rows JOIN graph_ids USING (graph_id) "
                         "WHERE graph = 'zeckendorf' AND n = 8").fetchall()  # in the order written
    assert len(stored) > 10 and len({c for c, _ in stored}) > 2 and stored == sorted(stored)


@pytest.mark.parametrize("failing", [7, 9])
def test_a_failed_distribution_rolls_back_its_layers_written_meanwhile(tmp_path, monkeypatch, failing):
    """A layer's length rows are inserted after its positions and edges, and the last layers
    (9: nothing is handed over after it) are inserted while their distributions are still
    computed; when a computation fails, none of its layer's rows may be committed."""
    from zeckdb.engine import solve

    real = solve.length_distribution
    taken = _taken_by_the_writer(monkeypatch)

    def failing_at(sweep, n, both=False):
        if n == failing:
            taken.wait_for({9})  # until the writer has taken the last layer
            raise RuntimeError("distribution failed")
        return real(sweep, n, both)

    monkeypatch.setattr(solve, "length_distribution", failing_at)
    path = tmp_path / "fail.duckdb"
    with StoreWriter.open_write(path) as store:
        try:
            build(store, as_games(["zeckendorf", "reversed"]), list(range(1, 10)))
        except RuntimeError as exc:
            assert str(exc) == "distribution failed"
        else:
            raise AssertionError("the build went on past a failed distribution")
    assert 9 in taken  # the situation named: the failure came once the writer had the last layer
    assert consistent(path) == []
    con = duckdb.connect(str(path), read_only=True)
    try:
        built = {n for (n,) in con.execute("SELECT DISTINCT n FROM builds").fetchall()}
        # what the failed write took with the failing n is rolled back with it; other layers may commit
        assert failing not in built
        assert con.execute("SELECT count(*) FROM positions WHERE n = ?", [failing]).fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM edges WHERE n = ?", [failing]).fetchone()[0] == 0
    finally:
        con.close()
    monkeypatch.setattr(solve, "length_distribution", real)
    with StoreWriter.open_write(path) as store:  # and a build resumes from there
        resumed = build(store, as_games(["zeckendorf", "reversed"]), list(range(1, 10))).built
        assert ("zeckendorf", failing) in resumed and ("reversed", failing) in resumed
        assert store.reads.built_ns("zeckendorf") == store.reads.built_ns("reversed") == set(range(1, 10))
    assert consistent(path) == []


def test_a_failed_write_commits_no_layer_after_it(tmp_path, monkeypatch):
    """A write that fails (here a game's format() raising for n = 11, which runs as the writer
    makes a layer's rows; a disk error alike) stopped the build, but the writer went on with
    the later batches: with a game whose moves reach lower layers, layers above 11 were
    committed without 11. Nothing is committed after a failed write, and the build stops."""
    from zeckdb import variants
    from zeckdb.variants.black_hole import BlackHole

    class Fragile(BlackHole):
        def __init__(self) -> None:
            super().__init__(3)
            self.name = "fragile"

        def format(self, position):
            if self.layer_of(position) == 11:
                raise RuntimeError("no text for n = 11")
            return super().format(position)

    game = Fragile()
    monkeypatch.setitem(variants._instances, "fragile", game)
    path = tmp_path / "fragile.duckdb"
    with StoreWriter.open_write(path) as store, pytest.raises(RuntimeError, match="no text for n = 11"):
        build(store, [game], list(range(0, 41)), threads=2)
    with duckdb.connect(str(path), read_only=True) as con:
        built = sorted(n for (n,) in con.execute("SELECT n FROM builds WHERE variant = 'fragile'").fetchall())
    # no layer from the failed one on; below it, layers whose moves reach no lower layer (n < 3)
    # commit in any order, and a layer only with the layer its moves reach (n - F_3)
    assert all(n < 11 for n in built), built
    assert all(n - 3 in built for n in built if n >= 3), built


def test_a_failure_after_a_commit_stops_the_build_too(tmp_path, monkeypatch):
    """What the writer does after a commit (let a waiting reader in, report progress) may fail
    too (a progress line to a closed terminal): the build stops with that error, the layers of
    that write stay committed and nothing is written after them."""
    taken = _taken_by_the_writer(monkeypatch)
    reports: list[str] = []

    def progress(work: int, what: str) -> None:
        reports.append(what)
        raise OSError("standard error is closed")

    path = tmp_path / "progress.duckdb"
    with StoreWriter.open_write(path) as store, pytest.raises(OSError, match="standard error is closed"):
        build(store, as_games(["zeckendorf"]), list(range(1, 41)), progress=progress)
    with duckdb.connect(str(path), read_only=True) as con:
        built = {n for (n,) in con.execute("SELECT n FROM builds WHERE variant = 'zeckendorf'").fetchall()}
    assert len(reports) == 1 and built and built == set(taken), (reports, built, taken)
    assert consistent(path) == []


def test_an_idle_writer_lets_readers_in(tmp_path, monkeypatch):
    """While the next layer is still being solved the writer has nothing to write: after
    IDLE_SECONDS it lets the file go, and a reader opens it and finds every layer committed
    so far. (Letting a waiting reader in after each commit is switched off here, so only the
    idle writer can let it in.)"""
    from zeckdb import builder
    from zeckdb.store import StoreWriter

    taken = _taken_by_the_writer(monkeypatch)
    real = builder._compute
    read: dict[str, object] = {}
    path = tmp_path / "idle.duckdb"

    def last_waits_for_a_reader(n, *args):
        if n == 12:
            taken.wait_for(set(range(1, 12)))  # every layer before it taken
            try:
                with Store.open_read(path, timeout=30) as reader:
                    read["built"] = sorted(n for (n,) in reader.rows("SELECT n FROM builds"))
            except Exception as exc:
                read["error"] = exc
        return real(n, *args)

    monkeypatch.setattr(builder, "_compute", last_waits_for_a_reader)
    monkeypatch.setattr(StoreWriter, "let_readers_in", lambda self: None)
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf"]), list(range(1, 13)))
    assert read == {"built": list(range(1, 12))}, read
    assert consistent(path) == []


def _commit_order(monkeypatch, hold_5) -> Taken:
    """The n of each layer as the writer takes it, from now on, with n = 5's distribution
    computed only once hold_5() returns."""
    from zeckdb.engine import solve

    real = solve.length_distribution

    def held_at_5(sweep, n, both=False):
        if n == 5:
            hold_5()
        return real(sweep, n, both)

    monkeypatch.setattr(solve, "length_distribution", held_at_5)
    return _taken_by_the_writer(monkeypatch)


class Taken(list):
    """The n of each layer as the build's writer takes it, and a wait for what it has taken."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = threading.Condition()

    def record(self, ns: list[int]) -> None:
        with self.changed:
            self.extend(ns)
            self.changed.notify_all()

    def wait_for(self, ns: set[int]) -> None:
        """Until the writer has taken every layer of `ns` (a handshake: however long a loaded
        machine takes; a hang meets the suite's timeout, with every thread's stack)."""
        with self.changed:
            self.changed.wait_for(lambda: ns <= set(self))


def _taken_by_the_writer(monkeypatch) -> Taken:
    """The n of each layer as the build's writer takes it to write, from now on."""
    from zeckdb import builder

    real_take = builder._Writer._take
    taken = Taken()

    def recorded(waiting, finishing):
        batches = real_take(waiting, finishing)
        taken.record([r.n for batch in batches for r in batch.records])
        return batches

    monkeypatch.setattr(builder._Writer, "_take", staticmethod(recorded))
    return taken


def test_a_layer_still_analysed_does_not_hold_back_the_layers_after_it(tmp_path, monkeypatch):
    """The writer commits the layers whose distributions are done; one still analysed (the
    ordered game's largest take half a minute) waits for a later write, and every layer is
    committed whole in the end."""
    def until_8_is_written():
        committed.wait_for({8})

    committed = _commit_order(monkeypatch, until_8_is_written)
    path = tmp_path / "order.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf"]), list(range(1, 11)))
        assert store.reads.built_ns("zeckendorf") == set(range(1, 11))
    assert committed.index(8) < committed.index(5) and sorted(committed) == list(range(1, 11))
    assert consistent(path) == []


def test_a_layer_waits_for_the_lower_layers_its_moves_reach(tmp_path, monkeypatch):
    """A Black Hole game's moves reach lower layers (those of n = 8 reach n = 5 and 2). With
    n = 5's distribution slow, the layers that do not reach it are committed before it, and
    those that do only after it: a reader never finds a layer without the layers it needs."""
    from zeckdb.variants import get_variant

    def until_6_and_7_are_written():
        committed.wait_for({6, 7})

    committed = _commit_order(monkeypatch, until_6_and_7_are_written)
    path = tmp_path / "lower.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["black-hole-3"]), list(range(1, 13)))
    order = {n: i for i, n in enumerate(committed)}
    variant = get_variant("black-hole-3")
    assert variant.closure(8)[1:] == [5, 2]
    for n in range(1, 13):
        assert all(order[low] < order[n] for low in variant.closure(n)[1:]), (n, committed)
    assert order[6] < order[5] and order[7] < order[5], committed
    assert consistent(path) == []


KILL_N = 90  # the kill comes at the first progress line, well before n = 90; resuming stays short


def test_killed_build_keeps_committed_layers_and_resumes(tmp_path):
    """SIGKILL once layers are committed: the build prints its first progress line only after
    their commit (at 10 % of the work, most of it still ahead). The size of the write-ahead
    log is no sign of a commit: a transaction of many small layers may write a megabyte of
    it before its commit is complete (CI once killed such a build with nothing committed)."""
    path = tmp_path / "kill.duckdb"
    cmd = [sys.executable, "-c", "from zeckdb.cli.main import main; main()", "build", "--n", f"1..{KILL_N}",
           "--variant", "zeckendorf", "--variant", "reversed", "--db", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    said = list(_lines_until(proc.stderr, "building zeckendorf"))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert said and said[-1].startswith("building zeckendorf"), said
    assert consistent(path) == []
    con = duckdb.connect(str(path), read_only=True)
    done_before = con.execute("SELECT count(*) FROM builds").fetchone()[0]
    con.close()
    assert 0 < done_before < 2 * KILL_N, "the kill should land mid-build"
    with StoreWriter.open_write(path) as store:
        report = build(store, as_games(["zeckendorf", "reversed"]), list(range(1, KILL_N + 1)))
    assert len(report.built) == 2 * KILL_N - done_before
    assert consistent(path) == []


def _lines_until(stream, start: str):
    """The stream's lines up to and including the first that starts with `start`."""
    for line in stream:
        yield line
        if line.startswith(start):
            return


def test_ctrl_c_says_what_is_kept_and_exits_130(tmp_path):
    path = tmp_path / "int.duckdb"
    cmd = [sys.executable, "-c", "from zeckdb.launch import main; main()", "build", "--n", "1..115",
           "--variant", "zeckendorf", "--db", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # The first progress line comes at 10 % of the work, when the small layers are written and
    # most of the work is still ahead, however fast or loaded the machine is. Notices (a wait for
    # another process's compile, on a busy machine) may come before it: they are read past.
    said = []
    for line in proc.stderr:
        said.append(line)
        if line.startswith("building zeckendorf"):
            break
    assert said and said[-1].startswith("building zeckendorf"), said
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate()
    assert proc.returncode == 130, "".join(said) + rest
    *progress, last = ("".join(said) + rest).splitlines()
    assert all(line.startswith(("building zeckendorf", "zeckdb: waiting for")) for line in progress), progress
    assert last.startswith("zeckdb: interrupted; n = 1..") and last.endswith(
        "are committed, run the same command again to resume"), last
    assert consistent(path) == []


def test_ctrl_c_inside_compiled_code_is_an_interrupt(tmp_path, monkeypatch):
    """Ctrl-C landing while a numba kernel calls back into Python reaches the build as a
    SystemError caused by the KeyboardInterrupt: it is an interrupt all the same (exit 130,
    not a traceback). Any other SystemError is not."""

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

    def stopped_statement(*args, **kwargs):  # what DuckDB raises for a Ctrl-C during a statement
        raise RuntimeError("Query interrupted")

    monkeypatch.setattr(builder, "build", stopped_statement)
    with pytest.raises(api.BuildInterrupted):
        api.build(tmp_path / "c.duckdb", ["zeckendorf"], "1..3")


EARLY_CTRL_C_SECONDS = (0.15, 0.3, 0.6, 0.9, 1.2)  # loading, opening the file, registering, building


def test_ctrl_c_early_is_an_interrupt_too(tmp_path):
    """Ctrl-C at moments of a build's first second: while its modules load, while DuckDB
    creates the file or registers the variants (DuckDB stops its statement and raises a
    RuntimeError in the KeyboardInterrupt's place), and while the first layers are built.
    Each ends with exit 130 and no traceback (a one-line message once the build has begun;
    typer exits 130 silently while it parses the options), and what is left opens and
    resumes to a complete build. Exit 0 only where the build was done before the signal
    came; a Ctrl-C dropped by numba's compiler callbacks would say "Exception ignored"."""
    for i, delay in enumerate(EARLY_CTRL_C_SECONDS):
        path = tmp_path / f"early{i}.duckdb"
        # the delays count from the interpreter being up (a busy machine may take seconds to start
        # Python, and a signal before Python handles it is the operating system's, not zeckdb's)
        cmd = [sys.executable, "-c", "import sys; print('up', file=sys.stderr, flush=True); "
               "from zeckdb.launch import main; main()", "build", "--n", "1..40", "--variant", "zeckendorf",
               "--db", str(path)]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert proc.stderr is not None and proc.stderr.readline() == "up\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate()
        assert proc.returncode in (0, 130) and "Traceback" not in err and "Exception ignored" not in err, \
            (delay, proc.returncode, err)
        if proc.returncode == 0:
            assert err.strip().endswith("100% of the work done"), (delay, err)
        if proc.returncode == 130 and err.strip():
            assert err.strip().splitlines()[-1].startswith("zeckdb: interrupted"), (delay, err)
        assert not path.with_name(path.name + ".new").exists()  # the new file's schema, written aside
        if path.exists():
            assert consistent(path) == []
        with StoreWriter.open_write(path) as store:
            build(store, as_games(["zeckendorf"]), list(range(1, 41)))
            assert store.reads.built_ns("zeckendorf") == set(range(1, 41))
        assert consistent(path) == []


# Put on PYTHONPATH as sitecustomize: a Ctrl-C sent the moment one module is looked for.
CTRL_C_AT_IMPORT = """
import os, signal, sys

class CtrlCAt:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["CTRL_C_AT_IMPORT_OF"]:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlCAt())
"""


@pytest.mark.parametrize("module", ["zeckdb.cli", "zeckdb.errors", "zeckdb.interrupts", "typer", "duckdb",
                                    "numpy", "zeckdb.builder"])
def test_ctrl_c_while_the_command_loads_is_one_line(tmp_path, module):
    """The `zeckdb` command itself (the console script pip writes) with a Ctrl-C at the import
    of one module after another: while zeckdb.cli, the modules its main() imports before it
    can catch a Ctrl-C, then the heavy ones. Each ends in one line and exit 130, no
    traceback and no file. (Only the console script's own first lines and `import zeckdb`
    come before zeckdb.launch holds a Ctrl-C.)"""
    command = Path(sys.executable).with_name("zeckdb")
    assert command.exists(), f"no {command}: install zeckdb as the README says"
    (tmp_path / "sitecustomize.py").write_text(CTRL_C_AT_IMPORT)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "CTRL_C_AT_IMPORT_OF": module}
    path = tmp_path / "loading.duckdb"
    done = subprocess.run([str(command), "build", "--variant", "zeckendorf", "--n", "1..5", "--db", str(path)],
                          capture_output=True, text=True, env=env, timeout=300,
                          # SIGINT as a terminal gives it: a shell's background job (the suite's too) ignores it
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.returncode == 130 and done.stderr.strip().splitlines() == ["zeckdb: interrupted"], \
        (module, done.returncode, done.stderr[-2000:])
    assert not path.exists()


def test_ctrl_c_as_a_finished_build_exits_changes_nothing(tmp_path):
    """A Ctrl-C just after the last layer's line, while Python shuts down (its default
    handler back in place), leaves a finished build's exit 0 (or 130 if it came before the
    end of the command), never a death by the signal."""
    for i, delay in enumerate((0.0, 0.05, 0.1, 0.2)):
        path = tmp_path / f"late{i}.duckdb"
        cmd = [sys.executable, "-c", "from zeckdb.launch import main; main()", "build", "--n", "1..12",
               "--variant", "zeckendorf", "--db", str(path)]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.strip().endswith("100% of the work done"):
                break
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        err = proc.stderr.read()
        assert proc.wait() in (0, 130) and "Traceback" not in err, (delay, proc.returncode, err)
        with Store.open_read(path) as store:
            assert store.built_ns("zeckendorf") == set(range(1, 13))


LOST_CTRL_C = """
import signal, sys, time
from zeckdb.interrupts import keep_ctrl_c_from_vanishing

class Finaliser:
    def __del__(self):
        raise KeyboardInterrupt  # as a Ctrl-C landing in a finaliser the collector runs

keep_ctrl_c_from_vanishing()
if sys.argv[1] == "ignored":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
try:
    Finaliser()
    time.sleep(60 if sys.argv[1] == "python" else 0.5)
    print("lost")
except KeyboardInterrupt:
    print("raised")
"""


@pytest.mark.parametrize("handler, expected", [("python", "raised"), ("ignored", "lost")])
def test_ctrl_c_inside_a_finaliser_is_raised_again_not_lost(handler, expected):
    """Python cannot propagate a KeyboardInterrupt out of a finaliser or a weak reference's
    callback: it prints "Exception ignored" and a traceback, and the Ctrl-C is lost (a build
    would go on). zeckdb delivers it again, to be raised where it can propagate; where a
    Ctrl-C is ignored (the command is over) it is dropped without a word."""
    done = subprocess.run([sys.executable, "-c", LOST_CTRL_C, handler], capture_output=True, text=True, timeout=120,
                          # Python's handler, as under a terminal: a shell's background job inherits SIGINT ignored
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, expected, "")


def test_other_exceptions_in_a_finaliser_are_still_reported():
    code = LOST_CTRL_C.replace("raise KeyboardInterrupt", "raise ValueError('reported')")
    done = subprocess.run([sys.executable, "-c", code, "ignored"], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "lost" and "ValueError: reported" in done.stderr


def test_a_statement_stopped_by_ctrl_c_rolls_back_and_is_an_interrupt():
    """DuckDB's Python client takes a Ctrl-C arriving during a statement, aborts the
    transaction and raises RuntimeError("Query interrupted"); inside the store's transactions
    that is rolled back and raised as the KeyboardInterrupt it was, leaving the connection
    usable. (A real SIGINT stops a statement only between DuckDB's tasks, after anything from
    a moment to the whole statement, so the abort is made by a failing statement here.)"""
    from zeckdb.store import interrupted_statement, transaction

    con = duckdb.connect()
    try:
        con.execute("CREATE TABLE t (x INTEGER NOT NULL)")
        with pytest.raises(KeyboardInterrupt) as caught, transaction(con):
            con.execute("INSERT INTO t VALUES (1)")
            try:
                con.execute("INSERT INTO t VALUES (NULL)")
            except duckdb.ConstraintException:
                raise RuntimeError("Query interrupted") from None
        assert interrupted_statement(caught.value.__cause__)
        with transaction(con):  # not "Current transaction is aborted"
            con.execute("INSERT INTO t VALUES (2)")
        assert con.execute("SELECT x FROM t").fetchall() == [(2,)]
        with pytest.raises(RuntimeError, match="not Ctrl-C"), transaction(con):
            con.execute("INSERT INTO t VALUES (3)")
            raise RuntimeError("not Ctrl-C")
        assert con.execute("SELECT x FROM t").fetchall() == [(2,)]
    finally:
        con.close()


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


def test_a_game_registered_again_is_stored_as_it_is_now(tmp_path):
    """Registering a game that changed nothing writes nothing; one that changed (a plugin's
    new release: its title, move names or columns) is stored as it is now."""
    from zeckdb.variants import get_variant

    path = tmp_path / "r.duckdb"
    game = get_variant("zeckendorf")

    class NewMoveNames(type(game)):
        @property
        def move_names(self):
            return [f"{name} (new)" for name in game.move_names]

    class NewTitle(NewMoveNames):
        title = "Zeckendorf, renamed"

    with StoreWriter.open_write(path) as store:
        for registered in (game, game, NewMoveNames(), NewTitle(), game):  # one change at a time
            store.register_variant(game_record(registered))
            stored = store.reads.rows("SELECT title FROM variants WHERE variant = 'zeckendorf'")
            names = [r[0] for r in store.reads.rows("SELECT name FROM move_names WHERE variant = 'zeckendorf' ORDER BY code")]
            assert stored == [(registered.title,)] and names == list(registered.move_names)
        ids = store.reads.rows("SELECT variant_id FROM variant_ids WHERE variant = 'zeckendorf'")
        assert len(ids) == 1  # its id is kept


# A build in a process of its own, traced at the standard library's thread pools and locks
# (threading, concurrent.futures, queue) in the main thread, the one that gets Ctrl-C.
TRACED_BUILD = """
import os, signal, sys, tempfile, faulthandler
from pathlib import Path
import zeckdb

THREADS = ("threading.py", "concurrent/futures/", "queue.py")
mode, ks = sys.argv[1], [int(k) for k in sys.argv[2:]]
unguarded, guarded, count, at = set(), 0, 0, -1

def tracer(frame, event, arg):
    global guarded
    if not any(s in frame.f_code.co_filename for s in THREADS):
        return None
    if mode == "check":
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            unguarded.add(frame.f_code.co_qualname)
        else:
            guarded += 1
        return None
    frame.f_trace_opcodes = True
    return opcode

def opcode(frame, event, arg):
    global count
    if event == "opcode":
        count += 1
        if count == at:
            os.kill(os.getpid(), signal.SIGINT)
    return opcode

folder = Path(tempfile.mkdtemp())
zeckdb.build(folder / "warm.duckdb", ["zeckendorf"], "1..10")  # modules and kernels loaded
for k in ks:
    count, at = 0, k
    faulthandler.dump_traceback_later(60, exit=True)  # a build waiting for ever fails, with its stacks
    sys.settrace(tracer)
    try:
        zeckdb.build(folder / f"{k}.duckdb", ["zeckendorf"], "1..10")
    except KeyboardInterrupt:
        pass
    finally:
        sys.settrace(None)
        faulthandler.cancel_dump_traceback_later()
print(repr((sorted(unguarded), guarded)))
"""


def test_ctrl_c_is_held_while_the_main_thread_is_inside_a_thread_pools_locks():
    """A KeyboardInterrupt raised just after a lock of a thread pool or a future was taken leaves
    it taken, and the build's next call into the pool waits for ever (a Ctrl-C moment of the
    test above once hung so). Every such call of the builder's main thread must hold Ctrl-C:
    of the standard library's thread code, only constructors and the current-thread lookups
    may run while Python's own handler is in place."""
    import ast

    done = subprocess.run([sys.executable, "-c", TRACED_BUILD, "check", "-1"], capture_output=True, text=True,
                          timeout=600, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as a terminal
    assert done.returncode == 0, done.stderr
    unguarded, guarded = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert guarded > 100  # the build's calls into its pools were seen, held
    assert {name for name in unguarded if not name.endswith("__init__")} <= {"current_thread", "main_thread"}


@pytest.mark.slow
def test_ctrl_c_at_every_point_of_the_thread_pools_code_ends_the_build():
    """Ctrl-C at one bytecode after another of the standard library's thread code, as the main
    thread runs it during a build: every build ends, interrupted or done, none waits for ever."""
    ks = [str(k) for k in range(1, 12_000, 37)]
    done = subprocess.run([sys.executable, "-c", TRACED_BUILD, "interrupt", *ks], capture_output=True, text=True,
                          timeout=1800, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as a terminal
    assert done.returncode == 0, done.stderr[-3000:]


def test_layers_solved_at_once_are_stored_as_one_at_a_time_stores_them(tmp_path, capsys):
    """With threads, layers of games that stay in their layer are solved side by side, and games
    whose moves reach lower layers keep their order: every stored row is the same (the layer
    checksums, which cover every row, and verify)."""
    games = ["zeckendorf", "reversed", "black-hole-3", "fibonacci-nim"]
    sums = []
    for threads in (1, 3):
        db = tmp_path / f"t{threads}.duckdb"
        code, _, err = run(capsys, "build", "--n", "1..30", *[a for g in games for a in ("--variant", g)],
                           "--threads", str(threads), "--db", str(db))
        assert code == 0, err
        con = duckdb.connect(str(db), read_only=True)
        sums.append(con.execute("SELECT variant, n, positions_checksum, edges_checksum, summary_checksum FROM builds "
                                "ORDER BY ALL").fetchall())
        con.close()
        assert run(capsys, "verify", "--db", str(db))[0] == 0
    assert sums[0] == sums[1] and len(sums[0]) > 100


@pytest.mark.parametrize(("threads", "says"), [("0", "--threads 0 is not a whole number from 1 to 4,096"),
                                               ("-2", "--threads -2 is not a whole number from 1 to 4,096"),
                                               ("100000", "--threads 100000 is not a whole number from 1 to 4,096"),
                                               ("two", "invalid value for '--threads'")])
def test_a_bad_thread_count_gets_one_line_and_writes_nothing(tmp_path, capsys, threads, says):
    db = tmp_path / "none.duckdb"
    code, _, err = run(capsys, "build", "--n", "1..5", "--variant", "zeckendorf", "--threads", threads, "--db", str(db))
    assert code == 2 and says in err and "Traceback" not in err, err
    assert not db.exists()


def test_more_threads_than_cores_is_allowed_with_a_notice(tmp_path, capsys):
    from zeckdb.settings import usable_cores

    more = usable_cores() + 3
    code, out, err = run(capsys, "build", "--n", "1..5", "--variant", "zeckendorf", "--threads", str(more),
                         "--db", str(tmp_path / "t.duckdb"))
    assert code == 0 and out.startswith("built zeckendorf")
    assert f"zeckdb: {more} threads on the {usable_cores()} core" in err


def test_made_ahead_keeps_order_and_asks_for_no_more_than_ahead():
    """The rows a writer inserts are made `ahead` layers ahead of it, never more (memory),
    in order; what is not taken when the write stops is cancelled."""
    from concurrent.futures import ThreadPoolExecutor

    from zeckdb.interrupts import made_ahead

    asked: list[int] = []

    def calls():
        for i in range(10):
            asked.append(i)
            yield lambda i=i: i * i

    with ThreadPoolExecutor(2) as pool:
        made = made_ahead(pool, calls(), 2)
        assert [next(made), next(made)] == [0, 1]
        assert asked == [0, 1, 2, 3]  # the two taken and two ahead
        made.close()
        assert list(made_ahead(pool, calls(), 2)) == [i * i for i in range(10)]
