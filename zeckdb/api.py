"""The public Python API: what the command line and the query service answer, as objects.

    import zeckdb
    zeckdb.build("zeckdb.duckdb", ["zeckendorf", "reversed"], "1..40")   # what `zeckdb build` does
    with zeckdb.open("zeckdb.duckdb") as db:                            # a zeckdb.api.Database
        info = db.position("zeckendorf", start=10)
        info.outcome, info.moves[0].move
        db.line("reversed", "3,1,0,2"), db.play("zeckendorf", start=10, p1="random", p2="perfect")
        db.status(), db.summary("reversed", "10,20")
        db.query("winners", variant="reversed").rows                    # .columns, .arrow(), .df()
        db.sql("SELECT count(*) FROM positions").rows
        db.plot("winners", "reversed", out="winners.svg")               # also db.draw, db.export, db.verify
    zeckdb.api.simulate("quilt", 200, games=1000).moments()

The command line (cli/: main.py and its command groups) and the service (zeckdb.service and its workers) call these
same objects. Every call raises a zeckdb.errors.ZeckdbError subclass on bad input. `build`
writes the database; `plot`, `draw` and `export` write only where zeckdb.outputs allows
(never over the database's own files, an existing file only with force, each file
atomically).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
import itertools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .answers import Export, GameInfo, Layer, Move as MoveInfo, Outcome, PositionInfo, Status, VariantStatus
from .errors import NotBuiltError, UsageError, ZeckdbError, opt, printable
from .executor import Limits, Params, Result, real
from .settings import Settings, current as settings, using
from .outputs import check_file, write_file  # the one rule of where zeckdb writes
from .queries import NamedQuery, get_query as named_query, list_queries as queries, run_query, run_sql
from .orchestration import BuildInterrupted, BuildResult, Progress
from .progress import Lines, in_a_notebook
from .ranges import format_ns, parse_ns
from .reader import SharedReader
from .store import SCHEMA_HEAD, Store, suggested
from .variants import Game, Position, Probe, Variant, games, get_variant

if TYPE_CHECKING:
    from .gameplay import Game as PlayableGame, Move, PlayersPosition, Position as GamePosition
    from .profiles import PlayResult
    from .plots import Plot
    from .simulate import Simulation
    from .verify import Report
    from .completeness import Hole, Holes

__all__ = ["BuildInterrupted", "BuildResult", "Database", "Drawing", "Export", "GameInfo", "Hole", "Holes", "Layer", "Limits",
           "Line", "Lines", "Move", "MoveInfo", "NamedQuery", "Outcome", "PlayResult", "Plot", "PositionInfo", "Progress",
           "Report", "Result", "Settings", "Simulation", "Status", "VariantStatus", "build", "check_sql", "named_query",
           "open", "plot_kinds", "load_game", "plugin_failures", "plugin_games", "plugin_names", "plugin_of",
           "queries", "run_sql_apart", "schema_revision", "settings", "simulate", "statement_parameters",
           "stop_plugin_probes", "suggested", "summary_games", "upgrade", "using", "variant_labels", "variants"]

_RESULT_TYPES = {"PlayResult": "profiles", "Plot": "plots", "Simulation": "simulate", "Report": "verify",
                 "Hole": "completeness", "Holes": "completeness", "Move": "gameplay"}


def __getattr__(name: str) -> Any:  # the result types of the heavier modules, imported when first asked for
    if name in _RESULT_TYPES:
        import importlib

        return getattr(importlib.import_module(f"zeckdb.{_RESULT_TYPES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _whole(value: object) -> bool:
    import numbers

    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _resolve_position(variant: Variant, position: str | Position | None, start: int | None) -> tuple[Position, int]:
    """The position meant by a text/tuple or by --start N, and its layer n."""
    if start is not None and not _whole(start):
        raise UsageError(f"bad {opt('start')} {str(start)[:40]!r} ({type(start).__name__}): give n as a whole number, "
                         "e.g. 7")
    if position is not None and not isinstance(position, str) and not (
            isinstance(position, Iterable) and all(_whole(x) for x in position)):
        raise UsageError(f"bad position {str(position)[:40]!r} ({type(position).__name__}): give it as the game writes "
                         "it (e.g. \"3,1,0,2\") or as a tuple of whole numbers")
    if position is None and start is None:
        raise UsageError(f"give a position (e.g. 3,1,0,2) or {opt('start')} N")
    if position is not None and start is not None:
        raise UsageError(f"give either a position or {opt('start')} N, not both")
    if start is not None:
        variant.check_n(start)
        return variant.start(start), start
    assert position is not None  # one of the two was given
    pos = variant.parse(position) if isinstance(position, str) else tuple(position)
    return pos, variant.layer_of(pos)


def _rank(move: MoveInfo, players: int) -> tuple[Any, ...]:
    if players != 2:  # the mover still forcing after the move (the child's last mover) first
        return (0,) if move.forcing_seat == players else (1,)
    # A move to a lost position wins for the mover: fastest first; then losing moves, slowest first.
    assert move.remoteness is not None  # two-player games store it
    return (0, move.remoteness) if move.outcome == "loss" else (1, -move.remoteness)


def _game_of(game: str | Variant) -> Variant:
    """The game a call names: by its name, resolved here, or by the Variant a Game holds."""
    return game if isinstance(game, Variant) else get_variant(game)


def _probe(store: Store, variant: Variant, position: str | Position | None = None,
           start: int | None = None) -> PositionInfo:
    """Look up one position and its ranked moves."""
    pos, n = _resolve_position(variant, position, start)
    moves = variant.play_moves(pos)
    own = (n, variant.id_of(pos))
    children = [(code, child, (variant.layer_of(child), variant.id_of(child))) for code, child in moves]
    rows = store.probe(variant.name, [own])
    # the moves' positions lie all over the layer: each costs a block of every column read, so read two
    rows.update(store.probe_moves(variant.name, [place for _, _, place in children]))
    if own not in rows:
        store.require_built(variant.name, n)  # raises the helpful error when n is not built
        raise NotBuiltError(f"position {variant.format(pos)} is missing from the database for n = {n}: rebuild "
                            f"with {store.suggested(f'build --variant {variant.name} --n {n} --force')}")
    if any(place not in rows for _, _, place in children):
        raise NotBuiltError(f"the moves from {variant.format(pos)} lead to positions missing from the database: "
                            f"rebuild with {store.suggested(f'build --variant {variant.name} --n {n} --force')}")
    me = rows[own]
    games: int | float = me["games_to_end"]
    expected = real(me["expected_remaining"])  # stored as REAL: show the digits it holds
    if me["is_start"]:  # the build's summary keeps both exactly: the game count as an integer, the mean as a double
        summary = store.summary(variant.name, n)
        games, expected = int(summary["games"]), summary["expected_length"]
    ranked = sorted(
        (MoveInfo(variant.move_names[code], list(child), rows[place]["outcome"], rows[place]["remoteness"],
              variant.format(child), rows[place]["forcing_seat"])
         for code, child, place in children),
        key=lambda move: _rank(move, variant.players),
    )
    return PositionInfo(
        variant=variant.name, position=list(pos), text=variant.format(pos), value=n, outcome=me["outcome"],
        remoteness=me["remoteness"], min_remaining=me["min_remaining"], max_remaining=me["max_remaining"],
        games_to_end=games, expected_remaining_random=expected,
        grundy=me["grundy"], is_start=me["is_start"], is_terminal=me["is_terminal"], moves=ranked,
        players=variant.players, forcing_seat=me["forcing_seat"], teams=_team_list(me["teams"], variant.players),
    )


def _team_list(mask: int | None, players: int) -> list[list[int]] | None:
    """The teams of a team mask (kernels.team_masks: bit t, the seats of t), each as its seats
    from 1, smallest teams first; the team of every player, which always wins, left out."""
    if mask is None:
        return None
    teams = [t for t in range(1, (1 << players) - 1) if mask >> t & 1]
    return [[seat + 1 for seat in range(players) if t >> seat & 1]
            for t in sorted(teams, key=lambda t: (bin(t).count("1"), [s for s in range(players) if t >> s & 1]))]


class Line(list[tuple[str | None, PositionInfo]]):
    """A principal line: [(the move that led there, the position)], the first move None."""

    def to_json(self) -> list[dict[str, Any]]:
        """As `zeckdb line --json` prints it: one {ply, player, move, position, text} per move."""
        players = self[0][1].players if self else 2
        return [{"ply": i, "player": 1 + (i - 1) % players, "move": move, "position": info.position,
                 "text": info.text} for i, (move, info) in enumerate(self[1:], 1)]


def summary_games() -> list[str]:
    """zeckdb's own games that `zeckdb build --summary-only` solves, a family once by its
    pattern (nacci-C-K); no plugin is loaded for it."""
    from .variants import summary_games as labels

    return [label.split(" (")[0] for label in labels()]


def variant_labels(builtin_only: bool = False) -> list[str]:
    """The games' names as users write them, a family once as `prefix-M (M = a..b)`; an
    installed plugin's game by its name, not loaded (builtin_only: zeckdb's own only)."""
    from .variants import plugins

    return [g.label for g in games()] + ([] if builtin_only else list(plugins()))


def plot_kinds() -> tuple[str, ...]:
    """The figures Database.plot draws (zeckdb.plots)."""
    from .plots import KINDS

    return KINDS


def plugin_names() -> list[str]:
    """The installed game plugins' names, none of them loaded."""
    from .variants import plugins

    return list(plugins())


