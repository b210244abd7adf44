"""What a library user's type checker sees: `zeckdb.open`, `zeckdb.build` and the answers are
typed (the package ships py.typed), so a script that uses them passes `mypy --strict`, and a
mistake in one is caught."""

from __future__ import annotations

from pathlib import Path
import subprocess
import sys

import pytest

ROOT = Path(__file__).resolve().parent.parent

USER_SCRIPT = '''import zeckdb


def best_move(path: str, n: int) -> str | None:
    with zeckdb.open(path) as db:
        info = db.position("zeckendorf", start=n)
        built = db.sql("SELECT n FROM builds WHERE variant = ? AND n <= ?", ["zeckendorf", n]).rows
        return info.moves[0].move if info.moves and built else None


def build_small(path: str) -> int:
    result = zeckdb.build(path, "zeckendorf", "1..5")
    return result.positions


def outcome_or_why(path: str, game: str) -> str:
    try:
        with zeckdb.open(path) as db:
            return db.position(game, start=5).outcome or "no two-player outcome"
    except zeckdb.UnknownVariantError as exc:
        return str(exc)
    except zeckdb.NotBuiltError:
        return "not built"


def walk(path: str) -> list[str]:
    """A two-player game walked with no isinstance: its positions have an outcome, its moves
    their verdict (under mypy --strict, `start()` returned Position | PlayersPosition)."""
    with zeckdb.open(path) as db:
        position = db.game("zeckendorf").start(8)
        names = []
        while position.best_move is not None:
            move: zeckdb.Move = position.best_move
            names.append(f"{move.name} -> {move.text}: {position.outcome} in {position.remoteness}, wins {move.wins}")
            position = position.play(move)
        for step, reached in db.game("reversed").start(6).line():  # a Move with its verdict, a Position
            names.append(f"{step.name if step else '(from)'}, wins {step and step.wins}: {reached.outcome}")
        seats = db.players_game("zeckendorf-p3").start(4).forcing_seat
        return names + [f"seat {seats}"]
'''

MISTAKES = '''import zeckdb

db: int = zeckdb.open("x.duckdb")
info = zeckdb.open("x.duckdb").position("zeckendorf", start="ten")
'''


def _mypy(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    """mypy --strict on a user's script in a folder of its own, as a user runs it: zeckdb is
    found as this environment installed it (the README's install), nothing pointing at the
    checkout (no MYPYPATH, no silenced imports)."""
    pytest.importorskip("mypy")
    script = tmp_path / "user.py"
    script.write_text(text)
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
                           str(tmp_path / "cache"), str(script)], capture_output=True, text=True, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin"}, timeout=600)


def test_a_user_script_passes_mypy_strict(tmp_path):
    out = _mypy(tmp_path, USER_SCRIPT)
    assert "Cannot find implementation or library stub" not in out.stdout, (
        "mypy cannot see the installed zeckdb: install it as the README says (editable_mode=strict)\n" + out.stdout)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_types_are_real_not_any(tmp_path):
    out = _mypy(tmp_path, MISTAKES)
    assert out.returncode == 1
    assert 'Incompatible types in assignment (expression has type "Database", variable has type "int")' in out.stdout
    assert 'Argument "start" to "position" of "Database" has incompatible type "str"' in out.stdout


def test_the_package_says_what_it_offers():
    import zeckdb

    assert {"open", "build", "Database", "Result", "PositionInfo", "ZeckdbError"} <= set(dir(zeckdb))
    assert set(zeckdb.__all__) <= set(dir(zeckdb))
    assert "zeckdb.open" in (zeckdb.__doc__ or "") and zeckdb.open.__module__ == "zeckdb.api"
    with pytest.raises(zeckdb.UnknownVariantError, match="did you mean zeckendorf"):  # the errors, from the top
        zeckdb.build("never.duckdb", "zekendorf", "1..5")
    assert issubclass(zeckdb.UnknownVariantError, zeckdb.UsageError) and issubclass(zeckdb.UsageError, zeckdb.ZeckdbError)
    assert (ROOT / "zeckdb" / "py.typed").exists()


def test_the_answers_are_typed_objects(small_db):
    import zeckdb

    with zeckdb.open(small_db) as db:
        status, layers = db.status(), db.summary("zeckendorf", "5..6")
    assert isinstance(status, zeckdb.Status) and status.schema_revision and not status.build_running
    zeck = next(v for v in status.variants if v.variant == "zeckendorf")
    assert zeck.ns == "1..40" and zeck.positions > 0
    assert [layer.n for layer in layers] == [5, 6] and all(isinstance(layer, zeckdb.Layer) for layer in layers)
    assert layers[0].winner in (1, 2) and layers[0].to_json()["built_at"].count("T") == 1  # JSON-ready
    games = zeckdb.api.variants("nacci-2-3")
    assert isinstance(games[0], zeckdb.GameInfo) and games[0].variant == "nacci-2-3" and games[0].members is None
