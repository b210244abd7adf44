"""Where zeckdb writes and what it opens as a database, over generated path shapes (links,
chains of links, hard links, the database's side files, FIFOs, folders, devices) and against
a link swapped while it writes: the database stays byte-identical, nothing is left half
written, nothing blocks, and every refusal is one line."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
import hashlib
import os
from pathlib import Path
import shutil
import threading

from hypothesis import HealthCheck, given, settings, strategies as st
import pytest

from zeckdb import api
from zeckdb.errors import ZeckdbError
from zeckdb.store import Store, StoreWriter, resolve_db_path

from .conftest import run

SIDE = ["", ".wal", ".wal.recovery", ".wal.checkpoint", ".tmp", ".locks", ".locks/build", ".locks/gate"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("paths") / "base.duckdb"
    api.build(db, ["zeckendorf"], "1..7")
    return db


def digest(folder: Path) -> dict[str, str]:
    """Every regular file under `folder` by its content (links and FIFOs by what they are)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            out[str(path.relative_to(folder))] = "link -> " + os.readlink(path)
        elif path.is_fifo():
            out[str(path.relative_to(folder))] = "fifo"
        elif path.is_file():
            out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def scene(root: Path, built: Path) -> Path:
    """A database with a write-ahead log's place, a lock folder and a spare folder."""
    root.mkdir()
    db = root / "db" / "base.duckdb"
    db.parent.mkdir()
    shutil.copy(built, db)
    (root / "spare").mkdir()
    with StoreWriter.open_write(db):  # makes the lock folder as a build leaves it
        pass
    return db


# A path shape: where it points (the database's file or a side file of it, a spare place, a
# FIFO, a folder, a device), reached directly or through a chain of links (or a hard link)
targets = st.sampled_from([f"db/base.duckdb{side}" for side in SIDE] + ["spare/out.dot", "spare", "fifo", "/dev/null",
                                                                       "/dev/stdout", "/proc/self/fd/1", "missing/x"])
shapes = st.tuples(targets, st.integers(0, 3), st.booleans())


def make(root: Path, target: str, links: int, hard: bool) -> Path:
    """The path a user would pass: `target` itself, or `links` links chained to it (a hard
    link instead, where it can be made)."""
    if target == "fifo":
        place = root / "spare" / "f.dot"
        if not place.exists():
            os.mkfifo(place)
    else:
        place = Path(target) if target.startswith("/") else root / target
    if hard and place.is_file() and not target.startswith("/"):
        link = root / "spare" / "hard.dot"
        if not link.exists():
            os.link(place, link)
        return link
    for i in range(links):
        link = root / "spare" / f"link{i}-{len(list((root / 'spare').iterdir()))}.dot"
        link.symlink_to(place)
        place = link
    return place


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=shapes, force=st.booleans())
def test_outputs_never_touch_the_database(tmp_path_factory, built, shape, force):
    root = tmp_path_factory.mktemp("out") / "scene"
    db = scene(root, built)
    before = digest(db.parent)
    out = make(root, *shape)
    try:
        with api.open(db) as database:
            database.draw("zeckendorf", 5, "dot", out=out, force=force)
        wrote = True
    except ZeckdbError as exc:
        assert "\n" not in str(exc)
        wrote = False
    assert digest(db.parent) == before, shape
    assert not [p for p in root.rglob("*.partial")], shape
    if wrote:
        assert Path(os.path.realpath(out)).read_text().startswith("digraph")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=shapes)
def test_a_database_path_is_the_real_file_or_one_line(tmp_path_factory, built, shape):
    root = tmp_path_factory.mktemp("db") / "scene"
    db = scene(root, built)
    before = digest(db.parent)
    given_path = make(root, *shape)
    try:
        path = resolve_db_path(given_path)
    except ZeckdbError as exc:
        assert "\n" not in str(exc)
    else:
        assert path == Path(os.path.realpath(given_path))
        assert not path.exists() or path.is_file()
        if path == db.resolve():
            with Store.open_read(given_path) as store:  # the link opens the database with its own side files
                assert store.path == db.resolve() and store.built_ns("zeckendorf")
    assert digest(db.parent) == before, shape


@contextmanager
def flipping(link: Path, targets: tuple[Path, Path]) -> Iterator[None]:
    """`link` pointed at one target, then the other, as fast as a thread can, until the block ends."""
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            for target in targets:
                new = link.with_name(link.name + ".new")
                new.symlink_to(target)
                os.replace(new, link)

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    try:
        yield
    finally:
        stop.set()
        flipper.join()


