"""Build (variant, n) layers into a store: incremental, resumable, pipelined.

Layers are solved in ascending n, through three stages that overlap on
different n (numba kernels and DuckDB release the GIL): solve (this thread),
length distributions (two threads), write (one thread, one transaction for
every layer analysed while it wrote the last, split between layers when a
reader waits; a layer still analysed holds back only the layers whose moves
reach it). At most three layers are in flight, or more while they are small,
so memory is bounded by the largest n, not by the range. The writer closes
the file whenever it has nothing to write or a reader waits
(zeckdb.locking): the database stays readable, layer by layer, while it is
built. Variants sharing a graph share its enumeration and its stored edges.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from queue import Empty, SimpleQueue
import time
from typing import TYPE_CHECKING, Any
from collections import deque
from collections.abc import Callable, Sequence
from functools import partial

from . import interrupts
from .engine.contract import terminal_wins
from .errors import printable
from .store import GameRecord, LayerTables, Store, StoreWriter, SummaryRecord
from .variants import Variant, get_variant
from .settings import pool as named_pool
from .tuning import HANDOVER_ROWS, IDLE_SECONDS, MIN_ANALYSTS, TABLES_AHEAD

if TYPE_CHECKING:
    import numpy as np

    from .engine.solve import Distribution, Solution, SolvedLayer, Sweep
    from .engine.summary import Summary

# what games of three or more players leave NULL (they store positions.forcing_seat)
TWO_PLAYER_COLUMNS = ("outcome", "remoteness", "grundy", "winning_moves", "in_winning_strategies")


Progress = Callable[[int, str], None]  # (work just done, in Variant.estimate_work units; description)


@dataclass
class BuildReport:
    variants: list[str]
    ns: list[int]
    built: list[tuple[str, int]] = field(default_factory=list)
    skipped: dict[str, list[int]] = field(default_factory=dict)  # n beyond a variant's exhaustive limit
    positions: int = 0
    edges: int = 0
    seconds: float = 0.0

    def add(self, n: int, records: list[LayerRecord]) -> None:
        """Count the layers of one n handed to the writer."""
        for r in records:
            self.built.append((r.variant.name, n))
            self.positions += len(r.keys)
            self.edges += r.n_edges if r.edges is not None else 0  # a shared graph's moves once


def check_targets(variants: list[Variant], ns: list[int], skip_beyond_limit: bool,
                  budget: int | None = None) -> dict[str, list[int]]:
    """Raise for an n a variant cannot build in full within `budget` bytes a layer
    (engine.limits; default: the documented share of the machine's); with skip_beyond_limit, the n beyond a
    variant's limit are returned (by variant name) instead, unless no variant can build any.
    An n below a variant's first (its min_n: 0 for some games, 1 for most) is not that
    variant's to build and is left out for it, unless no variant of the build takes it."""
    from .engine.limits import build_memory, check_full, full_limit
    from .errors import UsageError
    from .ranges import format_ns

    budget = build_memory() if budget is None else budget
    _check_starts(variants, ns)
    skipped: dict[str, list[int]] = {}
    limits = {}
    for v in variants:
        limits[v.name] = limit = full_limit(v, budget)
        for n in ns:
            if n < v.min_n:
                continue
            if skip_beyond_limit and n > limit:
                skipped.setdefault(v.name, []).append(n)
            else:
                check_full(v, n, budget, limit)
    if skip_beyond_limit and all(len(skipped.get(v.name, [])) == len([n for n in ns if n >= v.min_n])
                                 for v in variants):
        raise UsageError(f"no variant can be built exhaustively for n = {format_ns(ns)}: "
                         f"the largest n is {max(limits.values())}")
    return skipped


def _check_starts(variants: list[Variant], ns: list[int]) -> None:
    """Refuse an n below where every game of the build starts (one game: its own message)."""
    from .errors import UsageError

    below = [n for n in ns if all(n < v.min_n for v in variants)]
    if not below:
        return
    if len(variants) == 1:
        variants[0].check_n(below[0])  # its own message: the range it takes
    starts = ", ".join(f"{v.name} at {v.min_n}" for v in variants[:4]) + (", ..." if len(variants) > 4 else "")
    raise UsageError(f"n = {below[0]} is below where every game of this build starts ({starts}): ask from "
                     f"n = {min(v.min_n for v in variants)}")


@dataclass
class Step:
    """One (variant, n) layer to compute; `write` is False for a layer already stored
    that is computed again only because a layer above needs its solved positions."""

    variant: Variant
    write: bool
    replace: bool = True  # rows of the layer, or of its graph layer, may exist already


def plan(store: Store, variants: list[Variant], ns: list[int], force: bool) -> dict[int, list[Step]]:
    """What each n still needs, in ascending n (n beyond a variant's limit are left out).
    A variant whose moves leave the layer also needs every layer its games pass
    through: those not stored yet are written too (they become lookups of their own).
    A layer that lacks rows its game gives it (zeckdb.completeness) is built again."""
    from .completeness import holes
    from .engine.limits import build_memory, full_limit

    budget = build_memory(store.settings)
    todo: dict[int, list[Step]] = {}
    lacking = {(hole.variant, hole.n) for hole in holes(store, variants)[0]}
    for v in variants:
        done = {n for n in store.built_ns(v.name) if (v.name, n) not in lacking}
        present = store.present_ns(v.name) | store.graph_ns(v.graph_name)
        limit = full_limit(v, budget)
        wanted = {n for n in ns if v.min_n <= n <= limit and (force or n not in done)}
        needed = set(wanted)
        for n in wanted:
            needed.update(v.closure(n))
        for n in needed:
            todo.setdefault(n, []).append(Step(v, n in wanted or n not in done, n in present))
    return dict(sorted(todo.items()))


def layer_weight(steps: list[Step], n: int) -> int:
    """Work estimate for a progress bar: the work of layer n, once per variant."""
    return sum(step.variant.estimate_work(n) for step in steps)


class LowerLayers:
    """The solved layers that layers still to come will read, per variant: kept from
    when they are solved until the last layer that reaches them."""

    def __init__(self, todo: dict[int, list[Step]]):
        self.last_use: dict[tuple[str, int], int] = {}
        for n, steps in todo.items():
            for step in steps:
                for low in step.variant.closure(n)[1:]:
                    key = (step.variant.name, low)
                    self.last_use[key] = max(self.last_use.get(key, -1), n)
        self.layers: dict[str, dict[int, SolvedLayer]] = {}

    def of(self, variant: Variant) -> dict[int, SolvedLayer]:
        return self.layers.setdefault(variant.name, {})

    def needed(self, variant: Variant, n: int) -> bool:
        return (variant.name, n) in self.last_use

    def done_with(self, n: int) -> None:
        """Forget every layer no layer after n reads."""
        for name, layers in self.layers.items():
            for low in [low for low in layers if self.last_use[(name, low)] <= n]:
                del layers[low]


def _compute(n: int, steps: list[Step], stored_graphs: dict[str, set[int]], lower: LowerLayers) -> tuple[list[LayerRecord], int]:
    """Solve layer n of each step's variant; records of the layers to write, and the
    work of those only recomputed. A plugin game's own code failing (its moves raising, a
    move leaving the layer) is one line naming the plugin."""
    from .variants import plugins

    solving: list[str] = []  # the game whose step runs: the one a failure names, when it is a plugin's
    try:
        return _compute_layer(n, steps, stored_graphs, lower, solving)
    except BaseException as exc:  # on a solver's thread: a Ctrl-C is the main thread's, never raised here
        failed = next((name for name in solving[-1:] if name in plugins()), None)
        raise _named_failure(exc, failed, f"building n = {n}") from None


def _named_failure(exc: BaseException, plugin: str | None, doing: str) -> BaseException:
    """A plugin game's own code failing (not zeckdb's errors): one line naming the plugin. Its
    sys.exit() would end the build with the plugin's status and no word, and a KeyboardInterrupt
    it raises would read as the user's Ctrl-C: each is named like any failure of the plugin."""
    from .engine.contract import ContractError
    from .errors import ZeckdbError

    if plugin is None or isinstance(exc, ZeckdbError):
        return exc
    if isinstance(exc, SystemExit):
        said = f"called sys.exit({exc.code!r})"
    elif isinstance(exc, KeyboardInterrupt):
        said = "raised KeyboardInterrupt (not a Ctrl-C of the user's)"
    else:
        said = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else 'no message'}"
    return ContractError(f"the game plugin {plugin} failed while {doing}: {printable(said)}")