def load_game(name: str) -> None:
    """Load the game `name` (a plugin's: probed, then loaded, bounded in time), raising the
    error that says why it cannot be; later calls asking for it find it loaded."""
    folded(None)  # the plugins' probes run under this call's settings
    get_variant(name)


def plugin_games(names: Iterable[str]) -> tuple[list[GameInfo], list[str]]:
    """The games of these installed plugins as each one's probe reports it (each in a process of
    its own, bounded in time: none is loaded here), and one line for each that does not load."""
    from .variants import plugins, probe_all

    folded(None)  # the plugins' probes run under this call's settings
    installed = plugins()
    probes, failures = probe_all({name: installed[name] for name in names if name in installed})
    return [_plugin_info(probe) for probe in probes], failures


def plugin_of(variant: str) -> str | None:
    """The installed plugin whose game `variant` is (or whose game's misère twin), else None."""
    from .variants import misere, plugins

    installed = plugins()
    base = misere.base_name(variant)
    return variant if variant in installed else base if base is not None and base in installed else None


def stop_plugin_probes() -> None:
    """End the plugins' probes running in this process now, with whatever their plugins started."""
    from .variants.plugins import stop_probes

    stop_probes()


def plugin_failures() -> list[str]:
    """One line for each installed game plugin that fails to load, naming it (each probed in a
    process of its own, bounded in time: zeckdb.variants.plugins)."""
    from .variants import plugin_catalogue

    folded(None)  # the plugins' probes run under this call's settings
    return plugin_catalogue()[1]


