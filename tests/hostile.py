"""Hostile load on a running `zeckdb serve`: clients sending expensive SQL back to back
(cross joins, recursive CTEs, huge string and list aggregates, `range` over 10^12, huge
results) while one client looks up start positions at a steady pace, and the server's
memory is read from /proc. Used by tests/test_service_load.py (a short run, with assertions)
and by bench/bench_serve.py (a full minute, with figures: the bench imports it from here, the
tests never import the bench).
"""

from __future__ import annotations

from dataclasses import dataclass, field
import http.client
import json
import random
import threading
from collections.abc import Callable
import time

ATTACKER_ADDRESSES = 8  # 127.0.0.2 and up; the lookups come from 127.0.0.1

EXPENSIVE = [
    "SELECT count(*) FROM positions a, positions b",
    "WITH RECURSIVE t(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM t) SELECT count(*) FROM t",
    "SELECT string_agg(x::VARCHAR, ',') FROM range(200000000) r(x)",
    "SELECT sum(range) FROM range(1000000000000)",
    "SELECT * FROM positions a, positions b",
    "SELECT list(x) FROM range(300000000) r(x)",
    "SELECT repeat('x', 100000000) FROM range(20)",
    "SELECT a.id, b.id FROM positions a JOIN positions b ON a.n <> b.n ORDER BY random()",
]


@dataclass
class Outcome:
    statuses: dict[object, int] = field(default_factory=dict)  # SQL answers by HTTP status (or exception name)
    bad_bodies: list[str] = field(default_factory=list)  # SQL error answers that were not {"error": ...}
    slowest_sql: float = 0.0  # seconds
    lookups: list[tuple[float, object]] = field(default_factory=list)  # (seconds, status)
    peak_rss_mib: float = 0.0  # the server's processes together (the service and its SQL workers)
    peak_main_rss_mib: float = 0.0  # the service's own process (lookups)

    def lookup_ms(self, quantile: float) -> float:
        times = sorted(t for t, status in self.lookups if status == 200)
        return 1000 * times[min(len(times) - 1, int(quantile * len(times)))] if times else float("nan")


def _request(conn: http.client.HTTPConnection, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
    conn.request(method, path, body=json.dumps(body) if body else None, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read()


def rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:  # it ended meanwhile
        pass
    return 0.0


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def attack(port: int, server_pid: int, seconds: float, clients: int = 8, max_n: int = 50,
           lookup_pause: float = 0.02, plots: int = 0, silent: int = 0, lookups: int | None = None) -> Outcome:
    """Run the load for `seconds` (with `lookups`: until the looker has had that many answers
    under it, however long that takes: no bound on the machine's speed) and return what was
    seen: `clients` attackers, the first `plots` of them asking for figures instead of SQL, and
    `silent` sockets opened and left silent (reopened whenever the server closes one)."""
    outcome = Outcome()
    stop = threading.Event()
    lock = threading.Lock()

    def attacker(i: int) -> None:
        # from loopback addresses of their own, a dozen clients each (the server caps one address's connections)
        source = (f"127.0.0.{2 + i % ATTACKER_ADDRESSES}", 0)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=source)
        while not stop.is_set():
            t0 = time.monotonic()
            try:
                status, body = _heavy_request(conn, i, i < plots, max_n)
            except (OSError, http.client.HTTPException) as exc:
                status, body = type(exc).__name__, b""
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=source)
            took = time.monotonic() - t0
            with lock:
                outcome.statuses[status] = outcome.statuses.get(status, 0) + 1
                outcome.slowest_sql = max(outcome.slowest_sql, took)
                if status != 200 and not _is_json_error(body):
                    outcome.bad_bodies.append(body[:200].decode(errors="replace"))
            if status == 429:
                stop.wait(0.05)  # a polite client backs off a little before trying again

    def looker() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        rnd = random.Random(1)
        while not stop.is_set():
            path = f"/v1/{rnd.choice(['zeckendorf', 'reversed'])}/starts/{rnd.randint(5, max_n)}"
            t0 = time.monotonic()
            try:
                status: object = _request(conn, "GET", path)[0]
            except (OSError, http.client.HTTPException) as exc:  # counted as failed, and the next on a new connection
                status = type(exc).__name__
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            outcome.lookups.append((time.monotonic() - t0, status))
            stop.wait(lookup_pause)

    def watch_memory() -> None:
        while not stop.is_set():
            main = rss_mib(server_pid)
            outcome.peak_main_rss_mib = max(outcome.peak_main_rss_mib, main)
            outcome.peak_rss_mib = max(outcome.peak_rss_mib, main + sum(rss_mib(p) for p in children(server_pid)))
            stop.wait(0.05)

    threads = [threading.Thread(target=attacker, args=(i,)) for i in range(clients)]
    threads += [threading.Thread(target=looker), threading.Thread(target=watch_memory)]
    if silent:
        threads.append(threading.Thread(target=hold_silent, args=(port, silent, stop)))
    run_for(threads, stop, seconds, None if lookups is None else lambda: len(outcome.lookups) >= lookups)
    return outcome


