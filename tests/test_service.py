"""The query service, tested as a user meets it: a real `zeckdb serve` process (uvicorn) on
loopback, a real HTTP client, every endpoint, bad input on each, the SQL refusals."""

from __future__ import annotations


import pytest

from . import reference as ref
from .http import get, post_sql, serving


@pytest.fixture(scope="module")
def server(small_db):
    with serving(small_db, "--sql-timeout", "2", "--sql-max-rows", "50") as base:
        yield base


def test_lookups_match_the_reference(server):
    code, body, _ = get(server + "/v1/zeckendorf/starts/7")
    want = ref.solve("zeckendorf", (7,))
    assert code == 200 and body["outcome"] == "loss" and body["remoteness"] == want["remoteness"]
    assert body["games_to_end"] == str(want["games"]) and body["moves"][0]["move"] == "merge 2F1"
    code, body, _ = get(server + "/v1/reversed/positions/3,1,0,2")
    assert code == 200 and body["position"] == [3, 1, 0, 2] and body["value"] == 15
    assert body["outcome"] == ("win" if ref.solve("reversed", (3, 1, 0, 2))["win"] else "loss")
    assert len(body["moves"]) == len(ref.MOVES["reversed"]((3, 1, 0, 2)))


def test_principal_lines(server):
    code, body, _ = get(server + "/v1/zeckendorf/mainline/start/7")
    assert code == 200 and [step["position"] for step in body["line"]] == [
        [5, 1], [4, 0, 1], [2, 1, 1], [1, 0, 2], [2, 0, 0, 1], [0, 1, 0, 1]]
    code, body, _ = get(server + "/v1/zeckendorf/mainline/1,0,2")
    assert code == 200 and body["from"]["position"] == [1, 0, 2] and body["line"][-1]["position"] == [0, 1, 0, 1]


def test_status_variants_summary_and_queries(server):
    code, body, _ = get(server + "/v1/status")
    assert code == 200 and body["schema_revision"] and {"variant": "zeckendorf", "ns": "1..40"}.items() <= \
        next(v for v in body["variants"] if v["variant"] == "zeckendorf").items()
    code, body, _ = get(server + "/v1/variants")
    assert code == 200, body
    games = {g["variant"]: g for g in body}
    assert code == 200 and games["reversed"]["built"] == "1..40" and games["quilt"]["built"] == "1..30"
    assert games["black-hole-M (M = 2..12)"]["built"]["black-hole-4"] == "0..50"
    code, body, _ = get(server + "/v1/reversed/summary?n=5..7")
    assert code == 200 and [r["n"] for r in body] == [5, 6, 7]
    assert [r["winner"] for r in body] == [1 if ref.solve("reversed", ref.start("reversed", n))["win"] else 2
                                           for n in (5, 6, 7)]
    code, body, _ = get(server + "/v1/queries")
    assert code == 200 and {"name": "n", "allowed": "a built n", "required": True}.items() <= \
        next(q for q in body if q["name"] == "omega-b")["params"][0].items()
    code, body, _ = get(server + "/v1/queries/winners?variant=zeckendorf&n=1..3")
    assert code == 200 and [row[2] for row in body["rows"]] == [2, 1, 2] and body["total_rows"] == 3
    code, _, text = get(server + "/v1/queries/winners?variant=zeckendorf&n=1..3&format=csv")
    assert code == 200 and text.splitlines()[0] == "variant,n,winner,p1_fraction,minus_inverse_phi"
    code, body, _ = get(server + "/v1/queries/omega-b?variant=zeckendorf&n=4")
    assert code == 200 and body["rows"]


@pytest.mark.parametrize("path, status, message", [
    ("/v1/nope/starts/7", 404, "unknown variant 'nope'"),
    ("/v1/zeckendorf/starts/99", 404, "holds no zeckendorf positions for n = 99: run `zeckdb build"),
    ("/v1/zeckendorf/starts/x", 400, "bad n 'x'"),
    ("/v1/zeckendorf/starts/%D9%A3", 400, "ASCII digits"),
    ("/v1/zeckendorf/positions/3,x", 400, "malformed position '3,x'"),
    ("/v1/zeckendorf/positions/3,-1", 400, "counts cannot be negative"),
    ("/v1/zeckendorf/mainline/0,0,0,0,0,0,0,0,1", 404, "n = 55"),
    ("/v1/reversed/summary?n=1..99999999", 400, "n goes up to 10000"),
    ("/v1/reversed/summary?n=41", 404, "n = 41 is not built for reversed"),
    ("/v1/queries/nope", 404, "unknown query 'nope'"),
    ("/v1/queries/omega-b", 400, "needs parameter n="),
    ("/v1/queries/length-distribution?measure=Q", 400, "measure is P or mu"),
    ("/v1/queries/winners?format=xml", 400, "unknown format 'xml'"),
    ("/v1/queries/reversed-abc?variant=zeckendorf", 400, "written for reversed"),
    ("/nothing", 404, "no such endpoint: GET /nothing"),
])
def test_bad_requests_get_a_one_line_json_error(server, path, status, message):
    code, body, _ = get(server + path)
    assert code == status and set(body) == {"error"}
    assert message in body["error"] and "\n" not in body["error"] and "Traceback" not in body["error"]


