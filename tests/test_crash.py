"""Crash safety: a real build process killed (SIGKILL) at a random moment loses nothing it
committed. After each kill the file opens, `zeckdb verify` passes on what is there, and the
resumed build ends with exactly the layers of an uninterrupted build (equal checksums).
The default suite runs a few trials; `pytest -m slow` runs twenty."""

from __future__ import annotations

import os
from pathlib import Path
import random
import signal
import subprocess
import sys
import time

import duckdb
import pytest

BUILD = ["--variant", "zeckendorf", "--variant", "reversed", "--n", "1..70"]
LAYERS = "SELECT variant, n, positions, edges, winner, games, positions_checksum, edges_checksum FROM builds ORDER BY ALL"


def zeckdb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zeckdb.cli.main", *args], capture_output=True, text=True,
                          timeout=600)


def layers(path: Path) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(LAYERS).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> tuple[list[tuple], float]:
    path = tmp_path_factory.mktemp("whole") / "whole.duckdb"
    t0 = time.perf_counter()
    done = zeckdb("build", *BUILD, "--db", str(path))
    assert done.returncode == 0, done.stderr
    return layers(path), time.perf_counter() - t0


def kill_and_resume(folder: Path, seed: int, reference: list[tuple], seconds: float) -> None:
    path = folder / f"crash{seed}.duckdb"
    delay = random.Random(seed).uniform(0, seconds)
    proc = subprocess.Popen([sys.executable, "-m", "zeckdb.cli.main", "build", *BUILD, "--db", str(path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    if path.exists():
        status = zeckdb("status", "--db", str(path))
        assert "Traceback" not in status.stderr, status.stderr
        if status.returncode == 0 and "nothing built yet" not in status.stdout:
            check = zeckdb("verify", "--db", str(path))
            assert check.returncode == 0, (delay, check.stdout, check.stderr)
        else:  # killed before the schema or the first layer was committed
            assert status.returncode == 0 or "holds no tables" in status.stderr, (delay, status.stderr)
    resumed = zeckdb("build", *BUILD, "--db", str(path))
    assert resumed.returncode == 0, (delay, resumed.stderr)
    assert layers(path) == reference, delay
    os.remove(path)


@pytest.mark.parametrize("seed", range(3))
def test_a_killed_build_resumes_to_the_uninterrupted_result(tmp_path, uninterrupted, seed):
    reference, seconds = uninterrupted
    kill_and_resume(tmp_path, seed, reference, seconds)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 120))
def test_twenty_kills_at_random_moments(tmp_path, uninterrupted, seed):
    reference, seconds = uninterrupted
    kill_and_resume(tmp_path, seed, reference, seconds)
