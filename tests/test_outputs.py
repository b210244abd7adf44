"""Nothing zeckdb writes can destroy the database (zeckdb.outputs): every command that writes
a file or folder (plot --out and --data, draw --out, export, the distributed build's shards)
refuses the database, its WAL and its .locks folder however they are named, refuses an
existing file without --force, and writes atomically. After every refusal the database is
byte-identical and `zeckdb verify` passes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st
import pytest

import zeckdb
from zeckdb import api
from zeckdb.errors import ZeckdbError
from zeckdb.errors import OutputError
from zeckdb.outputs import write_file

from .conftest import run

NAME = "zeck.duckdb"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("outputs") / NAME
    zeckdb.build(path, ["zeckendorf", "reversed"], "1..9")
    return path


def state(db: Path) -> tuple:
    """What must not change: the database's bytes, and what lies beside it."""
    return (hashlib.sha256(db.read_bytes()).hexdigest(), sorted(p.name for p in db.parent.iterdir()),
            sorted(p.name for p in (db.parent / (NAME + ".locks")).iterdir()))


# each command that writes, as the argument list that makes it write to TARGET
COMMANDS = {
    "plot --out": (["plot", "winners", "--variant", "zeckendorf", "--out", "TARGET"], ".svg"),
    "plot --data": (["plot", "winners", "--variant", "zeckendorf", "--out", "FRESH.svg", "--data", "TARGET"], ".csv"),
    "draw --out": (["draw", "zeckendorf", "--n", "5", "--out", "TARGET"], ".dot"),
    "export": (["export", "TARGET"], ""),
    "build --shards": (["build", "--variant", "zeckendorf", "--n", "5", "--executor", "dask", "--address",
                        "tcp://127.0.0.1:1", "--shards", "TARGET"], ""),
}


def target(kind: str, db: Path, scratch: Path, suffix: str) -> tuple[str, str]:
    """A path of the given kind (made on disk where it needs to be) and the refusal expected."""
    folder = db.parent
    if kind == "the database":
        return str(db), "it is the open database zeck.duckdb"
    if kind == "a symlink to it":
        (scratch / f"link{suffix}").symlink_to(db)
        return str(scratch / f"link{suffix}"), "the open database zeck.duckdb"
    if kind == "a relative symlink to it":
        (scratch / f"rel{suffix}").symlink_to(os.path.relpath(db, scratch))
        return os.path.relpath(scratch / f"rel{suffix}"), "the open database zeck.duckdb"
    if kind == "a hard link to it":  # the database then has two names, and no command opens it
        os.link(db, scratch / f"hard{suffix}")
        return str(scratch / f"hard{suffix}"), "zeck.duckdb has 2 names (hard links)"
    if kind == "its WAL through ..":
        return str(folder / "sub" / ".." / (NAME + ".wal")), "the open database's .wal file"
    if kind == "its locks folder":
        return str(folder / (NAME + ".locks")), "the open database's .locks folder"
    if kind == "a file in its locks folder":
        return str(folder / (NAME + ".locks") / f"x{suffix}"), "inside the open database's .locks folder"
    if kind == "a folder that does not exist":
        return str(scratch / "no" / "such" / f"x{suffix}"), "does not exist"
    assert kind == "an existing file"
    (scratch / f"notes{suffix}").write_text("the user's own notes")
    return str(scratch / f"notes{suffix}"), "exists" if suffix else "is a file, not a folder"


