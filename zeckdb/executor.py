"""The one query executor: every SQL that zeckdb runs on a user's behalf goes through here.

`zeckdb sql`, the named queries and the query service all call `run`. Three
independent walls keep SQL from users read-only and inside the database:

1. Classification by DuckDB's own parser (statement types and tokens, never
   text prefixes): exactly one statement, and only a plain query (SELECT,
   WITH ... SELECT, VALUES, FROM ..., DESCRIBE, SUMMARIZE, SHOW, TABLE) or a
   plain EXPLAIN of one (not EXPLAIN ANALYZE, which runs the statement).
2. An allow-list of DuckDB's functions and catalog views (sql_functions.tsv, every one
   of the pinned DuckDB's classified by hand): a statement may call or name only those
   a read-only analytical query needs; the ones that show the host (paths, settings,
   versions), read files, change state or run SQL given as text are refused, and so is
   one a later DuckDB adds until it is classified. `SHOW <setting>` (and `SHOW
   databases`) is refused wherever it stands. The catalog of the database itself
   (tables, columns, views, functions) stays open.
3. The connection itself (`sandbox_config`, used by every read-only Store):
   read-only, no external file or network access, no extension installing or
   autoloading, no spilling to a temporary folder, a memory and thread limit,
   and the configuration locked, so even a statement the classifier let
   through can neither read outside the database nor write anywhere.

Every run is bounded: a time limit (the connection is interrupted at the
deadline), the connection's memory limit, and a row limit on what is returned
(the rest is only counted, within the same time limit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
import functools
import sys
import math
import threading
import re
import time
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from .settings import DEFAULTS, Settings
from .errors import DatabaseError, QueryLimitError, UsageError, ZeckdbError, html_text, opt, printable
from .tuning import FETCH_ROWS, READER_THREADS, STREAM_ROWS

ALLOWED_KINDS = "SELECT, WITH ... SELECT, VALUES, DESCRIBE, SUMMARIZE, SHOW, or EXPLAIN without ANALYZE"
# what zeckdb's SQL may call or name, by class (zeckdb/sql_functions.tsv): every function and
# catalog view of DuckDB is classified there, and what is not "allowed" (or not classified) is refused
FUNCTION_CLASSES = Path(__file__).resolve().parent / "sql_functions.tsv"
CALLABLE_KINDS = ("scalar", "aggregate", "macro", "window", "table", "table_macro")
REFUSALS = {
    "host": "it shows the host (files, folders, versions), not the database; ask the database's own tables and "
            "catalog (duckdb_tables(), duckdb_columns(), ...)",
    "files": "it reads files or changes something; zeckdb's SQL reads the database's tables only",
    "effect": "it reads files or changes something; zeckdb's SQL reads the database's tables only",
    "sql-text": "it runs SQL given as text, past zeckdb's checks; write the statement itself",
    "session": "it reads or changes the connection's session, not the database",
    "internal": "it is DuckDB's own plumbing, not a function for queries",
}
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


# session settings of every connection zeckdb opens (SET before the sandbox's lock; DuckDB refuses
# them in `config`): its progress bar, drawn on standard output for a query past two seconds,
# would land in the rows a script reads (CSV, JSON) and in a library user's output
QUIET: dict[str, Any] = {"enable_progress_bar": False}


def quieted(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """`con` with the QUIET settings (closed if they cannot be set). A setting already as wanted
    is left alone: in a Jupyter kernel without ipywidgets DuckDB's progress bar is off, and any
    SET of it is refused ("required package 'ipywidgets' is missing")."""
    try:
        for name, value in QUIET.items():
            if con.execute(f"SELECT current_setting('{name}')").fetchone() != (value,):
                con.execute(f"SET {name} = {value}")
    except BaseException:
        con.close()
        raise
    return con


def sandbox_config(memory_limit: str, threads: int = READER_THREADS) -> dict[str, Any]:
    """DuckDB settings of every read-only connection (see DuckDB's "Securing DuckDB")."""
    return {
        "enable_external_access": False,  # no files but the database, no URLs, no ATTACH, no COPY TO
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "allow_community_extensions": False,
        "temp_directory": "",  # nothing spills to disk: a query over the memory limit fails instead
        "memory_limit": memory_limit,
        "threads": threads,
        "secret_directory": "/nonexistent",  # DuckDB's default is under the home folder
        "lock_configuration": True,  # last: no SET, PRAGMA or CALL can undo the above
    }


@dataclass(frozen=True)
class Limits:
    """Bounds of one run: seconds, rows returned (None: all of them), and the size of what
    is returned, in bytes of Python objects (None: no bound; the service sets one)."""

    timeout: float = DEFAULTS.sql_timeout
    max_rows: int | None = DEFAULTS.sql_max_rows or None
    max_bytes: int | None = None
    budget: float | None = None  # seconds left of `timeout` when part of it went elsewhere (a queue)

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        """The limits the settings give the command line's and the library's statements."""
        return cls(settings.sql_timeout, settings.sql_max_rows or None)

    def __post_init__(self) -> None:
        if not 0 < self.timeout <= 86_400:
            raise UsageError(f"bad {opt('timeout')} {self.timeout:g}: give seconds from above 0 to 86400")
        if self.max_rows is not None and self.max_rows < 0:
            raise UsageError(f"bad {opt('max_rows')} {self.max_rows}: give a number of rows, or 0 for all of them")


@dataclass
class Result:
    """Columns and rows of one query; `total_rows` counts every row the query produced, or is
    None when it produced more than the row limit (the rest are never computed)."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    total_rows: int | None
    # each column's DuckDB type, as DuckDB names it (INTEGER, VARCHAR, SMALLINT[], ...)
    types: list[str] = field(default_factory=list)
    # why the rows stop short of what was asked (a computed query's time limit), its parameters
    # marked as errors mark them (zeckdb.errors.opt): `notice` words them as keywords
    marked_notice: str | None = field(default=None, repr=False)

    @property
    def notice(self) -> str | None:
        from .errors import word

        return None if self.marked_notice is None else word(self.marked_notice)

    @property
    def truncated(self) -> bool:
        return self.total_rows is None or self.total_rows > len(self.rows)

    # what a notebook or a REPL shows of a result: its first rows and how many there are (all of
    # a 40-n database's positions printed 9.96 MB into one cell)
    SHOWN_ROWS = 20

    def _counted(self) -> str:
        if self.total_rows is None:
            return f"{len(self.rows):,} rows shown of more (the row limit cut them)"
        return f"{self.total_rows:,} row{'s' if self.total_rows != 1 else ''}" + (
            f", {len(self.rows):,} kept (the row limit)" if self.total_rows > len(self.rows) else "")

    def __repr__(self) -> str:
        from .render import render

        shown = render(self.columns, self.rows[: self.SHOWN_ROWS], "table").rsplit("\n", 1)[0]
        more = f"\n... ({len(self.rows) - self.SHOWN_ROWS:,} more)" if len(self.rows) > self.SHOWN_ROWS else ""
        return f"<zeckdb Result: {self._counted()}>\n{shown}{more}"

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html_text(str(c))}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{html_text('' if v is None else str(v))}</td>" for v in row) + "</tr>"
                       for row in self.rows[: self.SHOWN_ROWS])
        more = (f"<tr><td colspan='{len(self.columns)}'>... {len(self.rows) - self.SHOWN_ROWS:,} more rows "
                "(.rows, .arrow(), .df())</td></tr>" if len(self.rows) > self.SHOWN_ROWS else "")
        return (f"<table><caption>{html_text(self._counted())}</caption><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}{more}</tbody></table>")

    def arrow(self) -> Any:
        """The rows as a pyarrow.Table, columns named as here and typed as DuckDB typed them
        (an INTEGER column is int32 even when empty; a type with no plain Arrow match is
        inferred from the values)."""
        import pyarrow as pa

        arrays = []
        for i in range(len(self.columns)):
            kind = _arrow_type(self.types[i]) if i < len(self.types) else None
            arrays.append(pa.array([row[i] for row in self.rows], type=kind))
        return pa.Table.from_arrays(arrays, names=list(self.columns))

    def df(self) -> Any:
        """The rows as a pandas.DataFrame (pandas must be installed: it is not a dependency of zeckdb)."""
        try:
            import pandas  # noqa: F401  (pyarrow's conversion needs it)
        except ImportError:
            raise UsageError("Result.df() needs pandas: pip install pandas, or use .arrow() or .rows") from None
        return self.arrow().to_pandas()


def check_statement(con: duckdb.DuckDBPyConnection, sql: str) -> Any:
    """The one read-only statement in `sql` (DuckDB's parsed Statement: its .query and
    .named_parameters), or a UsageError naming what was refused."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise UsageError(f"SQL error: {first_line(exc)}") from None
    if not statements:
        raise UsageError("no SQL statement given: pass one, e.g. zeckdb sql \"SELECT * FROM builds\"")
    if len(statements) > 1:
        raise UsageError(f"{len(statements)} statements given: run one statement at a time")
    statement = statements[0]
    try:
        kind = statement.type.name
    except ValueError:  # a statement type this DuckDB's Python API cannot name (UPDATE EXTENSIONS in 2.0)
        kind = "unnamed"
    _check_names(con, statement.query)
    _check_tables(con, statement.query)
    if kind == "EXPLAIN":
        _check_explain(con, statement.query)
    elif kind != "SELECT":
        raise UsageError(f"{_named_kind(statement.query, kind)} statement is refused: zeckdb's SQL is read-only, use "
                         f"{ALLOWED_KINDS} (`zeckdb build` writes the database)")
    return statement


def _named_kind(sql: str, kind: str) -> str:
    """`an INSTALL`, `a CHECKPOINT`: the statement by the keyword it starts with, as its writer
    reads it (DuckDB files INSTALL under LOAD, CHECKPOINT under CALL, ANALYZE under VACUUM); by
    DuckDB's kind where the first keyword says nothing of it (WITH ..., a parenthesis)."""
    spans = duckdb.tokenize(sql)
    ends = [start for start, _ in spans[1:]] + [len(sql)]
    first = next(((start, end) for (start, token), end in zip(spans, ends, strict=False)
                  if token != duckdb.token_type.comment), None)
    word = sql[first[0]:first[1]].strip().upper() if first else ""
    if not (word.isascii() and word.isalpha()) or word == "WITH":
        word = kind
    return f"{'an' if word[:1] in 'AEIOU' and not word.startswith('US') else 'a'} {word}"  # a USE, an UPDATE


@functools.cache
def setting_names() -> frozenset[str]:
    """Every DuckDB setting's name (`SHOW <setting>` reads its value: some hold the host's paths)."""
    con = duckdb.connect()  # nothing runs long here
    try:
        return frozenset(name.lower() for (name,) in con.execute("SELECT name FROM duckdb_settings()").fetchall())
    finally:
        con.close()


@dataclass(frozen=True)
class Catalog:
    """What a statement can name of DuckDB's own: its callable functions and its catalog views
    (as the running DuckDB has them), and zeckdb's class of each (FUNCTION_CLASSES)."""

    functions: frozenset[str]
    views: frozenset[str]
    classes: dict[tuple[str, bool], str]  # (name, is a view) -> class

    def refusal(self, name: str, called: bool) -> str | None:
        """Why naming `name` (called: followed by its arguments) is refused, or None if it is not."""
        if called and name in self.functions:
            kind = self.classes.get((name, False))
        elif name in self.views:
            kind = self.classes.get((name, True))
        else:
            return None  # not DuckDB's: a table, a column, a CTE, or a macro of zeckdb's schema
        if kind == "allowed":
            return None
        if kind is None:
            return (f"zeckdb has not reviewed DuckDB {duckdb.__version__}'s {name}: its SQL allows the functions it "
                    "knows to read the database only (zeckdb/sql_functions.tsv)")
        return REFUSALS[kind]


_catalog: Catalog | None = None


def catalog(con: duckdb.DuckDBPyConnection | None = None) -> Catalog:
    """The running DuckDB's own functions and views (`internal`: not a file's macros or views),
    and their classes; read once a process, on `con` if given (a process held to a small memory
    limit has no room for a DuckDB of its own)."""
    global _catalog
    if _catalog is None:
        classes: dict[tuple[str, bool], str] = {}
        for line in FUNCTION_CLASSES.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                name, kind, klass = line.split("\t")
                classes[(name.lower(), kind == "view")] = klass
        cursor = con.cursor() if con is not None else duckdb.connect()
        try:
            functions = cursor.execute("SELECT DISTINCT function_name FROM duckdb_functions() WHERE internal AND "
                                       "list_contains($1, function_type)", [list(CALLABLE_KINDS)]).fetchall()
            views = cursor.execute("SELECT DISTINCT view_name FROM duckdb_views() WHERE internal").fetchall()
        finally:
            cursor.close()
        _catalog = Catalog(frozenset(name.lower() for (name,) in functions),
                           frozenset(name.lower() for (name,) in views), classes)
    return _catalog


def _check_names(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse every function and catalog view of DuckDB's that zeckdb has not allowed (an
    allow-list: one a later DuckDB adds is refused until it is classified), and SHOW of a
    setting (or of the databases)."""
    spans = duckdb.tokenize(sql)
    ends = [start for start, _ in spans[1:]] + [len(sql)]
    words = [(kind, sql[start:end].strip()) for (start, kind), end in zip(spans, ends, strict=False)
             if kind != duckdb.token_type.comment]
    known = catalog(con)
    for i, (kind, text) in enumerate(words):
        if kind not in (duckdb.token_type.identifier, duckdb.token_type.keyword):
            continue
        name = (text[1:-1].replace('""', '"') if text.startswith('"') and text.endswith('"') else text).lower()
        shown = i > 0 and words[i - 1][0] == duckdb.token_type.keyword and words[i - 1][1].lower() == "show"
        if shown and (name in setting_names() or name == "databases"):
            raise UsageError(f"SHOW {name[:40]} is refused: it shows DuckDB's settings, which hold the host's "
                             "files and folders, not the database; SHOW TABLES and SHOW <table> stay open")
        called = i + 1 < len(words) and words[i + 1][1].startswith("(")
        why = known.refusal(name, called)
        if why is not None:
            raise UsageError(f"{printable(name[:40])}{'(...)' if called else ''} is refused: {why}")


def _check_tables(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse a table named as a file (`FROM 'base.duckdb'`, `FROM "/etc/passwd"`): DuckDB
    reads such a name as the file it names. Tables, views and CTEs have plain names. Read from
    the statement's syntax tree (what DuckDB cannot serialise, DESCRIBE and the like, names
    tables the token checks cover)."""
    import json

    try:
        tree = con.execute("SELECT json_serialize_sql($1)", [sql]).fetchone()
    except duckdb.Error:
        return
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "BASE_TABLE":
                found.append(str(node.get("table_name", "")))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(tree[0]) if tree and tree[0] else None)
    for name in found:
        if not _PLAIN_NAME.fullmatch(name):
            raise UsageError(f"a table named {name[:60]!r} is refused: DuckDB would read the file of that name; "
                             "zeckdb's SQL reads the database's tables only")


