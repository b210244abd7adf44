"""The query service: a JSON API over one database, read-only (`zeckdb serve`).

A thin layer over zeckdb.api, as the command line is: each endpoint is one
call of it, and its errors are the command line's, as JSON `{"error": "..."}`
with a status code (400 bad input, 404 unknown or unbuilt, 408 time limit,
503 database unavailable), never a stack trace. SQL goes through the same
sandboxed executor as `zeckdb sql`, with the service's own limits.

Each request runs on its own cursor of one read-only connection (FastAPI runs
plain endpoints in a thread pool), so a slow query holds up only its own client.
"""

from __future__ import annotations

from contextlib import contextmanager
import logging
import os
from pathlib import Path
from typing import Any, Iterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import __version__, api
from .errors import NotBuiltError, QueryLimitError, UnknownQueryError, UnknownVariantError, UsageError, ZeckdbError
from .executor import Limits
from .queries import get_query
from .ranges import parse_count, parse_ns
from .render import plain, render
from .store import Store

log = logging.getLogger("zeckdb.service")
MAX_SQL_CHARS = 100_000


class SqlRequest(BaseModel):
    sql: str = Field(..., max_length=MAX_SQL_CHARS, description="One read-only statement (SELECT, WITH, VALUES, "
                     "DESCRIBE, SUMMARIZE, SHOW, EXPLAIN)")


def status_of(exc: ZeckdbError) -> int:
    if isinstance(exc, (UnknownVariantError, UnknownQueryError, NotBuiltError)):
        return 404
    if isinstance(exc, UsageError):
        return 400
    if isinstance(exc, QueryLimitError):
        return 408
    return 503  # DatabaseError: the file is missing, damaged or busy


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(db: str | os.PathLike | None = None, sql_timeout: float = 10.0, sql_max_rows: int = 10_000) -> FastAPI:
    """The service over the database at `db`; it is opened (and checked) at once, read-only."""
    base = Store.open_read(db)
    sql_limits = Limits(timeout=sql_timeout, max_rows=sql_max_rows)
    app = FastAPI(title="zeckdb", version=__version__,
                  description="Exhaustive position database of the Zeckendorf game family: lookups, principal lines, "
                              "per-n summaries, named queries and read-only SQL.")

    @contextmanager
    def store() -> Iterator[Store]:
        cursor = base.con.cursor()  # a connection of its own, to the same open database
        try:
            yield Store(base.path, cursor, writable=False)
        finally:
            cursor.close()

    @app.exception_handler(ZeckdbError)
    async def zeckdb_error(_: Request, exc: ZeckdbError) -> JSONResponse:
        return error(status_of(exc), str(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        return error(400, f"bad request: {where or 'body'}: {first.get('msg', 'invalid')}")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return error(404, f"no such endpoint: {request.method} {request.url.path} (the API is listed at /docs)")
        return error(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def internal(_: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error")
        return error(500, "internal error: see the server's log")

    @app.get("/healthz", summary="Liveness")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/v1/variants", summary="The games, each with the n built")
    def variants() -> list[dict[str, Any]]:
        with store() as s:
            built = {row["variant"]: row["ns"] for row in api.status(s)["variants"]}
        games = []
        for game in api.variants():
            name = game["variant"]
            if " (M = " in name:  # a family: its built members
                prefix = name.split("-M ")[0]
                game["built"] = {v: ns for v, ns in built.items() if v.rpartition("-")[0] == prefix}
            else:
                game["built"] = built.get(name)
            games.append(game)
        return games

    @app.get("/v1/status", summary="What is built, the schema revision")
    def status() -> dict[str, Any]:
        with store() as s:
            return plain(api.status(s))

    @app.get("/v1/queries", summary="The named queries and their parameters")
    def queries() -> list[dict[str, Any]]:
        return [{"name": q.name, "description": q.description, "checks": q.checks, "variants": list(q.variants),
                 "takes_n": q.takes_ns,
                 "params": [{"name": p.name, "allowed": p.allowed, "required": p.required, "description": p.description}
                            for p in q.params.values()]}
                for q in api.list_queries()]

    @app.get("/v1/queries/{name}", summary="A named query's rows (variant, n and its own parameters as query "
                                             "parameters; format=json or csv)")
    def query(name: str, request: Request, variant: str | None = None, n: str | None = None,
              format: str = "json") -> Any:
        if format not in ("json", "csv"):
            raise UsageError(f"unknown format {format[:20]!r}: choose json or csv")
        own_n = "n" in get_query(name).params  # omega-b's own n: one n, not a range filter
        params = {k: v for k, v in request.query_params.items()
                  if k not in ("variant", "format") and (k != "n" or own_n)}
        with store() as s:
            result = api.run_query(s, name, variant, parse_ns(n) if n and not own_n else None, params, sql_limits)
        if format == "csv":
            return PlainTextResponse(render(result.columns, result.rows, "csv") + "\n", media_type="text/csv")
        return {"columns": result.columns, "rows": [plain(list(r)) for r in result.rows],
                "total_rows": result.total_rows, "truncated": result.truncated}

    @app.post("/v1/sql", summary="Ad-hoc read-only SQL through the sandboxed executor")
    def sql(body: SqlRequest) -> dict[str, Any]:
        with store() as s:
            result = api.run_sql(s, body.sql, sql_limits)
        return {"columns": result.columns, "rows": [plain(list(r)) for r in result.rows],
                "total_rows": result.total_rows, "truncated": result.truncated,
                "limits": {"timeout_s": sql_limits.timeout, "max_rows": sql_limits.max_rows}}

    @app.get("/v1/{variant}/summary", summary="The per-n summary rows (n: 7, 1..150 or 1..20,30)")
    def summary(variant: str, n: str | None = None) -> list[dict[str, Any]]:
        with store() as s:
            return plain(api.summary(s, variant, parse_ns(n) if n else None))

    @app.get("/v1/{variant}/starts/{n}", summary="The start of n: value and every move ranked best first")
    def start(variant: str, n: str) -> dict[str, Any]:
        with store() as s:
            return api.probe(s, variant, start=_n(n)).to_json()

    @app.get("/v1/{variant}/positions/{position}", summary="A position (written as on the command line, 3,1,0,2)")
    def position(variant: str, position: str) -> dict[str, Any]:
        with store() as s:
            return api.probe(s, variant, position).to_json()

    @app.get("/v1/{variant}/mainline/start/{n}", summary="The principal line from the start of n")
    def mainline_start(variant: str, n: str) -> dict[str, Any]:
        with store() as s:
            return _line(api.principal_line(s, variant, start=_n(n)))

    @app.get("/v1/{variant}/mainline/{position}", summary="The principal line from a position")
    def mainline(variant: str, position: str) -> dict[str, Any]:
        with store() as s:
            return _line(api.principal_line(s, variant, position))

    app.state.store = base
    return app


def _n(text: str) -> int:
    n = parse_count(text)
    if n is None:
        raise UsageError(f"bad n {text[:40]!r}: give one n in ASCII digits, e.g. 7")
    return n


def _line(line: list) -> dict[str, Any]:
    first = line[0][1]
    return {"from": first.to_json(), "line": api.line_json(line)}


def serve(db: str | os.PathLike | None, host: str, port: int, sql_timeout: float, sql_max_rows: int) -> None:
    """Run the service with uvicorn until interrupted."""
    import uvicorn

    app = create_app(db, sql_timeout, sql_max_rows)
    print(f"zeckdb: serving {Path(app.state.store.path).resolve()} on http://{host}:{port} (API at /docs)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="info")