def _written_tables(rec: LayerRecord, analysed: Callable[[], None]) -> LayerTables:
    """layer_tables, a plugin's failure in it (its format(), run there) named in one line."""
    from .variants import plugins

    try:
        return layer_tables(rec, analysed)
    except BaseException as exc:  # on a table maker's thread: never the user's Ctrl-C
        raise _named_failure(exc, rec.variant.name if rec.variant.name in plugins() else None,
                             f"writing n = {rec.n}") from None


def _compute_layer(n: int, steps: list[Step], stored_graphs: dict[str, set[int]],
                   lower: LowerLayers, solving: list[str] | None = None) -> tuple[list[LayerRecord], int]:
    from .engine.solve import DISTRIBUTION_MAX_EDGES, SolvedLayer, build_graph, solve_graph

    records: list[LayerRecord] = []
    recomputed = 0
    graphs: dict[str, tuple[Any, ...]] = {}  # graph name -> (graph, decoded counts), shared by its variants
    for step in steps:
        v = step.variant
        t0 = time.perf_counter()
        below = lower.of(v)
        if solving is not None:
            solving.append(v.name)
        if v.graph_name not in graphs:
            owner = get_variant(v.graph_name)
            if solving is not None:
                solving.append(owner.name)  # its moves are the owner's code
            g = build_graph(owner, n, below)
            graphs[v.graph_name] = (g, owner.decode(g.keys))
            if solving is not None:
                solving.pop()
        g, counts = graphs[v.graph_name]
        sol = solve_graph(v, g, [r.solution for r in records if r.keys is g.keys], below)
        if lower.needed(v, n):
            # a union that no longer fits (nim) will not fit higher up either
            keep_moves = g.size[1] <= DISTRIBUTION_MAX_EDGES and (sol.union is not None or not g.lower)
            below[n] = SolvedLayer.of(g, sol, keep_moves)
        sol.release_node_values()  # only what the writer stores stays in flight
        if not step.write:
            recomputed += v.estimate_work(n)
            continue
        new_graph = n not in stored_graphs[v.graph_name]  # once per graph layer: variants share it
        stored_graphs[v.graph_name].add(n)
        records.append(LayerRecord(v, n, g.keys, counts, sol, len(g.src), g.stored_edges() if new_graph else None,
                                   time.perf_counter() - t0, replace=step.replace))
    lower.done_with(n)
    return records, recomputed


