"""Commands that write or check the database: build, verify, db upgrade, db current."""

from __future__ import annotations

import typer

from zeckdb import api
from zeckdb.errors import printable
from zeckdb.ranges import format_ns, parse_ns

from .app import (DEFAULT_NS, DbOption, GamesOption, NFilterOption, ObjectFormatOption, _echo_err, _object_format,
                   _one_per_line, _Progress, _setting_option, app, db_app)


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
                                             metavar="VARIANT", help="A game to build (repeatable; default: every "
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
    winner_only: bool = typer.Option(False, "--winner-only", help="With --summary-only: keep only who wins "
                                     "each position (1 byte per position instead of 8 with --lean; two-player "
                                     "games): the winner and the layer's counts are stored, the start's "
                                     "remoteness and shortest and longest game left NULL."),
    threads: int | None = _setting_option("threads", "--threads", "COUNT"),
    db: str | None = DbOption,
) -> None:

    bar = _Progress()
    try:
        result = api.build(db, variant, n, force=force, summary_only=summary_only, lean=lean,
                           winner_only=winner_only, executor=executor,
                           address=address, shards=shards, shards_only=shards_only, threads=threads, progress=bar,
                           notify=_echo_err)
    except api.BuildInterrupted as interrupt:  # click would print "Aborted!"; say what is kept
        done = ("nothing is" if not interrupt.committed else
                f"n = {format_ns(interrupt.committed)} {'is' if len(interrupt.committed) == 1 else 'are'}") \
            if interrupt.committed is not None else "every finished n is"
        kept = "the layers written as Parquet shards are kept" if shards_only else f"{done} committed"
        takes = f"; tasks still running on the cluster may add shards to {interrupt.shards}: the rerun writes over them" \
            if interrupt.shards else ""
        _echo_err(f"zeckdb: interrupted; {kept}, run the same command again to resume{takes}")
        raise typer.Exit(130) from None
    names = ", ".join(result.variants)
    if result.shards is not None and not result.built:
        typer.echo(f"nothing to write: {names} for n = {format_ns(result.ns)} already written as Parquet shards in "
                   f"{result.shards} (--force writes them again)")
    elif result.shards is not None:
        typer.echo(f"wrote {_count(len(result.built), 'layer')} of {names} ({_count(result.positions, 'position')}, "
                   f"{_count(result.edges, 'move')}) as Parquet "
                   f"shards in {result.shards} (nothing stored); query them with DuckDB, e.g. SELECT * FROM "
                   f"read_parquet('{result.shards}/positions/*/*/*.parquet', hive_partitioning = true)")
    elif not result.built:
        typer.echo(f"nothing to build: {names} for n = {format_ns(result.ns)} already "
                   + (f"summarised or built in {result.path} (--force recomputes summaries)" if result.summary_only
                      else f"in {result.path} (--force rebuilds)"))
    elif result.summary_only:
        typer.echo(f"summarised {names} for n = {format_ns(result.ns)}: {_count(result.positions, 'position')}, "
                   f"{_count(result.edges, 'move')} solved in {result.seconds:.1f} s, nothing but the summaries stored "
                   f"-> {result.path}")
    else:
        typer.echo(f"built {names} for n = {format_ns(sorted({k for _, k in result.built}))}: "
                   f"{_count(result.positions, 'position')}, {_count(result.edges, 'move')} stored in {result.seconds:.1f} s -> "
                   f"{result.path}")


def _count(number: int, thing: str) -> str:
    """1 position, 0 moves, 1,024 positions."""
    return f"{number:,} {thing}{'' if number == 1 else 's'}"


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
    variant: list[str] | None = GamesOption,
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
        _echo_err(f"zeckdb: not checked: {printable(', '.join(report.unknown))}, whose game is not installed here (a plugin?); "
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
            _echo_err(f"  {c.name}: {printable(text)}")
    if report.holes:
        _say_holes(report.holes, report.fill)
    raise typer.Exit(1)


@db_app.command("upgrade")
def db_upgrade(db: str | None = DbOption) -> None:
    """Bring the database to the newest schema revision, then say which built layers lack rows
    their game gives them (a build of an older zeckdb may have left some) and the build that
    fills them. What the file holds that is not zeckdb's (a view, a macro, a schema someone
    added) is removed, each named; a table whose definition is not zeckdb's is refused with the
    statement that mends it (zeckdb changes no table's data)."""
    path, before, after = api.upgrade(db, say=lambda line: _echo_err(f"zeckdb: {printable(line)}"))
    if before == after:
        typer.echo(f"{printable(str(path))} is at the newest schema revision ({after})")
    else:
        typer.echo(f"{printable(str(path))} upgraded from {before} to revision {after}")
    with api.open(path) as database:
        holes = database.holes()
    if holes.layers:
        _say_holes(holes.layers, holes.fill)


def _say_holes(layers: list[api.Hole], fill: list[str]) -> None:
    """One line: how many built layers lack rows (the first, in words) and the builds that fill them."""
    many, first = len(layers) > 1, layers[0]
    _echo_err(printable(f"zeckdb: {len(layers):,} built {'layers lack rows their' if many else 'layer lacks rows its'} "
                        f"game gives {'them' if many else 'it'} ({first.variant} n = {first.n}: {'; '.join(first.lacks)}"
                        f"{', ...' if many else ''}): {' and '.join(fill)} fill{'s' if len(fill) == 1 else ''} "
                        f"{'them' if many else 'it'}"))


@db_app.command("current")
def db_current(db: str | None = DbOption, fmt: str = ObjectFormatOption) -> None:
    """Print the database's schema revision (json: {"database", "revision", "newest"})."""
    import json

    fmt = _object_format(fmt, False)
    path, rev, newest = api.schema_revision(db)
    if fmt == "json":
        typer.echo(json.dumps({"database": str(path), "revision": rev, "newest": newest}))
        return
    typer.echo(f"{rev or 'none (not a zeckdb database)'}{' (head)' if newest else ''}")