def _check_explain(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """A plain EXPLAIN of a plain query; EXPLAIN ANALYZE would run the statement it explains."""
    spans = duckdb.tokenize(sql)
    ends = [start for start, _ in spans[1:]] + [len(sql)]
    tokens = [(start, kind, sql[start:end].strip().upper())  # (where, kind, text), comments left out
              for (start, kind), end in zip(spans, ends, strict=False) if kind != duckdb.token_type.comment]
    if any(kind == duckdb.token_type.keyword and word in ("ANALYZE", "ANALYSE") for _, kind, word in tokens):
        raise UsageError("an EXPLAIN ANALYZE statement is refused: it runs the statement it explains; "
                         "use plain EXPLAIN")
    # what is explained starts at the first token after EXPLAIN and its parenthesised options
    depth, inner = 0, None
    for i, (start, _, word) in enumerate(tokens):
        if i == 0:
            continue
        if word == "(" and (depth or i == 1):
            depth += 1
        elif word == ")" and depth:
            depth -= 1
        elif not depth:
            inner = sql[start:]
            break
    explained = con.extract_statements(inner) if inner else []
    if len(explained) != 1 or explained[0].type.name != "SELECT":
        kind = explained[0].type.name if explained else "empty"
        named = _named_kind(inner, kind) if inner else "an empty"
        raise UsageError(f"EXPLAIN of {named} statement is refused: explain a query ({ALLOWED_KINDS})")


def run(con: duckdb.DuckDBPyConnection, sql: str, params: Params = None,
        limits: Limits | None = None) -> Result:
    """Run one read-only statement (parameters bound, never spliced) within the limits (default:
    the documented sql_timeout and sql_max_rows; a door passes the Limits.of its settings)."""
    kept: list[tuple[Any, ...]] = []
    types: list[str] = []
    limits = limits or Limits()
    columns, shown, total = stream(con, sql, params, limits, lambda _, rows: kept.extend(rows), in_blocks=False,
                                   on_types=types.extend)
    return Result(columns, kept, total, types)


_ARROW_TYPES = {"BOOLEAN": "bool_", "TINYINT": "int8", "SMALLINT": "int16", "INTEGER": "int32", "BIGINT": "int64",
                "UTINYINT": "uint8", "USMALLINT": "uint16", "UINTEGER": "uint32", "UBIGINT": "uint64",
                "FLOAT": "float32", "DOUBLE": "float64", "VARCHAR": "string", "DATE": "date32"}


def _arrow_type(duckdb_type: str) -> Any:
    """The pyarrow type of a DuckDB type named as DuckDB names it, or None (infer it)."""
    import pyarrow as pa

    if duckdb_type.endswith("[]"):
        inner = _arrow_type(duckdb_type[:-2])
        return None if inner is None else pa.list_(inner)
    if duckdb_type.startswith("ENUM("):
        return pa.string()
    if duckdb_type == "TIMESTAMP":
        return pa.timestamp("us")
    name = _ARROW_TYPES.get(duckdb_type)
    return None if name is None else getattr(pa, name)()


def _check_placeholders(wanted: set[str], params: Params) -> None:
    """Refuse values that do not fit the statement's placeholders (`wanted`: the names of its
    ? or $name, as DuckDB's parser gives them), saying how many or which it takes, before
    DuckDB's own terser error."""
    if isinstance(params, dict):
        missing, extra = sorted(wanted - set(params)), sorted(set(params) - wanted)
        if missing or extra:
            raise UsageError(f"the statement's parameters are {', '.join('$' + w for w in sorted(wanted)) or 'none'}: "
                             + (f"no value for ${missing[0]}" if missing else f"${extra[0]} is not one of them"))
        return
    given = len(params or [])
    named = sorted(w for w in wanted if not w.isdigit())
    if named:
        raise UsageError(f"the statement names its parameters (${named[0]}): give their values by name (a dict), "
                         f"or write ? for each value given in order ({opt('params')})")
    count = max((int(w) for w in wanted), default=0)
    if count != given:
        raise UsageError(f"the statement has {count} parameter{'s' if count != 1 else ''} (?) and {given} "
                         f"value{'s' if given != 1 else ''} {'were' if given != 1 else 'was'} given: give one value "
                         f"for each ?, in order ({opt('params')})")
# a statement's bind parameters: values for its ? (a list) or its $name (a dict); values only,
# so they cannot change what the statement is
Params = list[Any] | dict[str, Any] | None
MAX_PARAMS = 1000
_SCALARS = (type(None), bool, int, float, str)


def check_params(params: Any) -> Params:
    """The parameters as plain values, or a UsageError: a list (a tuple too, as DB-API users
    write it) or a dict of None, booleans, numbers (NumPy's too), texts, or a list of them
    (`list_contains(?, n)`), at most MAX_PARAMS. A number that is not finite (NaN, infinity:
    JSON's too) is refused: DuckDB would bind it as NULL, or compare it as no number is."""
    if params is None:
        return None
    if isinstance(params, tuple):
        params = list(params)
    if not isinstance(params, list | dict):
        raise UsageError(f"bad parameters {type(params).__name__}: give a list of values for the statement's ? "
                         "(or a dict for its $name)")
    values = list(params.values()) if isinstance(params, dict) else params
    if len(values) > MAX_PARAMS:
        raise UsageError(f"{len(values):,} parameters: a statement takes at most {MAX_PARAMS:,}")
    if isinstance(params, dict) and not all(isinstance(k, str) and k.isidentifier() for k in params):
        raise UsageError("bad parameter names: give names as the statement writes them after $ (letters, digits, _)")
    plain = [_plain_value(value) for value in values]
    return dict(zip(params, plain, strict=True)) if isinstance(params, dict) else plain


def _plain_value(value: Any, inside_list: bool = False) -> Any:
    """One parameter as a plain value (a list of them: each item), or a UsageError."""
    if isinstance(value, list | tuple) and not inside_list and len(value) <= MAX_PARAMS:
        return [_plain_value(item, inside_list=True) for item in value]
    if isinstance(value, np.generic):  # NumPy's scalars: np.int64(3) binds as 3
        value = value.item()
    if not isinstance(value, _SCALARS) or (isinstance(value, int) and not -2**63 <= value < 2**63):
        return _refused(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"bad parameter {value!r}: give a finite number (NaN and infinity bind as no number)")
    return value


def _refused(value: Any) -> Any:
    raise UsageError(f"bad parameter {str(value)[:40]!r}: a parameter is a number, a text, a boolean, "
                     "None (integers of 64 bits at most) or a list of them")


def stream(con: duckdb.DuckDBPyConnection, sql: str, params: Params, limits: Limits,
           emit: Callable[[list[str], list[tuple[Any, ...]]], None], in_blocks: bool = True,
           on_types: Callable[[list[str]], Any] | None = None) -> tuple[list[str], int, int | None]:
    """Run one read-only statement within the limits, handing its rows to `emit(columns, rows)`
    block by block (in_blocks: STREAM_ROWS at a time, so that none but the block is held; else
    all at once) up to limits.max_rows; then (columns, rows handed on, every row's count: None
    when counting the rest ran into the time limit); `on_types` hears the columns' DuckDB types."""
    statement = check_statement(con, sql)
    query = statement.query
    params = check_params(params)
    _check_placeholders(statement.named_parameters, params)
    names = None
    if limits.max_rows is not None:
        query, names = _limited(con, query, params, limits.max_rows + 1)
    seconds = limits.timeout if limits.budget is None else min(limits.budget, limits.timeout)
    deadline = time.monotonic() + seconds
    timer = threading.Timer(seconds, con.interrupt)
    timer.daemon = True
    timer.start()
    columns: list[str] = []
    shown = 0
    counting = False  # past the rows returned: a stop now only cuts the count of the rest
    try:
        cur = con.execute(query, params) if params else con.execute(query)
        description = cur.description or []
        columns = names or [d[0] for d in description]
        if on_types is not None:
            on_types([str(d[1]) for d in description])
        shown = _hand_on(cur, columns, description, limits, deadline, in_blocks, emit)
        total: int | None = shown
        if limits.max_rows is not None and shown == limits.max_rows:
            counting = True
            total = None if cur.fetchone() is not None else shown  # the one row past the limit: more
    except duckdb.Error as exc:
        if counting and isinstance(exc, duckdb.InterruptException):
            return columns, shown, None
        raise _refusal(exc, limits) from None
    finally:
        timer.cancel()
    return columns, shown, total


def _hand_on(cur: duckdb.DuckDBPyConnection, columns: list[str], description: list[Any], limits: Limits,
             deadline: float, in_blocks: bool, emit: Callable[[list[str], list[tuple[Any, ...]]], None]) -> int:
    """Fetch the rows and hand them to `emit`, block by block or all at once, up to
    limits.max_rows: how many were handed on."""
    shown = 0
    while True:
        left = None if limits.max_rows is None else limits.max_rows - shown
        if in_blocks:
            block = STREAM_ROWS if left is None else min(left, STREAM_ROWS)
            rows = cur.fetchmany(block)
            if time.monotonic() > deadline:
                raise duckdb.InterruptException("time limit")
            done = len(rows) < block
        else:
            rows = _fetch(cur, limits, deadline)
            done = True
        shown += len(rows)
        emit(columns, _shown_as_stored(description, rows))
        if done or (limits.max_rows is not None and shown >= limits.max_rows):
            return shown


def _refusal(exc: duckdb.Error, limits: Limits) -> ZeckdbError:
    """DuckDB's error in a statement as zeckdb's one line: what stopped it and what to do."""
    if isinstance(exc, duckdb.InterruptException):
        return QueryLimitError(f"the query was stopped at its time limit of {limits.timeout:g} s: "
                               f"narrow it (e.g. a WHERE on variant and n) or raise the limit ({opt('timeout')})")
    if isinstance(exc, duckdb.OutOfMemoryException):
        return QueryLimitError("the query needs more memory than its limit: narrow it "
                               "(e.g. a WHERE on variant and n, fewer columns)")
    if isinstance(exc, duckdb.PermissionException):
        return UsageError(f"refused: {first_line(exc).removeprefix('Permission Error: ')}: "
                          "zeckdb's SQL reads the database only")
    if isinstance(exc, duckdb.IOException):
        return DatabaseError(f"the database could not be read: {first_line(exc)}; the file may be damaged: "
                             "check it with `zeckdb verify`, or rebuild it")
    return UsageError(f"SQL error: {first_line(exc)}")


def _limited(con: duckdb.DuckDBPyConnection, query: str, params: Params,
             rows: int) -> tuple[str, list[str] | None]:
    """`query` with a LIMIT of `rows` around it, so that DuckDB computes no more than are shown
    (its Python client materialises a whole result before the first row is fetched), and the
    query's own column names (the outer SELECT * would rename repeated ones: a, a_1). A
    statement that cannot be wrapped (DuckDB names no columns for it) is run as it is."""
    try:
        relation = con.sql(query, params=params) if params else con.sql(query)  # bound, not run
        if relation is None:
            return query, None
        names = list(relation.columns)
    except duckdb.Error:  # its error is the statement's own: it is met again when it runs
        return query, None
    return f"SELECT * FROM (\n{query}\n) AS limited LIMIT {int(rows)}", names


def _fetch(cur: duckdb.DuckDBPyConnection, limits: Limits, deadline: float) -> list[tuple[Any, ...]]:
    """The rows to return. With max_bytes they are fetched in blocks of 1, 2, 4, ... rows,
    each block's size and the time limit checked before the next: one huge value is caught
    at the first row, before thousands like it are made into Python objects."""
    if limits.max_bytes is None:
        return cur.fetchall() if limits.max_rows is None else cur.fetchmany(limits.max_rows)
    rows: list[tuple[Any, ...]] = []
    size, block = 0, 1
    while limits.max_rows is None or len(rows) < limits.max_rows:
        want = block if limits.max_rows is None else min(block, limits.max_rows - len(rows))
        got = cur.fetchmany(want)
        size += sum(_size(value) for row in got for value in row)
        if size > limits.max_bytes:
            raise QueryLimitError(f"the result is over its size limit of {limits.max_bytes / 1e6:g} MB: "
                                  "select fewer rows or smaller columns (or aggregate in SQL)")
        if time.monotonic() > deadline:
            raise duckdb.InterruptException("time limit")
        rows += got
        if len(got) < want:
            break
        block = min(2 * block, FETCH_ROWS)
    return rows


def _size(value: Any) -> int:
    """Bytes a fetched value takes, roughly (containers by their items)."""
    if isinstance(value, (list, tuple)):
        return sys.getsizeof(value) + sum(_size(v) for v in value)
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(_size(k) + _size(v) for k, v in value.items())
    return sys.getsizeof(value)


def real(value: float | None) -> float | None:
    """A REAL (float32) value with the digits it holds: 29/6 stored as REAL is 4.8333335,
    not the 4.833333492279053 of its widening to a double."""
    return None if value is None else float(str(np.float32(value)))


def _shown_as_stored(description: list[Any], rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    reals = [i for i, d in enumerate(description) if str(d[1]) == "FLOAT"]
    if not reals:
        return rows
    return [tuple(real(v) if i in reals else v for i, v in enumerate(row)) for row in rows]


def first_line(exc: Exception) -> str:
    """DuckDB's message without its multi-line context (LINE 1: ..., carets)."""
    return str(exc).strip().split("\n")[0].strip()
