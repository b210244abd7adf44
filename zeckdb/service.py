"""The query service: a JSON API over one database, read-only (`zeckdb serve`).

A thin layer over zeckdb.api, as the command line is: each endpoint is one
call of it, and its errors are the command line's, as JSON `{"error": "..."}`
with a status code (400 bad input, 404 unknown or unbuilt, 408 time or memory
limit, 429 busy, 503 database unavailable), never a stack trace. SQL goes through the same
sandboxed executor as `zeckdb sql`, with the service's own limits.

Lookups, lines and summaries run on cursors of one read-only connection (FastAPI
runs plain endpoints in a thread pool). Ad-hoc SQL, named queries and plots run in
`serve_max_heavy` worker processes of their own (zeckdb.sqlworkers: their own memory,
killed at their deadline); their requests wait for a turn on the event loop, not in
the lookups' threads, and one that finds no turn in time (serve_queue_seconds) is answered with 429
(Too Many Requests) and a JSON error, so lookups keep their threads, cores and memory.
Every SQL request is bounded in time, memory, rows and bytes.

The connection itself is bounded too (serve, _Guard, guarded_protocol): at most serve_max_connections
at once (one more takes the place of a connection still waiting for its request, from the
address that holds the most), and at most serve_max_client_connections from one address, a request's head
must arrive within serve_header_seconds, its body within serve_body_seconds (408 past them), an
idle connection is closed after serve_keep_alive_seconds, a body is read only up to
serve_max_body_bytes (413 past it, as soon as its length says so), and every answer carries a Content-Security-Policy
that allows the page's own files only, X-Content-Type-Options: nosniff and no framing. /docs
is Swagger UI from the package's own files (it works offline).

Strangers learn nothing of the host: errors and /v1/status name the database by
its file name only, and the SQL surface refuses the catalog functions that show
paths, settings and versions (zeckdb.executor).

Every limit named here is a setting of zeckdb.settings (`zeckdb serve`'s options, the environment).

While a build writes the database, that connection is closed for each of the
build's commits and opened again after it (a shared zeckdb.api.Database).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from pathlib import Path
from typing import Any, cast

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import api
from .version import __version__
from .errors import (BusyError, NotBuiltError, QueryLimitError, UnknownQueryError, UnknownVariantError, UsageError,
                     ZeckdbError)
from .ranges import format_ns, parse_n, parse_ns
from .render import plain
from .resources import web_dir
from .sqlworkers import SqlWorkers, WorkerStopped, failure, lookup

log = logging.getLogger("zeckdb.service")
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                                 b"form-action 'self'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]
DOCS_ASSETS = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png")
MEDIA_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
               ".css": "text/css; charset=utf-8", ".png": "image/png"}


# a bind parameter's value: strict, so that JSON's 40 stays a number and "40" a text
SqlValue = StrictInt | StrictFloat | StrictBool | str | None


class SqlRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt "parms" is refused, not run without its values

    sql: str = Field(..., description="One read-only statement (SELECT, WITH, VALUES, "
                     "DESCRIBE, SUMMARIZE, SHOW, EXPLAIN)")
    params: list[SqlValue | list[SqlValue]] | dict[str, SqlValue | list[SqlValue]] | None = Field(
        None, description="Values bound to the statement's ? (a list) or its $name (an object), never spliced "
        "into it: {\"sql\": \"SELECT * FROM builds WHERE n = ?\", \"params\": [40]}")


def _check_texts(body: SqlRequest) -> None:
    """JSON may carry a lone surrogate (\\ud800), which no UTF-8 text holds: a 400, not a failure
    where the text is encoded."""
    values = list(body.params.values()) if isinstance(body.params, dict) else list(body.params or [])
    texts = [("the SQL", body.sql)] + [("a parameter", item) for value in values
                                       for item in (value if isinstance(value, list) else [value]) if isinstance(item, str)]
    for what, text in texts:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError(f"bad request: {what} holds a lone surrogate (a \\ud800 .. \\udfff escape): send UTF-8 "
                             "text") from None


def status_of(exc: ZeckdbError) -> int:
    if isinstance(exc, _PluginFailed):
        return 503
    if isinstance(exc, BusyError):
        return 429
    if isinstance(exc, (UnknownVariantError, UnknownQueryError, NotBuiltError)):
        return 404
    if isinstance(exc, UsageError):
        return 400
    if isinstance(exc, QueryLimitError):
        return 408
    return 503  # DatabaseError: the file is missing, damaged or busy


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(db: str | os.PathLike[str] | None = None, settings: api.Settings | None = None) -> FastAPI:
    """The service over the database at `db`; it is opened (and checked) at once, read-only.
    Its limits are the serve_* and worker_* settings (default: api.settings())."""
    settings = settings or api.settings()
    database = api.Database(db, memory_limit=settings.serve_memory_limit, shared=True, settings=settings)
    workers = SqlWorkers(database.path, settings)
    hide = _Scrubber(database.path)
    sql_limits = api.Limits(timeout=settings.serve_sql_timeout, max_rows=settings.serve_sql_max_rows,
                            max_bytes=settings.serve_sql_max_bytes)
    heavy = _Turns(settings.serve_max_heavy, settings.serve_queue_seconds)
    # a figure's time: a worker's first one imports matplotlib, which alone can take seconds
    plot_limits = api.Limits(timeout=max(settings.serve_plot_seconds, settings.serve_sql_timeout),
                             max_rows=settings.sql_max_rows or None)

    plugins = _Plugins(database, settings)
    lookups = _Lookups(database, settings, plugins)
    app = FastAPI(title="zeckdb", version=__version__, docs_url=None, redoc_url=None,
                  description="Exhaustive position database of the Zeckendorf game family: lookups, principal lines, "
                              "per-n summaries, named queries and read-only SQL.")

    _add_error_handlers(app, hide)
    _add_pages(app)
    app.add_middleware(_Guard, max_body_bytes=settings.serve_max_body_bytes, body_seconds=settings.serve_body_seconds,
                       allowed_hosts=settings.serve_allowed_hosts)

    @app.get("/v1/variants", summary="The games, each with the n built (in full: positions can be looked up) "
                                     "and the n built with --summary-only")
    def variants() -> list[dict[str, Any]]:
        return _variants_built(plugins.catalogue(), database.built())

    @app.get("/v1/status", summary="What is built, the schema revision, whether a build is writing it")
    def status() -> dict[str, Any]:
        info = database.status().to_json()
        return cast(dict[str, Any], plain({**info, "database": database.path.name}))  # its name, not where it lies

    @app.get("/v1/queries", summary="The named queries and their parameters")
    def queries() -> list[dict[str, Any]]:
        return [{"name": q.name, "description": q.description, "checks": q.checks, "variants": list(q.variants),
                 "takes_n": q.takes_ns,
                 "params": [{"name": p.name, "allowed": p.allowed, "required": p.required, "description": p.description}
                            for p in q.params.values()]}
                for q in api.queries()]

    @app.get("/v1/queries/{name}", summary="A named query's rows (variant, n and its own parameters as query "
                                             "parameters; format=json or csv)")
    async def query(name: str, request: Request, variant: str | None = None, n: str | None = None,
                    format: str = "json") -> Any:
        if format not in ("json", "csv"):
            raise UsageError(f"unknown format {format[:20]!r}: choose json or csv")
        own_n = "n" in api.named_query(name).params  # omega-b's own n: one n, not a range filter
        params = {k: v for k, v in request.query_params.items()
                  if k not in ("variant", "format") and (k != "n" or own_n)}
        ns = parse_ns(n) if n and not own_n else None
        body = await (plugins.run(variant, "run_query", name, variant, ns, params, sql_limits, format)
                      if plugins.owns(variant) else
                      heavy.run(workers.run_query, name, variant, ns, params, sql_limits, format))
        return Response(body, media_type="text/csv" if format == "csv" else "application/json")

    @app.post("/v1/sql", summary="Ad-hoc read-only SQL through the sandboxed executor")
    async def sql(body: SqlRequest) -> Response:
        if len(body.sql) > settings.serve_max_sql_chars:
            raise UsageError(f"bad request: the SQL is over {settings.serve_max_sql_chars:,} characters: send less")
        _check_texts(body)
        api.check_sql(body.sql, body.params)  # a hostile statement is refused by what it is, whatever the load
        limits = {"timeout_s": sql_limits.timeout, "max_rows": sql_limits.max_rows}
        answer = await heavy.run(workers.run_sql, body.sql, sql_limits, "json", {"limits": limits}, body.params)
        return Response(answer, media_type="application/json")

    @app.get("/v1/plots/{kind}", summary=f"A figure as SVG (kind: {', '.join(api.plot_kinds())}), as `zeckdb plot` draws it",
             response_class=Response)
    async def plot(kind: str, variant: str, n: str | None = None, measure: str = "P") -> Response:
        ns = parse_ns(n) if n else None
        image = await (plugins.run(variant, "plot", kind, variant, ns, measure, plot_limits) if plugins.owns(variant)
                       else heavy.run(workers.plot, kind, variant, ns, measure, plot_limits))
        return Response(image, media_type="image/svg+xml")

    @app.get("/v1/{variant}/summary", summary="The per-n summary rows (n: 7, 1..150 or 1..20,30)")
    async def summary(variant: str, n: str | None = None) -> Response:
        return await lookups.answer("summary", variant, n)

    @app.get("/v1/{variant}/starts/{n}", summary="The start of n: value and every move ranked best first")
    async def start(variant: str, n: str) -> Response:
        return await lookups.answer("start", variant, _n(n))

    @app.get("/v1/{variant}/positions/{position}", summary="A position (written as on the command line, 3,1,0,2)")
    async def position(variant: str, position: str) -> Response:
        return await lookups.answer("position", variant, position)

    @app.get("/v1/{variant}/play", summary="A game under a profile for each player (p1, p2: perfect, random, "
                                           "best-response, combine-largest, ...), from position=... or start=N: "
                                           "each player's chance to win, the expected length, Player 1's moves "
                                           "(p1_moves) and, unless distribution=false, the exact length distribution",
             response_class=Response)
    async def play(variant: str, p1: str = "perfect", p2: str = "random", position: str | None = None,
                   start: str | None = None, distribution: bool = True) -> Response:
        args = (variant, position, None if start is None else _n(start), p1, p2, distribution, plot_limits)
        body = await (plugins.run(variant, "play", *args) if plugins.owns(variant) else heavy.run(workers.play, *args))
        return Response(body, media_type="application/json")

    @app.get("/v1/{variant}/mainline/start/{n}", summary="The principal line from the start of n")
    async def mainline_start(variant: str, n: str) -> Response:
        return await lookups.answer("line-start", variant, _n(n))

    @app.get("/v1/{variant}/mainline/{position}", summary="The principal line from a position")
    async def mainline(variant: str, position: str) -> Response:
        return await lookups.answer("line", variant, position)

    app.state.database = database
    app.router.on_startup.append(lookups.started)
    app.router.on_shutdown.append(database.close)
    app.router.on_shutdown.append(workers.close)
    app.router.on_shutdown.append(plugins.close)
    workers.wait_ready()  # before uvicorn listens: the first requests find their workers started
    return app


class _Plugins:
    """The installed game plugins, whose code never runs in the service's process: a request
    naming a plugin's game (its twin's too) is answered by the plugin workers, processes of
    their own (sqlworkers, serve_plugin_workers of them) that import the plugin when a job
    asks for its game. A worker that does not answer within the request's limit is stopped
    by group and replaced; the request gets 503 naming the plugin. The catalogue
    (/v1/variants) lists zeckdb's own games at once, and the games of the plugins the database
    holds once each is probed (in a process of its own, bounded in time, on a thread started
    with the service); the plugins whose games it does not hold are not probed."""

    def __init__(self, database: api.Database, settings: api.Settings):
        import threading

        self.db, self.settings = database.path, settings
        self.installed = set(api.plugin_names())
        with api.using(settings):
            self.builtin = api.variants(plugins=False)
        self.listed: list[api.GameInfo] | None = None
        held = sorted(name for name in {self._plugin(v) for v in database.built()} if name) if self.installed else []
        self.turns = _Turns(settings.serve_plugin_workers, settings.serve_queue_seconds)
        self.pool: SqlWorkers | None = None
        self.lock = threading.Lock()
        self.closed = False
        if held:
            threading.Thread(target=self._list, args=(held,), name="zeckdb-plugins", daemon=True).start()
        else:
            self.listed = self.builtin

    def _plugin(self, variant: str | None) -> str | None:
        """The plugin whose game `variant` is (or whose game's misère twin), else None."""
        return None if variant is None or not self.installed else api.plugin_of(variant)

    def owns(self, variant: str | None) -> bool:
        return self._plugin(variant) is not None

    def _list(self, held: list[str]) -> None:
        with api.using(self.settings):
            games, failures = api.plugin_games(held)
        for left_out in failures:
            log.warning("zeckdb: left out: %s", left_out)
        self.listed = self.builtin + games
        with contextlib.suppress(ZeckdbError):
            self._workers()  # started meanwhile: the first request for a held game finds its worker

    def catalogue(self) -> list[api.GameInfo]:
        return self.listed if self.listed is not None else self.builtin

    def _workers(self) -> SqlWorkers:
        with self.lock:
            if self.closed:
                raise _PluginFailed("the service is stopping")
            if self.pool is None:
                self.pool = SqlWorkers(self.db, self.settings, count=self.settings.serve_plugin_workers)
            return self.pool

    async def run(self, variant: str | None, job: str, *args: Any) -> bytes:
        """A job for a plugin's game (a method of SqlWorkers and its arguments), on a plugin worker."""
        import anyio.to_thread

        name = self._plugin(variant)
        pool = await anyio.to_thread.run_sync(self._workers)  # its first start must not wait on the loop
        try:
            return cast(bytes, await self.turns.run(getattr(pool, job), *args))
        except WorkerStopped:
            raise _PluginFailed(f"the game plugin {name} did not answer within the request's limit: its worker was "
                                "stopped and is replaced") from None
        except BusyError:
            raise _PluginFailed(f"the game plugin {name}'s workers are all busy: try again in a moment") from None

    def close(self) -> None:
        with self.lock:
            self.closed = True
            pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()


class _PluginFailed(ZeckdbError):
    """A plugin's game could not be answered (its worker stopped at its deadline, or busy): 503."""


class _Lookups:
    """Lookups, lines and summaries: zeckdb's own games on threads of the service (at most
    serve_lookup_threads at once, anyio's thread limiter; a statement past serve_lookup_seconds
    is interrupted), a plugin's game on a plugin worker (_Plugins), stopped past the same time."""

    def __init__(self, database: api.Database, settings: api.Settings, plugins: _Plugins):
        self.database, self.settings, self.plugins = database, settings, plugins
        self.limits = api.Limits(timeout=settings.serve_lookup_seconds, max_rows=settings.sql_max_rows or None)

    async def started(self) -> None:
        import anyio.to_thread

        anyio.to_thread.current_default_thread_limiter().total_tokens = self.settings.serve_lookup_threads

    async def answer(self, kind: str, variant: str, value: str | int | None) -> Response:
        import json

        import anyio.to_thread

        if self.plugins.owns(variant):
            body = await self.plugins.run(variant, "lookup", kind, variant, value, self.limits)
        else:
            answer = await anyio.to_thread.run_sync(lookup, self.database, kind, variant, value)
            body = json.dumps(answer).encode()
        return Response(body, media_type="application/json")


class _Turns:
    """The heavy requests' turns (SQL, named queries, plots): at most `count` at once, each in a
    thread of its own, so that they never hold the threads the lookups run in; a request waits
    for its turn on the event loop at most `queue_seconds`, then is refused (BusyError: 429)."""

    def __init__(self, count: int, queue_seconds: float):
        import anyio

        self.count = count
        self.queue_seconds = queue_seconds
        self.turns = anyio.CapacityLimiter(count)  # taken on the event loop, for at most queue_seconds
        self.threads = anyio.CapacityLimiter(count)  # never waited for: a turn comes with its thread

    async def run(self, call: Any, *args: Any) -> Any:
        import anyio

        waited = False
        with anyio.move_on_after(self.queue_seconds):
            await self.turns.acquire()
            waited = True
        if not waited:
            raise BusyError(f"the service is running its limit of {self.count} SQL, query and plot requests at once: "
                            "try again in a moment")
        try:
            return await anyio.to_thread.run_sync(call, *args, limiter=self.threads)
        finally:
            self.turns.release()


class _Guard:
    """ASGI middleware: the security headers on every answer; a request naming in its Host
    header a name the service does not answer for refused (400: DNS rebinding, allowed_host);
    a request body read only up to max_body_bytes (413 past it, at once when its
    Content-Length says so) and within body_seconds (408 past them: a body sent a byte at a
    time holds no connection for long)."""

    def __init__(self, app: Any, max_body_bytes: int, body_seconds: float, allowed_hosts: str = "localhost"):
        self.app, self.max_body_bytes, self.body_seconds = app, max_body_bytes, body_seconds
        self.allowed_hosts = {name.strip().lower().rstrip(".") for name in allowed_hosts.split(",") if name.strip()}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def guarded_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        headers = dict(scope.get("headers", []))
        host = headers.get(b"host")
        if host is not None and not allowed_host(host.decode("latin-1"), self.allowed_hosts):
            await self._refuse(guarded_send, 400, f"bad request: this server does not answer for the host "
                               f"{host.decode('latin-1')[:60]!r}: name it by an address or an allowed name "
                               "(serve --allowed-hosts)")
            return
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body_bytes):
            await self._refuse(guarded_send, 413 if length.isdigit() else 400, "the request body is over "
                               f"{self.max_body_bytes:,} bytes: send less" if length.isdigit() else "bad Content-Length")
            return
        if scope.get("method") in ("POST", "PUT", "PATCH"):
            body, more = b"", True
            import anyio

            with anyio.move_on_after(self.body_seconds):
                while more:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    body += message.get("body", b"")
                    more = message.get("more_body", False)
                    if len(body) > self.max_body_bytes:
                        await self._refuse(guarded_send, 413, f"the request body is over {self.max_body_bytes:,} "
                                           "bytes: send less")
                        return
            if more:
                await self._refuse(guarded_send, 408, f"the request body did not arrive within {self.body_seconds:g} s: "
                                   "send it whole at once")
                return
            given = False

            async def replay() -> dict[str, Any]:
                nonlocal given
                if not given:
                    given = True
                    return {"type": "http.request", "body": body, "more_body": False}
                after: dict[str, Any] = await receive()  # the disconnect, when it comes
                return after

            await self.app(scope, replay, guarded_send)
            return
        await self.app(scope, receive, guarded_send)

    @staticmethod
    async def _refuse(send: Any, status: int, message: str) -> None:
        import json

        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def allowed_host(host: str, allowed: set[str]) -> bool:
    """Whether a Host header names this server as it answers: an IP address (no DNS name can be
    rebound to it), a loopback name, or a name of `allowed` ("*": any). A web page whose name
    an attacker's DNS rebinds to 127.0.0.1 sends its own name, and is refused."""
    import ipaddress

    name = host.strip().lower()
    if name.startswith("["):  # [::1]:8000
        name = name[1:].partition("]")[0]
    elif name.count(":") == 1:
        name = name.partition(":")[0]
    name = name.rstrip(".")
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    return "*" in allowed or name in allowed or name in ("localhost", "localhost.localdomain") \
        or name.endswith(".localhost")


