"""Benchmark of `zeckdb serve` under load; prints measured figures and their ratio to each target.

    python bench/bench_serve.py                      # builds zeckendorf + reversed, n = 1..150 (~2 minutes) first
    python bench/bench_serve.py --db core.duckdb     # an existing database of those games
    python bench/bench_serve.py --seconds 5 --clients 1,16

It starts a real server process (uvicorn) on loopback and drives it with 1, 4 and
16 concurrent clients (threads of this process, each with a keep-alive HTTP
connection, sending the next request as soon as the last is answered) for a fixed
time per mix: lookups of random positions (sampled from the database), lookups of
random starts, one named query, one SQL query. It prints requests per second, p50
and p99 latency and errors for each (back to back: the server's saturation, where
latency is clients / throughput), then position lookups paced at --rate requests
per second over the same clients (latency counted from when each was due), the
server's memory, and how long lookups wait while another client's expensive SQL
runs into its time limit. Last, the hostile load (tests/hostile.py) for --hostile
seconds: a hundred clients (--hostile-clients) sending expensive SQL back to back (cross
joins, recursive CTEs, huge aggregates and results, `range` over 10^12) or asking for
plots, and 200 silent connections (--silent), while one client looks up starts; the
lookups are measured first without the load, then with it, in the same run, with the
server's memory, its answers and the lookups' latency against their targets. Then slow
bodies (--slow seconds): 64 POSTs from each of 10 loopback addresses (--slow-addresses,
--slow-each) sending their bodies a byte at a time, more than the server's 512 places, while
one client looks up starts on a new connection each time, measured without and with them.
Client and server share the machine's cores.

    python bench/bench_serve.py --db core.duckdb --only-hostile --hostile 60

Under load (--under-load SECONDS, alone with --only-under-load): two CPU-bound processes at the
service's own priority beside it, a game plugin installed that hangs when imported, and 200
clients (from ten loopback addresses) sending lookups back to back, five of them asking for the
plugin's game: every second's answers, the built-in lookups' p99, none lost, and how long SIGTERM
takes to end the service. --python takes one interpreter or several (comma-separated), each an
install of zeckdb to serve with: two are measured in turns in the same run (paired, a commit
against the one before it).

    python bench/bench_serve.py --db core.duckdb --only-under-load --under-load 60 \
        --python /tmp/before/bin/python,.venv/bin/python
"""

from __future__ import annotations

import argparse
import http.client
import json
from pathlib import Path
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from hostile import run_for  # noqa: E402  (tests/hostile.py: the load the service's tests run, here for longer)

TARGETS = {"p50_ms": 10.0, "p99_ms": 50.0, "rps": 200.0}
HOSTILE_P99_MS = 100.0  # lookups while a hundred clients send expensive SQL and ask for plots
VARIANTS = ["zeckendorf", "reversed"]
EXPENSIVE_SQL = "SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b"


def build(db: Path, ns: str) -> None:
    print(f"building zeckendorf + reversed for n = {ns} into {db} ...", flush=True)
    subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "build", "--n", ns,
                    *[a for v in VARIANTS for a in ("--variant", v)], "--db", str(db)], check=True,
                   stderr=subprocess.DEVNULL)


def sample_positions(db: Path, count: int, seed: int) -> tuple[list[str], int]:
    """Random stored positions of both games as URL paths, and the largest n built."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        max_n = con.execute("SELECT max(n) FROM builds WHERE variant = 'zeckendorf'").fetchone()[0]
        bins = [r[0] for r in con.execute("SELECT name FROM variant_columns WHERE variant = 'zeckendorf' "
                                          "ORDER BY position").fetchall()]
        rows = con.execute(f"SELECT variant, [{', '.join(bins)}] FROM positions "
                           f"WHERE variant IN ('zeckendorf', 'reversed') USING SAMPLE {count} ROWS (reservoir, {seed})"
                           ).fetchall()
    finally:
        con.close()
    paths = []
    for variant, counts in rows:
        while len(counts) > 1 and counts[-1] == 0:
            counts = counts[:-1]
        paths.append(f"/v1/{variant}/positions/{','.join(map(str, counts))}")
    return paths, max_n


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, port: int, sql_timeout: float, *options: str, python: str = sys.executable,
                 env: dict[str, str] | None = None) -> subprocess.Popen:
    import os

    proc = subprocess.Popen([python, "-m", "zeckdb.cli.main", "serve", "--db", str(db), "--port", str(port),
                             "--sql-timeout", str(sql_timeout), *options],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})})
    for _ in range(600):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("zeckdb serve did not start")


def memory_mib(pid: int) -> tuple[float, float]:
    """(resident now, peak resident) of a process, in MiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


