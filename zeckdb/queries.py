"""Named queries (sql/<name>.sql) and read-only ad-hoc SQL.

A named query is one SQL file whose header comment describes it:

    -- name: winners
    -- description: one line saying what it answers
    -- checks: the paper or theorem it checks
    -- param position: a count vector, e.g. 3,1,0,2 (required)
    -- param measure: P or mu (default: both)

Every query may use the standard parameters $variant (from --variant; NULL
means every built variant) and $ns (from --n, an INTEGER[]; NULL means every
built n). Other parameters come from --param KEY=VALUE and are bound as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
import re
from typing import Any

import duckdb

from .errors import DatabaseError, UsageError
from .store import Store

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
STANDARD_PARAMS = {"variant": "the variant (--variant; default: every built variant)",
                   "ns": "the n to include (--n; default: every built n)"}
READ_ONLY_STATEMENTS = {"SELECT", "EXPLAIN", "PRAGMA", "CALL"}

Result = tuple[list[str], list[tuple]]


@dataclass
class NamedQuery:
    name: str
    description: str
    checks: str
    sql: str
    params: dict[str, str] = field(default_factory=dict)  # custom parameter -> its description
    required: set[str] = field(default_factory=set)

    @property
    def used_params(self) -> set[str]:
        return set(re.findall(r"\$([A-Za-z_]\w*)", self.sql))


def _parse(path: Path) -> NamedQuery:
    text = path.read_text()
    header: dict[str, str] = {}
    params: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        key, _, value = line[2:].strip().partition(":")
        if key.startswith("param "):
            params[key[6:].strip()] = value.strip()
        elif key:
            header[key.strip()] = value.strip()
    query = NamedQuery(header.get("name", path.stem), header.get("description", ""), header.get("checks", ""),
                       text, params, {p for p, d in params.items() if "(required)" in d})
    if query.name != path.stem:
        raise ValueError(f"{path}: header names the query {query.name!r}")
    return query


def list_queries() -> list[NamedQuery]:
    if not SQL_DIR.is_dir():
        raise DatabaseError(f"zeckdb's named queries are missing ({SQL_DIR}): install zeckdb from its source "
                            "checkout with `pip install -e .`")
    return [_parse(p) for p in sorted(SQL_DIR.glob("*.sql"))]


def get_query(name: str) -> NamedQuery:
    path = SQL_DIR / f"{name}.sql"
    if not re.fullmatch(r"[a-z0-9-]+", name) or not path.exists():  # list_queries explains a missing sql/
        names = ", ".join(q.name for q in list_queries())
        raise UsageError(f"unknown query {name!r}: choose one of {names} (`zeckdb query` lists them)")
    return _parse(path)


def parse_params(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"bad --param {pair!r}: write KEY=VALUE, e.g. --param position=3,1,0,2")
        out[key.strip()] = value.strip()
    return out


def run_query(store: Store, name: str, variant: str | None = None, ns: list[int] | None = None,
              params: dict[str, str] | None = None) -> Result:
    """Run a named query; unknown or missing parameters are usage errors."""
    query = get_query(name)
    params = dict(params or {})
    unknown = set(params) - set(query.params)
    if unknown:
        takes = ", ".join(sorted(query.params)) or "no --param"
        raise UsageError(f"query {name} has no parameter {sorted(unknown)[0]!r}: it takes {takes}")
    missing = query.required - set(params)
    if missing:
        p = sorted(missing)[0]
        raise UsageError(f"query {name} needs --param {p}=...: {query.params[p]}")
    if variant is not None:
        from .variants import get_variant

        get_variant(variant)  # an unknown name is an error, not an empty result
    values: dict[str, Any] = {p: params.get(p) for p in query.params}
    values.update(variant=variant, ns=ns)
    return _execute(store, query.sql, {k: v for k, v in values.items() if k in query.used_params})


def run_sql(store: Store, sql: str) -> Result:
    """Run ad-hoc SQL, read-only; the result of the last statement."""
    try:
        statements = store.con.extract_statements(sql)
    except duckdb.Error as exc:
        raise UsageError(f"SQL error: {_first_line(exc)}") from None
    if not statements:
        raise UsageError("no SQL statement given: pass one, e.g. zeckdb sql \"SELECT * FROM builds\"")
    for st in statements:
        kind = st.type.name
        if kind not in READ_ONLY_STATEMENTS:
            raise UsageError(f"zeckdb sql is read-only: a {kind} statement is refused "
                             f"(use SELECT, EXPLAIN, PRAGMA or CALL; `zeckdb build` writes the database)")
    result: Result = ([], [])
    for st in statements:
        result = _execute(store, st.query, {})
    return result


def _execute(store: Store, sql: str, params: dict[str, Any]) -> Result:
    try:
        cur = store.con.execute(sql, params) if params else store.con.execute(sql)
        rows = cur.fetchall()
    except duckdb.Error as exc:
        raise UsageError(f"SQL error: {_first_line(exc)}") from None
    return [d[0] for d in cur.description or []], rows


def _first_line(exc: Exception) -> str:
    return " ".join(str(exc).split("\n")[0:1]).strip()