def guarded_protocol(max_connections: int, header_seconds: float, max_client_connections: int | None = None) -> type:
    """uvicorn's HTTP/1.1 protocol with the limits it lacks.

    - A connection beyond max_client_connections from one address is closed at once.
    - A connection beyond max_connections takes the place of a waiting one: of the connections
      still waiting for their request's head or body, the one whose address holds the most
      connections, and of those the one that has waited longest, is closed. Slow senders from
      many addresses thus cannot keep an honest client out: its request arrives at once, so it
      is neither the longest waiting nor, unless it holds more connections than they do, from
      the fullest address. With nothing waiting (every connection being answered), the newcomer
      is closed instead.
    - A connection whose request head has not arrived within header_seconds (a silent socket, a
      head sent a byte at a time) is closed.
    """
    per_client = max_client_connections or max_connections
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Guarded(H11Protocol):
        _head_timer: Any = None
        _awaiting: Any = None  # the request cycle in place when the next head was awaited
        _waiting_since: float | None = None  # when it began to wait for a head or a body; None while answered

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            over_share = sum(_address(other) == _address(self) for other in self.connections) > per_client
            crowded = not over_share and len(self.connections) > max_connections
            going = _first_to_go(self.connections, self) if crowded else None
            if going is not None:
                going.transport.close()
            if over_share or (crowded and going is None):
                transport.close()
                return
            self._await_head()

        def _await_head(self) -> None:
            self._stop_timer()
            self._awaiting = self.cycle
            self._waiting_since = self.loop.time()
            self._head_timer = self.loop.call_later(header_seconds, self._head_late)

        def _head_late(self) -> None:
            self._head_timer = None
            if self.cycle is self._awaiting and not self.transport.is_closing():
                self.transport.close()

        def _stop_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.cycle is not self._awaiting:  # a head arrived: a request is under way
                self._stop_timer()
                if not self.cycle.more_body:  # and it is whole: it is being answered
                    self._waiting_since = None

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._await_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            super().connection_lost(exc)

    return Guarded


