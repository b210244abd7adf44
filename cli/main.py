"""`zeckdb`: build, inspect and query the Zeckendorf game-family database.

Each command parses its arguments, calls one library function, and renders the
result. Errors are turned into one line on stderr in `main`, and nowhere else.
"""

from __future__ import annotations

import json
from pathlib import Path
import sys
import time

from typing import Any

import typer

from zeckdb import api
from zeckdb.ranges import format_ns, parse_n, parse_ns
from zeckdb.settings import help_text as setting_help
from zeckdb.errors import UsageError, ZeckdbError, as_flag, caused_by_ctrl_c
from zeckdb.render import seat_words, team_words

def _one_per_line(names: list[str]) -> str:
    """Names for a help text, a line each (click's \\b keeps them unwrapped: never split at a hyphen)."""
    return "\n".join(f"  {name}" for name in names)


app = typer.Typer(
    help="zeckdb: an exhaustive, SQL-backed position database for the Zeckendorf game family.\n\n"
    "Build a database with `zeckdb build`, then look positions up with `zeckdb position`, "
    "play optimal lines with `zeckdb line`, ask research questions with `zeckdb query` "
    "(named queries) or `zeckdb sql` (ad-hoc, read-only), and see what is built with `zeckdb status`. "
    "`zeckdb serve` offers it all over HTTP with a web page; `zeckdb plot`, `zeckdb draw` and "
    "`zeckdb export` make figures, game-graph drawings and Parquet files. "
    "The database is ./zeckdb.duckdb unless --db or $ZECKDB_DB says otherwise.\n\n"
    "Variants (`zeckdb variants` describes them; a default build covers M = 2..5 and leaves the "
    "accelerated game and the generalized games to --variant):\n\n\b\n" + _one_per_line(api.variant_labels()),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: paragraphs rewrapped to the terminal, no metavar boxes
    add_completion=False,
)


def _show_version(value: bool) -> None:
    if value:
        from zeckdb import __version__

        typer.echo(f"zeckdb {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                          help="Print zeckdb's version and exit."),
             db: str | None = typer.Option(None, "--db", metavar="FILE", show_default=False,
                                           help="The database file of the command that follows (as its own --db; "
                                           "default: $ZECKDB_DB or ./zeckdb.duckdb).")) -> None:
    if db is not None:  # an explicit option beats the environment: the one Settings of this run
        from zeckdb.settings import activate

        activate(api.settings().changed(db=db))


db_app = typer.Typer(help="Manage the database schema (Alembic migrations).", no_args_is_help=True,
                     rich_markup_mode=None)
app.add_typer(db_app, name="db")

DEFAULT_NS = "1..150"
DbOption = typer.Option(None, "--db",
                        metavar="FILE", help="Database file (default: $ZECKDB_DB or ./zeckdb.duckdb).", show_default=False)
StartOption = typer.Option(None, "--start", metavar="N", help="Use the start position of this n instead of POSITION.",
                           show_default=False)
FormatOption = typer.Option("table", "--format", "-f", metavar="FORMAT", help="Output format: table, csv, json or markdown.")
TimeoutOption = typer.Option(None, "--timeout", metavar="SECONDS", help=setting_help("sql_timeout"),
                             show_default=False)
MaxRowsOption = typer.Option(None, "--max-rows", metavar="ROWS", help=setting_help("sql_max_rows")
                             + " A notice on stderr says how many were cut.", show_default=False)
VariantFilterOption = typer.Option(None, "--variant", metavar="VARIANT", help="Only this variant (default: every built variant).",
                                   show_default=False)
NFilterOption = typer.Option(None, "--n", metavar="N", help="Only these n: 7, 1..150 or 1..20,30 (default: every built n).",
                             show_default=False)
ForceOption = typer.Option(False, "--force", help="Replace the file if it exists (never the database's own files).")
PositionArg = typer.Argument(None, metavar="POSITION",
                             help="A position as the game writes it: counts bin 1 first (3,1,0,2: three 1s, "
                             "one 2, two 5s), the ordered game's entries left to right ([1,2,1,3]), Fibonacci nim's "
                             "r,k (chips left, the most that may be taken).", show_default=False)


def _setting_option(name: str, flag: str, metavar: str) -> Any:
    """An option that sets one of zeckdb.settings for this run (None: the environment's or the default)."""
    return typer.Option(None, flag, metavar=metavar, help=setting_help(name), show_default=False)


def _echo_err(text: str) -> None:
    typer.echo(text, err=True)


_BUILD_HELP = (
    "Build every position, move and outcome for the chosen variants and n.\n\n"
    "Incremental: what is built is skipped. Each (variant, n) is committed atomically, so an interrupted "
    "build keeps what it finished and the same command resumes it. The database stays readable while it "
    "is built: other commands and `zeckdb serve` read the layers committed so far.\n\n"
    "With --summary-only each layer is solved in one pass over its positions, without storing them or "
    "their moves, and only its row of `builds` (and of `random_play`) is kept: `winners`, `lengths` and "
    "`zeckdb status` answer for it, lookups ask for a full build. Memory: 8 bytes per position of the "
    "largest n (16 in a game of P players), 40 more with the float columns (expected length, game count, "
    "random-play odds), kept while the layers solved at once fit ZECKDB_SUMMARY_MEMORY (GiB, default 40 % "
    "of this machine's memory). --threads (ZECKDB_THREADS, default the cores this process may use) sets "
    "how many layers are solved at once; a large layer takes the threads left over. Without --variant it "
    "builds the zeckendorf and reversed games. Summary mode solves:\n\n\b\n"
    + _one_per_line(api.summary_games()) + "\n\n"
    "and the installed game plugins that have a summary walk (`zeckdb variants` lists them). "
    "How far each game reaches, in full and in summary mode, is set by what its largest layer costs: "
    "`zeckdb variants` shows it for this machine (a full build's layer may take a quarter of its memory; "
    "ZECKDB_BUILD_MEMORY, in GiB, sets another budget)."
)