@dataclass
class LayerRecord:
    """A solved (variant, n) layer on its way to the writer."""

    variant: Variant
    n: int
    keys: np.ndarray
    counts: np.ndarray
    solution: Solution
    n_edges: int
    edges: tuple[Any, ...] | None  # (src, dst, code, dst_n or None) when the graph layer is new (Graph.stored_edges)
    seconds: float
    distribution: Distribution | None = None  # filled by the builder's second stage
    replace: bool = True  # rows of this layer (or of its graph layer) may exist: delete them first


def game_record(v: Variant) -> GameRecord:
    """A game's description as the store registers it: its facts, move names and columns."""
    facts = dict(title=v.title, source=v.source, graph=v.graph_name, reversed=v.reversed, max_n=v.max_n,
                 bins=len(v.columns), players=v.players, shortest_is_n_minus_terms=v.shortest_is_n_minus_terms,
                 longest_bound=v.longest_bound, text_width=v.text_width, forcing_bound=v.forcing_bound,
                 convention=v.convention, terminal_wins=terminal_wins(v), normal_of=v.normal_of)
    return GameRecord(v.name, v.graph_name, facts, list(v.move_names),
                      list(zip(v.columns, v.column_weights, strict=True)))


def summary_record(v: Variant, summary: Summary) -> SummaryRecord:
    """A layer solved in summary mode as the store writes it: its start written as the game
    writes it, n's decomposition terms, the start's values."""
    s = summary
    build = dict(positions=s.positions, edges=s.edges, start_id=s.start_id, start_position=v.format(v.start(s.n)),
                 winner=s.winner, min_length=s.min_length, max_length=s.max_length,
                 start_remoteness=s.start_remoteness, games=None, games_approx=s.games_approx,
                 expected_length=s.expected_length, decomposition_terms=v.decomposition_terms(s.n),
                 summary_only=True, teams=s.teams)
    played = None if s.p1_wins_random is None else dict(
        p1_wins_random=s.p1_wins_random, p1_wins_p1_perfect=s.p1_wins_p1_perfect, p1_wins_p2_perfect=s.p1_wins_p2_perfect)
    return SummaryRecord(v.name, s.n, build, played, s.seconds)


