"""Damaged and busy databases: one line naming the problem and what to do, a non-zero
exit, no traceback, and nothing written."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
import shutil
import subprocess
import sys
import time

import duckdb
import pytest

from zeckdb.builder import build
from zeckdb.store import StoreWriter

from .conftest import as_games, run

COMMANDS = [
    ["status"], ["position", "zeckendorf", "--start", "7"], ["line", "reversed", "--start", "9"],
    ["query", "winners"], ["sql", "SELECT count(*) FROM positions"], ["verify"],
    ["build", "--variant", "zeckendorf", "--n", "1..41"],
]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("clean") / "clean.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed"]), list(range(1, 41)))
    return path


def truncate_half(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def used_bytes(path: Path) -> int:
    """What the blocks DuckDB counts as used take (a file may also hold free blocks)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        block_size, used = con.execute("SELECT block_size, used_blocks FROM pragma_database_size()").fetchone()
    finally:
        con.close()
    return block_size * used


def truncate_tail(path: Path) -> None:
    """Shorter by a block than its used blocks need: the smallest cut named at open."""
    os.truncate(path, used_bytes(path) - 256 * 1024)


def break_header_block(path: Path) -> None:
    """Bytes of the first database header overwritten: DuckDB's checksum of that block fails,
    and its message ("... in block at location 4096") holds the word "lock"."""
    with open(path, "r+b") as file:
        file.seek(4096 + 100)
        file.write(b"\xff" * 64)


def make_empty(path: Path) -> None:
    os.truncate(path, 0)


def dropping(kind: str, name: str):
    def drop(path: Path) -> None:
        con = duckdb.connect(str(path))
        con.execute(f"DROP {kind} {name}")
        con.close()
    return drop