def variants(name: str | None = None, plugins: bool = True) -> list[GameInfo]:
    """The games zeckdb knows, a family once: its label (`variant`), `family` and `members`
    (None for a single game), title, the n a full build and summary mode reach on this machine
    (engine.limits: `full_n`, `summary_n`, None without a summary mode; over a family's
    members, the smallest and largest reach), the start of n = 5 and the paper. With `name` (a
    family as `nacci-C-K` or a member's name), that family's members, one each, or that game.
    The installed plugins' games come last (not with plugins=False), as each one's probe
    reports it: none is loaded into this process for a listing, and one that does not load
    is left out (plugin_failures names it)."""
    from .engine.limits import build_memory, summary_memory
    from .variants import plugin_catalogue, plugins as installed, probe_plugin

    active = folded(None)
    if name is not None and name in installed():
        return [_plugin_info(probe_plugin(name, installed()[name]))]
    listed = games() if name is None else _chosen(games(), name)
    budgets = (build_memory(active), summary_memory(active))
    out = [_game_info(g, budgets) for g in listed]
    if name is None and plugins:
        out += [_plugin_info(probe) for probe in plugin_catalogue()[0]]
    return out


def _chosen(listed: list[Game], name: str) -> list[Game]:
    """The catalogue's entries `name` picks: a family (its members, one each), a member of one,
    a single game, or a family's name without its numbers (every family of that stem, each once)."""
    chosen = [g for g in listed if name in (g.label, g.family) or name in g.members]
    if not chosen:  # a family's name without its numbers (`nacci`, `black-hole`): those families
        chosen = [g for g in listed if g.family and _family_stem(g.family) == name]
        if not chosen:
            get_variant(name)  # the error that lists the names
    if len(chosen) > 1 or not chosen[0].family:
        return chosen
    members = [name] if name in chosen[0].members else chosen[0].members
    return [Game(m, None, [m], get_variant(m).title, get_variant(m)) for m in members]


def _span(first: int, values: list[int | None]) -> str | None:
    """`1..200`, or over a family's members `1..365 to 1..6773`; None where one has none."""
    if None in values:
        return None
    known = [v for v in values if v is not None]
    low, high = min(known), max(known)
    return f"{first}..{low}" if low == high else f"{first}..{low} to {first}..{high}"


def _game_info(g: Game, budgets: tuple[int, int]) -> GameInfo:
    """A catalogue entry as listed, its reach within the memory budgets (full build, summary mode)."""
    from .engine.limits import reach, summary_first_n

    reached = [reach(get_variant(m), *budgets) for m in g.members]
    first = g.example.min_n
    return GameInfo(g.label, g.family, g.members if g.family else None, g.title,
                    _span(first, [r.full for r in reached]), _span(summary_first_n(g.example), [r.summary for r in reached]),
                    g.example.format(g.example.start(5)), g.example.source)