@app.command(help=_BUILD_HELP)
def build(
    n: str = typer.Option(DEFAULT_NS, "--n", metavar="N", help="Which n: 7, 1..150 or 1..20,30."),
    variant: list[str] | None = typer.Option(None, "--variant",
                                             metavar="VARIANT", help="Variant to build (repeatable; default: every "
                                             "game but those built on request, each up to the n it can build "
                                             "exhaustively).", show_default=False),
    force: bool = typer.Option(False, "--force", help="Rebuild (variant, n) pairs that are already built."),
    summary_only: bool = typer.Option(False, "--summary-only", help="Store only each n's summary (winner, "
                                      "remoteness, shortest and longest game, teams, ...), not its positions: "
                                      "n = 300 and beyond, for the games listed above; without --variant, for "
                                      "zeckendorf and reversed."),
    executor: str = typer.Option("local", "--executor",
                                 metavar="NAME", help="local, or dask: fan the layers out to a Dask cluster "
                                 "(--address); in a full build workers write Parquet shards that this process "
                                 "ingests, with --summary-only only each layer's summary comes back."),
    address: str | None = typer.Option(None, "--address", metavar="URL", help="With --executor dask: the scheduler, e.g. "
                                          "tcp://127.0.0.1:8786."),
    shards: str | None = typer.Option(None, "--shards",
                                      metavar="FOLDER", help="With --executor dask: the folder the workers write "
                                         "to, shared with this machine (default: DATABASE.shards)."),
    shards_only: bool = typer.Option(False, "--shards-only", help="With --executor dask: leave the shards (zeckdb "
                                     "export's layout) for DuckDB to query in place; store nothing. A rerun skips "
                                     "the layers written in full."),
    lean: bool = typer.Option(False, "--lean", help="With --summary-only: keep only the winner, remoteness and "
                              "shortest and longest game (8 bytes per position instead of 48, about 1.5x faster)."),
    threads: int | None = _setting_option("threads", "--threads", "COUNT"),
    db: str | None = DbOption,
) -> None:

    bar = _Progress()
    try:
        result = api.build(db, variant, n, force=force, summary_only=summary_only, lean=lean, executor=executor,
                           address=address, shards=shards, shards_only=shards_only, threads=threads, progress=bar,
                           notify=_echo_err)
    except api.BuildInterrupted as interrupt:  # click would print "Aborted!"; say what is kept
        done = ("nothing is" if not interrupt.committed else
                f"n = {format_ns(interrupt.committed)} {'is' if len(interrupt.committed) == 1 else 'are'}") \
            if interrupt.committed is not None else "every finished n is"
        kept = "the layers written as Parquet shards are kept" if shards_only else f"{done} committed"
        takes = f"; the layers solved but not yet stored stay as Parquet shards in {interrupt.shards} for it" \
            if interrupt.shards else ""
        _echo_err(f"zeckdb: interrupted; {kept}, run the same command again to resume{takes}")
        raise typer.Exit(130) from None
    names = ", ".join(result.variants)
    if result.shards is not None and not result.built:
        typer.echo(f"nothing to write: {names} for n = {format_ns(result.ns)} already written as Parquet shards in "
                   f"{result.shards} (--force writes them again)")
    elif result.shards is not None:
        layers = f"{len(result.built)} layer{'s' if len(result.built) != 1 else ''}"
        typer.echo(f"wrote {layers} of {names} ({result.positions:,} positions, {result.edges:,} moves) as Parquet "
                   f"shards in {result.shards} (nothing stored); query them with DuckDB, e.g. SELECT * FROM "
                   f"read_parquet('{result.shards}/positions/*/*/*.parquet', hive_partitioning = true)")
    elif not result.built:
        typer.echo(f"nothing to build: {names} for n = {format_ns(result.ns)} already "
                   + (f"summarised or built in {result.path} (--force recomputes summaries)" if result.summary_only
                      else f"in {result.path} (--force rebuilds)"))
    elif result.summary_only:
        typer.echo(f"summarised {names} for n = {format_ns(result.ns)}: {result.positions:,} positions, "
                   f"{result.edges:,} moves solved in {result.seconds:.1f} s, nothing but the summaries stored "
                   f"-> {result.path}")
    else:
        typer.echo(f"built {names} for n = {format_ns(sorted({k for _, k in result.built}))}: "
                   f"{result.positions:,} positions, {result.edges:,} moves stored in {result.seconds:.1f} s -> "
                   f"{result.path}")