def _address(connection: Any) -> Any:
    client = getattr(connection, "client", None)
    return client[0] if client else None


def _first_to_go(connections: Any, newcomer: Any) -> Any:
    """Of the connections still waiting for a request's head or body (guarded_protocol's
    `_waiting_since`), the one to close for the newcomer: from the address that holds the most
    connections, the one that has waited longest; None if none waits."""
    held: dict[Any, int] = {}
    for other in connections:
        held[_address(other)] = held.get(_address(other), 0) + 1
    waiting = [other for other in connections if other is not newcomer and not other.transport.is_closing()
               and getattr(other, "_waiting_since", None) is not None]
    return min(waiting, key=lambda other: (-held[_address(other)], other._waiting_since), default=None)


def _variants_built(listed: list[api.GameInfo], layers: dict[str, tuple[list[int], list[int]]]) -> list[dict[str, Any]]:
    """The games `listed` (api.variants()) with the n built of each game (a family: of each
    built member), from Database.built()."""
    built = {name: format_ns(full) or None for name, (full, _) in layers.items()}
    summary = {name: format_ns(summary) or None for name, (_, summary) in layers.items()}
    games = []
    for info in listed:
        game = info.to_json()
        if info.members:  # a family: its built members
            game["built"] = {v: built[v] for v in info.members if built.get(v)}
        else:
            game["built"] = built.get(info.variant)
            game["summary_only"] = summary.get(info.variant)
        games.append(game)
    return games