def _plugin_info(probe: Probe) -> GameInfo:
    return GameInfo(probe.name, None, None, probe.title, _span(probe.min_n, [probe.full_n]),
                    _span(max(probe.min_n, 1), [probe.summary_n]), probe.start_of_5, probe.source)


def _family_stem(pattern: str) -> str:
    """A family's name up to its first parameter: `nacci` of `nacci-C-K-pP`, `black-hole` of `black-hole-M`."""
    parts = pattern.split("-")
    return "-".join(itertools.takewhile(lambda part: part.islower(), parts))


NRange = str | int | Iterable[int] | None


def _ns(n: NRange) -> list[int] | None:
    """A range of n as the command line writes it ("1..20,30"), an int or ints; None: every n."""
    if n is None:
        return None
    if isinstance(n, str):
        return parse_ns(n)
    if _whole(n):
        return [int(cast(int, n))]
    if not isinstance(n, Iterable) or not all(_whole(x) for x in n):
        raise UsageError(f"bad {opt('n')} {str(n)[:40]!r}: give a range (\"1..20,30\"), a whole number or whole "
                         "numbers")
    return sorted({int(x) for x in n})


def _limits(active: Settings, timeout: float | None, max_rows: int | None, max_bytes: int | None) -> Limits:
    """A statement's limits, as the command line and the service read them from their settings:
    the sql_timeout setting unless `timeout`, the sql_max_rows setting unless `max_rows` (0,
    given or set: every row)."""
    rows = active.sql_max_rows if max_rows is None else max_rows
    return Limits(timeout=active.sql_timeout if timeout is None else timeout, max_rows=rows or None,
                  max_bytes=max_bytes)


@contextmanager
def _reporting(progress: Progress | None, total: Callable[[], int],
               verb: str) -> Iterator[Callable[[int, str], None] | None]:
    """A Progress told of the work (`total` is asked only when there is one) and stopped after
    it; yields what each step is reported to (None: nothing listens)."""
    if progress is None:
        yield None
        return
    progress.start(total(), verb)
    try:
        yield progress.advance
    finally:
        progress.stop()


class Drawing(bytes):
    """A drawing's bytes (DOT text, SVG or PNG), which a notebook shows as the picture."""

    def __new__(cls, data: bytes, format: str) -> Drawing:
        made = super().__new__(cls, data)
        made.format = format
        return made

    format: str

    def _repr_svg_(self) -> str | None:
        return self.decode() if self.format == "svg" else None

    def _repr_png_(self) -> bytes | None:
        return bytes(self) if self.format == "png" else None