def layer_tables(rec: LayerRecord, analysed: Callable[[], None] | None = None) -> LayerTables:
    """The rows the store writes for a solved layer, as plain Arrow tables and dicts. With
    `analysed` (returns once rec.distribution is computed), the length rows are left to a
    function the store calls when it comes to them, so that it can write the rest meanwhile."""
    import numpy as np
    import pyarrow as pa

    from .version import ENGINE_VERSION
    from .engine.contract import stored_columns

    v, n, sol = rec.variant, rec.n, rec.solution
    size = len(rec.keys)
    ids = np.arange(size, dtype=np.int32)
    columns = {"id": ids, **{name: rec.counts[:, j] for j, name in enumerate(stored_columns(v))}}
    entries = v.entries(rec.keys)
    if entries is not None:  # positions that are ordered lists
        columns["entries"] = pa.ListArray.from_arrays(pa.array(entries[0]), pa.array(entries[1]))
    columns.update(
        outcome=pa.DictionaryArray.from_arrays(pa.array(sol.win.astype(np.int8)), pa.array(["loss", "win"])),
        remoteness=sol.remoteness, min_remaining=sol.min_remaining, max_remaining=sol.max_remaining,
        games_to_end=sol.games, expected_remaining=sol.expected, grundy=sol.grundy,
        winning_moves=sol.winning_moves, is_start=ids == sol.start, is_terminal=sol.max_remaining == 0,
        in_winning_strategies=sol.in_strategies,
        legal_moves=np.diff(sol.play.offsets[: size + 1]).astype(np.int16))
    s = sol.start
    winner: int | None = 1 if sol.win[s] else 2
    start_remoteness: int | None = int(sol.remoteness[s])
    teams: int | None = None  # games of three or more players: the start's (engine.solve.Solution.teams)
    random_play: dict[str, float | None] = dict(p1_wins_random=sol.p1_wins_random,
                                                p1_wins_p1_perfect=sol.p1_wins_p1_perfect,
                                                p1_wins_p2_perfect=sol.p1_wins_p2_perfect)
    if v.players != 2:  # the seat that can force a win instead of the two-player columns
        seats = sol.forcing_seat
        for name in TWO_PLAYER_COLUMNS:  # left out of the insert: NULL
            del columns[name]
        columns["forcing_seat"] = pa.array(seats + 1, mask=seats < 0)
        columns["teams"] = sol.teams
        winner, start_remoteness = (int(seats[s]) + 1 if seats[s] >= 0 else None), None
        teams = int(sol.teams[s])
        random_play = dict.fromkeys(random_play)  # the row says the layer is complete; two-player odds NULL
    edges = None
    if rec.edges is not None:
        from .engine.kernels import edges_by_code, group

        src, dst, code, dst_n = rec.edges
        # Stored by move code, then source (the edges come grouped by source; the counting sort
        # is stable): within one code the chip games' targets then rise with the source (a move
        # is a fixed key delta, ids rank the keys), which DuckDB compresses to a few bits each.
        codes = int(code.max()) + 1 if len(code) else 0
        if dst_n is None:
            edges = dict(zip(("src", "dst", "code"), edges_by_code(src, dst, code, codes), strict=True))
        else:  # NULL where the move stays in the layer
            _, order = group(code, codes)
            edges = {"src": src[order], "dst": dst[order], "code": code[order]}
            dst_n = dst_n[order]
            edges["dst_n"] = pa.array(dst_n, mask=dst_n == n)
        edges = pa.table(edges)
    build = dict(positions=size, edges=rec.n_edges, start_id=s, start_position=v.format(v.start(n)),
                 winner=winner, min_length=int(sol.min_remaining[s]), max_length=int(sol.max_remaining[s]),
                 start_remoteness=start_remoteness, games=str(sol.start_games), games_approx=float(sol.games[s]),
                 expected_length=float(sol.expected[s]), decomposition_terms=v.decomposition_terms(n),
                 seconds=rec.seconds, engine_version=ENGINE_VERSION, teams=teams)

    def lengths() -> pa.Table | None:
        if analysed is not None:
            analysed()
        return None if rec.distribution is None else _length_rows(int(sol.min_remaining[s]), rec.distribution)

    return LayerTables(v.name, v.graph_name, n, pa.table(columns), build, random_play, edges,
                       (size, rec.n_edges) if edges is not None else None,
                       lengths if analysed is not None else lengths(), rec.replace)


