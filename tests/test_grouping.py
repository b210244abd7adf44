"""A layer's stored rows do not depend on the games built beside it, nor on how its n were split
into commands: the same games built in every grouping give the same tables, row for row."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import duckdb
import pytest

import zeckdb

# every two-player game of the default build (docs/games.md's, M = 2..5) and both misère twins
# of the core games, as a user names them; N reaches every game's lower layers and several of
# each game's own
GAMES = ["zeckendorf", "reversed", "zeckendorf-misere", "reversed-misere", "quilt", "build-up", "fibonacci-nim",
         "ordered"] + [f"black-hole-{m}" for m in (2, 3, 4, 5)] + [f"black-hole-empty-board-{m}" for m in (2, 3, 4, 5)]
# the games that play one graph (the Zeckendorf game's), where a layer's companions shared work
ONE_GRAPH = ["zeckendorf", "reversed", "zeckendorf-misere", "reversed-misere"]
N = "1..11"

# what a layer stores, per game: every table with its rows' own columns (not the build's clock)
PER_GAME = {
    "positions": "SELECT * FROM positions WHERE variant = ? ORDER BY n, id",
    "length_distribution": "SELECT * FROM length_distribution WHERE variant = ? ORDER BY n, measure, length",
    "random_play": "SELECT * FROM random_play WHERE variant = ? ORDER BY n",
    "builds": "SELECT * EXCLUDE (seconds, built_at) FROM builds WHERE variant = ? ORDER BY n",
    "variants": "SELECT * FROM variants WHERE variant = ?",
    "move_names": "SELECT * FROM move_names WHERE variant = ? ORDER BY code",
    "variant_columns": "SELECT * FROM variant_columns WHERE variant = ? ORDER BY position",
    "moves": "SELECT * FROM moves WHERE variant = ? ORDER BY n, src, code, dst",
    "graph_layers": "SELECT g.* FROM graph_layers g JOIN variants v USING (graph) WHERE v.variant = ? ORDER BY n",
}


def _tables(path: Path, games: list[str]) -> dict[tuple[str, str], list[tuple]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {(game, table): con.execute(sql, [game]).fetchall() for game in games for table, sql in PER_GAME.items()}
    finally:
        con.close()


@pytest.fixture(scope="module")
def alone(tmp_path_factory) -> dict[tuple[str, str], list[tuple]]:
    """Each game built alone, in a file of its own: what every grouping must store."""
    rows: dict[tuple[str, str], list[tuple]] = {}
    folder = tmp_path_factory.mktemp("alone")
    for game in GAMES:
        zeckdb.build(folder / f"{game}.duckdb", game, N)
        rows.update(_tables(folder / f"{game}.duckdb", [game]))
    assert all(rows[game, "length_distribution"] for game in GAMES)  # every game of these has length rows
    return rows


def _differences(built: dict[tuple[str, str], list[tuple]], alone: dict[tuple[str, str], list[tuple]]) -> list[str]:
    return [f"{game} {table}: {len(rows)} rows, {len(alone[game, table])} built alone, "
            f"{sum(a != b for a, b in zip(rows, alone[game, table], strict=False))} differ"
            for (game, table), rows in built.items() if rows != alone[game, table]]


def test_every_game_built_together_stores_what_each_stores_alone(tmp_path, alone):
    for order in (GAMES, GAMES[::-1]):
        path = tmp_path / f"together-{order[0]}.duckdb"
        zeckdb.build(path, order, N)
        assert _differences(_tables(path, GAMES), alone) == []


@pytest.mark.parametrize("size", [2, 3, 4])
def test_the_games_of_one_graph_in_every_grouping_store_what_each_stores_alone(tmp_path, alone, size):
    """Every set of the games on the Zeckendorf game's graph, in either order, built together:
    the misère twins kept no length rows when built with both core games."""
    for group in combinations(ONE_GRAPH, size):
        for order in {group, group[::-1]}:
            path = tmp_path / f"{'+'.join(order)}.duckdb"
            zeckdb.build(path, list(order), N)
            assert _differences(_tables(path, list(group)), alone) == [], order


def test_a_build_in_several_commands_stores_what_one_command_does(tmp_path, alone):
    """Games added to a file one command at a time, the n split: twins after their normal
    games (whose graph is then stored), the lower n first."""
    path = tmp_path / "steps.duckdb"
    zeckdb.build(path, ["zeckendorf", "black-hole-3"], "1..5")
    zeckdb.build(path, ["zeckendorf", "reversed-misere", "black-hole-3"], N)
    zeckdb.build(path, ["reversed", "zeckendorf-misere"], "1..7")
    zeckdb.build(path, [game for game in GAMES if game != "black-hole-3"], N)
    assert _differences(_tables(path, GAMES), alone) == []