def _add_error_handlers(app: FastAPI, hide: _Scrubber) -> None:
    """Every error as JSON {"error": ...}: zeckdb's with its status, the rest as 400, 404 or 500."""

    @app.exception_handler(ZeckdbError)
    async def zeckdb_error(_: Request, exc: ZeckdbError) -> JSONResponse:
        response = error(status_of(exc), hide(str(exc)))
        if isinstance(exc, BusyError):
            response.headers["Retry-After"] = "1"
        return response

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
        import duckdb

        if isinstance(exc, duckdb.Error):  # the file failing past every check (damaged): 503 naming it
            log.warning("zeckdb: the database failed: %s", exc)
            return error(503, hide(str(failure(exc))))
        log.exception("internal error")
        return error(500, "internal error: see the server's log")


def _add_pages(app: FastAPI) -> None:
    """The web page's files and the liveness probe."""
    pages = {path.name: path for path in web_dir().iterdir() if path.suffix in MEDIA_TYPES}

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(pages["index.html"], media_type=MEDIA_TYPES[".html"])

    @app.get("/static/{name}", include_in_schema=False)
    def asset(name: str) -> Response:
        if name not in pages:  # only the page's own files: no path from the URL reaches the disk
            return error(404, f"no such file: /static/{name[:60]}")
        return FileResponse(pages[name], media_type=MEDIA_TYPES[pages[name].suffix])

    from swagger_ui_bundle import swagger_ui_path  # Swagger UI's files, so that /docs works offline

    @app.get("/docs", include_in_schema=False)
    def docs() -> FileResponse:
        return FileResponse(pages["docs.html"], media_type=MEDIA_TYPES[".html"])

    @app.get("/docs-assets/{name}", include_in_schema=False)
    def docs_asset(name: str) -> Response:
        if name not in DOCS_ASSETS:
            return error(404, f"no such file: /docs-assets/{name[:60]}")
        path = Path(str(swagger_ui_path)) / name
        return FileResponse(path, media_type=MEDIA_TYPES[path.suffix])

    @app.get("/healthz", summary="Liveness")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}