def _length_rows(shortest: int, dist: Distribution) -> Any:
    """length_distribution's rows of a layer: P then mu, every length from the shortest game on."""
    import numpy as np
    import pyarrow as pa

    lengths = np.arange(shortest, len(dist.probability), dtype=np.int32)
    exact = dist.games_exact[shortest:] if dist.games_exact is not None else [None] * len(lengths)
    return pa.table({
        "measure": ["P"] * len(lengths) + ["mu"] * len(lengths),
        "length": np.concatenate([lengths, lengths]),
        "probability": np.concatenate([dist.probability[shortest:], dist.games[shortest:] / dist.games.sum()]),
        "games": pa.array([None] * len(lengths) + dist.games[shortest:].tolist(), pa.float64()),
        "games_exact": pa.array([None] * len(lengths) + [None if g is None else str(g) for g in exact], pa.string()),
    })


def analyse(records: list[LayerRecord]) -> list[Callable[[], None]]:
    """The length-distribution jobs of a batch of records, to run in any order: one a sweep
    (engine.solve.Sweep), which the records of a graph layer share when their games are the
    same ones (a game, its misère twin, its games of more players) or each other's reversed.
    Which sweep a record takes depends on its own game alone, so its length rows are the
    same, bit for bit, whichever games it is built with."""
    from .engine.solve import length_distribution

    shared: list[list[LayerRecord]] = []  # records of one sweep each, its first record's
    for r in records:
        sweep = r.solution.sweep
        if sweep is None:  # a union graph too big to assemble: no distribution
            continue
        group = next((g for g in shared if _sweep(g[0]).same(sweep)), None)
        if group is None:
            shared.append([r])
        else:
            group.append(r)

    def job(group: list[LayerRecord]) -> Callable[[], None]:
        first = _sweep(group[0])
        both = any(_sweep(r).mirrored != first.mirrored for r in group)

        def run() -> None:
            own = length_distribution(first, group[0].n, both)
            for r in group:
                r.distribution = own if _sweep(r).mirrored == first.mirrored else own.mirror
        return run

    return [job(group) for group in shared]