class _Progress:
    """A progress bar on a terminal, plain log lines otherwise (api.Progress): a line at each
    tenth of the work, and at least every LOG_SECONDS while the work goes on (a log file of a
    long build shows it alive, even inside one long layer)."""

    LOG_SECONDS = 30.0

    def __init__(self) -> None:
        self.bar: Any = None  # a rich Progress on a terminal
        self.stopped: Any = None  # the log lines' heartbeat, stopped with the work

    def start(self, total: int, verb: str) -> None:
        self.total, self.verb, self.done, self.logged_tenth = total, verb, 0, 0
        self.began = self.logged_at = time.monotonic()
        self.description = ""
        if not sys.stderr.isatty():
            import threading

            self.lock = threading.Lock()
            self.stopped = threading.Event()
            threading.Thread(target=self._heartbeat, name="zeckdb-progress", daemon=True).start()
        if sys.stderr.isatty():
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn(f"{verb} {{task.description}}"), BarColumn(),
                                TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(),
                                TimeRemainingColumn(), transient=True, console=None)
            self.bar.start()
            self.task = self.bar.add_task("", total=max(total, 1))

    def advance(self, positions: int, description: str) -> None:
        self.done += positions
        if self.bar is not None:
            self.bar.update(self.task, advance=positions, description=description)
            return
        with self.lock:
            self.description = description
            tenth = self.done * 10 >= (self.logged_tenth + 1) * self.total
            if tenth or time.monotonic() - self.logged_at >= self.LOG_SECONDS:
                self.logged_tenth = self.done * 10 // max(self.total, 1)
                self._log()

    def _log(self, still: bool = False) -> None:
        """One line (the caller holds the lock)."""
        self.logged_at = time.monotonic()
        elapsed = f", {int(self.logged_at - self.began) // 60}:{int(self.logged_at - self.began) % 60:02d} elapsed"
        where = f" {self.description}" if self.description else ""
        _echo_err(f"{self.verb}{where}: {100 * self.done // max(self.total, 1)}% of the work done"
                  + (f"{elapsed}, still working" if still else ""))

    def _heartbeat(self) -> None:
        while not self.stopped.wait(self.LOG_SECONDS / 3):
            with self.lock:
                if time.monotonic() - self.logged_at >= self.LOG_SECONDS:
                    self._log(still=True)

    def stop(self) -> None:
        if self.stopped is not None:
            self.stopped.set()
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


VARIANTS_TITLE_ROOM = 16  # the fewest characters of a game's title worth showing


@app.command()
def variants(
    name: str | None = typer.Argument(None, metavar="NAME",
                                      help="A family (e.g. nacci-C-K) to list its members one by one, a "
                                      "family's name without its numbers (nacci: every nacci family), or one "
                                      "game.", show_default=False),
    fmt: str = FormatOption,
) -> None:
    """List the games zeckdb knows: name, how far a full build and summary mode reach on this
    machine, an example start and the game; --format csv, json or markdown add its paper.

    The reach is the last n up to which every layer fits a memory budget: a quarter of this
    machine's memory for a full build (ZECKDB_BUILD_MEMORY, GiB, sets another), 40 % for summary
    mode (ZECKDB_SUMMARY_MEMORY); a family shows the least and the most of its members."""
    import shutil

    from zeckdb.render import render

    _check_format(fmt)
    games = api.variants(name)
    if name is None:
        for failure in api.plugin_failures():  # the other games are listed all the same
            _echo_err(f"zeckdb: left out: {failure}")
    if fmt == "json":  # the API's fields, keyed by identifiers
        typer.echo(json.dumps([game.to_json() for game in games]))
        return
    shown = {"variant": "variant", "full_n": "full build", "summary_n": "summary mode", "start_of_5": "start of 5",
             "game": "game"}
    if fmt != "table":
        shown["source"] = "source"
    rows = [tuple("-" if getattr(g, key) is None else getattr(g, key) for key in shown) for g in games]
    left_out = []
    if fmt == "table":  # fit the terminal: the game's title takes what the other columns leave, if enough
        columns = shutil.get_terminal_size((100, 24)).columns
        widths = [max(len(title), *(len(str(r[i])) for r in rows)) for i, title in enumerate(shown.values())]
        room = columns - sum(w + 2 for w in widths[:-1])
        if room < VARIANTS_TITLE_ROOM:
            left_out.append("game")
            if sum(w + 2 for w in widths[:-1]) - 2 > columns:
                left_out.append("start of 5")
        else:
            rows = [(*r[:-1], r[-1] if len(r[-1]) <= room else r[-1][: room - 3] + "...") for r in rows]
    kept = [i for i, title in enumerate(shown.values()) if title not in left_out]
    typer.echo(render([list(shown.values())[i] for i in kept], [tuple(r[i] for i in kept) for r in rows], fmt))
    if left_out:
        typer.echo(f"(left out to fit the terminal: {' and '.join(left_out)}; --format markdown has all)")


@app.command()
def status(db: str | None = DbOption, fmt: str = FormatOption) -> None:
    """List what the database holds: per variant the n built, positions, edges, and
    which n hold only their summary (built with --summary-only); --format json gives the
    service's /v1/status object, csv and markdown one row per variant."""
    from dataclasses import asdict, fields

    from zeckdb.render import plain, render

    _check_format(fmt)
    with api.open(db) as database:
        info = database.status()
    rows = info.variants
    if fmt == "json":
        typer.echo(json.dumps(plain(info.to_json())))
        return
    if fmt != "table":
        names = [f.name for f in fields(api.VariantStatus)]
        typer.echo(render(names, [tuple(asdict(r).values()) for r in rows], fmt))
        return
    typer.echo(f"database {info.database}: {info.size_bytes / 1e6:,.1f} MB, schema revision {info.schema_revision}")
    if info.build_running:
        typer.echo("a build is writing it: below is what it has committed so far")
    if not rows:
        typer.echo("nothing built yet: run `zeckdb build`")
        return
    name_width = max(len(r.variant) for r in rows)
    ns_width = max(len(r.ns) for r in rows)
    for r in rows:
        typer.echo(f"  {r.variant:<{name_width}}  n = {r.ns:<{ns_width}}  {r.positions:>12,} "
                   f"positions {r.edges:>13,} edges  ({r.seconds:.1f} s to build)")
        if r.summary_ns:
            typer.echo(f"  {'':<{name_width}}  of which summary only (no positions stored): n = {r.summary_ns}")
    typer.echo("`zeckdb verify` checks every stored row against the others and the checksums of the build")


