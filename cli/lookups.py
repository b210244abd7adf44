"""Commands that look games up: variants, status, position, line, play, simulate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from zeckdb import api
from zeckdb.errors import printable
from zeckdb.render import seat_words, team_words

from .app import (DbOption, FormatOption, GameArg, GameOption, JsonOption, ObjectFormatOption, PositionArg,
                  StartOption, _check_format, _echo_err, _game, _object_format, _start, app)

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
    left_out: list[str] = []
    if fmt == "table":
        rows, left_out = _fit_terminal(rows, list(shown.values()), shutil.get_terminal_size((100, 24)).columns)
    kept = [i for i, title in enumerate(shown.values()) if title not in left_out]
    typer.echo(render([list(shown.values())[i] for i in kept], [tuple(r[i] for i in kept) for r in rows], fmt))
    if left_out:
        typer.echo(f"(left out to fit the terminal: {' and '.join(left_out)}; --format markdown has all)")


def _fit_terminal(rows: list[tuple[Any, ...]], titles: list[str], columns: int) -> tuple[list[tuple[Any, ...]], list[str]]:
    """The variants table in a terminal's width: the game's title (the last column) takes what
    the others leave and is cut to it, if that is enough; else it is left out, and the start
    too where even that does not fit. The rows, and the titles of the columns left out."""
    widths = [max(len(title), *(len(str(r[i])) for r in rows)) for i, title in enumerate(titles)]
    others = sum(w + 2 for w in widths[:-1])
    room = columns - others
    if room >= VARIANTS_TITLE_ROOM:
        return [(*r[:-1], r[-1] if len(r[-1]) <= room else r[-1][: room - 3] + "...") for r in rows], []
    return rows, ["game", *(["start of 5"] if others - 2 > columns else [])]


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
    typer.echo(f"database {printable(info.database)}: {info.size_bytes / 1e6:,.1f} MB, schema revision "
               f"{info.schema_revision}")
    if info.build_running:
        typer.echo("a build is writing it: below is what it has committed so far")
    if not rows:
        typer.echo(f"nothing built yet: run {api.suggested('build', Path(info.database))}")
        return
    shown = {r.variant: printable(r.variant) for r in rows}  # a file's own text: never a terminal's command
    name_width = max(len(name) for name in shown.values())
    ns_width = max(len(r.ns) for r in rows)
    for r in rows:
        typer.echo(f"  {shown[r.variant]:<{name_width}}  n = {r.ns:<{ns_width}}  {r.positions:>12,} "
                   f"positions {r.edges:>13,} edges  ({r.seconds:.1f} s to build)")
        if r.summary_ns:
            typer.echo(f"  {'':<{name_width}}  of which summary only (no positions stored): n = {r.summary_ns}")
    typer.echo("`zeckdb verify` checks every stored row against the others and the checksums of the build")


@app.command()
def position(
    first: str | None = GameArg,
    position: str | None = PositionArg,
    variant: str | None = GameOption,
    start: str | None = StartOption,
    fmt: str = ObjectFormatOption,
    as_json: bool = JsonOption,
    db: str | None = DbOption,
) -> None:
    """Show a position: outcome, remoteness, game lengths, counts, and every move ranked best first.

    zeckdb position --variant reversed 3,1,0,2, or zeckdb position reversed 3,1,0,2."""
    game, position = _game(first, variant, position)
    fmt = _object_format(fmt, as_json)
    with api.open(db) as database:
        info = database.position(game, position, start=_start(start))
    if fmt == "json":
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
    first_arg: str | None = GameArg,
    position: str | None = PositionArg,
    variant: str | None = GameOption,
    start: str | None = StartOption,
    fmt: str = ObjectFormatOption,
    as_json: bool = JsonOption,
    db: str | None = DbOption,
) -> None:
    """Play the principal line from a position: optimal play by both sides, one move per line.

    As JSON: a list, one object per move: ply, player, move, position (as a list) and text
    (as the game writes it)."""
    game, position = _game(first_arg, variant, position)
    fmt = _object_format(fmt, as_json)
    with api.open(db) as database:
        steps = database.line(game, position, start=_start(start))
    first = steps[0][1]
    if fmt == "json":
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
    first: str | None = GameArg,
    position: str | None = PositionArg,
    variant: str | None = GameOption,
    start: str | None = StartOption,
    p1: str = typer.Option("perfect", "--p1", metavar="PROFILE", help="Player 1's profile (the player to move): "
                           "perfect, random, best-response, or for the Zeckendorf game combine-largest, "
                           "combine-smallest, split-largest, split-smallest."),
    p2: str = typer.Option("random", "--p2", metavar="PROFILE", help="Player 2's profile, as --p1 (not "
                           "best-response when Player 1 is)."),
    fmt: str = ObjectFormatOption,
    as_json: bool = JsonOption,
    db: str | None = DbOption,
) -> None:
    """Play a position out with a profile for each player, computed exactly (no sampling).

    A profile says which move a player makes: perfect (the fastest win, else the slowest
    loss, as `zeckdb position` ranks the moves), random (every move alike), best-response
    (the best chance against the other player's profile), or one of the Zeckendorf game's
    deterministic preferences (Li et al.): combine or split first, at the largest or the
    smallest place. Prints each player's chance to win, the expected length and the
    distribution of the length, from the stored graph of the layer (a two-player game whose
    moves stay in the layer). As JSON: p1_wins, p2_wins, expected_length, shortest, longest,
    lengths (length: probability) and p1_moves (the moves Player 1's profile makes at the
    position, with their probability).
    """
    game, position = _game(first, variant, position)
    fmt = _object_format(fmt, as_json)
    with api.open(db) as database:
        result = database.play(game, position, start=_start(start), p1=p1, p2=p2)
    if fmt == "json":
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


@app.command()
def simulate(
    first: str | None = GameArg,
    variant: str | None = GameOption,
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

    game, _ = _game(first, variant)
    _check_format(fmt)
    sim = api.simulate(game, n, games, seed)
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
