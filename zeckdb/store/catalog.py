"""A file's whole catalog against the one zeckdb's migrations make (migrations/head.sql): its
schemas, tables (every column's type, default, generated expression and constraint: DuckDB's
own CREATE TABLE text of each), views, macros of every schema, indexes, sequences, types and
triggers. Whatever differs is named; nothing a file holds beyond zeckdb's own is trusted.

What is code (a schema, view, macro, index, sequence, type or trigger that is not zeckdb's)
`zeckdb db upgrade` removes, after saying so; a table whose definition is not zeckdb's holds
data, which zeckdb never changes: the refusal names the statement that would mend it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
import functools
import re
from pathlib import Path

import duckdb

from ..errors import DatabaseError, printable
from ..settings import DEFAULTS, Settings
from .paths import suggested

# (kind, schema, name, definition) of everything the file's own database holds; internal
# objects are DuckDB's, and the connection's temporary ones are in the database `temp`
CATALOG_SQL = """
    SELECT 'schema', schema_name, schema_name, '' FROM duckdb_schemas()
    WHERE database_name = current_database() AND schema_name <> 'main'
    UNION ALL SELECT 'table', schema_name, table_name, sql FROM duckdb_tables()
    WHERE database_name = current_database()
    UNION ALL SELECT 'view', schema_name, view_name, sql FROM duckdb_views()
    WHERE database_name = current_database() AND NOT internal
    UNION ALL SELECT 'macro', schema_name, function_name,
                     function_type || '(' || array_to_string(parameters, ', ') || ') ' || coalesce(macro_definition, '')
    FROM duckdb_functions() WHERE database_name = current_database() AND NOT internal
    UNION ALL SELECT 'index', schema_name, index_name, coalesce(sql, '') FROM duckdb_indexes()
    WHERE database_name = current_database()
    UNION ALL SELECT 'sequence', schema_name, sequence_name, '' FROM duckdb_sequences()
    WHERE database_name = current_database()
    UNION ALL SELECT 'type', schema_name, type_name, logical_type || ' ' || coalesce(array_to_string(labels, ','), '')
    FROM duckdb_types() WHERE database_name = current_database() AND NOT internal
    UNION ALL SELECT 'trigger', schema_name, trigger_name, coalesce(sql, '') FROM duckdb_triggers()
    WHERE database_name = current_database()"""
REMOVABLE = ("schema", "view", "macro", "index", "sequence", "type", "trigger")

Key = tuple[str, str, str]  # (kind, schema, name)


@dataclass(frozen=True)
class Difference:
    """One way the file's catalog is not zeckdb's: `extra` (zeckdb has no such object), `missing`
    or `changed`, with what it is in words and, for a table, the statement that would mend it
    (None: only a rebuild does)."""

    key: Key
    how: str
    detail: str = ""
    mend: str | None = None

    @property
    def named(self) -> str:
        """The object as a user names it: `zz.positions`, `builds` (schema main left out)."""
        kind, schema, name = self.key
        return printable(name if schema == "main" or kind == "schema" else f"{schema}.{name}")[:60]

    @property
    def shown(self) -> str:
        return f"{'an extra' if self.how == 'extra' else 'a changed' if self.how == 'changed' else 'no'} " \
               f"{self.key[0]} {self.named}{self.detail}"

    @property
    def restored(self) -> bool:
        """Whether a writer's restore of zeckdb's views and macros mends it (store.schema)."""
        kind, schema, _ = self.key
        return schema == "main" and (kind in ("view", "macro") and self.how == "changed"
                                     or kind == "macro" and self.how == "extra")

    @property
    def removable(self) -> bool:
        """Whether `zeckdb db upgrade` mends it itself: code that is not zeckdb's, or a column's
        default (neither holds data)."""
        return self.restored or (self.how == "extra" and self.key[0] in REMOVABLE) or " DEFAULT" in (self.mend or "")


def _words(sql: str) -> str:
    return " ".join(sql.split()).removesuffix(";").strip()


def _script() -> str:
    from ..resources import migrations_dir

    return (migrations_dir() / "head.sql").read_text(encoding="utf-8")


@functools.cache
def expected() -> dict[Key, str]:
    """zeckdb's catalog at the head revision, worded as DuckDB words a file made from head.sql
    (read as text: an in-memory DuckDB would add hundreds of MB to every process)."""
    found: dict[Key, str] = {}
    for line in _script().splitlines():
        words = _words(line)
        if table := re.match(r"CREATE TABLE (\w+)\(", words):
            found[("table", "main", table[1])] = words
        elif view := re.match(r"CREATE VIEW (\w+) ", words):
            found[("view", "main", view[1])] = words
        elif macro := re.fullmatch(r"CREATE MACRO (\w+) ?\((.*?)\) AS (TABLE )?\((.*)\)", words):
            name, params, table_macro, body = macro.groups()
            shown = ", ".join(p.strip() for p in params.split(",") if p.strip())
            found[("macro", "main", name)] = f"{'table_macro' if table_macro else 'macro'}({shown}) {body.strip()}"
        elif kind := re.fullmatch(r"CREATE TYPE (\w+) AS ENUM \( (.*) \)", words):
            labels = ",".join(label.strip().strip("'") for label in kind[2].split(","))
            found[("type", "main", kind[1])] = f"ENUM {labels}"
    return found


def _normal(key: Key, text: str) -> str:
    kind = key[0]
    words = _words(text)
    if kind in ("table", "view"):
        words = words.replace(f"CREATE TEMP {kind.upper()} ", f"CREATE {kind.upper()} ", 1)
    return words


def differences(con: duckdb.DuckDBPyConnection) -> list[Difference]:
    """How the file's catalog differs from zeckdb's, or [] (the usual answer, from one query).
    A definition worded otherwise than head.sql words it (another DuckDB release) is compared
    again with what this DuckDB makes of zeckdb's own, in the connection's temporary catalog."""
    have = {(kind, schema, name): _normal((kind, schema, name), text)
            for kind, schema, name, text in con.execute(CATALOG_SQL).fetchall()}
    want = expected()
    if have == want:
        return []
    changed = [key for key in want.keys() & have.keys() if have[key] != want[key]]
    if changed:
        want = {**want, **_made_here(con, changed)}
    found = [Difference(key, "extra", mend=_mend_extra(key)) for key in sorted(have.keys() - want.keys())]
    found += [Difference(key, "missing") for key in sorted(want.keys() - have.keys())]
    found += [_changed(key, have[key], want[key]) for key in sorted(changed) if have[key] != want[key]]
    return found


def _made_here(con: duckdb.DuckDBPyConnection, keys: list[Key]) -> dict[Key, str]:
    """What this DuckDB makes of zeckdb's definitions of `keys` (tables, views, macros): each made
    in the temporary catalog, read back and dropped again."""
    statements = {("table", "main", m[1]) if (m := re.match(r"CREATE TABLE (\w+)\(", line)) else
                  ("view", "main", v[1]) if (v := re.match(r"CREATE VIEW (\w+) ", line)) else
                  ("macro", "main", f[1]) if (f := re.match(r"CREATE MACRO (\w+)", line)) else None: line
                  for line in _script().splitlines()}
    made: dict[Key, str] = {}
    for key in keys:
        if key not in statements or key[0] not in ("table", "view", "macro"):
            continue
        kind, _, name = key
        statement = statements[key].replace(f"CREATE {kind.upper()} ", f"CREATE TEMP {kind.upper()} ", 1)
        try:
            con.execute(statement)
            rows = con.execute(CATALOG_SQL.replace("current_database()", "'temp'")).fetchall()
            for row_kind, _, row_name, text in rows:
                if (row_kind, row_name) == (kind, name):
                    made[key] = _normal(key, text)
        except duckdb.Error:
            pass  # the definition cannot be made here: head.sql's wording stands
        finally:
            con.execute(f"DROP {'MACRO' if kind == 'macro' else kind.upper()} IF EXISTS temp.main.{name}")
    return made


def _parts(definition: str) -> list[str]:
    """A CREATE TABLE's columns and constraints, each as written."""
    from .schema import _top_level

    body = definition[definition.index("(") + 1: definition.rindex(")")]
    return _top_level(body)


