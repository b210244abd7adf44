"""`zeckdb verify`: the database checks itself, from its stored rows, without trusting the summaries.

Each check re-derives in SQL what the stored rows determine: a position's
solved columns from its children (SQL aggregates over the stored moves, not
the engine's kernels), a layer's size from its rows (and, where every
partition of n is a position, from an independent count), the summary row
from the start position, the checksums recorded at build time from the rows
(read back and hashed by zeckdb.checksums, the build's own hash).
A bug in the engine, or a row deleted or edited by hand, shows as a mismatch.

Layers are checked in batches of consecutive n (one statement per batch and
check), about a million positions at a time: memory follows the largest layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .completeness import Hole, fill_commands, holes as layer_holes
from .engine.contract import terminal_wins, stored_columns
from .settings import DEFAULTS, Settings
from .store import Store
from .variants import Variant, get_variant
from .tuning import VERIFY_BATCH_POSITIONS


@dataclass
class Check:
    """One kind of check over the selected layers."""

    name: str
    what: str
    checked: int = 0  # rows (or layers) checked
    failed: int = 0
    examples: list[str] = field(default_factory=list)
    keep: int = DEFAULTS.verify_examples  # examples kept at most

    def fail(self, text: str) -> None:
        self.failed += 1
        self.example(text)

    def example(self, text: str) -> None:
        if len(self.examples) < self.keep:
            self.examples.append(text)


@dataclass
class Report:
    layers: list[tuple[str, int]]
    checks: list[Check]
    seconds: float = 0.0
    # games the database holds that this installation does not know (a plugin not installed
    # here): their layers are not checked, beyond their summary checksums
    unknown: list[str] = field(default_factory=list)
    # summary layers too large to solve again (over verify_resolve_positions): compared with
    # their summary checksum only, which anyone who changed the row can recompute
    checksum_only: list[tuple[str, int, int]] = field(default_factory=list)  # (variant, n, positions)
    # layers that lack rows their game gives them (zeckdb.completeness): the build fills them
    holes: list[Hole] = field(default_factory=list)
    fill: list[str] = field(default_factory=list)  # the commands that fill them, quoted


    @property
    def ok(self) -> bool:
        return all(c.failed == 0 for c in self.checks)


def verify(store: Store, games: Sequence[Variant] | None = None, ns: list[int] | None = None,
           progress: Callable[[int, str], None] | None = None) -> Report:
    """Check every built (variant, n) layer (only those of `games`, and of `ns`, if given).
    The games come resolved from the door (zeckdb.api); the database's other games are named
    as its rows name them."""
    t0 = time.perf_counter()
    names = None if not games else list(dict.fromkeys(g.name for g in games))
    layers = layers_to_verify(store, names, ns)
    summaries = _summary_layers(store, names, ns)
    unknown = sorted({name for name, *_ in layers + summaries if not _known(name)})
    checks = {c.name: c for c in _checks(store.settings)}
    full = [layer for layer in layers if layer[0] not in unknown]
    summary = [layer for layer in summaries if layer[0] not in unknown]
    holes = _check_complete(store, [get_variant(name) for name in dict.fromkeys(name for name, *_ in full + summary)],
                            ns, checks["complete layers"])
    edges_sums: dict[tuple[str, int], int] = {}  # each graph layer's edges hashed once
    for name, batch in _batches(full):
        v = get_variant(name)
        start_games = _check_solved(store, v, batch, checks)
        _check_layers(store, v, batch, start_games, checks, edges_sums)
        _check_lengths(store, v, batch, checks["lengths and odds"])
        _check_odds(store, v, batch, checks["lengths and odds"])
        _check_strategies(store, v, batch, checks["solved columns"])
        _check_moves(store, v, batch, checks["values"])
        if progress:
            progress(len(batch), f"{name} n={batch[-1]}")
    _check_summary_checksums(store, [(name, n) for name, n, _ in layers] + summaries, checks["summary checksums"])
    skipped = _check_summary_layers(store, summary, checks["summary layers"])
    _check_catalog(store, names, checks["catalog"])
    return Report([(name, n) for name, n, _ in full] + summary, list(checks.values()), time.perf_counter() - t0,
                  unknown, skipped, holes, [store.suggested(words) for words in fill_commands(holes)])


def _checks(settings: Settings) -> list[Check]:
    """verify's checks, each with what it checks, in the order the report lists them."""
    checks = [
        Check("complete layers", "each layer holds every table its game gives it, counted: its positions and its "
                                 "graph layer's moves (full layers), its random_play row, its length rows under P "
                                 "and mu from the shortest game to the longest"),
        Check("layer sizes", "each layer holds as many positions and moves as its summary row counts"),
        Check("partition counts", "layers of every partition of n hold as many positions as an independent count"),
        Check("values", "each position's counts add up to its n; each move reaches a stored position of its layer "
                        "and is one the game's rules make (its code, so its name, included)"),
        Check("solved columns", "outcome, remoteness, min/max remaining, Grundy value, winning and legal moves "
                                "(more than two players: the seat and the teams that can force a win), "
                                "terminal flag, games (exactly below 2^53) and expected moves, re-derived from the "
                                "children; the winning-strategy graph from the start"),
        Check("starts", "one start per layer; the summary's winner, lengths, remoteness and game count agree with it"),
        Check("checksums", "the rows hash to the checksums recorded when the layer was built"),
        Check("lengths and odds", "the length distribution sums to 1 under P and to the game count under mu, "
                                  "spans the shortest to the longest game, its mean is the expected length, "
                                  "which is the start's; random-play odds played out again on the stored graph"),
        Check("summary checksums", "each layer's builds, random_play and length rows hash to the summary "
                                   "checksum recorded with them (summary layers too)"),
        Check("summary layers", "layers built with --summary-only solved again (up to "
                                f"{settings.verify_resolve_positions:,} positions) give their stored row"),
        Check("catalog", "each variant's stored facts, move names and columns are the game's; each graph "
                         "layer's size is its stored rows'; every row belongs to a layer; the fibonacci table; "
                         "each layer's start and decomposition terms"),
    ]
    for check in checks:
        check.keep = settings.verify_examples
    return checks


