"""What bounds a connection to `zeckdb serve`, against a real server process: silent and
half-sent connections are closed, a connection beyond the limit is refused while lookups go on,
a body past its limit gets 413 before it is read, every answer carries the security headers,
and /docs is served from the package's own files (no CDN)."""

from __future__ import annotations

import http.client
import socket
import threading
import time

import pytest

from .hostile import hold_slow_bodies
from .http import get, serving


@pytest.fixture(scope="module")
def server(small_db):
    with serving(small_db, "--max-connections", "16", "--header-timeout", "1", "--body-timeout", "1",
                 "--max-client-connections", "16") as base:
        yield base


def port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes the socket (an empty read) within `seconds`."""
    sock.settimeout(seconds)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_silent_and_half_sent_connections_are_closed(server):
    silent = socket.create_connection(("127.0.0.1", port(server)))
    half = socket.create_connection(("127.0.0.1", port(server)))
    half.sendall(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n")  # the head never ends
    assert closed_within(silent, 30) and closed_within(half, 30)  # the limit is 1 s; 30 is room for a busy machine
    code, _, _ = get(server + "/healthz")
    assert code == 200


def test_connections_beyond_the_limit_are_refused_and_lookups_go_on(server):
    held = [socket.create_connection(("127.0.0.1", port(server))) for _ in range(40)]
    try:
        refused = sum(closed_within(s, 0.5) for s in held[20:])
        assert refused >= 15, refused  # the 16 allowed are silent, so beyond them each is closed at once
    finally:
        for s in held:
            s.close()
    for _ in range(200):  # the silent ones let go of their places within the head's time limit
        code, body, _ = get(server + "/v1/zeckendorf/starts/7")
        if code == 200:
            break
        time.sleep(0.1)
    assert code == 200 and body["outcome"] == "loss"


def test_a_body_past_its_limit_gets_413_unread(server):
    conn = http.client.HTTPConnection("127.0.0.1", port(server), timeout=30)
    conn.putrequest("POST", "/v1/sql")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(300_000_000))  # announced, never sent
    conn.endheaders()
    response = conn.getresponse()
    assert response.status == 413 and b"the request body is over" in response.read()
    conn.close()
    chunked = http.client.HTTPConnection("127.0.0.1", port(server), timeout=30)
    chunked.putrequest("POST", "/v1/sql")
    chunked.putheader("Transfer-Encoding", "chunked")
    chunked.endheaders()
    piece = b"x" * 65536
    try:
        for _ in range(40):  # 2.6 MB, past the 1 MB limit: refused once it passes it
            chunked.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
    except OSError:
        pass  # the server answered and closed: what follows is its answer
    response = chunked.getresponse()
    assert response.status == 413
    chunked.close()


def test_a_body_sent_a_byte_at_a_time_gets_408_and_lets_go(server):
    """A body that trickles in (a byte a second of a million announced) held its connection for
    as long as the client liked: 600 of them kept every slot, and every lookup was refused."""
    conn = http.client.HTTPConnection("127.0.0.1", port(server), timeout=60)
    conn.putrequest("POST", "/v1/sql")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", "1000")
    conn.endheaders()
    conn.send(b"{")  # then nothing: the server answers within its body time limit, not ours
    response = conn.getresponse()
    assert response.status == 408 and b"did not arrive within 1 s" in response.read()
    conn.close()


def test_one_client_cannot_hold_every_connection(small_db):
    """Beyond its share one address's connections are closed at once, while there is room for others."""
    with serving(small_db, "--max-connections", "64", "--max-client-connections", "4", "--header-timeout", "30") as base:
        held = [socket.create_connection(("127.0.0.1", port(base))) for _ in range(12)]
        try:
            refused = sum(closed_within(s, 0.5) for s in held[4:])
            assert refused == 8, refused
            assert not closed_within(held[0], 0.2)  # the first four stay
        finally:
            for s in held:
                s.close()
        code, _, _ = get(base + "/healthz")
        assert code == 200


def test_slow_bodies_from_many_addresses_do_not_keep_lookups_out(small_db):
    """Nine addresses of 60 slow bodies each filled the 512 places, and honest lookups were
    refused. A newcomer now takes the place of the longest-waiting connection of the fullest
    address, so every honest lookup is answered while the attack goes on."""
    with serving(small_db, "--max-connections", "24", "--max-client-connections", "6", "--header-timeout", "60",
                 "--body-timeout", "60") as base:
        stop, turned_away, holding = threading.Event(), [0], {}
        attack = [threading.Thread(target=hold_slow_bodies, args=(port(base), f"127.0.0.{i}", 6, stop, turned_away,
                                                                  holding), daemon=True)
                  for i in range(2, 8)]  # 36 bodies for 24 places
        for t in attack:
            t.start()
        try:
            deadline = time.time() + 60
            while turned_away[0] < 12 and time.time() < deadline:  # every place taken: the server turns some away
                time.sleep(0.1)
            assert turned_away[0] >= 12, turned_away
            answered = [get(base + "/v1/zeckendorf/starts/7")[0] for _ in range(20)]
            assert answered == [200] * 20, answered
            assert sum(holding.values()) >= 12  # and the attack was still holding places meanwhile
        finally:
            stop.set()
            for t in attack:
                t.join()


def test_every_answer_carries_the_security_headers(server):
    for path in ("/", "/static/app.js", "/v1/status", "/docs", "/no/such/page"):
        conn = http.client.HTTPConnection("127.0.0.1", port(server), timeout=30)
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        headers = {k.lower(): v for k, v in response.getheaders()}
        conn.close()
        policy = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy, path
        assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY", path


def test_docs_work_offline(server):
    code, _, page = get(server + "/docs")
    assert code == 200 and "/docs-assets/swagger-ui-bundle.js" in page and "http" not in page.lower()
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        code, _, body = get(server + "/docs-assets/" + asset)
        assert code == 200 and len(body) > 10_000
    code, body, _ = get(server + "/docs-assets/..%2F..%2Fpyproject.toml")
    assert code == 404