def _column(part: str) -> str:
    return part.split()[0].strip('"')


def _changed(key: Key, have: str, want: str) -> Difference:
    """A changed object; for a table, the first column or constraint that is not zeckdb's and,
    where one statement mends it without touching data (a default, an extra column), that statement."""
    if key[0] != "table":
        return Difference(key, "changed")
    table = key[2]
    theirs, ours = _parts(have), _parts(want)
    our_columns = {_column(part): part for part in ours}
    for part in theirs:
        if part in ours:
            continue
        name = _column(part)
        detail = f" (its {printable(part)[:80]} is not zeckdb's)"
        if name not in our_columns:
            return Difference(key, "changed", detail, f'ALTER TABLE {table} DROP COLUMN "{name}"')
        mine = our_columns[name]
        if re.sub(r" DEFAULT\(.*?\)(?= NOT NULL|$)", "", part) == re.sub(r" DEFAULT\(.*?\)(?= NOT NULL|$)", "", mine):
            default = re.search(r" DEFAULT\((.*?)\)(?= NOT NULL|$)", mine)
            mend = (f'ALTER TABLE {table} ALTER COLUMN "{name}" SET DEFAULT {default[1]}' if default else
                    f'ALTER TABLE {table} ALTER COLUMN "{name}" DROP DEFAULT')
            return Difference(key, "changed", detail, mend)
        return Difference(key, "changed", detail)
    missing = [part for part in ours if part not in theirs]
    return Difference(key, "changed", f" (it lacks zeckdb's {printable(missing[0])[:80]})" if missing else "")