def _check_complete(store: Store, known: list[Variant], ns: list[int] | None, check: Check) -> list[Hole]:
    """The layers that lack a table their game gives them (completeness.layer_holes), each a
    failure of `check`: what verify can say of data that is not there."""
    holes, counted = layer_holes(store, known, ns, sizes=True)
    check.checked += counted
    for hole in holes:
        check.fail(f"{hole.variant} n={hole.n}: " + "; ".join(hole.lacks))
    return holes


def _known(name: str) -> bool:
    """Whether this installation knows the game `name` (a plugin may not be installed here)."""
    from .errors import UnknownVariantError

    try:
        get_variant(name)
    except UnknownVariantError:
        return False
    return True


def layers_to_verify(store: Store, names: list[str] | None,
                     ns: list[int] | None) -> list[tuple[str, int, int]]:
    """(variant, n, positions) of the built layers selected (summary layers have no rows to check)."""
    from .errors import NotBuiltError
    from .ranges import format_ns

    rows = store.rows("SELECT variant, n, positions, summary_only FROM builds "
                      "WHERE $variants IS NULL OR list_contains($variants, variant) ORDER BY variant, n",
                      {"variants": names})
    for name in set(names or []) - {row[0] for row in rows}:
        raise NotBuiltError(f"{name} is not built in {store.path}: nothing to verify")
    rows = [(name, n, positions) for name, n, positions, summary_only in rows if not summary_only]
    if ns is not None:
        have = {n for _, n, _ in rows}
        missing = [n for n in ns if n not in have]
        if missing:
            where = f" for {', '.join(names)}" if names else ""
            raise NotBuiltError(f"n = {format_ns(missing)} is not built{where}: nothing to verify there")
        wanted = set(ns)
        rows = [row for row in rows if row[1] in wanted]
    return rows


def _batches(layers: list[tuple[str, int, int]]) -> Iterator[tuple[str, list[int]]]:
    """Runs of one variant's layers holding about VERIFY_BATCH_POSITIONS positions together."""
    batch: list[int] = []
    size, current = 0, ""
    for name, n, positions in layers:
        if batch and (name != current or size + positions > VERIFY_BATCH_POSITIONS):
            yield current, batch
            batch, size = [], 0
        batch.append(n)
        size += positions
        current = name
    if batch:
        yield current, batch


def partition_count(n: int, weights: tuple[int, ...] | list[int]) -> int:
    """The ways of writing n as a sum of the column weights, each column used any number of
    times: the count vectors of layer n of a game whose layers are partitions (coin change,
    one pass per column; independent of the engine). Columns of weight 0 are not counted."""
    ways = [1] + [0] * n
    for part in weights:
        if part <= 0:
            continue
        for total in range(part, n + 1):
            ways[total] += ways[total - part]
    return ways[n]


def _params(sql: str, v: Variant, ns: list[int]) -> dict[str, Any]:
    """The parameters `sql` uses, for a batch: its n (and their range, for the zone maps), the
    layers its moves reach, and the n whose moves must all stay in their layer."""
    reached = sorted(set().union(*(v.closure(n) for n in ns)) | set(ns))
    every = {"variant": v.name, "graph": v.graph_name, "ns": ns, "lo": ns[0], "hi": ns[-1], "layers": reached,
             "lo_reached": reached[0], "staying": [n for n in ns if not v.lower_layers(n)]}
    return {k: value for k, value in every.items() if f"${k}" in sql}


IN_BATCH = "n BETWEEN $lo AND $hi AND list_contains($ns, n)"