def test_a_link_swapped_while_writing_never_reaches_the_database(tmp_path, built):
    """A folder link flipped between a spare folder and the database's folder as fast as it can:
    `draw --out d/base.duckdb` never replaces the database, leaves no partial file, and each try
    ends in a file written to the spare folder or one line."""
    db = scene(tmp_path / "race", built)
    spare, link = tmp_path / "race" / "spare", tmp_path / "race" / "d"
    link.symlink_to(spare)
    before = digest(db.parent)
    outcomes = []
    with flipping(link, (db.parent, spare)), api.open(db) as database:
        for _ in range(200):
            try:
                database.draw("zeckendorf", 5, "dot", out=link / "base.duckdb", force=True)
                outcomes.append("wrote")
            except ZeckdbError as exc:
                assert "\n" not in str(exc)
                outcomes.append("refused")
    assert digest(db.parent) == before
    assert not list((tmp_path / "race").rglob("*.partial"))
    assert set(outcomes) <= {"wrote", "refused"} and "refused" in outcomes


def test_the_commands_give_one_line_for_every_shape(capsys, tmp_path, built):
    db = scene(tmp_path / "cli", built)
    os.mkfifo(tmp_path / "cli" / "fifo.duckdb")
    for args in (["status", "--db", str(tmp_path / "cli" / "fifo.duckdb")],
                 ["db", "current", "--db", str(tmp_path / "cli" / "fifo.duckdb")],
                 ["build", "--variant", "zeckendorf", "--n", "3", "--db", str(db) + ".wal"],
                 ["db", "upgrade", "--db", str(db) + ".wal"],
                 ["build", "--variant", "zeckendorf", "--n", "3", "--db", "/proc/x.duckdb"],
                 ["plot", "winners", "--variant", "zeckendorf", "--out", "/dev/stdout", "--db", str(db)],
                 ["draw", "zeckendorf", "--n", "5", "--out", str(tmp_path / "cli" / "fifo.duckdb"), "--db", str(db)]):
        code, out, err = run(capsys, *args)
        assert code != 0 and err.count("\n") == 1 and "Traceback" not in err, (args, err)


@pytest.mark.parametrize("tamper, says", [
    (lambda locks: locks.write_text("x"), "it is not a folder"),
    (lambda locks: locks.symlink_to("/nonexistent/x"), "it is not a folder"),
    (lambda locks: (locks.mkdir(), (locks / "build").mkdir()), "its build"),
    (lambda locks: (locks.mkdir(), os.mkfifo(locks / "gate")), "its gate is not a plain file"),
    (lambda locks: (locks.mkdir(), (locks / "build").symlink_to(locks.parent / "elsewhere")), "its build"),
])
def test_a_tampered_lock_folder_gets_one_line(capsys, tmp_path, built, tamper, says):
    """A build and a reader each say what is wrong in one line, create nothing outside the lock
    folder (a lock file that is a link is never followed), and block on nothing."""
    db = tmp_path / "t.duckdb"
    shutil.copy(built, db)
    tamper(tmp_path / "t.duckdb.locks")
    before = digest(tmp_path)
    for command in (["build", "--variant", "zeckendorf", "--n", "8"], ["status"]):
        code, out, err = run(capsys, *command, "--db", str(db))
        assert code != 0 and "is not zeckdb's lock folder as it left it" in err and err.count("\n") == 1, err
        assert says in err or command[0] == "status", err
    def outside(files: dict[str, str]) -> dict[str, str]:  # lock files may be made inside the folder
        return {k: v for k, v in files.items() if not k.startswith("t.duckdb.locks/")}

    assert outside(digest(tmp_path)) == outside(before) and not (tmp_path / "elsewhere").exists()


def test_export_fills_the_folder_a_link_names(capsys, tmp_path, built):
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "link").symlink_to(empty)
    code, _, err = run(capsys, "export", str(tmp_path / "link"), "--db", str(built))
    assert code == 0, err
    assert (empty / "manifest.json").exists() and (tmp_path / "link").is_symlink()