def _mend_extra(key: Key) -> str:
    kind, schema, name = key
    quoted = '"' + name.replace('"', '""') + '"'
    if kind == "schema":
        return f"DROP SCHEMA {quoted} CASCADE"
    qualified = f'"{schema}".{quoted}'
    if kind == "macro":
        return f"DROP MACRO {qualified}"  # a table macro too: DROP MACRO TABLE is tried when this fails
    return f"DROP {kind.upper()} {qualified}"


def check(con: duckdb.DuckDBPyConnection, path: Path, settings: Settings = DEFAULTS, restorable: bool = False) -> None:
    """A one-line refusal of a file whose catalog is not zeckdb's, naming what differs and what
    `zeckdb db upgrade` does about it. With `restorable`, what a writer puts back before it reads
    (zeckdb's own views and macros, changed, and macros of schema main that are not zeckdb's)
    passes."""
    found = [d for d in differences(con) if not (restorable and d.restored)]
    if found:
        raise DatabaseError(refusal(path, found, settings))


def refusal(path: Path, found: list[Difference], settings: Settings = DEFAULTS) -> str:
    shown = "; ".join(d.shown for d in found[:3]) + ("; ..." if len(found) > 3 else "")
    if all(d.removable for d in found):
        advice = f"{suggested('db upgrade', path, settings)} mends {'it' if len(found) == 1 else 'them'}"
    else:
        advice = _not_removable(found, path, settings)
    return (f"{printable(str(path))} holds what zeckdb's schema does not ({shown}): it could change what zeckdb "
            f"reads, and is not read; {advice}")


def _not_removable(found: list[Difference], path: Path, settings: Settings) -> str:
    first = next(d for d in found if not d.removable)
    if first.mend is not None:
        return (f"zeckdb changes no table's data: `{printable(first.mend)}` mends it (then "
                f"{suggested('db upgrade', path, settings)} for the rest), or rebuild into a new file "
                "(`zeckdb build --db NEW_FILE`)")
    return "rebuild it into a new file (`zeckdb build --db NEW_FILE` with the same --variant and --n)"


def remove_foreign(con: duckdb.DuckDBPyConnection, path: Path, say: Callable[[str], None] | None,
                   settings: Settings = DEFAULTS) -> None:
    """`zeckdb db upgrade`'s part: remove, after saying so, whatever code the file holds that is
    not zeckdb's (schemas first: what they hold goes with them), and put zeckdb's column defaults
    back; a table otherwise not zeckdb's is refused with the statement that mends it."""
    found = differences(con)
    if any(not d.removable for d in found):
        raise DatabaseError(refusal(path, found, settings))
    schemas = {d.key[1] for d in found if d.key[0] == "schema"}
    for difference in sorted(found, key=lambda d: d.key[0] != "schema"):
        if difference.key[0] != "schema" and difference.key[1] in schemas:
            continue  # gone with its schema
        if say is not None:
            say(f"putting zeckdb's column default back in table {difference.named}: {difference.mend}"
                if difference.how == "changed" else
                f"removing {difference.key[0]} {difference.named}, which is not zeckdb's: {difference.mend}")
        statement = difference.mend or ""
        try:
            con.execute(statement)
        except duckdb.Error:
            if difference.key[0] != "macro":
                raise
            con.execute(statement.replace("DROP MACRO ", "DROP MACRO TABLE ", 1))


@functools.cache
def head_columns(table: str) -> tuple[tuple[str, str | None], ...]:
    """(column, zeckdb's default expression or None) of each column of `table` at the head, in order."""
    found = []
    for part in _parts(expected()[("table", "main", table)]):
        if not re.match(r"(PRIMARY KEY|UNIQUE|CHECK|FOREIGN KEY)\b", part):
            default = re.search(r" DEFAULT\((.*?)\)(?= NOT NULL|$)", part)
            found.append((_column(part), default[1] if default else None))
    return tuple(found)