def test_sql_reads_within_limits_and_refuses_the_rest(server):
    code, body, _ = post_sql(server, {"sql": "SELECT count(*) AS c FROM builds WHERE variant = 'reversed'"})
    assert code == 200 and body["rows"] == [[40]] and not body["truncated"]
    code, body, _ = post_sql(server, {"sql": "SELECT * FROM range(120)"})
    assert code == 200 and len(body["rows"]) == 50 and body["total_rows"] is None and body["truncated"]
    from .test_sql_sandbox import HOSTILE

    for template in HOSTILE:
        code, body, _ = post_sql(server, {"sql": template.format(W="/tmp", DB="/tmp/x.duckdb")})
        assert code == 400 and set(body) == {"error"} and "\n" not in body["error"], (template, body)
    code, body, _ = post_sql(server, {"sql": "SELECT sum(a.range * b.range) FROM range(300000) a, range(300000) b"})
    assert code == 408 and "time limit of 2 s" in body["error"]
    code, body, _ = post_sql(server, {"sql": "SELECT 1", "parms": [1]})
    assert code == 400 and body["error"] == "bad request: parms: Extra inputs are not permitted", body
    for bad in [{"nosql": 1}, {"sql": 5}, b"garbage", {"sql": "x" * 100_001},
                b'{"sql": "SELECT \'\\ud800\'"}', b'{"sql": "SELECT ?", "params": ["\\udfff"]}']:  # lone surrogates
        code, body, _ = post_sql(server, bad)
        assert code == 400 and body["error"].startswith("bad request"), bad


def test_sql_takes_bind_parameters(server):
    sql = "SELECT n, winner FROM builds WHERE variant = ? AND n BETWEEN ? AND ? ORDER BY n"
    code, body, _ = post_sql(server, {"sql": sql, "params": ["zeckendorf", 5, 7]})
    want = [[n, 1 if ref.solve("zeckendorf", (n,))["win"] else 2] for n in (5, 6, 7)]
    assert code == 200 and body["rows"] == want, body
    code, body, _ = post_sql(server, {"sql": "SELECT $v AS v, $k + 1 AS k", "params": {"v": "x'; DROP TABLE builds; --",
                                                                                      "k": 41}})
    assert code == 200 and body["rows"] == [["x'; DROP TABLE builds; --", 42]]  # a value, never SQL
    code, body, _ = post_sql(server, {"sql": "SELECT list_sum(?)", "params": [[1, 2]]})
    assert code == 200 and body["rows"] == [[3]]
    for bad in [{"sql": "SELECT ?", "params": [[[1]]]}, {"sql": "SELECT ?", "params": [{"a": 1}]},
                {"sql": "SELECT ?", "params": "40"}, {"sql": "SELECT ?", "params": list(range(1001))},
                {"sql": "SELECT ?", "params": [2 ** 70]}, {"sql": "SELECT ?, ?", "params": [1]}]:
        code, body, _ = post_sql(server, bad)
        assert code == 400 and set(body) == {"error"} and "\n" not in body["error"], (bad, body)
    for number in (b"Infinity", b"-Infinity", b"NaN"):  # JSON's extensions: they bound as NULL
        code, body, _ = post_sql(server, b'{"sql": "SELECT ? AS x", "params": [' + number + b"]}")
        assert code == 400 and "give a finite number" in body["error"], (number, body)


def test_a_slow_query_does_not_stall_lookups(small_db):
    """Lookups are answered while a query that runs to its time limit is still running: they
    do not wait for it (no wall-clock bound: the order of the answers says it). The slow
    request is written whole before the lookup is sent, and its answer is not there yet when
    the lookup's is: its limit (10 minutes here) is far past any lookup on a loaded machine
    (with the suite's 2 s, a lookup slowed by the load outlived it)."""
    import http.client
    import json
    import select
    from urllib.parse import urlparse

    with serving(small_db, "--sql-timeout", "600") as server:
        where = urlparse(server)
        slow = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
        try:
            slow.request("POST", "/v1/sql", json.dumps({
                "sql": "SELECT sum(a.range * b.range) FROM range(300000) a, range(300000) b"}),
                {"Content-Type": "application/json"})  # returns once the request is sent
            code, _, _ = get(server + "/v1/zeckendorf/starts/20")
            assert code == 200
            readable, _, _ = select.select([slow.sock], [], [], 0)
            assert not readable  # the slow query had not answered when the lookup had
        finally:
            slow.close()  # the server, ending, stops its worker