def _players_sql(v: Variant) -> tuple[str, str]:
    """What a position's moves say of its winner: the children's aggregates and the checks.
    Two players: its outcome, remoteness, Grundy value and winning moves. More: the seat
    that can force a win and the teams that can (kernels.team_masks' rule), the two-player
    columns NULL."""
    if v.players == 2:
        won = "true" if terminal_wins(v) else "false"  # a terminal's mover: won under misère play
        return "", f"""
            CASE WHEN (outcome = 'win') <> (losing > 0 OR (moves = 0 AND {won}))
                 THEN 'outcome ' || outcome || ' but ' || losing || ' of its moves reach a loss'
                      || CASE WHEN moves = 0 THEN ' (a terminal, {"won" if terminal_wins(v) else "lost"} for the player to move)'
                              ELSE '' END END,
            CASE WHEN remoteness IS DISTINCT FROM CASE WHEN moves = 0 THEN 0 WHEN outcome = 'win' THEN 1 + fastest_win
                                                       ELSE 1 + slowest END
                 THEN 'remoteness ' || remoteness || ', its moves give '
                      || coalesce(CASE WHEN moves = 0 THEN 0 WHEN losing > 0 THEN 1 + fastest_win
                                       ELSE 1 + slowest END, -1) END,
            CASE WHEN grundy <> mex THEN 'grundy ' || grundy || ', the mex of its moves is ' || mex END,
            CASE WHEN winning_moves <> losing THEN 'winning_moves ' || winning_moves || ', counted ' || losing END,
            CASE WHEN forcing_seat IS NOT NULL OR teams IS NOT NULL
                 THEN 'a column of games of three or more players is set in a two-player game' END,"""
    last = v.players  # the seat of the player who just moved
    # the mover forces if one move leaves it forcing (as the seat who just moved); seat s > 1
    # forces if every move leaves it forcing as seat s - 1; a terminal is the last mover's
    aggregates = f"""
               CASE WHEN count(*) FILTER (WHERE d.forcing_seat = {last}) > 0 THEN 1
                    WHEN count(*) FILTER (WHERE d.forcing_seat IS NULL) = 0
                         AND min(d.forcing_seat) = max(d.forcing_seat) THEN min(d.forcing_seat) + 1
               END AS seat_from_moves,
               bit_or(d.teams) AS some_teams, bit_and(d.teams) AS every_teams,
               count(*) FILTER (WHERE d.teams IS NULL) AS teams_unknown,"""
    # a team holding the mover (odd t) forces if some move leaves it forcing, any other team if
    # every move does; after a move the mover is the child's last seat, seat j its seat j - 1
    size = 1 << v.players
    child = [(t >> 1) | ((t & 1) << (v.players - 1)) for t in range(1, size)]
    terminal = sum(1 << t for t in range(size) if t >> (v.players - 1) & 1)
    from_moves = (f"if(moves = 0, {terminal}::UBIGINT, if(teams_unknown > 0, NULL, list_sum(list_transform("
                  f"range(1, {size}), lambda t: ((if(t % 2 = 1, some_teams, every_teams) >> {child}[t]) "
                  f"& 1::UBIGINT) << t))::UBIGINT))")
    checks = f"""
            CASE WHEN forcing_seat IS DISTINCT FROM if(moves = 0, {last}, seat_from_moves)
                 THEN 'forcing_seat ' || coalesce(forcing_seat::VARCHAR, 'NULL') || ', its moves give '
                      || coalesce(if(moves = 0, {last}, seat_from_moves)::VARCHAR, 'NULL') END,
            CASE WHEN teams IS NULL THEN 'no teams stored (built before schema revision 0015): rebuild it with --force'
                 WHEN teams IS DISTINCT FROM {from_moves}
                 THEN 'teams ' || teams || ', its moves give ' || coalesce(({from_moves})::VARCHAR, 'NULL') END,
            CASE WHEN outcome IS NOT NULL OR remoteness IS NOT NULL OR grundy IS NOT NULL OR winning_moves IS NOT NULL
                      OR in_winning_strategies IS NOT NULL
                 THEN 'a two-player column is set in a game of {v.players} players' END,"""
    return aggregates, checks