@app.command()
def position(
    variant: str = typer.Argument(..., metavar="VARIANT",
                                  help="Variant name, e.g. zeckendorf, reversed, black-hole-4 or fibonacci-nim."),
    position: str | None = PositionArg,
    start: str | None = StartOption,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (a stable contract for scripts)."),
    db: str | None = DbOption,
) -> None:
    """Show a position: outcome, remoteness, game lengths, counts, and every move ranked best first."""

    with api.open(db) as database:
        info = database.position(variant, position, start=_start(start))
    if as_json:
        typer.echo(json.dumps(info.to_json()))
        return
    typer.echo(f"{info.variant} {info.text}  (n = {info.value}{', start' if info.is_start else ''}"
               f"{', terminal' if info.is_terminal else ''})")
    many = info.players != 2
    if many:
        typer.echo(f"  players           {info.players}: {seat_words(info.forcing_seat, info.players, info.is_start)}")
        if info.teams is not None:
            typer.echo(f"  teams             {team_words(info.teams, info.players, info.is_start)}")
    else:
        typer.echo(f"  outcome           {info.outcome} for the player to move")
        typer.echo(f"  remoteness        {info.remoteness}")
    typer.echo(f"  moves to the end  min {info.min_remaining}, max {info.max_remaining}")
    typer.echo(f"  games to the end  {info.games_to_end if isinstance(info.games_to_end, int) else f'{info.games_to_end:.6g}'}")
    typer.echo(f"  expected moves    {info.expected_remaining_random} ({'all' if many else 'both'} players random)")
    if not many:
        typer.echo(f"  grundy value      {info.grundy}")
    if not info.moves:
        typer.echo("  no moves: the game is over")
        return
    typer.echo("  moves, best first:")
    width = max(len(m.move) for m in info.moves)
    for i, m in enumerate(info.moves, 1):
        if many:
            verdict = "keeps a forced win" if m.forcing_seat == info.players else "no forced win for the mover"
            typer.echo(f"  {i:>3}. {m.move:<{width}}  -> {m.text:<24} {verdict} "
                       f"(then {seat_words(m.forcing_seat, info.players)})")
            continue
        verdict = "wins" if m.outcome == "loss" else "loses"
        typer.echo(f"  {i:>3}. {m.move:<{width}}  -> {m.text:<24} {verdict} "
                   f"(then {m.outcome} for opponent, remoteness {m.remoteness})")


@app.command()
def line(
    variant: str = typer.Argument(..., metavar="VARIANT",
                                  help="Variant name, e.g. zeckendorf, reversed, black-hole-4 or fibonacci-nim."),
    position: str | None = PositionArg,
    start: str | None = StartOption,
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list, one object per move: ply, player, move, "
                                 "position (as a list) and text (as the game writes it)."),
    db: str | None = DbOption,
) -> None:
    """Play the principal line from a position: optimal play by both sides, one move per line."""
    with api.open(db) as database:
        steps = database.line(variant, position, start=_start(start))
    first = steps[0][1]
    if as_json:
        typer.echo(json.dumps(steps.to_json()))
        return
    if first.players != 2:
        typer.echo(f"{first.variant} from {first.text}: {seat_words(first.forcing_seat, first.players, first.is_start)}; "
                   "each player in turn plays a move that keeps a forced win if there is one")
    else:
        typer.echo(f"{first.variant} from {first.text}: "
                   f"the player to move {'wins' if first.outcome == 'win' else 'loses'} in {first.remoteness} moves")
    width = max((len(mv or "") for mv, _ in steps[1:]), default=0)
    for i, (mv, info) in enumerate(steps[1:], 1):
        mover = "ABCDEFGH"[(i - 1) % first.players]
        typer.echo(f"  {i:>3}. {mover}: {mv:<{width}}  -> {info.text}")


@app.command()
def play(
    variant: str = typer.Argument(..., metavar="VARIANT",
                                  help="Variant name, e.g. zeckendorf or reversed (a two-player game whose moves "
                                  "stay in the layer)."),
    position: str | None = PositionArg,
    start: str | None = StartOption,
    p1: str = typer.Option("perfect", "--p1", metavar="PROFILE", help="Player 1's profile (the player to move): "
                           "perfect, random, best-response, or for the Zeckendorf game combine-largest, "
                           "combine-smallest, split-largest, split-smallest."),
    p2: str = typer.Option("random", "--p2", metavar="PROFILE", help="Player 2's profile, as --p1 (not "
                           "best-response when Player 1 is)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object: p1_wins, p2_wins, expected_length, "
                                 "shortest, longest, lengths (length: probability) and p1_moves (the moves "
                                 "Player 1's profile makes at the position, with their probability)."),
    db: str | None = DbOption,
) -> None:
    """Play a position out with a profile for each player, computed exactly (no sampling).

    A profile says which move a player makes: perfect (the fastest win, else the slowest
    loss, as `zeckdb position` ranks the moves), random (every move alike), best-response
    (the best chance against the other player's profile), or one of the Zeckendorf game's
    deterministic preferences (Li et al.): combine or split first, at the largest or the
    smallest place. Prints each player's chance to win, the expected length and the
    distribution of the length, from the stored graph of the layer.
    """
    with api.open(db) as database:
        result = database.play(variant, position, start=_start(start), p1=p1, p2=p2)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    typer.echo(f"{result.variant} {result.text}  (n = {result.n}): Player 1 {result.p1}, Player 2 {result.p2}")
    typer.echo(f"  Player 1 wins    {result.p1_wins:.10g}")
    typer.echo(f"  Player 2 wins    {result.p2_wins:.10g}")
    typer.echo(f"  expected length  {result.expected_length:.10g} moves (shortest {result.shortest}, "
               f"longest {result.longest})")
    if result.p1 != "random":
        for move in result.p1_moves:
            typer.echo(f"  Player 1 plays   {move['move']} -> {move['text']}"
                       + ("" if move["probability"] == 1 else f"  (probability {move['probability']:.6g})"))
    assert result.lengths is not None  # asked for
    # a row per length; past PLAY_ROWS of them, the lengths of the visible bars and a row for each tail
    # (--json has every length)
    lengths = result.lengths
    top = max(lengths.values())
    shown = [t for t, p in lengths.items() if len(lengths) <= PLAY_ROWS or p >= top / 1000]
    typer.echo("  length  probability")
    if shown[0] > min(lengths):
        typer.echo(f"  {'< ' + str(shown[0]):>6}  {sum(p for t, p in lengths.items() if t < shown[0]):<12.6g}")
    for length in shown:
        typer.echo(f"  {length:>6}  {lengths[length]:<12.6g} {'#' * max(1, round(40 * lengths[length] / top))}")
    if shown[-1] < max(lengths):
        typer.echo(f"  {'> ' + str(shown[-1]):>6}  {sum(p for t, p in lengths.items() if t > shown[-1]):<12.6g}")