DAMAGE = {
    "truncated at half": (truncate_half, "is truncated"),
    "a block short of its used blocks": (truncate_tail, "is truncated"),
    "a damaged header block": (break_header_block, "is damaged (Corrupt database file: computed checksum"),
    "zero bytes": (make_empty, "is an empty file (0 bytes), not a database: delete it"),
    "random_play dropped": (dropping("TABLE", "random_play"),
                            "is damaged: random_play is missing (dropped by hand?); rebuild it"),
    "edges dropped": (dropping("TABLE", "edge_rows"), "is damaged: edge_rows is missing"),
    "moves dropped": (dropping("VIEW", "moves"), "is damaged: moves is missing"),
    "alembic_version dropped": (dropping("TABLE", "alembic_version"), "is damaged: its table alembic_version is missing"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_damaged_files_get_one_line_and_stay_as_they_are(capsys, clean, tmp_path, damage):
    harm, message = DAMAGE[damage]
    path = tmp_path / "damaged.duckdb"
    shutil.copy(clean, path)
    harm(path)
    before = digest(path)
    for command in COMMANDS:
        code, out, err = run(capsys, *command, "--db", str(path))
        assert code == 1, (command, out, err)
        assert err.startswith("zeckdb: error: ") and message in err, (command, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (command, err)
        assert digest(path) == before, command  # nothing further written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.duckdb"]


def test_a_cut_within_the_free_blocks_is_named_where_a_block_is_missing(capsys, clean, tmp_path):
    """Free blocks inside the file (left by checkpoints) let a file lose its last blocks and
    still be as large as its used blocks: no command may then fail with more than one line,
    and `zeckdb verify`, which reads every row, names the damage."""
    path = tmp_path / "cut.duckdb"
    shutil.copy(clean, path)
    with duckdb.connect(str(path)) as con:  # free blocks, then a layer's rows written again after them
        for sql in ("CREATE TABLE scratch AS SELECT range AS x FROM range(2000000)", "CHECKPOINT",
                    "CREATE TEMPORARY TABLE layer AS SELECT * FROM position_rows WHERE n = 40",
                    "DELETE FROM position_rows WHERE n = 40", "INSERT INTO position_rows SELECT * FROM layer",
                    "CHECKPOINT", "DROP TABLE scratch", "CHECKPOINT"):
            con.execute(sql)
    assert path.stat().st_size - 256 * 1024 >= used_bytes(path)  # the case this test is about
    os.truncate(path, path.stat().st_size - 256 * 1024)
    for command in COMMANDS[:-2]:
        code, out, err = run(capsys, *command, "--db", str(path))
        assert code in (0, 1) and "Traceback" not in err and len(err.strip().splitlines()) <= 1, (command, err)
    code, _, err = run(capsys, "verify", "--db", str(path))
    assert code == 1 and err.startswith("zeckdb: error: ") and "the file may be damaged" in err, err
    assert len(err.strip().splitlines()) == 1


def test_a_memory_limit_too_small_to_open_is_named_not_taken_for_a_lock(capsys, clean, monkeypatch):
    """DuckDB's "failed to pin block" once read as a lock held elsewhere: every command then
    waited for a writer that did not exist and blamed it."""
    monkeypatch.setenv("ZECKDB_MEMORY_LIMIT", "1KB")
    for command in (["sql", "SELECT 1"], ["status"]):
        code, out, err = run(capsys, *command, "--db", str(clean))
        assert code == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1, (command, err)
        assert "in use by another process" not in err and "memory" in err, (command, err)


def test_a_file_left_by_a_build_killed_while_creating_the_schema(capsys, tmp_path):
    """Alembic creates the schema in one transaction: a build killed during it leaves a DuckDB
    file without tables. Readers say so; the next build finishes it."""
    path = tmp_path / "interrupted.duckdb"
    duckdb.connect(str(path)).close()
    code, _, err = run(capsys, "status", "--db", str(path))
    assert code == 1 and err.strip() == (f"zeckdb: error: {path} holds no tables: a build was interrupted while it "
                                         f"created the schema; run `zeckdb build --db {path}` again to finish it")
    code, out, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..5", "--db", str(path))
    assert code == 0 and out.startswith("built zeckendorf for n = 1..5")
    assert run(capsys, "verify", "--db", str(path))[0] == 0


def test_a_build_killed_as_it_starts_leaves_a_file_the_next_build_finishes(tmp_path):
    path = tmp_path / "killed.duckdb"
    cmd = [sys.executable, "-m", "zeckdb.cli.main", "build", "--variant", "zeckendorf", "--n", "1..5", "--db", str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not path.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.002)
    proc.kill()
    proc.wait()
    status = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "status", "--db", str(path)],
                            capture_output=True, text=True)
    assert "Traceback" not in status.stderr and len(status.stderr.strip().splitlines()) <= 1
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    verify = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "verify", "--db", str(path)],
                            capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr


def test_two_builds_started_at_the_same_moment(tmp_path):
    path = tmp_path / "two.duckdb"
    cmd = [sys.executable, "-m", "zeckdb.cli.main", "build", "--variant", "zeckendorf", "--n", "1..40",
           "--db", str(path)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    assert any(code == 0 for code, _, _ in results)
    for code, _, err in results:
        errors = [line for line in err.splitlines() if line.startswith("zeckdb: error")]
        assert "Traceback" not in err
        if code:
            assert code == 1 and errors == [f"zeckdb: error: {path} is being written by another build: wait for it "
                                            "to finish (its progress is committed layer by layer; `zeckdb status` "
                                            "shows what is done)"]
    verify = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "verify", "--db", str(path)],
                            capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr


def test_rows_deleted_by_hand_leave_status_working_and_verify_failing(capsys, clean, tmp_path):
    path = tmp_path / "deleted.duckdb"
    shutil.copy(clean, path)
    con = duckdb.connect(str(path))
    con.execute("DELETE FROM position_rows WHERE variant_id = (SELECT variant_id FROM variant_ids "
                "WHERE variant = 'reversed') AND n = 30 AND id < 10")
    con.close()
    assert run(capsys, "status", "--db", str(path))[0] == 0
    code, _, err = run(capsys, "verify", "--db", str(path))
    assert code == 1 and "layer sizes: reversed n=30" in err and "checksums: reversed n=30" in err


