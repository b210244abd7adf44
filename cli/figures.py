"""Commands that make files: plot, draw, export."""

from __future__ import annotations

from pathlib import Path
import sys
import time

import typer

from zeckdb import api
from zeckdb.ranges import parse_n, parse_ns
from zeckdb.errors import UsageError, printable

from .app import (DbOption, ForceOption, GameArg, GameOption, GamesOption, NFilterOption, _game, _Progress, app)


@app.command()
def plot(
    kind: str = typer.Argument(..., metavar="KIND", help="length-distribution, winners, conventions (who wins under "
                               "normal and misère play: the game and its twin NAME-misere built), lengths, "
                               "p-positions, remoteness or profiles."),
    variant: str | None = GameOption,
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
    
    game, _ = _game(None, variant)  # a plot's first argument is its kind: the game is --variant
    ns = parse_ns(n) if n else None
    with api.open(db) as database:
        figure = database.plot(kind, game, ns, measure=measure, out=out, data=data, force=force)
    typer.echo(f"wrote {out}")
    if data is not None:
        typer.echo(f"wrote {data} ({len(figure.rows)} rows)")


@app.command()
def draw(
    first: str | None = GameArg,
    variant: str | None = GameOption,
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
    
    game, _ = _game(first, variant)
    layer = parse_n(n, "--n")
    if fmt == "png" and out is None:
        raise UsageError("--format png writes a binary image: give --out FILE.png")
    with api.open(db) as database:
        image = database.draw(game, layer, fmt, strategy_only=strategy_only, max_nodes=max_nodes, out=out,
                              force=force)
    if out is None:  # the game's move names and positions, from the file: a terminal shows them, acts on nothing
        sys.stdout.write(printable(image.decode(), keep="\n\t") if sys.stdout.isatty() else image.decode())
    else:
        typer.echo(f"wrote {out}")


@app.command()
def export(
    folder: Path = typer.Argument(..., metavar="FOLDER", help="A new (or empty) folder to write the files into."),
    fmt: str = typer.Option("parquet", "--format", metavar="FORMAT", help="parquet or csv."),
    variant: list[str] | None = GamesOption,
    n: str | None = NFilterOption,
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