def _solved_sql(v: Variant, examples: int) -> str:
    player_aggregates, player_checks = _players_sql(v)
    columns = stored_columns(v)
    counts = ", ".join(f"coalesce({c}, 0)" for c in columns)
    value = " + ".join(f"{w} * coalesce({c}, 0)" for c, w in zip(columns, v.column_weights, strict=False) if w)
    return f"""
    WITH kids AS (  -- the moves in this variant's direction of play
        SELECT e.n, CASE WHEN v.reversed THEN e.dst ELSE e.src END AS id,
               CASE WHEN v.reversed THEN e.n ELSE coalesce(e.dst_n, e.n) END AS to_n,
               CASE WHEN v.reversed THEN e.src ELSE e.dst END AS to_id
        FROM edges e JOIN variants v ON v.graph = e.graph
        WHERE v.variant = $variant AND e.{IN_BATCH}),
    children AS (
        SELECT k.n, k.id, count(*) AS moves,
               count(*) FILTER (WHERE d.id IS NULL OR (k.to_n <> k.n AND list_contains($staying, k.n))) AS astray,
               count(*) FILTER (WHERE d.outcome = 'loss') AS losing,
               min(d.remoteness) FILTER (WHERE d.outcome = 'loss') AS fastest_win,
               max(d.remoteness) AS slowest, min(d.min_remaining) AS shortest, max(d.max_remaining) AS longest,
               sum(d.games_to_end) AS games, avg(d.expected_remaining::DOUBLE) AS expected,
               -- Grundy values below 62 as the bits of a mask (cheaper than a list per position),
               -- larger ones (Fibonacci nim) as a list; repeats do not change its mex, and a DISTINCT
               -- aggregate would make DuckDB group the moves twice
               bit_or(1::BIGINT << d.grundy::BIGINT) FILTER (WHERE d.grundy < 62) AS low_grundies,
               list(d.grundy) FILTER (WHERE d.grundy >= 62) AS high_grundies,{player_aggregates}
        FROM kids k
        LEFT JOIN positions d ON d.variant = $variant AND d.n = k.to_n AND d.id = k.to_id
                              AND d.n BETWEEN $lo_reached AND $hi AND list_contains($layers, d.n)
        GROUP BY k.n, k.id),
    solved AS (
        SELECT p.*, c.* EXCLUDE (n, id, moves, astray, losing, games, expected),
               coalesce(c.moves, 0) AS moves, coalesce(c.astray, 0) AS astray,
               coalesce(c.losing, 0) AS losing, coalesce(c.games, 1) AS games, coalesce(c.expected, -1) AS expected,
               bit_count(xor(coalesce(c.low_grundies, 0), coalesce(c.low_grundies, 0) + 1)) - 1 AS low_mex
        FROM positions p LEFT JOIN children c USING (n, id)
        WHERE p.variant = $variant AND p.{IN_BATCH}),
    mexed AS (
        SELECT *, CASE WHEN low_mex < 62 THEN low_mex  -- trailing ones of the mask
                       ELSE list_min(list_filter(range(62, 63 + len(high_grundies))::INTEGER[],
                                                 lambda g: NOT list_contains(high_grundies, g))) END AS mex
        FROM solved),
    problems AS (
        SELECT n, is_start, games, entries, [{counts}] AS counts, list_filter([
            CASE WHEN {value} <> n THEN 'its counts add up to ' || ({value}) || ', not n' END,
            CASE WHEN astray > 0 THEN astray || ' of its moves reach no stored position of their layer' END
        ], lambda x: x IS NOT NULL) AS misplaced, list_filter([{player_checks}
            CASE WHEN min_remaining IS DISTINCT FROM CASE WHEN moves = 0 THEN 0 ELSE 1 + shortest END
                 THEN 'min_remaining ' || min_remaining || ', its moves give ' || coalesce(1 + shortest, 0) END,
            CASE WHEN max_remaining IS DISTINCT FROM CASE WHEN moves = 0 THEN 0 ELSE 1 + longest END
                 THEN 'max_remaining ' || max_remaining || ', its moves give ' || coalesce(1 + longest, 0) END,
            CASE WHEN legal_moves IS DISTINCT FROM moves THEN 'legal_moves ' || legal_moves || ', counted ' || moves END,
            CASE WHEN is_terminal <> (moves = 0) THEN 'is_terminal ' || is_terminal || ' with ' || moves || ' moves' END,
            -- counts are whole numbers, exact in a double below 2^53 (so is their sum): compared
            -- exactly there, past it to the double's precision
            CASE WHEN (games < 9007199254740992 AND games_to_end <> games) OR abs(games_to_end - games) > 1e-9 * games
                 THEN 'games_to_end ' || games_to_end || ', its moves give ' || games END,
            CASE WHEN moves > 0 AND abs(expected_remaining - (1 + expected)) > 1e-5 * (1 + expected)
                 THEN 'expected_remaining ' || expected_remaining || ', its moves give ' || (1 + expected) END,
            CASE WHEN moves = 0 AND expected_remaining <> 0 THEN 'expected_remaining of a terminal is not 0' END
        ], lambda x: x IS NOT NULL) AS wrong
        FROM mexed),
    named AS (  -- a CASE evaluates its branch for the rows it selects: only a wrong row's text is written
        SELECT *, CASE WHEN len(misplaced) > 0 OR len(wrong) > 0 THEN game_text(entries, counts, {v.text_width}) END AS text
        FROM problems)
    SELECT n, any_value(games) FILTER (WHERE is_start),  -- the start's games, summed over its moves
           count(*),
           count(*) FILTER (WHERE len(misplaced) > 0),
           list(text || ': ' || array_to_string(misplaced, '; '))
               FILTER (WHERE len(misplaced) > 0)[:{examples}],
           count(*) FILTER (WHERE len(wrong) > 0),
           list(text || ': ' || array_to_string(wrong, '; ')) FILTER (WHERE len(wrong) > 0)[:{examples}]
    FROM named
    GROUP BY n ORDER BY n"""


def _check_solved(store: Store, v: Variant, ns: list[int], checks: dict[str, Check]) -> dict[int, float]:
    """Check every position of the batch against its children; per n, the start's games summed over its moves."""
    start_games = {}
    for n, games, checked, *found in store.rows(sql := _solved_sql(v, store.settings.verify_examples), _params(sql, v, ns)):
        start_games[n] = games
        for check, failed, examples in zip([checks["values"], checks["solved columns"]], found[::2], found[1::2], strict=False):
            check.checked += checked
            check.failed += failed
            for text in examples or []:
                check.example(f"{v.name} n={n} {text}")
    return start_games


LAYERS_SQL = f"""
    WITH p AS (
        SELECT n, count(*) AS stored,
               list(id) FILTER (WHERE is_start) AS starts,
               any_value([coalesce(forcing_seat, CASE outcome WHEN 'win' THEN 1 WHEN 'loss' THEN 2 END),
                          min_remaining, max_remaining, remoteness, teams])
                   FILTER (WHERE is_start) AS start
        FROM positions p WHERE variant = $variant AND {IN_BATCH} GROUP BY n),
    e AS (SELECT n, count(*) AS moves
          FROM edges e WHERE graph = $graph AND {IN_BATCH} GROUP BY n),
    exact AS (SELECT n, list(games_exact) AS counts FROM length_distribution
              WHERE variant = $variant AND measure = 'mu' AND {IN_BATCH} GROUP BY n)
    SELECT b.n, b.positions, b.edges, coalesce(p.stored, 0), coalesce(e.moves, 0),
           b.positions_checksum, b.edges_checksum,
           b.start_id, [b.winner, b.min_length, b.max_length, b.start_remoteness, b.teams], coalesce(p.starts, []),
           p.start,
           b.games, x.counts
    FROM builds b LEFT JOIN p USING (n) LEFT JOIN e USING (n) LEFT JOIN exact x USING (n)
    WHERE b.variant = $variant AND b.{IN_BATCH}
    ORDER BY b.n"""