PLAY_ROWS = 40  # the most rows `zeckdb play` prints of a length distribution


def _start(text: str | None) -> int | None:
    return None if text is None else parse_n(text, "--start")


def _check_format(fmt: str) -> None:
    from zeckdb.render import FORMATS
    from zeckdb.errors import UsageError

    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")


@app.command()
def query(
    name: str | None = typer.Argument(None, metavar="QUERY", help="Query name; leave out to list them all.", show_default=False),
    variant: list[str] | None = VariantFilterOption,
    n: str | None = NFilterOption,
    param: list[str] | None = typer.Option(None, "--param", metavar="KEY=VALUE",
                                           help="A query parameter KEY=VALUE (repeatable).", show_default=False),
    fmt: str = FormatOption,
    timeout: float | None = TimeoutOption,
    max_rows: int | None = MaxRowsOption,
    db: str | None = DbOption,
) -> None:
    """Run a named query from sql/ (without NAME: list them with their descriptions).

    Each query is one .sql file whose header comment says what it answers, its
    parameters (with their types and allowed values) and the paper or theorem it checks.
    """
    from zeckdb.render import render

    _check_format(fmt)
    if name is None:
        listing = [(q.name, q.description, _params_text(q)) for q in api.queries()]
        if fmt != "table":
            typer.echo(render(["query", "description", "parameters"], listing, fmt))
            return
        import textwrap

        for query_name, description, parameters in listing:  # a block each: the descriptions are long
            typer.echo(query_name)
            typer.echo(textwrap.fill(description, 100, initial_indent="    ", subsequent_indent="    "))
            typer.echo(textwrap.fill(f"takes: {parameters}", 100, initial_indent="    ", subsequent_indent="        "))
        typer.echo("\nrun one: zeckdb query NAME [--variant V] [--n RANGE] [--param KEY=VALUE]")
        return
    api.named_query(name)  # an unknown name is named before anything else
    if variant and len(variant) > 1:
        from zeckdb.errors import UsageError

        raise UsageError(f"--variant given {len(variant)} times: a query reads one variant, or every built one "
                         "without --variant (its rows name the variant)")
    ns = parse_ns(n) if n else None
    params = _params(param or [])
    limits = _limits(timeout, max_rows)  # every argument checked before the file is opened
    with api.open(db) as database:
        result = database.query(name, variant=variant[0] if variant else None, n=ns, params=params, **limits)
    _print_result(result, fmt)


def _params_text(query: api.NamedQuery) -> str:
    parts = ["--variant" + (f" ({', '.join(query.variants)})" if query.variants else "")]
    if query.takes_ns:
        parts.append("--n")
    parts += [f"--param {p.name}=... ({p.allowed}{', required' if p.required else ''})" for p in query.params.values()]
    return "; ".join(parts)


