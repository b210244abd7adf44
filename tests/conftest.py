from __future__ import annotations

import os
from pathlib import Path
import shutil
import subprocess
import sys
import time

import pytest

import zeckdb
from zeckdb.store import close_connection, open_sandboxed
from zeckdb.variants import variant_names

from hypothesis import settings

# CI replays the same examples every run (a failure there is then reproducible); locally they vary
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

# the games of docs/games.md, as a user names them (not read from the registry under test)
GAMES = ["zeckendorf", "reversed", "quilt", "build-up", "fibonacci-nim", "ordered", "accelerated", "reversed-stagnant"]
SMALL_N = 40  # graph sizes in docs/games.md go up to 40; every column is cross-checked up to 20
QUILT_N = 30
BLACK_HOLE_N = 50  # the m = 4 empty-board facts name n = 47
BLACK_HOLES = [f"black-hole-{m}" for m in (2, 3, 4, 5)] + [f"black-hole-empty-board-{m}" for m in (2, 3, 4, 5)]
# the other members of the families (M = 6..12), at the n the cross-checks cover
# (the games placing in any bin have a solver of their own, tests/test_empty_board_any.py)
MORE_BLACK_HOLES = [name for name in variant_names(all_members=True)
                    if name.startswith("black-hole") and name not in BLACK_HOLES and "-any-" not in name]
MORE_BLACK_HOLE_N = 15
NIM_N = 100
BUILD_UP_N = 40
ORDERED_N = 18  # Player 2 wins n = 18 (the paper's one exception)
ACCELERATED_N = 20
# games of three or more players, as users name them (docs/games.md), and a two-player nacci game
PLAYER_GAMES = ["zeckendorf-p3", "zeckendorf-p4", "nacci-2-2-p4"]
PLAYERS_N = 20
# misère twins of the core games (docs/games.md, "Misère play"), beside their normal games
MISERE_GAMES = ["zeckendorf-misere", "reversed-misere"]
MISERE_N = 20


def _shared_small_db(tmp_path_factory) -> Path:
    """This run's folder for the small database, shared by its xdist workers."""
    shared = tmp_path_factory.getbasetemp().parent / "small-db"
    shared.mkdir(exist_ok=True)
    return shared


@pytest.fixture(scope="session", autouse=True)
def _small_db_started(request, tmp_path_factory, worker_id):
    """Under xdist, the first worker to start sets the small database building in a process of
    its own, so that no worker sits idle while it is built: the tests that need it run last
    (pytest_collection_modifyitems) and wait for it in small_db."""
    if worker_id == "master" or not any(map(_reads_small_db, request.session.items)):
        yield
        return
    shared = _shared_small_db(tmp_path_factory)
    try:
        os.close(os.open(shared / "started", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:  # another worker started it
        yield
        return
    script = ("import sys; from pathlib import Path; from tests.conftest import _build_small_db; "
              "_build_small_db(Path(sys.argv[1])); (Path(sys.argv[1]).parent / 'built').touch()")
    with open(shared / "build.log", "w") as log:
        build = subprocess.Popen([sys.executable, "-c", script, str(shared / "small.duckdb")], stdout=log,
                                 stderr=subprocess.STDOUT, cwd=Path(__file__).parent.parent)
    yield
    build.wait()  # the other workers may still wait for it


def _reads_small_db(item) -> bool:
    return "small_db" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(items) -> None:
    """The tests that read the small database last (a stable sort: otherwise in their order)."""
    items.sort(key=_reads_small_db)


@pytest.fixture(scope="session")
def small_db(tmp_path_factory, worker_id) -> Path:
    """Every variant at small n: the core variants for n = 1..40, quilt 1..30, the Black
    Hole games (m = 2..5, both kinds) 1..50 and (m = 6..12) 1..15, Fibonacci nim 1..100, build-up 1..40, the ordered
    game 1..18, the accelerated game 1..20, the games of three and four players (and nacci-2-2, the graph of
    one of them) 1..20, the misère twins of the core games 1..20. Built once per run (under xdist by the process _small_db_started
    starts), and each worker gets a copy of its own, so that a test watching its folder sees
    only its own worker."""
    path = tmp_path_factory.mktemp("db") / "small.duckdb"
    if worker_id == "master":  # no xdist: this run's folder is this process's alone
        _build_small_db(path)
        return path
    shared = _shared_small_db(tmp_path_factory)
    deadline = time.monotonic() + 900
    while not (shared / "built").exists():
        log = (shared / "build.log").read_text() if (shared / "build.log").exists() else ""
        if "Traceback" in log or time.monotonic() > deadline:  # (a build killed outright times out)
            pytest.fail(f"the small database was not built:\n{log}", pytrace=False)
        time.sleep(0.1)
    assert not (shared / "small.duckdb.wal").exists()  # closed: everything is in the file
    shutil.copyfile(shared / "small.duckdb", path)
    return path


def _build_small_db(path: Path) -> None:
    for variants, top in [(["zeckendorf", "reversed"], SMALL_N), (["quilt"], QUILT_N), (BLACK_HOLES, BLACK_HOLE_N),
                          (MORE_BLACK_HOLES, MORE_BLACK_HOLE_N), (["fibonacci-nim"], NIM_N),
                          (["build-up"], BUILD_UP_N), (["ordered"], ORDERED_N), (["accelerated"], ACCELERATED_N),
                          ([*PLAYER_GAMES, "nacci-2-2"], PLAYERS_N), (MISERE_GAMES, MISERE_N)]:
        zeckdb.build(path, variants, f"1..{top}")


@pytest.fixture
def con(small_db):
    c = open_sandboxed(small_db)
    yield c
    close_connection(c)


def run(capsys, *args) -> tuple[int, str, str]:
    """Run the command line in this process: (exit status, stdout, stderr)."""
    from zeckdb.cli.main import main

    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def rows(con, sql: str, params=()) -> list[dict]:
    cur = con.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=False)) for r in cur.fetchall()]


def as_games(names: list[str]) -> list:
    """The games of these names, as zeckdb.builder.build takes them (the library's door
    resolves names once; a test of the builder calls it below that door)."""
    from zeckdb.variants import get_variant

    return [get_variant(name) for name in names]
