"""What a built layer holds, counted against what its game gives it: its positions and its
graph layer's moves (a full layer), its random_play row, its length rows under P and under mu
from its shortest game to its longest (where the build can give it a distribution:
engine.solve.with_distribution). No checksum is trusted: the rows are counted.

A layer that lacks rows is a hole. The build's plan takes a hole for a layer not built, so the
next build fills it; `zeckdb verify` and `zeckdb db upgrade` name holes with that build.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .store import Store
from .variants import Variant

# a layer's row counts beside its builds row: those of random_play and length_distribution
# (cheap, grouped over small tables), and with `sizes` those of its positions and of its graph
# layer's moves, read from the tables the lookups read
COUNTS_SQL = """
    WITH r AS (SELECT variant, n, count(*) AS rows FROM random_play
               WHERE list_contains($variants, variant) GROUP BY ALL),
         d AS (SELECT variant, n, count(*) FILTER (WHERE measure = 'P') AS p_rows,
                      count(*) FILTER (WHERE measure = 'mu') AS mu_rows
               FROM length_distribution WHERE list_contains($variants, variant) GROUP BY ALL)
    SELECT b.variant, b.n, b.summary_only, b.positions, b.edges, b.min_length, b.max_length,
           b.expected_length IS NOT NULL, coalesce(r.rows, 0), coalesce(d.p_rows, 0), coalesce(d.mu_rows, 0)
    FROM builds b LEFT JOIN r USING (variant, n) LEFT JOIN d USING (variant, n)
    WHERE list_contains($variants, b.variant) AND ($ns IS NULL OR list_contains($ns, b.n))
    ORDER BY b.variant, b.n"""
POSITIONS_SQL = """
    SELECT v.variant, p.n, count(*) FROM position_rows p JOIN variant_ids v USING (variant_id)
    WHERE list_contains($variants, v.variant) GROUP BY ALL
    UNION ALL
    SELECT variant, n, count(*) FROM position_rows_wide WHERE list_contains($variants, variant) GROUP BY ALL"""
MOVES_SQL = """
    SELECT g.graph, e.n, count(*)
    FROM (SELECT graph_id, n FROM edge_rows UNION ALL SELECT graph_id, n FROM edge_rows_across) e
    JOIN graph_ids g USING (graph_id)
    WHERE list_contains($graphs, g.graph) GROUP BY ALL"""


@dataclass(frozen=True)
class Hole:
    """A built layer that lacks rows its game gives it: what, in words."""

    variant: str
    n: int
    summary_only: bool
    lacks: tuple[str, ...]


@dataclass(frozen=True)
class Holes:
    """A database's holes, and the builds that fill them (quoted commands naming its file)."""

    layers: list[Hole]
    fill: list[str]


def database_holes(store: Store) -> Holes:
    """The holes of every game the database holds that this installation knows (a plugin's not
    installed here are left out), counted by the tables a build fills last."""
    from .errors import UnknownVariantError
    from .variants import get_variant

    games = []
    for (name,) in store.rows("SELECT DISTINCT variant FROM builds ORDER BY variant"):
        try:
            games.append(get_variant(name))
        except UnknownVariantError:
            continue
    found, _ = holes(store, games)
    return Holes(found, [store.suggested(words) for words in fill_commands(found)])


def holes(store: Store, games: Sequence[Variant], ns: list[int] | None = None,
          sizes: bool = False) -> tuple[list[Hole], int]:
    """The holes among the built layers of `games` (of `ns`, if given), and how many layers were
    counted. `sizes`: count their positions and moves too (a scan of those tables' layer
    columns; without it, the tables a build fills last: random_play, length_distribution)."""
    if not games:
        return [], 0
    by_name = {g.name: g for g in games}
    rows = store.rows(COUNTS_SQL, {"variants": list(by_name), "ns": ns})
    positions: dict[tuple[str, int], int] = {}
    moves: dict[tuple[str, int], int] = {}
    if sizes:
        positions = {(v, n): c for v, n, c in store.rows(POSITIONS_SQL, {"variants": list(by_name)})}
        moves = {(g, n): c for g, n, c in store.rows(MOVES_SQL, {"graphs": sorted({g.graph_name for g in games})})}
    found = []
    for name, layers in _by_variant(rows).items():
        game = by_name[name]
        found += _game_holes(game, layers, _lower_moves(store, game, layers), positions if sizes else None,
                             moves if sizes else None)
    return found, len(rows)