def _params(pairs: list[str]) -> dict[str, str]:
    """--param KEY=VALUE, each."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"bad --param {pair[:40]!r}: write KEY=VALUE, e.g. --param position=3,1,0,2")
        out[key.strip()] = value.strip()
    return out


def _limits(timeout: float | None, max_rows: int | None) -> dict[str, Any]:
    """--timeout and --max-rows over their settings (ZECKDB_SQL_TIMEOUT, ...), each checked."""
    settings = api.settings().changed(sql_timeout=timeout, sql_max_rows=max_rows)
    return {"timeout": settings.sql_timeout, "max_rows": settings.sql_max_rows}


def _print_result(result: api.Result, fmt: str) -> None:
    from zeckdb.render import render

    typer.echo(render(result.columns, result.rows, fmt))
    if result.truncated:
        _say_cut(len(result.rows))
    if result.marked_notice:
        from zeckdb.errors import as_flag, word

        _echo_err(f"zeckdb: {word(result.marked_notice, as_flag)}")


def _say_cut(shown: int) -> None:
    _echo_err(f"zeckdb: showing the first {shown:,} rows, and there are more (not computed): "
              f"--max-rows N shows more, --max-rows 0 all of them")


@app.command()
def sql(
    statement: str = typer.Argument(..., metavar="SQL", help="The SQL to run, or - to read it from standard input."),
    param: list[str] | None = typer.Option(None, "--param", metavar="VALUE", show_default=False,
                                           help="A value for the statement's next ? (repeatable, in order), or "
                                           "name=value for its $name: an integer or a decimal number is bound "
                                           "as a number, anything else as text."),
    fmt: str = FormatOption,
    timeout: float | None = TimeoutOption,
    max_rows: int | None = MaxRowsOption,
    db: str | None = DbOption,
) -> None:
    """Run one ad-hoc SQL statement on the database, read-only (the schema is in docs/schema.md).

    Allowed: SELECT, WITH ... SELECT, VALUES, DESCRIBE, SUMMARIZE, SHOW and plain
    EXPLAIN; anything else is refused. The query sees the database only (no
    files, no network). Values come in as parameters, never spliced into the
    text: zeckdb sql "SELECT * FROM builds WHERE variant = ? AND n = ?" --param
    reversed --param 40. It runs in a process of its own, which the operating
    system holds to twice DuckDB's memory limit (ZECKDB_MEMORY_LIMIT, default
    4GB) and which is stopped at the time limit; its rows are printed as they
    come, so --max-rows 0 prints any number of them.
    """

    _check_format(fmt)
    limits = _limits(timeout, max_rows)  # checked before the statement is read
    most = api.settings().sql_max_chars
    text = sys.stdin.read(most + 1) if statement == "-" else statement
    if len(text) > most:
        from zeckdb.errors import UsageError

        raise UsageError(f"the SQL is over {most:,} characters (ZECKDB_SQL_MAX_CHARS): send a shorter statement")
    shown, total = api.run_sql_apart(db, text, fmt, lambda piece: typer.echo(piece, nl=False), **limits,
                                     params=_sql_params(text, param))
    if total is None or total > shown:
        _say_cut(shown)


def _sql_params(statement: str, values: list[str] | None) -> list[Any] | dict[str, Any] | None:
    """The --param values: in order for the statement's ?, or as name=value where it names its
    parameters ($name)."""
    import re

    from zeckdb.errors import UsageError

    if not values:
        return None
    if not re.search(r"\$[A-Za-z_]", statement):
        return [_param_value(value) for value in values]
    named: dict[str, Any] = {}
    for value in values:
        name, sep, given = value.partition("=")
        if not sep or not name.isidentifier():
            raise UsageError(f"bad --param {value[:40]!r}: the statement names its parameters ($name): give each as "
                             "--param name=value, e.g. --param n=40")
        named[name] = _param_value(given)
    return named


def _param_value(text: str) -> int | float | str:
    """A --param as bound: an integer or a decimal number as a number, anything else as text."""
    import re

    if re.fullmatch(r"[+-]?\d{1,18}", text):
        return int(text)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?", text):
        return float(text)
    return text


def _say_checksum_only(layers: list[tuple[str, int, int]]) -> None:
    """Which summary layers verify compared with their checksum alone, and how to check them in full."""
    by_game: dict[str, list[int]] = {}
    for name, n, _ in layers:
        by_game.setdefault(name, []).append(n)
    largest = max(positions for _, _, positions in layers)
    shown = "; ".join(f"{name} n = {format_ns(ns)}" for name, ns in by_game.items())
    _echo_err(f"zeckdb: checked by their summary checksum only (too large to solve again): {shown}; a checksum anyone "
              f"who changed a row can recompute: to solve them again, give ZECKDB_VERIFY_RESOLVE_POSITIONS={largest} "
              "(or more) and --variant/--n for them")


@app.command()
def verify(
    variant: list[str] | None = typer.Option(None, "--variant", metavar="VARIANT", show_default=False,
                                             help="Only these variants (repeatable; default: every built variant)."),
    n: str | None = NFilterOption,
    db: str | None = DbOption,
) -> None:
    """Check the database against itself, without trusting the summaries.

    Re-derives in SQL, from the stored rows: each position's solved columns from
    its moves, each layer's size (and, for games whose layers are partitions, the
    number of partitions of n into their column weights), each summary row from its
    start position, and the checksums recorded at build time. Exits 1 and lists the
    first mismatches if anything disagrees. Layers of a game not installed here (a
    plugin) are named and left unchecked.
    """
    ns = parse_ns(n) if n else None
    with api.open(db) as database:
        report = database.verify(variant or None, ns, progress=_Progress())
    width = max(len(c.name) for c in report.checks)
    typer.echo(f"verified {len(report.layers):,} layers in {report.seconds:.1f} s")
    typer.echo(f"  {'check':<{width}}  {'checked':>12}  {'failed':>8}")
    for c in report.checks:
        typer.echo(f"  {c.name:<{width}}  {c.checked:>12,}  {c.failed:>8,}")
    if report.unknown:
        _echo_err(f"zeckdb: not checked: {', '.join(report.unknown)}, whose game is not installed here (a plugin?); "
                  "install it to check its layers")
    if report.checksum_only:
        _say_checksum_only(report.checksum_only)
    if report.ok:
        but = [*report.unknown, *(["the summary layers named above, by checksum only"] if report.checksum_only else [])]
        typer.echo("every check passed" + (f" (but {'; '.join(but)})" if but else ""))
        return
    _echo_err("zeckdb: verify found mismatches; the first of them:")
    for c in report.checks:
        for text in c.examples:
            _echo_err(f"  {c.name}: {text}")
    raise typer.Exit(1)


@app.command()
def serve(
    db: str | None = DbOption,
    host: str = typer.Option("127.0.0.1", "--host", metavar="ADDRESS", help="Address to listen on (loopback by default)."),
    port: int = typer.Option(8000, "--port", metavar="PORT", help="Port to listen on.", min=1, max=65535),
    sql_timeout: float | None = _setting_option("serve_sql_timeout", "--sql-timeout", "SECONDS"),
    sql_max_rows: int | None = _setting_option("serve_sql_max_rows", "--sql-max-rows", "ROWS"),
    max_heavy: int | None = _setting_option("serve_max_heavy", "--max-heavy", "COUNT"),
    queue_seconds: float | None = _setting_option("serve_queue_seconds", "--queue-seconds", "SECONDS"),
    memory_limit: str | None = _setting_option("serve_memory_limit", "--memory-limit", "SIZE"),
    max_connections: int | None = _setting_option("serve_max_connections", "--max-connections", "COUNT"),
    header_timeout: float | None = _setting_option("serve_header_seconds", "--header-timeout", "SECONDS"),
    body_timeout: float | None = _setting_option("serve_body_seconds", "--body-timeout", "SECONDS"),
    max_client_connections: int | None = _setting_option("serve_max_client_connections", "--max-client-connections",
                                                         "COUNT"),
) -> None:
    """Serve the database read-only over HTTP: a web page at / and a JSON API at /v1 (documented at /docs).

    GET /v1/variants, /v1/status, /v1/{variant}/positions/{position},
    /v1/{variant}/starts/{n}, /v1/{variant}/mainline/{position} (or /start/{n}),
    /v1/{variant}/summary?n=RANGE, /v1/queries, /v1/queries/{name}?variant=&n=&...,
    /v1/plots/{kind}?variant=&n= (SVG); POST /v1/sql {"sql": "..."}; GET /healthz.
    Errors are JSON {"error": "..."}. A build may write the database meanwhile:
    answers come from the layers it has committed. Nothing the service answers
    names a folder of the host: the database is named by its file name only.
    """
    from zeckdb.service import serve as run_service

    settings = api.settings().changed(
        serve_sql_timeout=sql_timeout, serve_sql_max_rows=sql_max_rows, serve_max_heavy=max_heavy,
        serve_queue_seconds=queue_seconds, serve_memory_limit=memory_limit, serve_max_connections=max_connections,
        serve_header_seconds=header_timeout, serve_body_seconds=body_timeout,
        serve_max_client_connections=max_client_connections)
    run_service(db, host, port, settings)


@app.command()
def simulate(
    variant: str = typer.Argument(..., metavar="VARIANT", help="Variant name, e.g. quilt."),
    n: int = typer.Option(..., "--n",
                          metavar="N", help="The n to play (no database needed; chip games at any n, the others up to "
                          "the n they build)."),
    games: int = typer.Option(10_000, "--games", metavar="COUNT", help="Number of random games."),
    seed: int = typer.Option(0, "--seed", metavar="SEED", help="Random seed (the same seed gives the same games)."),
    fmt: str = FormatOption,
) -> None:
    """Play random games (Monte Carlo) and summarise their lengths: moments and a histogram.

    Each player picks uniformly among the legal moves, as the measure P of
    `zeckdb query length-moments`, which is exact where the database holds n.
    """
    from zeckdb.render import render
    _check_format(fmt)
    sim = api.simulate(variant, n, games, seed)
    moments, histogram = sim.moments(), sim.histogram()
    if fmt == "json":
        typer.echo(json.dumps({"variant": sim.variant, "n": n, "games": games, "seed": seed, "method": "monte carlo",
                               **moments, "histogram": {str(k): v for k, v in histogram.items()}}))
        return
    if fmt == "table":
        typer.echo(f"{sim.variant}, n = {n}: {games:,} random games (Monte Carlo, seed {seed}; not exact)")
    typer.echo(render(list(moments), [tuple(moments.values())], fmt))
    if fmt == "table":
        top = max(histogram.values())
        typer.echo("\nlength  games")
        for length, count in histogram.items():
            typer.echo(f"{length:>6}  {count:>6}  {'#' * max(1, round(40 * count / top))}")


@app.command()
def plot(
    kind: str = typer.Argument(..., metavar="KIND", help="length-distribution, winners, conventions (who wins under "
                               "normal and misère play: the game and its twin NAME-misere built), lengths, "
                               "p-positions, remoteness or profiles."),
    variant: str = typer.Option(..., "--variant", metavar="VARIANT", help="The game, e.g. zeckendorf, reversed, black-hole-3."),
    n: str | None = typer.Option(None, "--n",
                                 metavar="N", help="Which n: one (remoteness), up to 12 (length-distribution: a panel "
                                 "each) or a range (winners, conventions, lengths, profiles; default: every n built).",
                                 show_default=False),
    measure: str = typer.Option("P", "--measure",
                                metavar="P|mu", help="length-distribution: P (random play) or mu (every game equally likely)."),
    out: Path = typer.Option(..., "--out", metavar="FILE", help="The image to write: FILE.png or FILE.svg."),
    data: Path | None = typer.Option(None, "--data",
                                     metavar="FILE", help="Also write the plotted numbers to this CSV file.", show_default=False),
    force: bool = ForceOption,
    db: str | None = DbOption,
) -> None:
    """Draw a figure from the database as PNG or SVG (matplotlib).

    length-distribution: the exact distribution of the game length against its
    Gaussian; winners: who wins each n and the running fraction against 1/phi;
    lengths: shortest and longest games against n - Z(n); p-positions: the
    P-positions of a Black Hole game of one to three bins; remoteness: a layer's
    wins and losses by remoteness; profiles: Player 1's chance to win under a few
    pairs of profiles (perfect, random, best-response: see `zeckdb play`)."""
    
    ns = parse_ns(n) if n else None
    with api.open(db) as database:
        figure = database.plot(kind, variant, ns, measure=measure, out=out, data=data, force=force)
    typer.echo(f"wrote {out}")
    if data is not None:
        typer.echo(f"wrote {data} ({len(figure.rows)} rows)")


@app.command()
def draw(
    variant: str = typer.Argument(..., metavar="VARIANT", help="The game, e.g. zeckendorf."),
    n: str = typer.Option(..., "--n", metavar="N", help="The layer to draw: one n."),
    fmt: str = typer.Option("dot", "--format",
                            metavar="FORMAT", help="dot (Graphviz's text), svg or png (these two run Graphviz's `dot`)."),
    out: Path | None = typer.Option(None, "--out",
                                    metavar="FILE", help="The file to write (default: standard output; png needs --out).",
                                    show_default=False),
    strategy_only: bool = typer.Option(False, "--strategy-only", help="Only the winner's strategy graph."),
    max_nodes: int = typer.Option(500, "--max-nodes",
                                  metavar="COUNT", min=1, max=100_000, help="Refuse layers with more positions than "
                                  "this. Graphviz lays out about 800 positions within its 120 s limit (svg, png); "
                                  "dot has no such limit."),
    force: bool = ForceOption,
    db: str | None = DbOption,
) -> None:
    """Draw the game graph of one small layer with Graphviz (DOT, SVG or PNG).

    Positions are labelled as on the command line, moves are arrows labelled
    with their names, P- and N-positions are told apart, the winner's strategy
    graph is highlighted, the start and the terminals are marked."""
    
    layer = parse_n(n, "--n")
    if fmt == "png" and out is None:
        raise UsageError("--format png writes a binary image: give --out FILE.png")
    with api.open(db) as database:
        image = database.draw(variant, layer, fmt, strategy_only=strategy_only, max_nodes=max_nodes, out=out,
                              force=force)
    if out is None:
        sys.stdout.write(image.decode())
    else:
        typer.echo(f"wrote {out}")


@app.command()
def export(
    folder: Path = typer.Argument(..., metavar="FOLDER", help="A new (or empty) folder to write the files into."),
    fmt: str = typer.Option("parquet", "--format", metavar="FORMAT", help="parquet or csv."),
    variant: list[str] | None = typer.Option(None, "--variant",
                                             metavar="VARIANT", help="Variant to export (repeatable; default: all built).",
                                             show_default=False),
    n: str | None = typer.Option(None, "--n",
                                 metavar="N", help="Which n: 7, 1..150 or 1..20,30 (default: all built).", show_default=False),
    db: str | None = DbOption,
) -> None:
    """Export the database as Parquet or CSV files, partitioned by variant and n.

    Positions, moves (edges), summaries and length distributions, laid out like
    DIR/positions/variant=V/n=N/, with a manifest (rows and sha256 per file) and
    a README saying how DuckDB, pandas, polars and pyarrow read them back."""
    
    ns = parse_ns(n) if n else None
    t0 = time.perf_counter()
    with api.open(db) as database:
        manifest = database.export(folder, format=fmt, variant=variant, n=ns, progress=_Progress())
    seconds = time.perf_counter() - t0
    files = manifest.files
    typer.echo(f"exported {manifest.rows:,} rows in {len(files)} {fmt} files "
               f"({sum(f.bytes for f in files) / 1e6:,.1f} MB) in {seconds:.1f} s -> {folder} (see its README.txt)")


@db_app.command("upgrade")
def db_upgrade(db: str | None = DbOption) -> None:
    """Create the database or bring it to the newest schema revision."""
    path, before, after = api.upgrade(db)
    if before == after:
        typer.echo(f"{path} is at the newest schema revision ({after})")
    else:
        typer.echo(f"{path} upgraded from {before or 'empty'} to revision {after}")


@db_app.command("current")
def db_current(db: str | None = DbOption) -> None:
    """Print the database's schema revision."""
    _, rev, newest = api.schema_revision(db)
    typer.echo(f"{rev or 'none (not a zeckdb database)'}{' (head)' if newest else ''}")


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning zeckdb errors into one line and an exit status."""
    import contextvars

    try:  # in a context of its own: the settings an option before the command sets end with it
        contextvars.copy_context().run(app, args=argv, prog_name="zeckdb", standalone_mode=True)
    except ZeckdbError as exc:
        _echo_err(f"zeckdb: error: {exc.worded(as_flag)}")
        sys.exit(exc.exit_code)
    except SystemExit as exc:
        if exc.code == 130 and caused_by_ctrl_c(exc):  # typer's silent exit for a Ctrl-C while it parsed
            _echo_err("zeckdb: interrupted")
        raise
    except Exception as exc:  # the last net: DuckDB failing on a file damaged in a way no check foresaw
        if caused_by_ctrl_c(exc):  # e.g. while DuckDB ran a statement
            _echo_err("zeckdb: interrupted")
            sys.exit(130)
        cause = getattr(exc, "orig", None) or exc  # SQLAlchemy wraps DuckDB's errors
        if type(cause).__module__.split(".")[0] not in ("duckdb", "_duckdb"):
            raise
        first = str(cause).strip().split("\n")[0]
        if _may_be_damage(cause):
            _echo_err(f"zeckdb: error: the database failed: {first}; the file may be damaged: "
                      "check it with `zeckdb verify`, or rebuild it into a new file")
        else:  # DuckDB refused a statement zeckdb wrote: a bug, of zeckdb or of a game plugin
            _echo_err(f"zeckdb: error: DuckDB refused a statement: {first}; what it was writing was rolled back. "
                      "A bug of zeckdb or of a game plugin: please report it with the command")
        sys.exit(1)


def _may_be_damage(error: BaseException) -> bool:
    """Whether DuckDB's error may come from a damaged file (reading or writing it failed, or
    DuckDB's own consistency checks), rather than from a statement it refused."""
    import duckdb

    refused = (duckdb.BinderException, duckdb.CatalogException, duckdb.ConversionException,
               duckdb.ConstraintException, duckdb.ParserException, duckdb.InvalidInputException,
               duckdb.NotImplementedException, duckdb.TypeMismatchException)
    return not isinstance(error, refused)


if __name__ == "__main__":
    main()