def run_for(threads: list[threading.Thread], stop: threading.Event, seconds: float,
            until: Callable[[], bool] | None = None) -> None:
    """Start the threads, let them run for `seconds` (or, given `until`, until it holds), then
    set `stop` and wait for them."""
    for t in threads:
        t.start()
    if until is None:
        time.sleep(seconds)
    else:
        while not until():
            time.sleep(0.05)
    stop.set()
    for t in threads:
        t.join()


def _is_json_error(body: bytes) -> bool:
    try:
        return isinstance(json.loads(body).get("error"), str)
    except (ValueError, AttributeError):
        return False


def _heavy_request(conn: http.client.HTTPConnection, i: int, plot: bool, max_n: int) -> tuple[int, bytes]:
    """Attacker i's request: a figure, or an expensive statement."""
    if plot:
        kind = ["length-distribution", "winners", "lengths", "remoteness"][i % 4]
        return _request(conn, "GET", f"/v1/plots/{kind}?variant=zeckendorf&n={max_n - i % 5}")
    return _request(conn, "POST", "/v1/sql", {"sql": EXPENSIVE[i % len(EXPENSIVE)]})


def hold_silent(port: int, count: int, stop: threading.Event) -> None:
    """Keep `count` connections open and silent, opening new ones as the server closes them,
    from loopback addresses of their own (fifty each)."""
    import socket

    held: list = []
    while not stop.is_set():
        held = [s for s in held if not _closed(s)]
        while len(held) < count:
            try:
                source = (f"127.0.1.{len(held) // 50 + 1}", 0)
                held.append(socket.create_connection(("127.0.0.1", port), timeout=5, source_address=source))
            except OSError:
                break
        stop.wait(0.2)
    for s in held:
        s.close()


def _closed(sock) -> bool:
    """Whether the server has closed a silent socket (a read would not block)."""
    import select

    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(1, 0x40) == b""  # MSG_DONTWAIT
    except OSError:
        return True


SLOW_HEAD = (b"POST /v1/sql HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
             b"Content-Length: 1000000\r\n\r\n{")


def hold_slow_bodies(port: int, address: str, count: int, stop: threading.Event, turned_away: list[int],
                     holding: dict[str, int] | None = None) -> None:
    """From one loopback address, keep `count` POSTs open, each sending its body a byte every
    0.2 s; reopen one whenever the server closes it (adding 1 to turned_away[0]); `holding`
    says, by address, how many are open."""
    import select
    import socket

    held: list = []
    while not stop.is_set():
        readable = set(select.select(held, [], [], 0)[0]) if held else set()
        kept = []
        for s in held:
            try:
                if s in readable:  # an answer (408) or a close: either way the place is lost
                    raise ConnectionError
                s.send(b" ")
                kept.append(s)
            except OSError:
                s.close()
                turned_away[0] += 1
        while len(kept) < count:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))
                s.sendall(SLOW_HEAD)
            except OSError:
                turned_away[0] += 1
                break
            kept.append(s)
        held = kept
        if holding is not None:
            holding[address] = len(held)
        stop.wait(0.2)
    for s in held:
        s.close()


def fresh_lookups(port: int, stop: threading.Event, max_n: int, seen: list[tuple[float, object]]) -> None:
    """Look up random starts back to back, each on a new connection (as a new visitor would),
    appending (seconds, status or the exception's name) to `seen`."""
    rnd = random.Random(2)
    while not stop.is_set():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        t0 = time.monotonic()
        try:
            status: object = _request(conn, "GET", f"/v1/zeckendorf/starts/{rnd.randint(5, max_n)}")[0]
        except (OSError, http.client.HTTPException) as exc:
            status = type(exc).__name__
        finally:
            conn.close()
        seen.append((time.monotonic() - t0, status))