class Client(threading.Thread):
    """One client: requests back to back on one keep-alive connection until `stop`."""

    def __init__(self, port: int, next_request, stop: threading.Event, seed: int,
                 schedule: tuple[float, float] | None = None):
        super().__init__(daemon=True)
        self.port, self.next_request, self.stop, self.rng = port, next_request, stop, random.Random(seed)
        self.schedule = schedule  # (first send, period) in perf_counter time: paced instead of back to back
        self.latencies: list[float] = []
        self.stamps: list[float] = []
        self.errors: list[str] = []

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        due = self.schedule[0] if self.schedule else None
        while not self.stop.is_set():
            method, path, body = self.next_request(self.rng)
            if due is None:
                t0 = time.perf_counter()
            else:  # latency from when the request was due: a late send counts (no coordinated omission)
                time.sleep(max(0.0, due - time.perf_counter()))
                t0, due = due, due + self.schedule[1]
            try:
                conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
                response = conn.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                status = repr(exc)
            t1 = time.perf_counter()
            self.latencies.append(t1 - t0)
            self.stamps.append(t1)
            if status != 200:
                self.errors.append(f"{path}: {status}")
        conn.close()


def drive(port: int, next_request, clients: int, seconds: float, rate: float | None = None) -> dict:
    """Clients back to back (rate None: the server's saturation), or sending `rate` requests
    per second in all, evenly spread over the clients."""
    stop = threading.Event()
    start = time.perf_counter() + 0.05
    threads = [Client(port, next_request, stop, seed, None if rate is None else (start + seed / rate, clients / rate))
               for seed in range(clients)]
    t0 = time.perf_counter()
    run_for(threads, stop, seconds)
    wall = time.perf_counter() - t0
    latencies = sorted(x for t in threads for x in t.latencies)
    errors = [e for t in threads for e in t.errors]
    return {"requests": len(latencies), "rps": len(latencies) / wall,
            "p50_ms": 1000 * latencies[len(latencies) // 2],
            "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
            "max_ms": 1000 * latencies[-1], "errors": errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, help="an existing database of zeckendorf and reversed (default: build one)")
    parser.add_argument("--n", default="1..150", help="what to build when --db is not given")
    parser.add_argument("--seconds", type=float, default=10.0, help="time per mix and client count")
    parser.add_argument("--clients", default="1,4,16")
    parser.add_argument("--sql-timeout", type=float, default=10.0, help="the server's SQL time limit")
    parser.add_argument("--rate", type=float, default=200.0, help="requests per second offered in the paced runs")
    parser.add_argument("--hostile", type=float, default=60.0, help="seconds of hostile SQL load (0: none)")
    parser.add_argument("--memory-limit", default="2GB", help="the server's --memory-limit in the hostile run")
    parser.add_argument("--only-hostile", action="store_true", help="skip the other runs")
    parser.add_argument("--hostile-clients", type=int, default=100, help="clients of the hostile load (a fifth of "
                        "them ask for plots)")
    parser.add_argument("--silent", type=int, default=200, help="silent connections held during the hostile load")
    parser.add_argument("--slow", type=float, default=30.0, help="seconds of slow bodies from many addresses (0: none)")
    parser.add_argument("--slow-addresses", type=int, default=10, help="loopback addresses sending slow bodies")
    parser.add_argument("--slow-each", type=int, default=64, help="slow bodies held from each address")
    parser.add_argument("--under-load", type=float, default=60.0, help="seconds of 200 clients beside two CPU-bound "
                        "processes and a hanging plugin (0: none)")
    parser.add_argument("--only-under-load", action="store_true", help="run the under-load measurement alone")
    parser.add_argument("--python", default=sys.executable, help="the interpreter(s) of the install(s) to serve with, "
                        "comma-separated: several are measured in turns (under load)")
    args = parser.parse_args()
    counts = [int(c) for c in args.clients.split(",")]
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        db = args.db
        if db is None:
            db = Path(tmp) / "bench.duckdb"
            build(db, args.n)
        paths, max_n = sample_positions(db, 5000, seed=1)
        if args.only_under_load:
            run_under_load(db, max_n, args, Path(tmp))
            return
        if not args.only_hostile:
            run_mixes(db, paths, max_n, counts, args)
        if args.hostile:
            run_hostile(db, max_n, args)
        if args.slow:
            run_slow_bodies(db, max_n, args)
        if args.under_load:
            run_under_load(db, max_n, args, Path(tmp))


HANGING_PLUGIN = "import time\ntime.sleep(3600)\n"
CPU_BOUND = "while True:\n    pass\n"


def run_under_load(db: Path, max_n: int, args: argparse.Namespace, tmp: Path) -> None:
    """200 clients of lookups beside two CPU-bound processes, with a plugin that hangs when
    imported installed (five clients ask for its game): per install of --python, in turns."""
    site = tmp / "site"
    site.mkdir(exist_ok=True)
    (site / "zeckdb_hangs.py").write_text(HANGING_PLUGIN)
    info = site / "zeckdb_hangs-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zeckdb-hangs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[zeckdb.games]\nhangs = zeckdb_hangs:Game\n")
    pythons = args.python.split(",")
    print(f"\nunder load: 2 CPU-bound processes at the same priority, a plugin that hangs at import installed, "
          f"200 clients (195 built-in lookups, 5 the plugin's game) for {args.under_load:g} s, per install:")
    for python in pythons:
        r = _one_under_load(db, max_n, args.under_load, python, site)
        print(f"  {python}")
        print(f"    built-in lookups {r['answered']:>7} answered ({r['rate']:.0f}/s), lost {r['lost']}, "
              f"p50 {r['p50']:.0f} ms, p99 {r['p99']:.0f} ms; seconds without an answer {r['silent_seconds']} of "
              f"{r['seconds']}, the fewest answers in a second {r['fewest']}")
        print(f"    the plugin's game: {r['plugin']}; SIGTERM ended the service in {r['term']}")