class Database:
    """A built database, open read-only: the verbs of the command line and the service.

    Open it with zeckdb.open(path) and close it, or use it as a context manager. A range of
    n is written as the command line writes it ("1..20,30"), or given as an int or ints.
    Every method raises a zeckdb.errors.ZeckdbError subclass, with one line saying what is
    wrong, on bad input. A Database may be shared by threads: each thread reads on a
    connection (a cursor) of its own. `shared` is for long-running processes (the service):
    each call takes a cursor of its own, and the file is let go whenever a build waits to
    commit. `settings` (a zeckdb.Settings) governs every call instead of the environment's.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, memory_limit: str | None = None,
                 shared: bool = False, settings: Settings | None = None):
        import threading

        self.settings = folded(settings)  # resolved once: every call of this Database runs under them
        self._shared = SharedReader(path, memory_limit=memory_limit, settings=self.settings) if shared else None
        self._store = None if shared else Store.open_read(path, memory_limit=memory_limit, settings=self.settings)
        self._owner = threading.get_ident()  # the thread that opened it reads on its first connection
        self._threads = threading.local()  # every other thread: a reader of its own (Store.reader)
        self._readers: list[Store] = []
        self._readers_lock = threading.Lock()
        self.path: Path = self._shared.path if self._shared is not None else self._own.path

    @property
    def _own(self) -> Store:
        """This thread's reader: 16 threads walking one Database's positions on its one connection
        got DuckDB's "connection is busy", KeyErrors and false "not built" errors."""
        import threading

        assert self._store is not None  # not shared
        if threading.get_ident() == self._owner:
            return self._store
        mine: Store | None = getattr(self._threads, "store", None)
        if mine is None:
            with self._readers_lock:
                mine = self._store.reader()
                self._readers.append(mine)
            self._threads.store = mine
        return mine

    @contextmanager
    def _session(self) -> Iterator[Store]:
        if self._shared is None:
            yield self._own
        else:  # a long-lived reader (the service): each call bounded by the lookup's time
            with self._shared.store(self.settings.serve_lookup_seconds) as store:
                yield store

    def __enter__(self) -> Database:
        return self

    def __repr__(self) -> str:
        try:
            built = self.built()
        except ZeckdbError as exc:  # closed, or a build holds it: say so rather than fail to show itself
            return f"<zeckdb Database {self.path} ({exc})>"
        games = ", ".join(f"{name} n = {format_ns(full) or format_ns(summary) + ' (summary only)'}"
                          for name, (full, summary) in built.items())
        return f"<zeckdb Database {self.path}, schema revision {SCHEMA_HEAD}: {games or 'nothing built'}>"

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._shared is not None:
            self._shared.close()
            return
        with self._readers_lock:
            readers, self._readers = self._readers, []
        for reader in readers:
            reader.close()
        if self._store is not None:
            self._store.close()

    def game(self, name: str) -> PlayableGame[GamePosition]:
        """A two-player game of this database as an object to walk (zeckdb.gameplay):
        game.start(10), game.position("3,1,0,2"), then each position's outcome, remoteness,
        moves, best_move, play(move), line() and profiles(p1, p2), typed as such (a game of
        three or more players: players_game)."""
        v = get_variant(name)
        if v.players != 2:
            raise UsageError(f"{v.name} is a game of {v.players} players, whose positions say who can force a win "
                             f"rather than an outcome: walk it with players_game({v.name!r})")
        return self._game(v)

    def players_game(self, name: str) -> PlayableGame[PlayersPosition]:
        """A game of three or more players of this database to walk, as game() walks a two-player
        game: its positions say which seat and which teams can force being the last mover."""
        v = get_variant(name)
        if v.players == 2:
            raise UsageError(f"{v.name} is a two-player game: walk it with game({v.name!r})")
        return self._game(v)

    def _game(self, v: Variant) -> PlayableGame[Any]:
        from .gameplay import Game as Playable

        return Playable(v, self)

    def position(self, variant: str | Variant, position: str | Position | None = None, *,
                 start: int | None = None) -> PositionInfo:
        """A position (as the game writes it, e.g. "3,1,0,2", or a tuple) or the start of n: its
        values and every move, best first."""
        game = _game_of(variant)
        with self._session() as store:
            return _probe(store, game, position, start)

    def line(self, variant: str | Variant, position: str | Position | None = None, *,
             start: int | None = None) -> Line:
        """The game from a position (or the start of n) under optimal play, one entry per position."""
        game = _game_of(variant)
        with self._session() as store:
            info = _probe(store, game, position, start)
            line = Line([(None, info)])
            while info.moves:
                best = info.moves[0]
                info = _probe(store, game, tuple(best.position))
                line.append((best.move, info))
            return line

    def play(self, variant: str | Variant, position: str | Position | None = None, *, start: int | None = None,
             p1: str = "perfect", p2: str = "random", distribution: bool = True) -> PlayResult:
        """The game from a position (or the start of n) when Player 1 (the player to move there)
        follows profile p1 and the other p2 (zeckdb.profiles): each one's chance to win, the exact
        expected length, Player 1's moves there and (with `distribution`) the length distribution,
        from the stored graph of the layer."""
        from .profiles import check_profiles, play as run

        game = _game_of(variant)
        check_profiles(game, p1, p2)
        pos, n = _resolve_position(game, position, start)
        with self._session() as store:
            store.require_built(game.name, n)
            return run(store, game, pos, n, game.id_of(pos), p1, p2, distribution)

    def query(self, name: str, *, variant: str | None = None, n: NRange = None, params: dict[str, str] | None = None,
              timeout: float | None = None, max_rows: int | None = None, max_bytes: int | None = None,
              limits: Limits | None = None, **more: Any) -> Result:
        """A named query (sql/NAME.sql; zeckdb.api.queries() lists them), its own parameters in
        `params` or as keywords (position="3,1,0,2"): at most `max_rows` rows (default: the
        sql_max_rows setting, 10,000; 0: every row; `.truncated` says when rows were left out)
        within `timeout` seconds (default: the sql_timeout setting), or within `limits` (the three
        at once). Every argument is checked first, so a bad one is a one-line error naming what
        is allowed."""
        given = {**(params or {}), **{k: str(v) for k, v in more.items()}}
        with self._session() as store:
            game = None if variant is None else get_variant(variant)
            return run_query(store, name, game, _ns(n), given, limits or _limits(self.settings, timeout, max_rows, max_bytes))

    def sql(self, text: str, params: Params = None, *, timeout: float | None = None, max_rows: int | None = None,
            max_bytes: int | None = None, limits: Limits | None = None) -> Result:
        """One read-only statement through the sandboxed executor (docs/schema.md has the tables),
        `params` bound to its ? (a list) or its $name (a dict), never spliced into it:
        `db.sql("SELECT * FROM builds WHERE n = ?", [40])`. At most `max_rows` rows (default: the
        sql_max_rows setting, 10,000; 0: every row; `.truncated` says when rows were left out)
        within `timeout` seconds (default: the sql_timeout setting), or within `limits`. It runs
        in this process; zeckdb.api.run_sql_apart bounds its memory in a process of its own."""
        with self._session() as store:
            return run_sql(store, text, limits or _limits(self.settings, timeout, max_rows, max_bytes), params)

    def status(self) -> Status:
        """What the database holds: its file, size, schema revision, whether a build is writing
        it (what is listed is then what it has committed so far) and, per variant, the n built."""
        with self._session() as store:
            return Status(str(store.path), store.path.stat().st_size, SCHEMA_HEAD, store.build_running(),
                          [VariantStatus(**{**row, "ns": format_ns(row["ns"]), "summary_ns": format_ns(row["summary_ns"])})
                           for row in store.status()])

    def built(self) -> dict[str, tuple[list[int], list[int]]]:
        """Per variant built, (the n built in full, the n built with --summary-only)."""
        with self._session() as store:
            return {row["variant"]: (sorted(set(row["ns"]) - set(row["summary_ns"])), sorted(row["summary_ns"]))
                    for row in store.status()}

    def summary(self, variant: str | Variant, n: NRange = None) -> list[Layer]:
        """The per-n summary rows (`builds`) of a game, every built n or only those of `n` (each
        must be built, in full or with --summary-only)."""
        from .queries import check_built_ns

        game = _game_of(variant)
        ns = _ns(n)
        with self._session() as store:
            built = store.built_ns(game.name) | store.summary_ns(game.name)
            if not built:
                raise NotBuiltError(f"{game.name} is not built in {printable(str(store.path))}: run "
                                    f"{store.suggested(f'build --variant {game.name}')}")
            check_built_ns({game.name: built}, ns or [], game.name, store)
            return [Layer.from_row(row) for row in store.build_rows(game.name, ns)]

    def holes(self) -> Holes:
        """The built layers that lack rows their game gives them (zeckdb.completeness: the
        random_play and length rows, counted), and the builds that fill them; verify counts
        every table."""
        from .completeness import database_holes

        with self._session() as store:
            return database_holes(store)

    def verify(self, variant: str | list[str] | None = None, n: NRange = None, *,
               progress: Progress | None = None) -> Report:
        """Check every built layer (of `variant`, one or a list of them, of `n`) against itself
        (zeckdb.verify); .ok, .checks. `progress` hears of each layer."""
        from .verify import layers_to_verify, verify as check

        ns = _ns(n)
        chosen = _names(variant)
        games = [get_variant(name) for name in chosen] if chosen else None
        names = [g.name for g in games] if games else None
        with self._session() as store, \
                _reporting(progress, lambda: len(layers_to_verify(store, names, ns)), "verifying") as advance:
            return check(store, games, ns, progress=advance)

    def plot(self, kind: str, variant: str, n: NRange = None, *, measure: str = "P",
             out: str | os.PathLike[str] | None = None, data: str | os.PathLike[str] | None = None,
             force: bool = False) -> Plot:
        """A figure (zeckdb.plots: kind, variant, n, measure); .image("svg") gives its bytes. With
        `out` (FILE.png or FILE.svg) it is written there, with `data` its numbers as CSV. Both
        targets are checked (zeckdb.outputs) before anything is computed."""
        from .plots import SUFFIXES, make, save
        from .render import render

        image, numbers = (None if out is None else Path(out)), (None if data is None else Path(data))
        if image is not None:
            check_file(image, database=self.path, force=force, suffixes=SUFFIXES)
        if numbers is not None:
            check_file(numbers, database=self.path, force=force, suffixes=(".csv",))
            if image is not None and os.path.realpath(numbers) == os.path.realpath(image):
                raise UsageError(f"the image and its data are both {str(image)[:200]}: name two files")
        with self._session() as store:
            figure = make(store, kind, get_variant(variant), _ns(n), measure)
        if image is not None:
            write_file(image, lambda f: save(figure, f, image.suffix.lower().lstrip(".")), database=self.path,
                       force=force)
        if numbers is not None:
            write_file(numbers, (render(figure.columns, figure.rows, "csv") + "\n").encode(), database=self.path,
                       force=force)
        return figure

    def draw(self, variant: str, n: NRange, format: str = "dot", *, strategy_only: bool = False,
             max_nodes: int = 500, out: str | os.PathLike[str] | None = None, force: bool = False) -> bytes:
        """The game graph of one layer (`n`: one n, as an int or a range text of one, "7") as DOT
        text, SVG or PNG (zeckdb.draw; the last two through Graphviz); with `out` also written
        there, checked first (zeckdb.outputs)."""
        from .draw import FORMATS, layer_dot, render

        if format not in FORMATS:
            raise UsageError(f"unknown format {format[:20]!r}: choose dot, svg or png")
        ns = _ns(n)
        if ns is None or len(ns) != 1:
            raise UsageError(f"draw takes one layer: give one n, e.g. {opt('n')} 7")
        target = None if out is None else Path(out)
        if target is not None:
            check_file(target, database=self.path, force=force)
        with self._session() as store:
            dot = layer_dot(store, get_variant(variant), ns[0], strategy_only, max_nodes)
        image = Drawing(dot.encode() if format == "dot" else render(dot, format), format)
        if target is not None:
            write_file(target, image, database=self.path, force=force)
        return image

    def export(self, folder: str | os.PathLike[str], *, format: str = "parquet",
               variant: str | list[str] | None = None, n: NRange = None,
               progress: Progress | None = None) -> Export:
        """Write the built layers (all, or those of `variant`, one or a list, and `n`) as Parquet
        or CSV files into `folder`, new or empty (zeckdb.export, checked by zeckdb.outputs): what
        was written (its to_json() is manifest.json)."""
        from .outputs import EXPORT_FORMATS, check_folder

        if format not in EXPORT_FORMATS:
            raise UsageError(f"unknown format {format[:20]!r}: choose parquet or csv")
        check_folder(Path(folder), database=self.path)  # before the export's imports, which may wait for a compile
        from .export import export as write, plan

        chosen = _names(variant)
        names = [get_variant(v).name for v in chosen] if chosen else None
        with self._session() as store:
            parts = plan(store, names, _ns(n))
            with _reporting(progress, lambda: len(parts), "exporting") as advance:
                return Export.from_manifest(str(folder), write(store, Path(folder), parts, format, progress=advance))