def test_a_game_under_two_profiles(server):
    from fractions import Fraction

    code, body, _ = get(server + "/v1/zeckendorf/play?start=8&p1=random&p2=random")
    q, _, _ = ref.random_odds("zeckendorf", (8,))
    assert code == 200 and abs(body["p1_wins"] - float(q)) < 1e-12 and body["lengths"]
    assert abs(sum(Fraction(v) for v in body["lengths"].values()) - 1) < 1e-9
    code, body, _ = get(server + "/v1/zeckendorf/play?position=3,1&p1=combine-largest&p2=combine-largest")
    assert code == 200 and body["shortest"] == body["longest"]
    code, body, _ = get(server + "/v1/reversed/play?start=8&p1=split-smallest")
    assert code == 400 and "preference of the Zeckendorf game" in body["error"]
    # the page's question: the computer's move under its profile, without the length distribution
    code, body, _ = get(server + "/v1/zeckendorf/play?start=7&p1=best-response&p2=random&distribution=false")
    (move,) = body["p1_moves"]
    assert code == 200 and "lengths" not in body and move["probability"] == 1.0
    assert ref.norm(move["position"]) in ref.MOVES["zeckendorf"]((7,))
    code, body, _ = get(server + "/v1/zeckendorf/play?start=7&distribution=maybe")
    assert code == 400 and "distribution" in body["error"]


def test_openapi_documents_the_api(server):
    code, body, _ = get(server + "/openapi.json")
    assert code == 200 and {"/v1/sql", "/v1/{variant}/positions/{position}", "/healthz"} <= set(body["paths"])
    summary = body["paths"]["/v1/plots/{kind}"]["get"]["summary"]
    kinds = summary[summary.index("kind: ") + 6:summary.index(")")].split(", ")
    assert kinds == ["length-distribution", "winners", "conventions", "lengths", "p-positions", "remoteness", "profiles"]


def test_the_services_cache_of_move_values_answers_as_the_database(small_db):
    """The service reads the values of moves' positions from whole-layer arrays (MoveValues):
    every lookup of every position of some layers must equal the plain lookup."""
    from zeckdb import api
    from zeckdb.reader import MoveValues

    from .reference import layer_positions, positions

    with api.open(small_db) as plain:
        cached = api.Database(small_db, shared=True)  # the service's: its move values from whole layers
        cached._shared.current.move_values = MoveValues(max_bytes=1)  # tiny: layers dropped and loaded again
        try:
            # layers of both tables behind the view positions (quilt and the games of three
            # players are stored with every column), moves into lower layers (black-hole-3)
            for variant, layer in [("zeckendorf", positions("zeckendorf", 12)), ("reversed", positions("reversed", 15)),
                                   ("zeckendorf", positions("zeckendorf", 1)), ("quilt", positions("quilt", 9)),
                                   ("zeckendorf-p3", positions("zeckendorf", 11)),
                                   ("black-hole-3", layer_positions("black-hole-3", 14))]:
                for position in layer:
                    assert cached.position(variant, position) == plain.position(variant, position)
            with pytest.raises(Exception, match="holds no zeckendorf positions for n = 99"):
                cached.position("zeckendorf", start=99)
        finally:
            cached.close()


def test_the_page_and_only_its_files(server):
    code, _, text = get(server + "/")
    assert code == 200 and "<title>zeckdb</title>" in text
    for name in ("app.js", "style.css", "index.html"):
        assert get(f"{server}/static/{name}")[0] == 200
    for hostile in ("../../pyproject.toml", "..%2F..%2Fpyproject.toml", "%2e%2e/%2e%2e/etc/passwd", "app.js%00.css",
                    "nothing.js", "..", "web"):
        code, body, _ = get(f"{server}/static/{hostile}")
        assert code == 404 and set(body) == {"error"} and "\n" not in body["error"], (hostile, code, body)


def test_plots_as_svg(server):
    code, _, text = get(server + "/v1/plots/length-distribution?variant=zeckendorf&n=12&measure=mu")
    assert code == 200 and "<svg" in text and "zeckendorf, n = 12" in text
    code, _, text = get(server + "/v1/plots/winners?variant=reversed")
    assert code == 200 and "<svg" in text
    for url, status, message in [("/v1/plots/pie?variant=zeckendorf", 400, "unknown plot 'pie'"),
                                 ("/v1/plots/remoteness?variant=zeckendorf", 400, "remoteness needs n"),
                                 ("/v1/plots/winners?variant=nope", 404, "unknown variant"),
                                 ("/v1/plots/remoteness?variant=zeckendorf&n=99", 404, "n = 99 is not built"),
                                 ("/v1/plots/winners", 400, "bad request")]:
        code, body, _ = get(server + url)
        assert code == status and message in body["error"], (url, code, body)
