"""Reads while a build writes: a real build process of n = 1..90 and, meanwhile, lookups
and queries every 0.1 s from this process, from a real `zeckdb serve` process and from
`zeckdb status`. Every answer must be the committed layer's (checked against the finished
database, which `zeckdb verify` and the reference checks cover) or "n = K is not built yet";
never "in use", and the build must not fail for its readers."""

from __future__ import annotations

import random
import subprocess
import sys
import time


from zeckdb import api
from zeckdb.errors import NotBuiltError

from . import reference as ref
from .conftest import run
from .http import get, post_sql, serving

VARIANTS = ["zeckendorf", "reversed"]
NS = range(1, 91)
CLI = [sys.executable, "-m", "zeckdb.cli.main"]


def not_built(message: str, variant: str, n: int) -> bool:
    return (message.startswith(f"n = {n} is not built yet: ") and f"holds no {variant} positions for n = {n}, "
            "and a build is writing it" in message) or f"holds no {variant} positions for n = {n}: run" in message


def test_reads_while_a_build_writes(capsys, tmp_path):
    db = tmp_path / "growing.duckdb"
    assert run(capsys, "build", "--variant", "zeckendorf", "--n", "1..3", "--db", str(db))[0] == 0
    rng = random.Random(7)
    answers: list[tuple[str, str, int, object]] = []  # (kind, variant, n, answer) of every success
    waits: list[float] = []
    refused = 0
    statuses: list[str] = []
    with serving(db) as base:
        build = subprocess.Popen([*CLI, "build", *[a for v in VARIANTS for a in ("--variant", v)],
                                  "--n", f"{NS.start}..{NS.stop - 1}", "--db", str(db)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # `zeckdb status` (a process of its own) until it sees the build writing: the build holds
        # the file from its start to its last commit, seconds of layers, so it is seen
        while build.poll() is None:
            status = subprocess.run([*CLI, "status", "--db", str(db)], capture_output=True, text=True)
            # a status that waits for the build's commit says so (on a loaded machine it may): nothing else
            assert status.returncode == 0 and all(
                line.startswith("zeckdb: waiting for the build writing growing.duckdb to commit its current layer")
                for line in status.stderr.splitlines()), status.stderr
            statuses.append(status.stdout)
            if "a build is writing it" in status.stdout:
                break
        reads_during_build = 0
        while build.poll() is None:
            variant, n = rng.choice(VARIANTS), rng.choice(NS)
            t0 = time.perf_counter()
            try:  # this process, through the library: its own read-only open per lookup
                with api.open(db) as database:
                    info = database.position(variant, start=n)
                    rows = database.query("winners", variant=variant, n=n).rows
                answers.append(("probe", variant, n, (info.outcome, info.remoteness, info.min_remaining,
                                                      info.max_remaining, str(info.games_to_end))))
                answers.append(("winners", variant, n, rows))
            except NotBuiltError as exc:
                assert not_built(str(exc), variant, n), str(exc)
                refused += 1
            t1 = time.perf_counter()
            code, body, _ = get(f"{base}/v1/{variant}/starts/{n}")  # the service, a process of its own
            if code == 200:
                answers.append(("http", variant, n, (body["outcome"], body["remoteness"], body["min_remaining"],
                                                     body["max_remaining"], body["games_to_end"])))
            else:
                assert code == 404 and not_built(body["error"], variant, n), (code, body)
            code, body, _ = post_sql(base, {"sql": f"SELECT count(*) FROM positions WHERE variant = '{variant}' "
                                                   f"AND n = {n}"})
            assert code == 200, body
            answers.append(("count", variant, n, body["rows"][0][0]))  # a layer is all there, or not at all
            waits += [t1 - t0, time.perf_counter() - t1]
            if rng.random() < 0.1:  # the command line, a process of its own
                status = subprocess.run([*CLI, "status", "--db", str(db)], capture_output=True, text=True)
                assert status.returncode == 0 and status.stderr == "", status.stderr
                statuses.append(status.stdout)
            reads_during_build += 1
            time.sleep(0.1)
        out, err = build.communicate()
        assert build.returncode == 0, err
        assert "Traceback" not in err and "in use" not in err
        code, body, _ = get(f"{base}/v1/status")
        assert code == 200 and body["build_running"] is False
    # the reads overlapped the build for real: status saw it writing, and reads were answered while
    # it ran (how many of them found their layer not yet built, the machine's speed decides)
    assert any("a build is writing it" in s for s in statuses), statuses
    assert reads_during_build >= 2 and any(kind == "probe" for kind, *_ in answers)
    final = {}  # the finished database's answer to each question asked during the build
    with api.open(db) as database:
        for variant, n in {(variant, n) for _, variant, n, _ in answers}:
            info = database.position(variant, start=n)
            final["probe", variant, n] = (info.outcome, info.remoteness, info.min_remaining, info.max_remaining,
                                          str(info.games_to_end))
            final["http", variant, n] = final["probe", variant, n]
            final["winners", variant, n] = database.query("winners", variant=variant, n=n).rows
            final["count", variant, n] = database.sql(
                f"SELECT count(*) FROM positions WHERE variant = '{variant}' AND n = {n}").rows[0][0]
        shortest = database.sql("SELECT variant, n, min_length FROM builds ORDER BY variant, n").rows
    for kind, variant, n, answer in answers:
        if kind == "count" and answer == 0:
            continue  # not committed yet when asked
        assert answer == final[kind, variant, n], (kind, variant, n)
    # the finished database against a published fact: the shortest game has n - Z(n) moves
    assert shortest == [(variant, n, n - ref.z_count(n)) for variant in sorted(VARIANTS) for n in NS]
    # a reader waits for at most the commit of the layer being written: bounded by the longest
    # layer's own time in this run (a busy machine slows both), with room for starting the reads
    with api.open(db) as database:
        longest = max(database.sql("SELECT max(seconds) FROM builds").rows[0][0], 0.1)
    assert max(waits) < 5 + 4 * longest, (sorted(waits)[-5:], longest)
    print(f"{len(waits)} reads during the build: median {sorted(waits)[len(waits) // 2] * 1000:.0f} ms, "
          f"longest {max(waits) * 1000:.0f} ms; {refused} not built yet")
    verify = subprocess.run([*CLI, "verify", "--db", str(db)], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
