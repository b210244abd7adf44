"""The turns a build and its readers take (zeckdb.locking), held by hand from this process as
a stuck or hostile process would hold them: every wait says what it waits for, and ends when
the lock is let go."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
import subprocess
import sys

import pytest

from zeckdb import api

CLI = [sys.executable, "-m", "zeckdb.cli.main"]


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "turns.duckdb"
    api.build(path, ["zeckendorf"], "1..5")
    return path


def hold(db: Path, name: str, mode: int) -> int:
    fd = os.open(db.with_name(db.name + ".locks") / name, os.O_RDONLY)
    fcntl.flock(fd, mode)
    return fd


def said_before_done(command: list[str], words: str, fd: int) -> tuple[str, subprocess.CompletedProcess]:
    """Run `command` while `fd` holds its lock; once a line of its standard error starts with
    `words` (the handshake: the wait was said; other notices may come first on a busy
    machine), let go and let it finish. The line said, and the whole run."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    before = []
    for line in proc.stderr:  # ends at the command's end: it never said it
        before.append(line)
        if line.startswith(words):
            break
    os.close(fd)  # closing drops the lock
    out, rest = proc.communicate(timeout=300)
    said = before[-1] if before and before[-1].startswith(words) else ""
    return said, subprocess.CompletedProcess(command, proc.returncode, out, "".join(before) + rest)


def test_a_build_says_it_waits_for_a_reader_stuck_in_its_turn(db):
    """A reader only passes through `turn`; one stuck there (or a hostile holder) once kept a
    build waiting without a word."""
    fd = hold(db, "turn", fcntl.LOCK_SH)
    said, done = said_before_done([*CLI, "build", "--variant", "zeckendorf", "--n", "6", "--db", str(db)],
                                  "zeckdb: waiting for readers to close the database", fd)
    assert said, done.stderr
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.startswith("built zeckendorf for n = 6")


@pytest.mark.parametrize("command", [["status"], ["position", "zeckendorf", "--start", "5"]])
def test_a_reader_says_it_waits_for_the_build_writing(db, command):
    fd = hold(db, "gate", fcntl.LOCK_EX)  # as a build holds it while it commits
    said, done = said_before_done([*CLI, *command, "--db", str(db)],
                                  f"zeckdb: waiting for the build writing {db.name} to commit its current layer", fd)
    assert said and "(at most " in said, done.stderr
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