def _by_variant(rows: list[tuple[Any, ...]]) -> dict[str, list[tuple[Any, ...]]]:
    grouped: dict[str, list[tuple[Any, ...]]] = {}
    for row in rows:
        grouped.setdefault(row[0], []).append(row)
    return grouped


def _lower_moves(store: Store, game: Variant, layers: list[tuple[Any, ...]]) -> dict[int, int]:
    """The moves of each full layer of the game that the games of `layers` reach: their own,
    and (for games whose moves leave the layer) the layers below, read from builds."""
    own = {n: edges for _, n, summary_only, _, edges, *_ in layers if not summary_only}
    below = sorted(set().union(*(game.closure(n)[1:] for n in own)) - set(own))
    if below:
        own.update(store.rows("SELECT n, edges FROM builds WHERE variant = ? AND NOT summary_only "
                              "AND list_contains(?, n)", [game.name, below]))
    return own


def _game_holes(game: Variant, layers: list[tuple[Any, ...]], moves_of: dict[int, int],
                positions: dict[tuple[str, int], int] | None,
                moves: dict[tuple[str, int], int] | None) -> list[Hole]:
    from .engine.solve import with_distribution

    full = [n for _, n, summary_only, *_ in layers if not summary_only]
    distributed = with_distribution(game, full, moves_of.get) if full else {}
    found = []
    for _, n, summary_only, size, edges, shortest, longest, floats, played, p_rows, mu_rows in layers:
        stored: list[tuple[str, int, int | None]] = []  # (rows of what, stored, the game's number)
        if summary_only:
            stored.append(("random_play", played, 1 if game.players == 2 and floats else 0))
        else:
            if positions is not None and moves is not None:
                stored += [("positions", positions.get((game.name, n), 0), size),
                           ("moves of its graph layer", moves.get((game.graph_name, n), 0), edges)]
            lengths = None if distributed[n] is None else (longest - shortest + 1 if distributed[n] else 0)
            stored += [("random_play", played, 1), ("length rows under P", p_rows, lengths),
                       ("length rows under mu", mu_rows, lengths)]
        lacks = tuple(_lack(what, have, want, game, n) for what, have, want in stored if have != want)
        if lacks:
            found.append(Hole(game.name, n, summary_only, lacks))
    return found


def _lack(what: str, have: int, want: int | None, game: Variant, n: int) -> str:
    if want is None:
        below = ", ".join(str(k) for k in game.closure(n)[1:])
        return f"{what}: {have:,} stored, and the layers its games reach (n = {below}) are not all built"
    return f"{what}: {have:,} stored, its game gives it {want:,}"


def fill_commands(found: list[Hole]) -> list[str]:
    """The builds that fill the holes, as the arguments of `zeckdb`: `build --variant V --n
    RANGE`, the games with the same holes in one; `--force` where the build's plan would not
    see the hole (positions or moves missing: rows deleted by hand), `--summary-only ... --force`
    for summary layers."""
    from .ranges import format_ns

    by_game: dict[tuple[bool, bool, str], list[int]] = {}
    for hole in found:  # a build takes a layer lacking the rows it fills last for unbuilt; others need --force
        force = hole.summary_only or any(lack.startswith(("positions", "moves")) for lack in hole.lacks)
        by_game.setdefault((hole.summary_only, force, hole.variant), []).append(hole.n)
    by_holes: dict[tuple[bool, bool, str], list[str]] = {}
    for (summary_only, force, name), ns in by_game.items():
        by_holes.setdefault((summary_only, force, format_ns(ns)), []).append(name)
    return [f"build{' --summary-only' if summary_only else ''} {' '.join(f'--variant {name}' for name in names)} "
            f"--n {ns}{' --force' if force else ''}" for (summary_only, force, ns), names in by_holes.items()]