def _check_layers(store: Store, v: Variant, ns: list[int], start_games: dict[int, float],
                  checks: dict[str, Check], edges_sums: dict[tuple[str, int], int]) -> None:
    """The per-layer checks of a batch: sizes, partition counts, starts, checksums."""
    sizes, partitions, starts, sums = (checks[k] for k in ("layer sizes", "partition counts", "starts", "checksums"))
    positions_sums = store.layer_checksums("positions", v.name, ns)  # zeckdb.checksums, from the rows
    todo = [n for n in ns if (v.graph_name, n) not in edges_sums]  # variants sharing a graph (reversed) share it
    if todo:
        edges_sums.update(((v.graph_name, n), value) for n, value in store.layer_checksums("edges", v.graph_name,
                                                                                          todo).items())
    for (n, positions, edges, stored, moves, positions_sum, edges_sum,
         start_id, summary, start_ids, start, games, exact_counts) in store.rows(
            LAYERS_SQL, _params(LAYERS_SQL, v, ns)):
        layer = f"{v.name} n={n}"
        sizes.checked += 1
        if (stored, moves) != (positions, edges):
            sizes.fail(f"{layer}: {stored:,} positions and {moves:,} moves stored, "
                       f"its summary row counts {positions:,} and {edges:,}")
        if v.layers_are_partitions:
            partitions.checked += 1
            if stored != (count := partition_count(n, v.column_weights)):
                partitions.fail(f"{layer}: {stored:,} positions stored, n has {count:,} partitions into the "
                                "game's column weights")
        _check_start(starts, layer, start_id, start_ids, start, summary, int(games), start_games.get(n), exact_counts)
        sums.checked += 1
        if positions_sum is None or edges_sum is None:
            sums.fail(f"{layer}: no checksum recorded (built before schema revision 0004): "
                      f"rebuild it with {store.suggested(f'build --variant {v.name} --n {n} --force')}")
            continue
        now = {"positions": positions_sums[n], "moves": edges_sums[v.graph_name, n]}
        which = [kind for kind, recorded in [("positions", positions_sum), ("moves", edges_sum)] if now[kind] != recorded]
        if which:
            sums.fail(f"{layer}: the {' and '.join(which)} rows do not hash to the checksum recorded at build time "
                      "(rows changed or deleted by hand?)")


def _check_start(starts: Check, layer: str, start_id: int, start_ids: list[int], start: Any, summary: Any,
                 exact: int, summed: float | None, exact_counts: list[Any] | None) -> None:
    """One start flagged, the one the summary names, with its values; the summary's game
    count that of the start's moves and of its exact length distribution."""
    starts.checked += 1
    if start_ids != [start_id]:
        starts.fail(f"{layer}: {len(start_ids)} positions flagged as the start, the summary names id {start_id}")
    elif start != summary:
        starts.fail(f"{layer}: the summary says winner, lengths, remoteness and teams {summary}, "
                    f"the start position {start}")
    if summed is None or abs(summed - exact) > 1e-9 * exact:
        starts.fail(f"{layer}: the summary counts {exact} games, the start's moves give {summed or 0:.6g}")
    if exact_counts and None not in exact_counts and sum(int(c) for c in exact_counts) != exact:
        starts.fail(f"{layer}: the summary counts {exact} games, its exact length distribution "
                    f"{sum(int(c) for c in exact_counts)}")


def _summary_layers(store: Store, names: list[str] | None, ns: list[int] | None) -> list[tuple[str, int]]:
    rows = store.rows("SELECT variant, n FROM builds WHERE summary_only AND ($variants IS NULL OR "
                      "list_contains($variants, variant)) ORDER BY variant, n", {"variants": names})
    return [(name, n) for name, n in rows if ns is None or n in ns]


LENGTHS_SQL = f"""
    WITH d AS (
        SELECT n, sum(probability) FILTER (WHERE measure = 'P') AS p_total,
               sum(probability * length) FILTER (WHERE measure = 'P') AS p_mean,
               sum(games) FILTER (WHERE measure = 'mu') AS mu_games,
               sum(probability) FILTER (WHERE measure = 'mu') AS mu_total,
               min(length) AS shortest, max(length) FILTER (WHERE probability > 0) AS longest, count(*) AS rows
        FROM length_distribution WHERE variant = $variant AND {IN_BATCH} GROUP BY n),
    s AS (SELECT n, any_value(expected_remaining) AS start_expected FROM positions
          WHERE variant = $variant AND is_start AND {IN_BATCH} GROUP BY n)
    SELECT b.n, b.min_length, b.max_length, b.expected_length, b.games_approx, b.games, s.start_expected,
           d.p_total, d.p_mean, d.mu_games, d.mu_total, d.shortest, d.longest, coalesce(d.rows, 0),
           r.p1_wins_random, r.p1_wins_p1_perfect, r.p1_wins_p2_perfect
    FROM builds b LEFT JOIN d USING (n) LEFT JOIN s USING (n)
    LEFT JOIN random_play r ON r.variant = b.variant AND r.n = b.n
    WHERE b.variant = $variant AND b.{IN_BATCH}
    ORDER BY b.n"""


def _close(a: float | None, b: float | None, tolerance: float) -> bool:
    return a is not None and b is not None and abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-300)