def test_a_write_ahead_log_without_its_database_is_named_not_replayed(tmp_path, capsys):
    """A build killed mid-transaction leaves NAME.wal; with NAME deleted, DuckDB would replay
    that log into a new NAME and refuse the file."""
    path = tmp_path / "gone.duckdb"
    code, _, _ = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..3", "--db", str(path))
    assert code == 0
    killed = ("import duckdb, os, sys; con = duckdb.connect(sys.argv[1]); "
              "con.execute(\"DELETE FROM random_play\"); os._exit(0)")  # a writer killed before its checkpoint
    subprocess.run([sys.executable, "-c", killed, str(path)], check=True)
    assert (tmp_path / "gone.duckdb.wal").exists()
    path.unlink()
    code, out, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..3", "--db", str(path))
    assert code != 0 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "gone.duckdb.wal is the write-ahead log of a database file gone.duckdb that no longer exists" in err
    assert not path.exists() and (tmp_path / "gone.duckdb.wal").exists()  # nothing written, nothing deleted
    (tmp_path / "gone.duckdb.wal").unlink()
    code, _, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..3", "--db", str(path))
    assert code == 0, err


def test_a_new_database_appears_only_once_its_schema_is_written(tmp_path, capsys, monkeypatch):
    """The schema of a new file is written under a temporary name and renamed into place: a
    creation that fails half-way leaves nothing at the path, and a temporary file left by a
    killed build is replaced by the next one."""
    import zeckdb.store.schema

    path = tmp_path / "new.duckdb"
    real = zeckdb.store.schema._write_head_schema

    def dies_half_way(target, shown):
        duckdb.connect(str(target)).close()  # DuckDB has created the file, no schema yet
        raise KeyboardInterrupt

    monkeypatch.setattr(zeckdb.store.schema, "_write_head_schema", dies_half_way)
    with pytest.raises(KeyboardInterrupt):
        zeckdb.store.StoreWriter.open_write(path)
    assert list(tmp_path.iterdir()) == []  # its own temporary folder gone, and the lock folder it made
    monkeypatch.setattr(zeckdb.store.schema, "_write_head_schema", real)
    code, out, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..4", "--db", str(path))
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.duckdb", "new.duckdb.locks"]


@pytest.mark.parametrize("command", [["build", "--variant", "zeckendorf", "--n", "1..4"],
                                     ["build", "--summary-only", "--variant", "reversed", "--n", "3"]])
def test_creating_a_database_never_touches_a_file_beside_it(capsys, tmp_path, command):
    """`NAME.new` was the temporary name of a new NAME, deleted before and after its creation:
    a database of the user's so named was lost, and a build running into it reported success."""
    neighbour = tmp_path / "data.duckdb.new"
    assert run(capsys, "build", "--variant", "reversed", "--n", "1..6", "--db", str(neighbour))[0] == 0
    (tmp_path / "data.duckdb.new.wal").write_bytes(b"a file of the user's")
    before = {p.name: digest(p) for p in tmp_path.iterdir() if p.is_file()}
    code, _, err = run(capsys, *command, "--db", str(tmp_path / "data.duckdb"))
    assert code == 0, err
    assert {p.name: digest(p) for p in tmp_path.iterdir() if p.is_file() and p.name in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["data.duckdb", "data.duckdb.locks", *before,
                                                                 "data.duckdb.new.locks"])


def test_a_creation_killed_between_its_link_and_its_cleanup_is_finished_by_the_next_build(capsys, tmp_path):
    """The new file is linked into place from zeckdb's own folder (with its mark) and that folder
    removed: a kill in between leaves the database with a second name there. A reader says to
    finish it with a build and removes nothing; the next build removes it (zeckdb's own)."""
    from zeckdb.store.paths import CREATION_MARK

    path = tmp_path / "x.duckdb"
    assert run(capsys, "build", "--variant", "zeckendorf", "--n", "1..4", "--db", str(path))[0] == 0
    leftover = tmp_path / ".x.duckdb.new-abcd1234"
    leftover.mkdir()
    (leftover / CREATION_MARK).write_bytes(b"")
    os.link(path, leftover / "x.duckdb")
    code, out, err = run(capsys, "status", "--db", str(path))
    assert code != 0 and f"was being created when its build stopped: run `zeckdb build --db {path}`" in err, err
    assert (leftover / "x.duckdb").exists()  # a read-only command removes nothing
    code, _, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..5", "--db", str(path))
    assert code == 0, err
    assert not leftover.exists() and path.stat().st_nlink == 1


