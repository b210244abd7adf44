"""The command line's app, its shared options and helpers: each group of commands (building,
lookups, querying, figures, serving) registers its commands on `app`; cli/main.py runs it."""

from __future__ import annotations

import sys

from typing import Any

import typer

from zeckdb import api
from zeckdb.ranges import parse_n
from zeckdb.settings import help_text as setting_help
from zeckdb.errors import UsageError


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


DB_HELP = "The database file (default: $ZECKDB_DB, else ./zeckdb.duckdb)."


def _show_version(value: bool) -> None:
    if value:
        from zeckdb import __version__

        typer.echo(f"zeckdb {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                          help="Print zeckdb's version and exit."),
             db: str | None = typer.Option(None, "--db", metavar="FILE", show_default=False,
                                           help=f"{DB_HELP} Before the command, it holds for the command that "
                                           "follows, as its own --db.")) -> None:
    if db is not None:  # an explicit option beats the environment: the one Settings of this run
        from zeckdb.settings import activate

        activate(api.settings().changed(db=db))


db_app = typer.Typer(help="Manage the database schema (Alembic migrations).", no_args_is_help=True,
                     rich_markup_mode=None)
app.add_typer(db_app, name="db")

# The options and arguments the commands share, each declared here once.
DEFAULT_NS = "1..150"
DbOption = typer.Option(None, "--db", metavar="FILE", help=DB_HELP, show_default=False)
StartOption = typer.Option(None, "--start", metavar="N", help="Use the start position of this n instead of POSITION.",
                           show_default=False)
FormatOption = typer.Option("table", "--format", "-f", metavar="FORMAT", help="Output format: table, csv, json or markdown.")
# a command whose result is one object (a position, a line, a game played): a table for a person, or JSON
ObjectFormatOption = typer.Option("table", "--format", "-f", metavar="FORMAT",
                                  help="Output format: table (for a person) or json (a stable contract for scripts).")
JsonOption = typer.Option(False, "--json", help="The same as --format json.")
TimeoutOption = typer.Option(None, "--timeout", metavar="SECONDS", help=setting_help("sql_timeout"),
                             show_default=False)
MaxRowsOption = typer.Option(None, "--max-rows", metavar="ROWS", help=setting_help("sql_max_rows")
                             + " A notice on stderr says how many were cut.", show_default=False)
GAME_EXAMPLES = "e.g. zeckendorf, reversed, black-hole-4, fibonacci-nim, zeckendorf-misere"
# the game a command is of: `--variant NAME`, or as its first argument (the shorthand)
GameOption = typer.Option(None, "--variant", metavar="VARIANT", help=f"The game, {GAME_EXAMPLES}.", show_default=False)
GameArg = typer.Argument(None, metavar="[VARIANT]", help="The game (the shorthand of --variant VARIANT).",
                         show_default=False)
# the games a command works on, repeatable
GamesOption = typer.Option(None, "--variant", metavar="VARIANT", help="A game (repeatable: --variant zeckendorf "
                           "--variant reversed; default: every game built).", show_default=False)
VariantFilterOption = typer.Option(None, "--variant", metavar="VARIANT", help="Only this variant (default: every built variant).",
                                   show_default=False)
NFilterOption = typer.Option(None, "--n", metavar="N", help="Only these n: 7, 1..150 or 1..20,30 (default: every built n).",
                             show_default=False)
ParamOption = typer.Option(None, "--param", metavar="NAME=VALUE", help="A value for the query's parameter NAME "
                           "(repeatable); `zeckdb query NAME` lists what each takes.", show_default=False)
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


class _Progress:
    """A progress bar on a terminal, plain log lines otherwise (api.Lines, on
    standard error): api.Progress."""

    def __init__(self) -> None:
        self.bar: Any = None  # a rich Progress on a terminal
        self.lines: api.Lines | None = None

    def start(self, total: int, verb: str) -> None:
        if sys.stderr.isatty():
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn(f"{verb} {{task.description}}"), BarColumn(),
                                TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(),
                                TimeRemainingColumn(), transient=True, console=None)
            self.bar.start()
            self.task = self.bar.add_task("", total=max(total, 1))
        else:
            self.lines = api.Lines(_echo_err)
            self.lines.start(total, verb)

    def advance(self, positions: int, description: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, advance=positions, description=description)
        elif self.lines is not None:
            self.lines.advance(positions, description)

    def stop(self) -> None:
        if self.lines is not None:
            self.lines.stop()
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _start(text: str | None) -> int | None:
    return None if text is None else parse_n(text, "--start")


def _game(first: str | None, option: str | None, second: str | None = None) -> tuple[str, str | None]:
    """The game a command is of, given as --variant or as its first argument, and the argument
    that follows it (a position): with --variant, the first argument is that one."""
    if option is None:
        if first is None:
            raise UsageError("give the game: --variant VARIANT (or as the first argument)")
        return first, second
    if first is not None and second is not None:
        raise UsageError(f"the game is given twice: --variant {option[:40]} and {first[:40]!r}; give it once")
    return option, first


def _object_format(fmt: str, as_json: bool) -> str:
    """table or json, --json being --format json."""
    if as_json:
        return "json"
    if fmt not in ("table", "json"):
        raise UsageError(f"unknown format {fmt[:20]!r}: this command prints table or json")
    return fmt


def _check_format(fmt: str) -> None:
    from zeckdb.render import FORMATS

    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