def open(path: str | os.PathLike[str] | None = None, *,  # noqa: A001 (the library's verb: zeckdb.open)
         settings: Settings | None = None) -> Database:
    """Open a built database read-only (default: the db setting: $ZECKDB_DB, else
    ./zeckdb.duckdb); `settings` (zeckdb.Settings) governs its calls instead of the environment."""
    return Database(path, settings=settings)


def statement_parameters(sql: str) -> set[str]:
    """The parameters one read-only statement takes, as DuckDB's parser names them: `$name`'s
    names, or "1", "2", ... for its `?`s (a `$` inside a string literal is text, not a name);
    a UsageError for a statement zeckdb's SQL never runs."""
    from .apart import check_here

    return set(check_here(sql).named_parameters)


def check_sql(sql: str, params: Params = None) -> None:
    """Refuse, at once and without the database, a statement zeckdb's SQL never runs: by its kind
    (anything but a read) and its names (files, the host, SQL given as text), or parameters that
    are not plain values; a UsageError says what. What passes is checked again where it runs."""
    from .apart import check_here
    from .executor import check_params

    check_params(params)
    check_here(sql)


def run_sql_apart(db: str | os.PathLike[str] | None, sql: str, format: str, write: Callable[[str], Any], *,
                  timeout: float | None = None, max_rows: int | None = None, memory_limit: str | None = None,
                  params: Params = None, settings: Settings | None = None) -> tuple[int, int | None]:
    """Run one ad-hoc statement as `zeckdb sql` does: in a process of its own, which the operating
    system bounds in memory and which is killed at the time limit, its rows rendered in `format`
    (table, csv, json, markdown) and handed to `write` piece by piece; (rows shown, every row's
    count or None). Database.sql runs in this process; this bounds what a statement can take
    from the caller."""
    from .apart import run_in_child
    from .store import resolve_db_path

    active = folded(settings)
    path = resolve_db_path(db, settings=active)
    if not path.exists():
        Store.open_read(path, settings=active)  # the one-line error of a missing database
    return run_in_child(path, sql, _limits(active, timeout, max_rows, None), format, write,
                        memory_limit or active.memory_limit, params, active)


