"""Commands that ask the database in SQL: query (the named queries) and sql (ad hoc)."""

from __future__ import annotations

import re
import sys

from typing import Any

import typer

from zeckdb import api
from zeckdb.ranges import parse_ns
from zeckdb.errors import UsageError

from .app import (DbOption, FormatOption, MaxRowsOption, NFilterOption, ParamOption, TimeoutOption,
                   VariantFilterOption, _check_format, _echo_err, app)


@app.command()
def query(
    name: str | None = typer.Argument(None, metavar="QUERY", help="Query name; leave out to list them all.", show_default=False),
    variant: list[str] | None = VariantFilterOption,
    n: str | None = NFilterOption,
    param: list[str] | None = ParamOption,
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
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"bad --param {pair[:40]!r}: write KEY=VALUE, e.g. --param position=3,1,0,2")
        _once(out, key.strip(), value.strip())
    return out


def _once(values: dict[str, Any], name: str, value: Any) -> None:
    """values[name] = value, refusing a name given twice: which of the two was meant is the user's word."""
    if name in values:
        raise UsageError(f"--param {name[:40]} is given twice ({str(values[name])[:20]!r} and {str(value)[:20]!r}): "
                         "give each parameter once")
    values[name] = value


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
    param: list[str] | None = typer.Option(None, "--param", metavar="NAME=VALUE", show_default=False,
                                           help="A value for the statement's $NAME (repeatable), as --param takes "
                                           "it in `zeckdb query`: an integer or a decimal number is bound as a "
                                           "number, anything else as text."),
    arg: list[str] | None = typer.Option(None, "--arg", metavar="VALUE", show_default=False,
                                         help="A value for the statement's next ? (repeatable, in order), bound as "
                                         "--param binds."),
    fmt: str = FormatOption,
    timeout: float | None = TimeoutOption,
    max_rows: int | None = MaxRowsOption,
    db: str | None = DbOption,
) -> None:
    """Run one ad-hoc SQL statement on the database, read-only (the schema is in docs/schema.md).

    Allowed: SELECT, WITH ... SELECT, VALUES, DESCRIBE, SUMMARIZE, SHOW and plain
    EXPLAIN; anything else is refused. The query sees the database only (no
    files, no network). Values come in as parameters, never spliced into the
    text: zeckdb sql "SELECT * FROM builds WHERE variant = $v AND n = $n" --param
    v=reversed --param n=40, or for ?: --arg reversed --arg 40 (--param VALUE, without
    a name, is the old spelling of --arg). A value given for a parameter the statement
    does not take, or missing for one it does, is refused. It runs in a process of its own, which the operating
    system holds to twice DuckDB's memory limit (ZECKDB_MEMORY_LIMIT, default
    4GB) and which is stopped at the time limit; its rows are printed as they
    come, so --max-rows 0 prints any number of them.
    """

    _check_format(fmt)
    limits = _limits(timeout, max_rows)  # checked before the statement is read
    most = api.settings().sql_max_chars
    text = sys.stdin.read(most + 1) if statement == "-" else statement
    if len(text) > most:
        raise UsageError(f"the SQL is over {most:,} characters (ZECKDB_SQL_MAX_CHARS): send a shorter statement")
    shown, total = api.run_sql_apart(db, text, fmt, lambda piece: typer.echo(piece, nl=False), **limits,
                                     params=_sql_params(text, param or [], arg or []))
    if total is None or total > shown:
        _say_cut(shown)


def _sql_params(statement: str, params: list[str], args: list[str]) -> list[Any] | dict[str, Any] | None:
    """The values to bind, by the one rule: --param NAME=VALUE binds $NAME, --arg VALUE the next ?
    (--param VALUE without a name too: its old spelling). What the statement takes is DuckDB's
    parser's word (a `$` in a string literal is no parameter); a value for a parameter it does not
    take, or none for one it does, is refused in one line: `--param variant=reversed` for a `?`
    bound the text 'variant=reversed' and printed no rows."""
    names = api.statement_parameters(statement)
    named: dict[str, Any] = {}
    positional = [_param_value(value) for value in args]
    for given in params:
        name, sep, value = given.partition("=")
        if sep and name.isidentifier():
            _once(named, name, _param_value(value))
        else:
            positional.append(_param_value(given))
    marks = sorted((n for n in names if n.isdigit()), key=int)
    dollars = sorted(n for n in names if not n.isdigit())
    for name in dollars:
        if not name.isidentifier():
            raise UsageError(f"the statement's parameter ${name[:40]!r} has no --param spelling: name it with letters, "
                             f"digits and _ only (e.g. ${re.sub('[^0-9A-Za-z_]+', '_', name)[:40] or 'p'})")
    if dollars:
        return _named_values(dollars, named, positional)
    return _marked_values(marks, named, positional)


def _by_count(count: int, one: str, more: str) -> str:
    """`one` for a count of one, else `more` (value, values)."""
    return one if count == 1 else more


def _named_values(dollars: list[str], named: dict[str, Any], positional: list[Any]) -> dict[str, Any]:
    """The values of a statement that names its parameters ($NAME): each given once by name."""
    if positional:
        raise UsageError(f"the statement names its parameters ({', '.join('$' + n for n in dollars)}): give each as "
                         f"--param NAME=VALUE, e.g. --param {dollars[0]}=40")
    unknown = sorted(set(named) - set(dollars))
    if unknown:
        raise UsageError(f"the statement has no parameter ${unknown[0]}: it takes {', '.join('$' + n for n in dollars)}")
    missing = [n for n in dollars if n not in named]
    if missing:
        raise UsageError(f"the statement takes ${missing[0]}: give it with --param {missing[0]}=VALUE")
    return named


def _marked_values(marks: list[str], named: dict[str, Any], positional: list[Any]) -> list[Any] | None:
    """The values of a statement of ? marks (or of none): as many as it has, in order."""
    if named and marks:
        raise UsageError(f"the statement takes {len(marks)} ? {_by_count(len(marks), 'value', 'values')}, in order: give "
                         f"{_by_count(len(marks), 'it', 'them')} with --arg VALUE (--param NAME=VALUE binds $NAME, "
                         f"and it has no --param {next(iter(named))}=...)")
    given = len(positional) + len(named)
    if not marks and given:
        raise UsageError(f"the statement takes no parameters, and {given} {_by_count(given, 'was', 'were')} given")
    if len(positional) != len(marks):
        raise UsageError(f"the statement takes {len(marks)} ? {_by_count(len(marks), 'value', 'values')}, in order, and "
                         f"{len(positional)} {_by_count(len(positional), 'was', 'were')} given (--arg VALUE each)")
    return positional or None


def _param_value(text: str) -> int | float | str:
    """A --param as bound: an integer or a decimal number as a number, anything else as text."""
    if re.fullmatch(r"[+-]?[0-9]{1,18}", text):  # ASCII digits: int() would take ٣ and ５ too
        return int(text)
    if re.fullmatch(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", text):
        return float(text)
    return text