@pytest.mark.parametrize("command", [["status"], ["build", "--variant", "zeckendorf", "--n", "1..5"]])
def test_a_folder_of_the_users_named_like_zeckdbs_own_is_never_removed(capsys, tmp_path, command):
    """A read-only command removed a folder the user made whose name matched `.X.duckdb.new-*`
    (and the hard link in it): without zeckdb's mark it is the user's, and stays, the database's
    second name refused in one line as any hard link is."""
    path = tmp_path / "x.duckdb"
    assert run(capsys, "build", "--variant", "zeckendorf", "--n", "1..4", "--db", str(path))[0] == 0
    mine = tmp_path / ".x.duckdb.new-backup"
    mine.mkdir()
    os.link(path, mine / "x.duckdb")
    code, _, err = run(capsys, *command, "--db", str(path))
    assert code != 0 and "has 2 names (hard links)" in err and len(err.splitlines()) == 1, err
    assert (mine / "x.duckdb").exists() and path.stat().st_nlink == 2


@pytest.mark.parametrize("command", [["status"], ["export", "OUT"], ["verify"], ["position", "zeckendorf", "--start", "4"],
                                     ["build", "--variant", "zeckendorf", "--n", "1..6"]])
def test_a_file_whose_columns_are_not_zeckdbs_is_named_so(capsys, tmp_path, monkeypatch, command):
    """A crafted file whose builds.n is text made export call it a bug of zeckdb's ("please report
    it") and status raise a traceback: a table whose columns are not those zeckdb writes is a file
    zeckdb did not write, or a damaged one, said in one line, nothing written."""
    import duckdb

    monkeypatch.chdir(tmp_path)
    path = tmp_path / "crafted.duckdb"
    assert run(capsys, "build", "--variant", "zeckendorf", "--n", "1..5", "--db", str(path))[0] == 0
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE text_n AS SELECT * REPLACE (n::VARCHAR AS n) FROM builds")
        con.execute("DROP TABLE builds")
        con.execute("ALTER TABLE text_n RENAME TO builds")
    before = digest(path)
    code, out, err = run(capsys, *command, "--db", str(path))
    assert code != 0 and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert "holds what zeckdb's schema does not (a changed table builds (its n VARCHAR is not zeckdb's)" in err, err
    assert err.rstrip().endswith("rebuild it into a new file (`zeckdb build --db NEW_FILE` with the same --variant and --n)")
    assert "report" not in err and digest(path) == before and not (tmp_path / "OUT").exists()


def test_status_counts_no_layer_whose_positions_are_gone(capsys, clean, tmp_path):
    """A layer whose builds row was kept and whose positions were deleted read as built
    ("n = 1..20,25"); verify names it, and status leaves it out."""
    path = tmp_path / "holed.duckdb"
    shutil.copy(clean, path)
    with duckdb.connect(str(path)) as con:
        con.execute("DELETE FROM position_rows WHERE n = 7 AND variant_id = (SELECT variant_id FROM variant_ids "
                    "WHERE variant = 'zeckendorf')")
    code, out, err = run(capsys, "status", "--format", "json", "--db", str(path))
    import json

    by_variant = {row["variant"]: row for row in json.loads(out)["variants"]}
    assert code == 0 and by_variant["zeckendorf"]["ns"] == "1..6,8..40" and by_variant["reversed"]["ns"] == "1..40", out
    code, out, err = run(capsys, "verify", "--variant", "zeckendorf", "--n", "7", "--db", str(path))
    assert code == 1, err