KINDS = ["the database", "a symlink to it", "a relative symlink to it", "a hard link to it", "its WAL through ..",
         "its locks folder", "a file in its locks folder", "a folder that does not exist", "an existing file"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_refused_target_leaves_everything_as_it_was(capsys, db, tmp_path, monkeypatch, command, kind):
    monkeypatch.chdir(tmp_path)
    scratch = Path(tmp_path) / "scratch"
    scratch.mkdir()
    args, suffix = COMMANDS[command]
    path, message = target(kind, db, scratch, suffix)
    before, scratch_before = state(db), sorted(p.name for p in scratch.rglob("*"))
    try:
        code, out, err = run(capsys, *[a.replace("TARGET", path).replace("FRESH", str(tmp_path / "fresh"))
                                       for a in args], "--db", str(db))
    finally:
        if kind == "a hard link to it":
            Path(path).unlink()  # the database has one name again, for the tests after this one
            scratch_before.remove(Path(path).name)
    assert code == (1 if kind == "a hard link to it" else 2), err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert state(db) == before and sorted(p.name for p in scratch.rglob("*")) == scratch_before
    assert not (tmp_path / "fresh.svg").exists()  # --data refused: not even the image is written
    if kind == "an existing file":
        assert (scratch / f"notes{suffix}").read_text() == "the user's own notes"


def test_the_database_stays_verified(capsys, db):
    code, out, err = run(capsys, "verify", "--db", str(db))
    assert code == 0 and "every check passed" in out, err


@pytest.mark.parametrize("command", ["plot --out", "plot --data", "draw --out"])
def test_force_replaces_an_existing_file_but_never_a_database(capsys, db, tmp_path, command):
    args, suffix = COMMANDS[command]
    notes = tmp_path / f"notes{suffix}"
    notes.write_text("old")
    other = tmp_path / f"other{suffix}"
    other.write_bytes(db.read_bytes())  # another DuckDB database, under another name
    before = state(db)
    argv = [a.replace("FRESH", str(tmp_path / "fresh")) for a in args]
    code, out, err = run(capsys, *[a.replace("TARGET", str(notes)) for a in argv], "--force", "--db", str(db))
    assert code == 0 and f"wrote {notes}" in out and notes.read_text() != "old", err
    code, out, err = run(capsys, *[a.replace("TARGET", str(other)) for a in argv], "--force", "--db", str(db))
    assert code == 2 and "it is a DuckDB database, which zeckdb never overwrites" in err
    assert other.read_bytes() == db.read_bytes() and state(db) == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_a_failed_write_leaves_the_old_file_whole(tmp_path):
    path = tmp_path / "figure.svg"
    path.write_text("the old figure")

    def half_then_fail(f):
        f.write(b"<svg half")
        raise OSError("disk full")

    with pytest.raises(OutputError, match="cannot write .*figure.svg: disk full"):  # one line, not a traceback
        write_file(path, half_then_fail, force=True)
    assert path.read_text() == "the old figure" and [p.name for p in tmp_path.iterdir()] == ["figure.svg"]
    with pytest.raises(OutputError, match="exists: name a new file, or replace it with force"):
        write_file(path, b"<svg/>")  # checked again where it writes: existing files only with force
    write_file(path, b"<svg/>", force=True)
    assert path.read_bytes() == b"<svg/>" and oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_plot_that_fails_while_saving_leaves_the_old_file(db, tmp_path, monkeypatch):
    import zeckdb.plots

    out = tmp_path / "winners.svg"
    out.write_text("yesterday's figure")

    def broken_save(plot, f, fmt=None):
        f.write(b"<svg")
        raise RuntimeError("matplotlib broke")

    monkeypatch.setattr(zeckdb.plots, "save", broken_save)
    with api.open(db) as database, pytest.raises(RuntimeError):
        database.plot("winners", "zeckendorf", out=out, force=True)
    assert out.read_text() == "yesterday's figure" and [p.name for p in tmp_path.iterdir()] == ["winners.svg"]


# -- the same rule through the API, as a property over paths ------------------------------------

SEGMENTS = st.sampled_from([".", "..", "sub", "new", NAME, NAME + ".wal", NAME + ".locks", "link", "hard",
                            "notes.svg", "x.svg", "x.csv", "x.dot"])


@pytest.fixture(scope="module")
def property_root(tmp_path_factory) -> Path:
    """A database with a symlink to it, a folder and a file of the user's (the test adds a hard
    link while the database is open: with two names it would not open)."""
    root = tmp_path_factory.mktemp("property")
    zeckdb.build(root / NAME, ["zeckendorf"], [3, 5])
    (root / "sub").mkdir()
    (root / "link").symlink_to(root / NAME)
    return root


def _writes(database: api.Database, path: Path, which: str, force: bool) -> None:
    from zeckdb.distributed import TABLE_PARTITIONS
    from zeckdb.outputs import check_folder

    if which == "plot":
        database.plot("winners", "zeckendorf", out=path, force=force)
    elif which == "data":
        database.plot("winners", "zeckendorf", data=path, force=force)
    elif which == "draw":
        database.draw("zeckendorf", 5, out=path, force=force)
    elif which == "export":
        database.export(path, variant=["zeckendorf"], n=3)
    else:  # what api.build checks before it reaches for the cluster (which then makes the folder)
        check_folder(path, database=database.path, may_hold=TABLE_PARTITIONS)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(["plot", "data", "draw", "export", "shards"]),
       parts=st.lists(SEGMENTS, min_size=1, max_size=4), absolute=st.booleans(), force=st.booleans())
def test_no_output_path_reaches_the_database(property_root, which, parts, absolute, force):
    root = property_root
    db_path = root / NAME
    (root / "notes.svg").write_text("notes")
    before = state(db_path)
    path = Path(*parts) if not absolute else root.joinpath(*parts)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with api.open(db_path) as database:
            os.link(root / NAME, root / "hard")  # made while it is open, as a user may
            try:
                _writes(database, path, which, force)
                wrote = True
            except ZeckdbError as exc:
                wrote = False
                assert "\n" not in str(exc)
    finally:
        os.chdir(cwd)
        (root / "hard").unlink(missing_ok=True)
    after = state(db_path)
    assert after[0] == before[0] and after[2] == before[2]  # the database's bytes, its locks folder
    if wrote:
        real = Path(os.path.realpath(root / path))
        assert real.parent != root / (NAME + ".locks") and real not in (db_path, root / (NAME + ".wal"))
        assert force or which not in ("plot", "data", "draw") or (root / "notes.svg").read_text() == "notes"