def _check_lengths(store: Store, v: Variant, ns: list[int], check: Check) -> None:
    """What the stored distributions, expected lengths and odds say of each other and of the start."""
    for (n, shortest, longest, expected, games_approx, games, start_expected, p_total, p_mean, mu_games, mu_total,
         low, high, rows, *odds) in store.rows(LENGTHS_SQL, _params(LENGTHS_SQL, v, ns)):
        check.checked += 1
        layer = f"{v.name} n={n}"
        problems = []
        if games is not None and games_approx is not None and not _close(float(int(games)), games_approx, 1e-12):
            problems.append(f"games_approx {games_approx:.6g}, the exact count {int(games):.6g}")
        if expected is not None and start_expected is not None and not _close(expected, start_expected, 1e-6):
            problems.append(f"expected_length {expected}, the start's expected_remaining {start_expected}")
        if rows:
            if not _close(p_total, 1.0, 1e-9) or not _close(mu_total, 1.0, 1e-9):
                problems.append(f"the length distribution sums to {p_total} under P, {mu_total} under mu, not 1")
            if not _close(p_mean, expected, 1e-9):
                problems.append(f"its mean under P is {p_mean}, the expected length {expected}")
            if not _close(mu_games, games_approx, 1e-9):
                problems.append(f"its games under mu add up to {mu_games:.6g}, the game count {games_approx:.6g}")
            if (low, high) != (shortest, longest):
                problems.append(f"it spans lengths {low}..{high}, the games {shortest}..{longest}")
        if any(p is not None and not 0.0 <= p <= 1.0 for p in odds):
            problems.append(f"random-play odds {odds} are not all probabilities")
        if problems:
            check.fail(f"{layer}: " + "; ".join(problems))


# random_play's columns, and the pair of profiles (Player 1's, Player 2's) whose game gives each
ODDS = {"p1_wins_random": ("random", "random"), "p1_wins_p1_perfect": ("best-response", "random"),
        "p1_wins_p2_perfect": ("random", "best-response")}


def _check_odds(store: Store, v: Variant, ns: list[int], check: Check) -> None:
    """random_play's odds played out again on the stored graph (zeckdb.profiles: the start's game
    under each pair of profiles), for two-player games whose moves stay in their layer."""
    from .errors import UsageError
    from .profiles import starts

    if v.players != 2:
        return
    stored = {n: rest for n, *rest in store.rows(f"SELECT n, {', '.join(ODDS)} FROM random_play WHERE variant = ? "
                                                 "AND list_contains(?, n) ORDER BY n", [v.name, ns])}
    for n, odds in stored.items():
        try:
            table, _ = starts(store, v, [n], list(ODDS.values()))
        except UsageError:  # moves that leave the layer: its games are not played out on one layer
            return
        check.checked += 1
        for column, value, played in zip(ODDS, odds, table.column("p1_wins").to_pylist(), strict=True):
            if value is not None and abs(value - played) > 1e-9:
                check.fail(f"{v.name} n={n}: random_play's {column} is {value}, the stored graph gives {played}")


def _check_moves(store: Store, v: Variant, ns: list[int], check: Check) -> None:
    """Each stored move (source, child and the move's code, so its name) against the game's own
    moves, enumerated again by the engine from the game's rules: for the variant that owns its
    graph, in layers whose moves stay in them (a move into a lower layer is linked to that
    layer's solved positions, which verify does not hold)."""
    import numpy as np

    from .engine.solve import build_graph

    if v.graph_name != v.name:  # a reversed game plays its owner's graph: checked with the owner
        return
    for n in ns:
        if v.lower_layers(n):
            continue
        src, dst, code, leaves = store.layer_moves(v.graph_name, n)
        if leaves:
            continue
        graph = build_graph(v, n)
        check.checked += 1
        stored = np.stack([src, dst, code])[:, np.lexsort((code, dst, src))]
        made = np.stack([graph.src.astype(np.int64), graph.dst.astype(np.int64), graph.code.astype(np.int64)])
        made = made[:, np.lexsort((made[2], made[1], made[0]))]
        if stored.shape != made.shape or not np.array_equal(stored, made):
            differ = (np.flatnonzero((stored != made).any(axis=0)) if stored.shape == made.shape
                      else np.arange(min(stored.shape[1], made.shape[1]) or 1))
            at = int(stored[0, differ[0]]) if stored.shape[1] else 0
            check.fail(f"{v.name} n={n}: its stored moves are not the game's ({stored.shape[1]:,} stored, the game "
                       f"makes {made.shape[1]:,}; the first difference from id {at})")


def _check_strategies(store: Store, v: Variant, ns: list[int], check: Check) -> None:
    """in_winning_strategies re-derived from the stored graph and outcomes: what is reachable
    from the start when the winner moves only to lost positions and the loser anywhere
    (two-player games whose moves stay in their layer)."""
    import numpy as np

    from .engine.kernels import winning_strategies
    from .errors import UsageError
    from .profiles import load

    if v.players != 2:
        return
    starts = {n: (start, size) for n, start, size in store.rows(
        "SELECT n, start_id, positions FROM builds WHERE variant = ? AND NOT summary_only AND list_contains(?, n)",
        [v.name, ns])}
    for n in ns:
        if n not in starts:
            continue
        start, size = starts[n]
        try:
            layer = load(store, v, n)
        except UsageError:  # moves that leave the layer: marked per layer by each layer's own start
            return
        rows = store.arrow("SELECT id, in_winning_strategies AS s FROM positions WHERE variant = ? AND n = ? ORDER BY id",
                           [v.name, n])
        if rows.num_rows != size:  # rows missing or added: "layer sizes" names the layer
            continue
        stored = rows.column("s").to_numpy(zero_copy_only=False)
        # the graph may hold nodes past the layer's positions (the builder keeps the first `size`)
        want = winning_strategies(layer.offsets, layer.targets, layer.order, layer.win, int(start))[:size]
        check.checked += 1
        wrong = np.flatnonzero(stored.astype(object) != want.astype(object))
        if len(wrong):
            check.fail(f"{v.name} n={n}: in_winning_strategies of {len(wrong):,} positions (id {int(wrong[0])} "
                       "first) is not what the stored moves and outcomes give")