def _one_under_load(db: Path, max_n: int, seconds: float, python: str, site: Path) -> dict:
    import signal

    hogs = [subprocess.Popen([sys.executable, "-c", CPU_BOUND]) for _ in range(2)]
    port = free_port()
    server = start_server(db, port, 10.0, python=python, env={"PYTHONPATH": str(site)})
    stop = threading.Event()
    lock = threading.Lock()
    answered: list[tuple[float, float]] = []  # (when, latency) of each built-in lookup answered
    lost: list[str] = []
    plugin: dict[str, int] = {}

    def client(i: int) -> None:
        rng = random.Random(i)
        source = (f"127.0.0.{2 + i % 10}", 0)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=source)
        while not stop.is_set():
            path = ("/v1/hangs/starts/5" if i < 5 else
                    f"/v1/{rng.choice(VARIANTS)}/starts/{rng.randint(1, max_n)}")
            t0 = time.monotonic()
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                status: object = response.status
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=source)
                status = type(exc).__name__
            t1 = time.monotonic()
            with lock:
                if i < 5:
                    plugin[str(status)] = plugin.get(str(status), 0) + 1
                elif status == 200:
                    answered.append((t1, t1 - t0))
                else:
                    lost.append(str(status))

    try:
        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(200)]
        t_start = time.monotonic()
        for t in threads[:5]:  # the plugin's clients may be held for good (daemons, never joined)
            t.start()
        run_for(threads[5:], stop, seconds)
    finally:
        for hog in hogs:
            hog.kill()
    t0 = time.monotonic()
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=60)
        term = f"{time.monotonic() - t0:.1f} s"
    except subprocess.TimeoutExpired:
        term = "no: still running after 60 s (killed)"
        server.kill()
        server.wait()
    buckets = [0] * int(seconds)
    for when, _ in answered:
        k = int(when - t_start)
        if 0 <= k < len(buckets):
            buckets[k] += 1
    latencies = sorted(1000 * latency for _, latency in answered) or [float("nan")]
    return {"answered": len(answered), "rate": len(answered) / seconds, "lost": len(lost),
            "p50": latencies[len(latencies) // 2], "p99": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
            "silent_seconds": sum(b == 0 for b in buckets), "seconds": len(buckets), "fewest": min(buckets, default=0),
            "plugin": ", ".join(f"{status}: {count}" for status, count in sorted(plugin.items())) or "no answer",
            "term": term}


def run_slow_bodies(db: Path, max_n: int, args: argparse.Namespace) -> None:
    """Slow POST bodies from several loopback addresses fill the server's connection places
    (at its defaults: 512 places, 64 per address) while one client looks up starts, each
    lookup on a new connection; the lookups are measured first without the bodies, then with them."""
    from hostile import fresh_lookups, hold_slow_bodies

    port = free_port()
    server = start_server(db, port, args.sql_timeout)
    addresses = [f"127.0.0.{i}" for i in range(2, 2 + args.slow_addresses)]
    runs = {}
    try:
        for name, attackers in (("no slow bodies", []), (f"{len(addresses)} x {args.slow_each} slow bodies", addresses)):
            stop, seen, turned_away = threading.Event(), [], [0]
            threads = [threading.Thread(target=hold_slow_bodies, args=(port, a, args.slow_each, stop, turned_away))
                       for a in attackers]
            for t in threads:
                t.start()
            time.sleep(3.0 if attackers else 0.0)  # the bodies take their places first
            looker = threading.Thread(target=fresh_lookups, args=(port, stop, max_n, seen))
            run_for([looker], stop, args.slow)
            for t in threads:
                t.join()
            runs[name] = (seen, turned_away[0])
        alive = server.poll() is None
    finally:
        server.terminate()
        server.wait()
    print(f"\nslow bodies from {len(addresses)} loopback addresses, {args.slow_each} each (a byte every 0.2 s, "
          f"reopened when closed), for {args.slow:g} s; 1 client looking up starts, a new connection each:")
    for name, (seen, turned_away) in runs.items():
        ok = sorted(t for t, status in seen if status == 200)
        p99 = 1000 * ok[min(len(ok) - 1, int(0.99 * len(ok)))] if ok else float("nan")
        print(f"  {name:<26} {len(seen):>6} lookups, answered {len(ok)} ({len(ok) / max(1, len(seen)):.1%}), "
              f"{len(ok) / args.slow:.0f}/s, p99 {p99:.1f} ms; slow bodies turned away {turned_away}")
    print(f"  server up after: {alive}")


def run_hostile(db: Path, max_n: int, args: argparse.Namespace) -> None:
    from hostile import attack

    port = free_port()
    server = start_server(db, port, args.sql_timeout, "--memory-limit", args.memory_limit)
    clients, plots, silent = args.hostile_clients, args.hostile_clients // 5, args.silent
    try:
        idle_seconds = min(args.hostile, 20.0)
        idle = attack(port, server.pid, idle_seconds, clients=0, max_n=max_n)
        print(f"\nhostile load: {clients - plots} clients of expensive SQL and {plots} of plots, back to back, and "
              f"{silent} silent connections, for {args.hostile:g} s (SQL time limit {args.sql_timeout:g} s, "
              f"--memory-limit {args.memory_limit}, 2 workers), 1 client looking up starts meanwhile", flush=True)
        o = attack(port, server.pid, args.hostile, clients=clients, max_n=max_n, plots=plots, silent=silent)
        alive = server.poll() is None
    finally:
        server.terminate()
        server.wait()
    print("  lookups, side by side in one run (a client pausing 20 ms between lookups):")
    rates = {}
    for name, run, seconds in (("idle", idle, idle_seconds), (f"{clients} hostile clients", o, args.hostile)):
        rates[name] = len(run.lookups) / seconds
        print(f"    {name:<22} {len(run.lookups):>6} lookups, {rates[name]:.1f}/s, failed "
              f"{sum(s != 200 for _, s in run.lookups)}, p50 {run.lookup_ms(0.5):.1f} ms, p99 {run.lookup_ms(0.99):.1f} ms")
    print(f"    the lookup rate under the load against idle: ratio {rates[name] / rates['idle']:.2f}")
    answered = ", ".join(f"{status}: {count}" for status, count in sorted(o.statuses.items(), key=str))
    print(f"  SQL answers by status: {answered}; non-JSON errors: {len(o.bad_bodies)}; server up after: {alive}")
    print(f"  slowest SQL answer {o.slowest_sql:.2f} s against its limit {args.sql_timeout:g} s "
          f"(ratio {o.slowest_sql / args.sql_timeout:.2f})")
    print(f"  lookups: {len(o.lookups)}, failed {sum(s != 200 for _, s in o.lookups)}, p50 {o.lookup_ms(0.5):.1f} ms, "
          f"p99 {o.lookup_ms(0.99):.1f} ms (target <= {HOSTILE_P99_MS:g}, ratio {o.lookup_ms(0.99) / HOSTILE_P99_MS:.2f})")
    print(f"  server memory at its peak: {o.peak_rss_mib:.0f} MiB in all (service and SQL workers), "
          f"{o.peak_main_rss_mib:.0f} MiB the service itself")


def run_mixes(db: Path, paths: list[str], max_n: int, counts: list[int], args: argparse.Namespace) -> None:
    port = free_port()
    server = start_server(db, port, args.sql_timeout)
    try:
        mixes = {
            "position lookup": lambda rng: ("GET", rng.choice(paths), None),
            "start lookup": lambda rng: ("GET", f"/v1/{rng.choice(VARIANTS)}/starts/{rng.randint(1, max_n)}", None),
            "named query (winners)": lambda rng: ("GET", f"/v1/queries/winners?variant=reversed&n=1..{max_n}", None),
            "SQL (count by n)": lambda rng: ("POST", "/v1/sql", json.dumps({
                "sql": f"SELECT count(*) FROM positions WHERE variant = 'zeckendorf' AND n = {rng.randint(1, max_n)}"})),
        }
        print(f"zeckdb serve over {db} ({db.stat().st_size / 1e9:.2f} GB, n = 1..{max_n}); "
              f"{args.seconds:g} s per mix and client count, 2 cores shared with the clients")
        print(f"  {'mix':<24}{'clients':>8}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'errors':>8}")
        results = {}
        for name, mix in mixes.items():
            for clients in counts:
                r = drive(port, mix, clients, args.seconds)
                results[name, clients] = r
                print(f"  {name:<24}{clients:>8}{r['rps']:>9.0f}{r['p50_ms']:>9.1f}{r['p99_ms']:>9.1f}"
                      f"{r['max_ms']:>9.0f}{len(r['errors']):>8}", flush=True)
                for e in r["errors"][:3]:
                    print(f"      error: {e}")
        paced = {}
        for clients in [c for c in counts if c > 1] or counts:  # one client cannot send 200/s back to back
            paced[clients] = r = drive(port, mixes["position lookup"], clients, args.seconds, rate=args.rate)
            print(f"  {'position lookup, paced':<24}{clients:>8}{r['rps']:>9.0f}{r['p50_ms']:>9.1f}"
                  f"{r['p99_ms']:>9.1f}{r['max_ms']:>9.0f}{len(r['errors']):>8}   ({args.rate:g} req/s offered)",
                  flush=True)
        rss, peak = memory_mib(server.pid)
        print(f"  server memory: {rss:.0f} MiB resident after the runs, {peak:.0f} MiB at its peak")

        # an expensive SQL request runs into its time limit while four clients look up positions
        stop = threading.Event()
        lookups = [Client(port, mixes["position lookup"], stop, seed) for seed in range(4)]
        for t in lookups:
            t.start()
        time.sleep(1.0)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=args.sql_timeout + 60)
        t0 = time.perf_counter()
        conn.request("POST", "/v1/sql", body=json.dumps({"sql": EXPENSIVE_SQL}),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        t1 = time.perf_counter()
        time.sleep(0.5)
        stop.set()
        for t in lookups:
            t.join()
        during = sorted(lat for t in lookups for lat, end in zip(t.latencies, t.stamps, strict=False) if t0 <= end <= t1 + 0.5)
        print(f"  expensive SQL: answered {response.status} after {t1 - t0:.1f} s (limit {args.sql_timeout:g} s); "
              f"meanwhile {len(during)} lookups from 4 clients, p50 {1000 * statistics.median(during):.1f} ms, "
              f"longest {1000 * during[-1]:.0f} ms")

        top = max(counts)
        print(f"\ntargets, position lookups at {top} clients (latency paced at {args.rate:g} req/s; "
              "throughput back to back):")
        for key, better, value in (("p50_ms", "<=", paced[top]["p50_ms"]), ("p99_ms", "<=", paced[top]["p99_ms"]),
                                   ("rps", ">=", results["position lookup", top]["rps"])):
            print(f"  {key:<8}{value:>10.1f}   target {better} {TARGETS[key]:g}   ratio {value / TARGETS[key]:.2f}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