def _sweep(record: LayerRecord) -> Sweep:
    sweep = record.solution.sweep
    assert sweep is not None  # analyse groups only the records that have one
    return sweep


@dataclass(eq=False)  # a batch is itself, whatever it holds
class _Batch:
    """The records of one n handed to the writer, the analyses they wait for, and the future
    that is done once they are committed."""

    records: list[LayerRecord]
    analysed: list[Future[Any]]
    committed: Future[Any] = field(default_factory=Future)

    def ready(self) -> bool:
        return all(f.done() for f in self.analysed)

    def layers(self) -> set[tuple[str, int]]:
        return {(r.variant.name, r.n) for r in self.records}

    def reads(self) -> set[tuple[str, int]]:
        """The lower layers its layers' moves reach (a Black Hole game's chips leave the board)."""
        return {(r.variant.name, low) for r in self.records for low in r.variant.closure(r.n)[1:]}

    def wait_for_analysis(self) -> None:
        for f in self.analysed:
            f.result()


class _Writer:
    """The build's one writer: a thread draining a queue of the layers handed over. Each
    write takes the layers whose length distributions are computed, in the order of their n,
    into one transaction: small layers handed over while the writer was busy go into the
    store together, an INSERT per table. A layer still being analysed holds back only the
    layers whose moves reach it (a reader never finds a layer without them), not every layer
    after it (the ordered game's largest take half a minute), so the solver goes on
    meanwhile; once the builder hands over nothing more, the writer inserts a layer's
    positions and moves while its distribution is still computed, and its length rows last.
    The layers' rows are made on threads of their own (`tablers`, TABLES_AHEAD layers ahead)
    while the writer inserts the layers before them: made by the writer, they were a serial
    part of every build; made as soon as a layer is solved, they would be held in memory
    beside the solutions of every layer in flight. Once a write fails nothing more is
    written: every layer handed over fails with it (a layer after it may need it)."""

    def __init__(self, store: StoreWriter, progress: Progress | None):
        self.store = store
        self.progress = progress
        # what the writer hears: a batch handed over, _LOOK once an analysis is done, _FINISH
        self.queue: SimpleQueue[object] = SimpleQueue()
        self.tablers = named_pool(TABLES_AHEAD, "zeckdb-tables")
        self.thread = named_pool(1, "zeckdb-writer")
        self.running: Future[None] | None = None

    def start(self) -> None:
        self.running = self.thread.submit(self._run)

    def hand_over(self, records: list[LayerRecord], analysed: list[Future[Any]]) -> Future[Any]:
        """Write a layer's records once `analysed` (their distributions) are done; the future
        is done when they are committed."""
        batch = _Batch(records, analysed)
        self.queue.put(batch)
        for f in analysed:
            f.add_done_callback(lambda _: self.queue.put(_LOOK))
        return batch.committed

    def finish(self) -> None:
        """Nothing more comes: write every layer handed over, ready or not, then stop."""
        self.queue.put(_FINISH)

    def close(self) -> None:
        """After finish(): wait for the writer and its table makers to end."""
        self.thread.shutdown()
        self.tablers.shutdown()
        if self.running is not None:
            self.running.result()

    @staticmethod
    def _take(waiting: list[_Batch], finishing: bool) -> list[_Batch]:
        """The batches to write now: those analysed whose lower layers are not left waiting,
        as a layer is never committed before a layer its moves reach; when finishing and none
        is, the first."""
        taken: list[_Batch] = []
        left: set[tuple[str, int]] = set()  # the layers of the batches not taken, lowest n first
        for b in waiting:
            if b.ready() and not b.reads() & left:
                taken.append(b)
            else:
                left |= b.layers()
        return taken or (waiting[:1] if finishing else [])

    def _run(self) -> None:
        waiting: list[_Batch] = []
        finishing = False
        failed: BaseException | None = None
        # Readers open the file between commits: once the writer has had nothing to write for
        # IDLE_SECONDS since its last write (the next layers are solved or analysed), else when
        # one waits. (Letting go and opening it again cost more than a small layer's write.)
        let_go_at: float | None = None
        while not (finishing and not waiting):
            try:
                event = self.queue.get(timeout=None if let_go_at is None else max(0.0, let_go_at - time.monotonic()))
            except Empty:
                event = _IDLE
            if event is _FINISH:
                finishing = True
            elif isinstance(event, _Batch):
                waiting.append(event)
            try:
                if event is _IDLE:
                    let_go_at = None
                    self.store.let_go()
                elif failed is None and (taken := self._take(waiting, finishing)):
                    waiting = [b for b in waiting if b not in taken]
                    self._write(taken)
                    let_go_at = time.monotonic() + IDLE_SECONDS
            except BaseException as exc:  # the builder raises it from the layers' futures
                failed = exc
            if failed is not None:
                for batch in waiting:
                    batch.committed.set_exception(failed)
                waiting = []
        if let_go_at is not None:
            self.store.let_go()

    def _write(self, taken: list[_Batch]) -> None:
        try:
            self.store.write_layers(interrupts.made_ahead(
                self.tablers, (partial(_written_tables, r, batch.wait_for_analysis) for batch in taken
                               for r in batch.records), TABLES_AHEAD))
        except BaseException as exc:
            for batch in taken:
                batch.committed.set_exception(exc)
            raise
        for batch in taken:
            batch.committed.set_result(None)
        self.store.let_readers_in()
        if self.progress:
            for batch in taken:
                self.progress(sum(r.variant.estimate_work(r.n) for r in batch.records),
                              progress_words([r.variant.name for r in batch.records], batch.records[0].n))