def _check_summary_checksums(store: Store, layers: list[tuple[str, int]], check: Check) -> None:
    from .checksums import SUMMARY_COLUMNS, by_layer, summary_checksum

    recorded = {(name, n): value for name, n, value in store.rows("SELECT variant, n, summary_checksum FROM builds")}
    by_variant: dict[str, list[int]] = {}
    for name, n in layers:
        by_variant.setdefault(name, []).append(n)
    for name, ns in by_variant.items():  # a variant's rows of each table in one query, not one per layer
        rows = {table: by_layer(store.arrow(f"SELECT n, {', '.join(columns)} FROM {table} WHERE variant = ? "
                                             "AND list_contains(?, n) ORDER BY n", [name, ns]))
                for table, columns in SUMMARY_COLUMNS.items()}
        for n in ns:
            check.checked += 1
            if recorded.get((name, n)) is None:
                check.fail(f"{name} n={n}: no summary checksum recorded: rebuild it with "
                           f"{store.suggested(f'build --variant {name} --n {n} --force')}")
                continue
            tables = {table: layers_rows.get(n) for table, layers_rows in rows.items()}
            if summary_checksum(tables, name, n) != recorded[name, n]:
                check.fail(f"{name} n={n}: its builds, random_play or length rows do not hash to the summary "
                           "checksum recorded with them (changed by hand?)")


def _check_summary_layers(store: Store, layers: list[tuple[str, int]], check: Check) -> list[tuple[str, int, int]]:
    """Summary layers solved again (engine.summary) where small enough, compared with their row;
    the (variant, n, positions) of those too large, checked by their checksum alone."""
    import math

    from .engine.summary import solve_summary

    fields = ["positions", "edges", "start_id", "winner", "min_length", "max_length", "start_remoteness", "teams"]
    most = store.settings.verify_resolve_positions
    skipped = []
    for name, n in layers:
        v = get_variant(name)
        if v.summary_refusal is not None or v.summary_size(n) > most:
            skipped.append((name, n, v.summary_size(n) if v.summary_refusal is None else 0))
            continue
        (row,) = store.build_rows(name, [n])
        played = store.rows("SELECT p1_wins_random, p1_wins_p1_perfect, p1_wins_p2_perfect FROM random_play "
                            "WHERE variant = ? AND n = ?", [name, n])
        # a winner-only row (--winner-only: no lengths) is solved again in its own one-byte state,
        # so its NULL columns must be NULL again; its checksum says no row was made so by hand
        winner_only = row["min_length"] is None and v.players == 2
        again = solve_summary(v, n, floats=True, winner_only=winner_only)
        check.checked += 1
        wrong = [f"{f} {row[f]}, solved again {getattr(again, f)}" for f in fields if row[f] != getattr(again, f)]
        for f, value in (("expected_length", again.expected_length), ("games_approx", again.games_approx)):
            if row[f] is not None and not math.isclose(row[f], value or 0.0, rel_tol=1e-9):
                wrong.append(f"{f} {row[f]}, solved again {value}")
        for stored, value in zip(played[0] if played else (), (again.p1_wins_random, again.p1_wins_p1_perfect,
                                                               again.p1_wins_p2_perfect), strict=False):
            if stored is not None and not math.isclose(stored, value or 0.0, rel_tol=1e-9, abs_tol=1e-12):
                wrong.append(f"random-play odds {played[0]}, solved again differ")
                break
        if wrong:
            check.fail(f"{name} n={n}: " + "; ".join(wrong))
    return skipped


