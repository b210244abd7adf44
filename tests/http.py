"""A real `zeckdb serve` process on loopback and a plain HTTP client for the tests."""

from __future__ import annotations

from contextlib import contextmanager
import json
import os
from pathlib import Path
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
import urllib.error
import urllib.request

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Base(str):
    """A server's base URL, with the server's process id."""

    pid: int


@contextmanager
def serving(db: Path, *options: str, env: dict[str, str] | None = None) -> Iterator[Base]:
    """Run `zeckdb serve` over db until the block ends (env: more environment variables);
    yields the base URL once it answers."""
    port = free_port()
    log = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed with the server) - not a pipe: a server logging thousands of requests would fill it and block
    proc = subprocess.Popen([sys.executable, "-m", "zeckdb.cli.main", "serve", "--db", str(db),
                             "--port", str(port), *options],
                            stdout=log, stderr=subprocess.STDOUT, text=True, env={**os.environ, **(env or {})})
    base = Base(f"http://127.0.0.1:{port}")
    base.pid = proc.pid
    deadline = time.time() + 60
    while True:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"zeckdb serve exited: {log.read()}")
            if time.time() > deadline:
                proc.kill()
                pytest.fail("zeckdb serve did not answer within 60 s")
            time.sleep(0.1)
    try:
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def get(url: str) -> tuple[int, object, str]:
    return request(urllib.request.Request(url))


def post_sql(base: str, body: object) -> tuple[int, object, str]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return request(urllib.request.Request(base + "/v1/sql", data=data, method="POST",
                                          headers={"Content-Type": "application/json"}))


def request(req: urllib.request.Request) -> tuple[int, object, str]:
    """(status, parsed JSON or None, text) of a request; HTTP errors are answers too."""
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            text = r.read().decode()
            kind = r.headers.get("content-type", "")
            return r.status, json.loads(text) if "json" in kind else None, text
    except urllib.error.HTTPError as exc:
        text = exc.read().decode()
        return exc.code, json.loads(text), text