class _Scrubber:
    """Takes the host's paths out of a message: the database's folder, the home folder."""

    def __init__(self, db: Path):
        folders = {str(db.resolve().parent), str(db.parent.absolute()), os.path.expanduser("~")}
        self.paths = sorted((f for f in folders if f not in ("", "/", ".")), key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for path in self.paths:
            text = text.replace(path + os.sep, "").replace(path, "~" if path == os.path.expanduser("~") else ".")
        return text


def _n(text: str) -> int:
    return parse_n(text, "n")


GRACE_SECONDS = 3  # how long a stopping service lets the requests under way finish


def serve(db: str | os.PathLike[str] | None, host: str, port: int, settings: api.Settings | None = None) -> None:
    """Run the service with uvicorn until interrupted (its limits: create_app's). Its log (uvicorn's
    and zeckdb's) goes through servelog.LogWriter: nothing the event loop does waits on it."""
    import uvicorn

    from .servelog import LogWriter

    from .sqlworkers import close_all

    def stopped(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):  # while it starts: end here, and end what it started
        signal.signal(signum, stopped)
    settings = settings or api.settings()
    writer = LogWriter(fd=2)
    writer.attach()
    try:
        app = create_app(db, settings)
        log.info("zeckdb: serving %s on http://%s:%d (API at /docs)", Path(app.state.database.path).resolve(), host,
                 port)
        protocol = guarded_protocol(settings.serve_max_connections, settings.serve_header_seconds,
                                    settings.serve_max_client_connections)
        # a stop waits for the requests under way at most GRACE_SECONDS (an SQL request may run for minutes):
        # their workers are then stopped, and they end
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="info", http=protocol,
                                              log_config=None, timeout_keep_alive=settings.serve_keep_alive_seconds,
                                              timeout_graceful_shutdown=GRACE_SECONDS))
        # uvicorn stops gracefully on SIGINT and SIGTERM; a hang-up (its terminal closed) does the same,
        # so that the workers and every process they started are ended too (SIGHUP's default ends
        # this process alone, and they would die by their own means, a plugin's children left behind)
        signal.signal(signal.SIGHUP, lambda signum, frame: server.handle_exit(signal.SIGTERM, frame))
        server.run()
    finally:  # however it ends (a signal while it started included): no process it started is left
        close_all()
        api.stop_plugin_probes()
        writer.stop()