def _check_catalog(store: Store, names: list[str] | None, check: Check) -> None:
    """The variants' rows, move names and columns against the games; graph layers against their rows."""
    # the facts lookups read too: the outcome of a lean row follows terminal_wins, the queries pair twins by normal_of
    for name, *stored in store.rows(
            "SELECT variant, title, source, graph, reversed, players, bins, text_width, forcing_bound, max_n, "
            "shortest_is_n_minus_terms, longest_bound, convention, terminal_wins, normal_of FROM variants "
            "WHERE $variants IS NULL OR list_contains($variants, variant)", {"variants": names}):
        check.checked += 1
        try:
            v = get_variant(name)
        except Exception:  # a game this zeckdb does not know (a newer release's): nothing to compare
            continue
        want = [v.title, v.source, v.graph_name, v.reversed, v.players, len(v.columns), v.text_width, v.forcing_bound,
                v.max_n, v.shortest_is_n_minus_terms, v.longest_bound, v.convention, terminal_wins(v), v.normal_of]
        if stored != want:
            check.fail(f"{name}: the variants row says {tuple(stored)}, the game {tuple(want)}")
        moves = [m for (m,) in store.rows("SELECT name FROM move_names WHERE variant = ? ORDER BY code", [name])]
        columns = store.rows("SELECT name, weight FROM variant_columns WHERE variant = ? ORDER BY position", [name])
        if moves != list(v.move_names):
            check.fail(f"{name}: its stored move names are not the game's")
        if columns != list(zip(v.columns, v.column_weights, strict=True)):
            check.fail(f"{name}: its stored columns are not the game's")
    for graph, n, positions, edges, built_positions, built_edges, stored_edges in store.rows("""
            SELECT g.graph, g.n, g.positions, g.edges, b.positions, b.edges,
                   (SELECT count(*) FROM edges e WHERE e.graph = g.graph AND e.n = g.n)
            FROM graph_layers g
            JOIN (SELECT v.graph, b.n, any_value(b.positions) AS positions, any_value(b.edges) AS edges
                  FROM builds b JOIN variants v USING (variant) WHERE NOT b.summary_only GROUP BY ALL) b USING (graph, n)
            WHERE $variants IS NULL OR g.graph IN (SELECT graph FROM variants WHERE list_contains($variants, variant))""",
            {"variants": names}):
        check.checked += 1
        if (positions, edges) != (built_positions, built_edges) or edges != stored_edges:
            check.fail(f"graph {graph} n={n}: graph_layers counts {positions:,} positions and {edges:,} moves, its "
                       f"layers {built_positions:,} and {built_edges:,}, its stored moves {stored_edges:,}")

    _check_fibonacci(store, check)
    _check_owned(store, names, check)
    _check_build_facts(store, names, check)


def _check_build_facts(store: Store, names: list[str] | None, check: Check) -> None:
    """Each builds row's start position and decomposition terms (full and summary layers alike)
    against the game's own."""
    games: dict[str, Variant | None] = {}
    for name, n, start, terms in store.rows("SELECT variant, n, start_position, decomposition_terms FROM builds "
                                            "WHERE $variants IS NULL OR list_contains($variants, variant) ORDER BY ALL",
                                            {"variants": names}):
        if name not in games:
            try:
                games[name] = get_variant(name)
            except Exception:  # a game this zeckdb does not know: nothing to compare
                games[name] = None
        v = games[name]
        if v is None:
            continue
        check.checked += 1
        want = (v.format(v.start(n)), v.decomposition_terms(n))
        if (start, terms) != want:
            check.fail(f"{name} n={n}: the builds row gives start {start!r} and {terms} decomposition terms, the game "
                       f"{want[0]!r} and {want[1]}")


def _check_fibonacci(store: Store, check: Check) -> None:
    """The fibonacci table (what fib() and the queries read) against the numbers themselves."""
    rows = store.rows("SELECT i, f FROM fibonacci ORDER BY i")
    check.checked += len(rows)
    a, b = 1, 2  # F1 = 1, F2 = 2: the game's Fibonacci numbers (docs/schema.md)
    want = []
    for i in range(1, len(rows) + 1):
        want.append((i, a))
        a, b = b, a + b
    if [(int(i), int(f)) for i, f in rows] != want or not rows:
        check.fail(f"fibonacci: its {len(rows)} rows are not F1 = 1, F2 = 2, F3 = 3, ... in order")


# tables whose rows belong to a layer, and the layer rows that own them: a row no layer owns
# (a builds row deleted by hand) is orphaned, shown by nothing and checked by nothing else
OWNED = [
    ("position_rows", "SELECT DISTINCT v.variant, p.n FROM position_rows p JOIN variant_ids v USING (variant_id)",
     "a full layer (builds, not summary_only)"),
    ("position_rows_wide", "SELECT DISTINCT variant, n FROM position_rows_wide", "a full layer (builds, not summary_only)"),
    ("length_distribution", "SELECT DISTINCT variant, n FROM length_distribution", "a layer (builds)"),
    ("random_play", "SELECT variant, n FROM random_play", "a layer (builds)"),
]


def _check_owned(store: Store, names: list[str] | None, check: Check) -> None:
    for table, layers, owner in OWNED:
        full = "AND NOT b.summary_only" if owner.startswith("a full") else ""
        for name, n in store.rows(f"""SELECT t.variant, t.n FROM ({layers}) t
                                     WHERE ($variants IS NULL OR list_contains($variants, t.variant))
                                       AND NOT EXISTS (SELECT 1 FROM builds b WHERE b.variant = t.variant
                                                       AND b.n = t.n {full})
                                     ORDER BY ALL""", {"variants": names}):
            check.fail(f"{name}: its {table} rows of n = {n} belong to no layer (its builds row is missing: "
                       f"deleted by hand?); {owner} should own them")
        check.checked += 1
    for graph, n in store.rows("""SELECT DISTINCT g.graph, e.n FROM (SELECT graph_id, n FROM edge_rows
                                                                  UNION SELECT graph_id, n FROM edge_rows_across) e
                                  JOIN graph_ids g USING (graph_id)
                                  WHERE NOT EXISTS (SELECT 1 FROM graph_layers l WHERE l.graph = g.graph AND l.n = e.n)
                                    AND ($variants IS NULL OR g.graph IN (SELECT graph FROM variants
                                                                          WHERE list_contains($variants, variant)))
                                  ORDER BY ALL""", {"variants": names}):
        check.fail(f"graph {graph}: its moves of n = {n} belong to no graph layer (its graph_layers row is missing)")