_LOOK, _FINISH, _IDLE = object(), object(), object()  # what the writer hears besides a batch


def progress_words(games: list[str], n: int) -> str:
    """What a progress line says of the work just done: the games, then n ("zeckendorf,
    reversed n=22"); a long list of games is cut ("... and 12 more")."""
    names = list(dict.fromkeys(games))
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"{shown} n={n}"


def _solving_ahead(todo: dict[int, list[Step]], threads: int, budget: int) -> Callable[[int, list[int]], bool]:
    """Whether layer n may be solved while the layers `pending` (solved meanwhile, on other
    threads) are not yet: never for games whose moves reach lower layers (they keep their
    order), and only while the layers at once fit the build's memory budget, as `zeckdb
    variants` counts a layer's cost."""
    if threads < 2 or any(len(step.variant.closure(n)) > 1 for n, steps in todo.items() for step in steps):
        return lambda n, pending: not pending
    cost = {n: sum(step.variant.layer_sizes(n)[n] * step.variant.full_bytes_per_position for step in steps)
            for n, steps in todo.items()}

    def may(n: int, pending: list[int]) -> bool:
        return not pending or (len(pending) < threads and cost[n] + sum(cost[p] for p in pending) <= budget)
    return may


def build(store: StoreWriter, variants: Sequence[Variant], ns: list[int], *, force: bool = False,
          skip_beyond_limit: bool = False, progress: Progress | None = None,
          planned: tuple[dict[str, list[int]], dict[int, list[Step]]] | None = None,
          threads: int = 1) -> BuildReport:
    """Build every (variant, n) of these games not yet complete in the store (all of them with
    force). The games are resolved by the caller (zeckdb.orchestration, from the names given).

    An n beyond a variant's limit is an error, or with skip_beyond_limit is
    left out and listed in the report's `skipped`. `planned`: what check_targets
    and plan returned for these arguments, when the caller has them already.
    threads: layers solved at once (where the games allow: _solving_ahead) and the length
    distributions' threads.
    """
    from .engine.limits import build_memory

    variants = list(variants)
    todo: dict[int, list[Step]] | None = None
    if planned is not None:
        skipped, todo = planned
    else:
        skipped = check_targets(variants, ns, skip_beyond_limit, build_memory(store.settings))
    report = BuildReport([v.name for v in variants], ns, skipped=skipped)
    for v in variants:
        store.register_variant(game_record(v))
    t0 = time.perf_counter()
    if todo is None:
        todo = plan(store.reads, variants, ns, force)
    # the graph layers whose edges are stored (with force: none, so each is written again, once)
    stored_graphs = {v.graph_name: set() if force else store.reads.graph_ns(v.graph_name) for v in variants}
    store.let_go()  # readers meanwhile: the first layers wait for the kernels to compile

    in_flight: dict[Future[Any], int] = {}  # writes handed over, and the rows of their layers
    lower = LowerLayers(todo)
    may_start = _solving_ahead(todo, threads, build_memory(store.settings))
    # at least two analysts: at large n the distributions cost more than solving and writing together
    analysts = named_pool(max(MIN_ANALYSTS, threads), "zeckdb-analyst")
    solvers = named_pool(threads, "zeckdb-solver")
    writer = _Writer(store, progress)
    waiting = deque(todo.items())
    solving: deque[tuple[int, Future[Any]]] = deque()  # layers being solved, in ascending n
    try:
        try:
            with interrupts.ctrl_c_held():  # started here, its thread ends with writer.finish()
                writer.start()
            while waiting or solving:
                while waiting and may_start(waiting[0][0], [m for m, _ in solving]):
                    m, m_steps = waiting.popleft()
                    with interrupts.ctrl_c_held():  # a pool's lock left taken would hang the build
                        solving.append((m, solvers.submit(_compute, m, m_steps, stored_graphs, lower)))
                _collect_commits(in_flight)
                n, solved = solving.popleft()
                records, recomputed = interrupts.result(solved)
                if progress and recomputed:
                    progress(recomputed, progress_words([step.variant.name for step in todo[n]], n))
                if not records:
                    continue
                rows = sum(len(r.keys) + r.n_edges for r in records)
                _wait_for_room(in_flight, rows)
                with interrupts.ctrl_c_held():
                    handed_over = writer.hand_over(records, [analysts.submit(job) for job in analyse(records)])
                in_flight[handed_over] = rows
                report.add(n, records)
        finally:
            with interrupts.ctrl_c_held():
                writer.finish()
            for pending in in_flight:  # let every handed-over layer commit, even on Ctrl-C
                interrupts.result(pending)
    finally:
        with interrupts.ctrl_c_held():
            solvers.shutdown(cancel_futures=True)  # layers being solved finish; none starts
            writer.close()
            analysts.shutdown()
    report.seconds = time.perf_counter() - t0
    return report


def _collect_commits(in_flight: dict[Future[Any], int]) -> None:
    """Forget the writes that have committed; a failed one stops the build at once."""
    with interrupts.ctrl_c_held():  # a future's lock left taken would hang the build
        written = [f for f in in_flight if f.done()]
    for committed in written:
        del in_flight[committed]
        interrupts.result(committed)


def _wait_for_room(in_flight: dict[Future[Any], int], rows: int) -> None:
    """Bound memory: wait until a layer of `rows` rows can join the writes not yet committed
    (two others, or more while they are small); a failed write stops the build."""
    while len(in_flight) >= 2 and rows + sum(in_flight.values()) > HANDOVER_ROWS:
        for committed in interrupts.wait_first(in_flight):
            del in_flight[committed]
            interrupts.result(committed)