def test_an_export_with_its_folder_link_swapped_never_lands_beside_the_database(tmp_path, built):
    """`export d/base.duckdb.wal` with the link d flipped between a spare folder and the
    database's folder: a folder named as the database's write-ahead log once appeared beside
    it, and every later command failed to open the database. Each try writes into the spare
    folder or is refused in one line; nothing appears beside the database."""
    db = scene(tmp_path / "race", built)
    spare, link = tmp_path / "race" / "spare", tmp_path / "race" / "d"
    link.symlink_to(spare)
    before = sorted(p.name for p in db.parent.iterdir())
    outcomes = []
    with flipping(link, (db.parent, spare)), api.open(db) as database:
        for _ in range(60):
            try:
                database.export(link / "base.duckdb.wal", n=[5])
                outcomes.append("wrote")
                shutil.rmtree(spare / "base.duckdb.wal")
            except ZeckdbError as exc:
                assert "\n" not in str(exc)
                outcomes.append("refused")
    assert sorted(p.name for p in db.parent.iterdir()) == before
    assert set(outcomes) <= {"wrote", "refused"} and "refused" in outcomes
    assert not [p for p in (tmp_path / "race").rglob("*") if ".partial-" in p.name]


def test_export_refuses_a_side_file_name_of_a_database_beside_it(capsys, tmp_path, built):
    shutil.copy(built, tmp_path / "other.duckdb")
    for name in ("other.duckdb.wal", "other.duckdb.locks", "other.duckdb.tmp"):
        code, _, err = run(capsys, "export", str(tmp_path / name), "--db", str(built))
        assert code == 2 and len(err.strip().splitlines()) == 1 and f"{name} is the name of the" in err, err
        assert not (tmp_path / name).exists()


def test_export_refuses_names_from_a_database_that_are_no_game_names(capsys, tmp_path, built):
    """A database is someone else's file: a variant named `../../x` in it would become a path."""
    import duckdb

    hostile = tmp_path / "hostile.duckdb"
    shutil.copy(built, hostile)
    with duckdb.connect(str(hostile)) as con:
        for table, column in (("variant_ids", "variant"), ("graph_ids", "graph"), ("variants", "variant"),
                              ("variants", "graph"), ("builds", "variant")):
            con.execute(f"UPDATE {table} SET {column} = '../../../escaped' WHERE {column} = 'zeckendorf'")
    out = tmp_path / "out"
    code, _, err = run(capsys, "export", str(out), "--db", str(hostile))
    assert code == 1 and len(err.strip().splitlines()) == 1 and "which is no game name" in err, err
    assert not out.exists() and not (tmp_path.parent / "escaped").exists()
    assert not list(tmp_path.rglob("escaped*"))


def test_a_database_with_two_names_is_refused_under_both(capsys, tmp_path, built):
    """Each name of a hard-linked file got its own write-ahead log and lock folder: an idle
    `zeckdb serve` on one name blocked builds on the other, and a build through one name
    stranded the other's log."""
    db = tmp_path / "one.duckdb"
    shutil.copy(built, db)
    other = tmp_path / "two.duckdb"
    os.link(db, other)
    for name in (db, other):
        for command in (["status"], ["build", "--variant", "zeckendorf", "--n", "8"], ["verify"]):
            code, _, err = run(capsys, *command, "--db", str(name))
            assert code == 1 and len(err.strip().splitlines()) == 1, (command, err)
            assert f"{name} has 2 names (hard links)" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.duckdb", "two.duckdb"]  # nothing made beside them
    other.unlink()
    assert run(capsys, "status", "--db", str(db))[0] == 0


def test_a_database_name_with_a_percent_sign_or_a_question_mark(capsys, tmp_path):
    """Alembic's configuration read a % as the start of an interpolation: q%41.duckdb could not
    be upgraded or built. DuckDB reads what follows a ? as options, its log put elsewhere: refused."""
    from alembic import command

    from zeckdb.store import alembic_config

    from .conftest import run

    old = tmp_path / "o%41#x.duckdb"
    command.upgrade(alembic_config(old), "0015")
    code, out, err = run(capsys, "db", "upgrade", "--db", str(old))
    assert code == 0 and "upgraded from 0015" in out, err
    code, out, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..3", "--db", str(old))
    assert code == 0 and out.startswith("built zeckendorf"), err
    code, out, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "1..3", "--db", str(tmp_path / "a?b.duckdb"))
    assert (code, out) == (1, "") and "a database's name may not hold a '?'" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o%41#x.duckdb", "o%41#x.duckdb.locks"]
