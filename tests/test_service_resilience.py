"""The service keeps answering whatever misbehaves outside it: a log reader that stops reading,
a plugin that holds its GIL or leaves children behind, a Host header naming someone else.
Each case runs a real `zeckdb serve` (uvicorn) and a real HTTP client, on loopback."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from .http import free_port, get, request
from .test_plugins import install

pytestmark = pytest.mark.xdist_group("service-resilience")


def _start(db: Path, env: dict[str, str] | None = None, **streams: object) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "zeckdb.cli.main", "serve", "--db", str(db), "--port", str(port)],
                            env={**os.environ, **(env or {})}, **streams)  # type: ignore[call-overload]
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return proc, base
        except OSError:
            assert proc.poll() is None, "zeckdb serve exited"
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("zeckdb serve did not answer")


def _ended_within(proc: subprocess.Popen, seconds: float) -> bool:
    try:
        proc.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return False


def test_a_log_reader_that_stops_reading_costs_log_lines_never_answers(small_db):
    """`zeckdb serve 2>&1 | sleep 120`: uvicorn wrote its access log line on the event loop, the
    pipe filled and the service answered no one, SIGTERM included. Its standard output and error
    go to a pipe nobody reads here: 40 clients get every answer, SIGTERM ends it at once, and
    once the pipe is read the log says how many lines it dropped."""
    import threading

    read, write = os.pipe()
    proc, base = _start(small_db, stdout=write, stderr=write)
    os.close(write)
    log: list[bytes] = []
    try:
        # ~70 bytes of log each: the pipe's 64 kB, the log's queue of 1,000 lines, and more
        paths = [f"/v1/zeckendorf/starts/{n % 30 + 1}" for n in range(2400)]
        with ThreadPoolExecutor(40) as pool:
            answers = list(pool.map(lambda path: get(base + path)[0], paths))
        assert answers == [200] * len(paths)
        reader = threading.Thread(target=lambda: log.extend(iter(lambda: os.read(read, 1 << 16), b"")), daemon=True)
        reader.start()  # the reader is back: the next line says what was dropped
        deadline = time.monotonic() + 60
        while b"dropped" not in b"".join(log) and time.monotonic() < deadline:
            assert get(base + "/healthz")[0] == 200
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        assert _ended_within(proc, 10), "SIGTERM did not end the service"
        reader.join(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(read)
    text = b"".join(log).decode()
    assert "log lines dropped while the log was not read" in text, text[-2000:]


GIL_PLUGIN = '''
import os, re, traceback
from zeckdb.variants.zeckendorf import Zeckendorf

with open(os.environ["PIDS_FILE"], "a") as pids:  # where it ran: never in the service's process
    pids.write(f"{os.getpid()}\\n")
probing = any(frame.name == "probe_here" for frame in traceback.extract_stack())
if os.environ.get("MISBEHAVE") and not probing:
    re.match("(a*)*b", "a" * 40)  # holds the GIL for good: no Python runs in its process meanwhile


class Greedy(Zeckendorf):
    name = "greedy"

    def id_of(self, position):
        if os.environ.get("RAISE") and not probing:
            raise ValueError("boom in id_of")
        return super().id_of(position)
'''


@pytest.fixture(scope="module")
def greedy(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """A plugin game that records the process it is imported in, built; with MISBEHAVE in its
    environment it then loops holding the GIL, outside its probe."""
    folder = tmp_path_factory.mktemp("greedy")
    site = folder / "site"
    install(site, "zeckdb_greedy", GIL_PLUGIN, "greedy = zeckdb_greedy:Greedy")
    db = folder / "g.duckdb"
    env = {"PYTHONPATH": str(site), "PIDS_FILE": str(folder / "pids")}
    built = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "build", "--variant", "greedy", "--variant",
                            "zeckendorf", "--n", "1..9", "--db", str(db)], env={**os.environ, **env},
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    return db, folder / "pids", env


def test_a_plugin_runs_only_in_worker_processes_and_its_games_are_served(greedy):
    db, pids, env = greedy
    pids.write_text("")
    proc, base = _start(db, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        status, body, _ = get(base + "/v1/greedy/starts/7")
        assert status == 200 and body["outcome"] == "loss", body  # the Zeckendorf game's (n = 7: Player 2 wins)
        status, body, _ = get(base + "/v1/greedy/mainline/start/5")
        assert status == 200 and body["line"], body
        status, body, _ = get(base + "/v1/queries/winners?variant=greedy&n=7")
        assert status == 200 and body["rows"][0][2] == 2, body
    finally:
        proc.send_signal(signal.SIGTERM)
        assert _ended_within(proc, 30)
    imported_in = {int(line) for line in pids.read_text().split()}
    assert imported_in and proc.pid not in imported_in


def test_a_plugin_holding_its_gil_never_holds_the_service(greedy):
    """A plugin that loops holding the GIL at import (outside its probe) was imported into the
    service: /healthz and every lookup went unanswered, SIGTERM and SIGINT were ignored."""
    db, pids, env = greedy
    proc, base = _start(db, env={**env, "MISBEHAVE": "1", "ZECKDB_SERVE_LOOKUP_SECONDS": "3"},
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with ThreadPoolExecutor(8) as pool:
            greedy_answer = pool.submit(get, base + "/v1/greedy/starts/7")
            lookups = list(pool.map(lambda n: get(base + f"/v1/zeckendorf/starts/{n}"), range(1, 10)))
            health = get(base + "/healthz")
            status, body, _ = greedy_answer.result(timeout=120)
        assert [answer[0] for answer in lookups] == [200] * 9 and health[0] == 200
        assert status == 503 and body["error"].startswith("the game plugin greedy did not answer"), body
        assert get(base + "/v1/zeckendorf/starts/8")[0] == 200  # and after it
    finally:
        proc.send_signal(signal.SIGTERM)
        assert _ended_within(proc, 10), "SIGTERM did not end the service"


HANGING_PLUGIN = '''
import os, subprocess, time
from zeckdb.variants.zeckendorf import Zeckendorf

if os.environ.get("HANG") and os.environ.get("DAEMON"):  # a daemon: forked, a session of its own, orphaned
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", os.environ["HANG"]])
        os._exit(0)
    time.sleep(3600)
elif os.environ.get("HANG"):
    subprocess.Popen(["sleep", os.environ["HANG"]])  # a child of the plugin's own, that outlives its importer
    time.sleep(3600)


class Sleepy(Zeckendorf):
    name = "sleepy"
'''


def _started_by_the_test(marker: str) -> list[int]:
    """The processes whose command line holds the marker (a plugin's `sleep MARKER`, a probe of it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("daemon", [False, True], ids=["child", "daemon"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_no_process_the_service_started_outlives_it(tmp_path, signum, daemon):
    """A probe killed by a Python thread of the service's (child.kill()) outlived a SIGTERM or
    SIGHUP to the service for as long as its plugin slept, and a plugin's own child (`sleep
    3601`) outlived the probe; a daemon (forked, setsid, forked again) outlived everything. Every
    child leads a group, is ended by group and dies with its parent, and the service reaps its
    orphans (PR_SET_CHILD_SUBREAPER) and ends them at exit: after the service ends by SIGTERM,
    SIGHUP or SIGINT, none is left within a second."""
    site = tmp_path / "site"
    install(site, "zeckdb_sleepy", HANGING_PLUGIN, "sleepy = zeckdb_sleepy:Sleepy")
    db = tmp_path / "s.duckdb"
    env = {"PYTHONPATH": str(site), "ZECKDB_PLUGIN_LOAD_SECONDS": "3000"}
    built = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "build", "--variant", "sleepy", "--n", "1..5",
                            "--db", str(db)], env={**os.environ, **env}, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    marker = str(3_600_000 + os.getpid() % 10_000 * 100 + signum * 2 + daemon)  # what its plugin's child sleeps: ours alone
    hang = {"HANG": marker, **({"DAEMON": "1"} if daemon else {})}
    proc, base = _start(db, env={**env, **hang}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with ThreadPoolExecutor(1) as pool:
            pool.submit(get, base + "/v1/sleepy/starts/3")  # a plugin worker loads it: a probe of its own
            deadline = time.monotonic() + 120  # the catalogue's probe and the worker's each start a `sleep`
            while len(_started_by_the_test(f"sleep {marker}")) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert len(_started_by_the_test(f"sleep {marker}")) == 2
            proc.send_signal(signum)
            assert _ended_within(proc, 30)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 1  # within a second of the service's end
    while _started_by_the_test(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _started_by_the_test(marker) == []


def test_a_host_the_server_does_not_answer_for_is_refused(small_db):
    """DNS rebinding: a page of evil.example rebound to 127.0.0.1 read the API from a visitor's
    browser (Host: evil.example answered 200). Addresses and loopback names are answered."""
    proc, base = _start(small_db, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for host, status in [("evil.example", 400), ("evil.example:8000", 400), ("127.0.0.1:1", 200),
                             ("localhost", 200), ("[::1]:8000", 200), ("10.0.0.5", 200), ("app.localhost", 200)]:
            code, body, _ = request(urllib.request.Request(base + "/v1/status", headers={"Host": host}))
            assert code == status, (host, body)
            if status == 400:
                assert set(body) == {"error"} and "does not answer for the host" in body["error"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_lookup_past_its_time_is_interrupted(small_db):
    """A lookup's statement that runs past serve_lookup_seconds is interrupted (the service's
    threads are not held by it): the shared reader's deadline, one thread for every request."""
    from zeckdb.errors import QueryLimitError
    from zeckdb.reader import SharedReader

    reader = SharedReader(small_db)
    try:
        with pytest.raises(QueryLimitError, match=r"the lookup was stopped at its time limit of 0.2 s"), \
                reader.store(0.2) as store:  # a statement that would run for minutes
            store.rows("SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = 7")
        with reader.store(30) as store:  # the next reader is not interrupted by the last one's deadline
            assert store.rows("SELECT 42") == [(42,)]
    finally:
        reader.close()


DAEMON_AT_IMPORT = '''
import json
import os
from zeckdb.variants.zeckendorf import Zeckendorf

if os.fork() == 0:  # a daemon started as the plugin loads: it holds every pipe the probe had
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", os.environ["HANG"]])
    os._exit(0)


class Forker(Zeckendorf):
    name = "forker"
'''


def test_a_daemon_a_plugin_starts_as_it_loads_neither_hides_its_game_nor_outlives_the_command(tmp_path):
    """`zeckdb variants | tail` waited 46 s on the pipe a daemon inherited, and the probe's report,
    read to the end of its pipe, read as "ended its process while it loaded (exit status 0)"."""
    site = tmp_path / "site"
    install(site, "zeckdb_forker", DAEMON_AT_IMPORT, "forker = zeckdb_forker:Forker")
    marker = str(3_700_000 + os.getpid() % 10_000)
    listed = subprocess.run(f"{sys.executable} -m zeckdb.cli.main variants --format json | cat", shell=True,
                            env={**os.environ, "PYTHONPATH": str(site), "HANG": marker}, capture_output=True,
                            text=True, timeout=300)
    assert listed.returncode == 0 and "ended its process" not in listed.stderr, listed.stderr
    assert "forker" in {game["variant"] for game in json.loads(listed.stdout)}, listed.stdout[:300]
    assert _started_by_the_test(f"sleep {marker}") == []


def test_a_plugin_that_raises_is_named_in_its_503_and_a_damaged_file_too(greedy):
    """A plugin raising in a worker answered "did not answer within the request's limit", and a
    file a plugin worker damaged turned every later lookup into 500 "internal error": each is a
    503 naming what failed."""
    import duckdb

    db, _, env = greedy
    proc, base = _start(db, env={**env, "RAISE": "1"}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        status, body, _ = get(base + "/v1/greedy/positions/3,2")
        assert status == 503 and body["error"] == "the game's code failed: ValueError: boom in id_of", body
        status, body, _ = get(base + "/v1/zeckendorf/starts/7")
        assert status == 200, body  # the built-in games go on
    finally:
        proc.send_signal(signal.SIGTERM)
        assert _ended_within(proc, 30)
    from zeckdb.errors import DatabaseError
    from zeckdb.sqlworkers import failure

    damaged = failure(duckdb.IOException("IO Error: could not read block 7\nmore"))  # a file failing past its checks
    assert isinstance(damaged, DatabaseError) and str(damaged).startswith("the database failed: IO Error: could not "
                                                                          "read block 7; the file may be damaged")