def upgrade(db: str | os.PathLike[str] | None = None, settings: Settings | None = None,
            say: Callable[[str], None] | None = None) -> tuple[Path, str | None, str]:
    """Bring the database to the newest schema and remove what it holds that is not zeckdb's
    (a view, macro or schema someone added; `say` is told each): (its path, the revision it had,
    the newest). There must be one: a build creates a database."""
    from .errors import DatabaseError
    from .store import resolve_db_path, suggested, upgrade as migrate

    active = folded(settings)
    path = resolve_db_path(db, settings=active)
    if not path.exists():
        raise DatabaseError(f"no database at {printable(str(path))}: nothing to upgrade "
                            f"({suggested('build', path, active)} creates one)")
    before, after = migrate(path, active, say)
    return path, before, after


def schema_revision(db: str | os.PathLike[str] | None = None,
                    settings: Settings | None = None) -> tuple[Path, str | None, bool]:
    """(the database's path, its schema revision or None, whether that is the newest)."""
    from .errors import DatabaseError
    from .store import resolve_db_path, schema_revision as revision

    active = folded(settings)
    path = resolve_db_path(db, settings=active)
    if not path.exists():
        raise DatabaseError(f"no database at {printable(str(path))}: create one with "
                            f"{suggested('build', path, active)}")
    found = revision(path, active)
    return path, found, found == SCHEMA_HEAD


