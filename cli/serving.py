"""The command that serves the database over HTTP: serve."""

from __future__ import annotations

import typer

from zeckdb import api

from .app import (DbOption, _setting_option, app)


@app.command()
def serve(
    db: str | None = DbOption,
    host: str = typer.Option("127.0.0.1", "--host", metavar="ADDRESS", help="Address to listen on (loopback by default)."),
    port: int = typer.Option(8000, "--port", metavar="PORT", help="Port to listen on.", min=1, max=65535),
    sql_timeout: float | None = _setting_option("serve_sql_timeout", "--sql-timeout", "SECONDS"),
    sql_max_rows: int | None = _setting_option("serve_sql_max_rows", "--sql-max-rows", "ROWS"),
    max_heavy: int | None = _setting_option("serve_max_heavy", "--max-heavy", "COUNT"),
    queue_seconds: float | None = _setting_option("serve_queue_seconds", "--queue-seconds", "SECONDS"),
    memory_limit: str | None = _setting_option("serve_memory_limit", "--memory-limit", "SIZE"),
    max_connections: int | None = _setting_option("serve_max_connections", "--max-connections", "COUNT"),
    header_timeout: float | None = _setting_option("serve_header_seconds", "--header-timeout", "SECONDS"),
    body_timeout: float | None = _setting_option("serve_body_seconds", "--body-timeout", "SECONDS"),
    max_client_connections: int | None = _setting_option("serve_max_client_connections", "--max-client-connections",
                                                         "COUNT"),
    allowed_hosts: str | None = _setting_option("serve_allowed_hosts", "--allowed-hosts", "NAMES"),
) -> None:
    """Serve the database read-only over HTTP: a web page at / and a JSON API at /v1 (documented at /docs).

    GET /v1/variants, /v1/status, /v1/{variant}/positions/{position},
    /v1/{variant}/starts/{n}, /v1/{variant}/mainline/{position} (or /start/{n}),
    /v1/{variant}/summary?n=RANGE, /v1/queries, /v1/queries/{name}?variant=&n=&...,
    /v1/plots/{kind}?variant=&n= (SVG); POST /v1/sql {"sql": "..."}; GET /healthz.
    Errors are JSON {"error": "..."}. A build may write the database meanwhile:
    answers come from the layers it has committed. Nothing the service answers
    names a folder of the host: the database is named by its file name only.
    """
    from zeckdb.service import serve as run_service

    settings = api.settings().changed(
        serve_sql_timeout=sql_timeout, serve_sql_max_rows=sql_max_rows, serve_max_heavy=max_heavy,
        serve_queue_seconds=queue_seconds, serve_memory_limit=memory_limit, serve_max_connections=max_connections,
        serve_header_seconds=header_timeout, serve_body_seconds=body_timeout,
        serve_max_client_connections=max_client_connections, serve_allowed_hosts=allowed_hosts)
    run_service(db, host, port, settings)