def simulate(variant: str, n: int, games: int = 10_000, seed: int = 0) -> Simulation:
    """Play `games` random games of n (Monte Carlo: both players pick uniformly among the legal
    moves); no database needed. See zeckdb.simulate."""
    from .simulate import simulate as play

    return play(get_variant(variant), n, games, seed)


def build(db: str | os.PathLike[str] | None, variant: str | list[str] | None = None, n: NRange = "1..150", *,
          force: bool = False, summary_only: bool = False, lean: bool = False, winner_only: bool = False,
          executor: str = "local",
          address: str | None = None, shards: str | None = None, shards_only: bool = False,
          threads: int | None = None, progress: Progress | None = None,
          notify: Callable[[str], None] | None = None, settings: Settings | None = None) -> BuildResult:
    """Build every position, move and outcome of `variant` (one name or a list, as `--variant`)
    for `n` (a range text such as "1..150", an int or ints) into the database `db`, as
    `zeckdb build` does.

    Without variant: every game, each up to the n it can build (what it skips is
    notified). What is built is skipped unless force. summary_only keeps only each n's
    summary row (lean: only its integer columns; winner_only: one byte a position, the row
    keeps the winner and the layer's counts, NULL lengths); executor "dask" fans the layers out to
    the scheduler at `address`. Every argument is checked before the file is touched.
    notify receives one-line notices (skipped n, waiting for readers). threads: layers solved
    at once and the threads of one large layer (default: the threads setting, else the cores
    this process may use). `settings` (zeckdb.Settings) governs it instead of the environment.
    zeckdb.orchestration runs it. In a notebook, with neither progress nor notify given, the cell
    shows the progress and the notices as lines."""
    from .orchestration import BuildRequest, run

    ns = _ns(n)
    if ns is None:
        raise UsageError(f"give {opt('n')}, e.g. 1..150")
    request = BuildRequest(db, folded(settings, threads=threads), _names(variant), ns, force=force,
                           summary_only=summary_only, lean=lean, winner_only=winner_only, executor=executor,
                           address=address, shards=shards,
                           shards_only=shards_only)
    if progress is None and notify is None and in_a_notebook():  # a cell shows how the build goes, as a log would
        progress, notify = Lines(print), print
    return run(request, progress, notify or (lambda text: None))


def folded(given: Settings | None, **arguments: Any) -> Settings:
    """The one Settings a call runs under (docs/commands.md, "Settings"): an explicit argument
    (a flag, a keyword; None: not given) beats a Settings object, which beats the environment,
    which beats the default. Each value is checked here, at the door, and the result handed
    down as an argument (and to the plugins' probes, which are once per process)."""
    from .variants.plugins import configure

    with using(given):  # refuses what is not a Settings
        active = settings().changed(**arguments)
    configure(active)
    return active


def _names(variants: str | Iterable[str] | None) -> list[str] | None:
    """Variants as a list of names: one name alone stands for itself (not its characters)."""
    if variants is None or isinstance(variants, str):
        return None if variants is None else [variants]
    names = list(variants) if isinstance(variants, Iterable) else None
    if names is None or not all(isinstance(name, str) for name in names):
        raise UsageError(f"bad variant {str(variants)[:40]!r}: give a game's name or a list of names, e.g. "
                         "[\"zeckendorf\", \"reversed\"]")
    return names
