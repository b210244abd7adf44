"""The fq-decompositions query (L(n), l(n) and the FQ-legal decompositions of every n) against a
brute force written here from the rules of docs/games.md (every set of quilt terms, filtered),
against the terminal positions of a full build of the quilt game, and against the published
facts of Miller and Newlon (2019); and the construction docs/findings.md gives for an unbounded
L(n) - l(n), checked term by term."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
import re

import pytest

import zeckdb

ROOT = Path(__file__).resolve().parent.parent
BRUTE_N = 200  # every set of the 18 quilt terms <= 200
BUILD_N = 40  # the quilt game built in full here


def quilt_terms(top: int) -> list[int]:
    """q_1.. up to top, as docs/games.md defines them: 1, 2, 3, 4, then q_i = q_{i-2} + q_{i-3}
    (index i is q[i - 1])."""
    q = [1, 2, 3, 4]
    while q[-2] + q[-3] <= top:
        q.append(q[-2] + q[-3])
    return [t for t in q if t <= top]


def legal(indices: tuple[int, ...] | list[int]) -> bool:
    """FQ-legal: distinct indices, no two at distance 1, 3 or 4, and not both q_1 and q_3."""
    if len(set(indices)) != len(indices) or {1, 3} <= set(indices):
        return False
    return all(abs(a - b) not in (1, 3, 4) for a, b in combinations(indices, 2))


@pytest.fixture(scope="module")
def brute() -> dict[int, list[int]]:
    """n -> the number of terms of each FQ-legal decomposition of n, for n <= BRUTE_N: every
    subset of the quilt terms <= BRUTE_N, kept if its sum is at most BRUTE_N and it is legal."""
    q = quilt_terms(BRUTE_N)
    sizes: dict[int, list[int]] = {n: [] for n in range(1, BRUTE_N + 1)}
    for r in range(1, len(q) + 1):
        for chosen in combinations(range(1, len(q) + 1), r):
            total = sum(q[i - 1] for i in chosen)
            if total <= BRUTE_N and legal(chosen):
                sizes[total].append(r)
    return sizes


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fq") / "quilt.duckdb"
    zeckdb.build(path, ["quilt"], f"1..{BUILD_N}")
    return path


def ask(db: Path, **params: object) -> list[dict]:
    with zeckdb.open(db) as store:
        result = store.query("fq-decompositions", params={k: str(v) for k, v in params.items()}, max_rows=0)
    return [dict(zip(result.columns, row, strict=True)) for row in result.rows]


@pytest.fixture(scope="module")
def to_200(db) -> dict[int, dict]:
    return {r["n"]: r for r in ask(db, max_n=BRUTE_N)}


@pytest.fixture(scope="module")
def first_to_10_5(db) -> list[dict]:
    """The first n of each difference, n <= 10^5."""
    return ask(db, max_n=100_000, rows="first")


def test_every_n_to_200_against_the_brute_force(brute, to_200):
    assert sorted(to_200) == list(range(1, BRUTE_N + 1))
    for n, sizes in brute.items():
        r = to_200[n]
        assert (r["most_terms"], r["fewest_terms"], r["decompositions"]) == (max(sizes), min(sizes), len(sizes)), n
        assert r["difference"] == max(sizes) - min(sizes)


def test_the_largest_quilt_term_below_n(to_200):
    q = quilt_terms(BRUTE_N)
    for n, r in to_200.items():
        k = max(i for i in range(1, len(q) + 1) if q[i - 1] <= n)
        assert (r["largest_index"], r["largest_term"], r["beyond_largest"]) == (k, q[k - 1], n - q[k - 1])


def test_the_published_facts(brute, to_200):
    q = quilt_terms(100)
    index = {t: i + 1 for i, t in enumerate(q)}
    # L(50) = 4: 50 = 49 + 1 = 2 + 4 + 16 + 28, both FQ-legal
    assert to_200[50]["most_terms"] == 4 and to_200[50]["fewest_terms"] == 2
    assert legal([index[49], index[1]]) and legal([index[t] for t in (2, 4, 16, 28)])
    # 8 = 1 + 7 = 3 + 5: not unique
    assert to_200[8]["decompositions"] == 2 and legal([index[1], index[7]]) and legal([index[3], index[5]])
    # the paper's examples of L(n) - l(n) = 0 and = 2 exist
    assert {0, 2} <= {r["difference"] for r in to_200.values()}


def test_the_first_n_of_each_difference(brute, db):
    first: dict[int, int] = {}
    for n in sorted(brute):
        first.setdefault(max(brute[n]) - min(brute[n]), n)
    rows = ask(db, max_n=BRUTE_N, rows="first")
    assert {r["difference"]: r["n"] for r in rows} == first and [r["n"] for r in rows] == sorted(first.values())


def test_the_terminal_positions_of_the_full_build(db, to_200):
    """The quilt game's games end at the FQ-legal decompositions (docs/games.md): per n, the terminal
    positions of the build are as many as the decompositions, and hold at most L(n) and at least
    l(n) terms."""
    with zeckdb.open(db) as store:
        result = store.sql(
            "SELECT n, count(*), max(terms), min(terms) FROM (SELECT n, list_sum(list_transform("
            "list_value(*COLUMNS('^c\\d+$')), lambda x: coalesce(x, 0))) AS terms FROM positions "
            "WHERE variant = 'quilt' AND is_terminal) GROUP BY n ORDER BY n")
    assert [row[0] for row in result.rows] == list(range(1, BUILD_N + 1))
    for n, count, most, fewest in result.rows:
        r = to_200[n]
        assert (count, most, fewest) == (r["decompositions"], r["most_terms"], r["fewest_terms"]), n


def construction(j: int) -> tuple[int, list[int], list[int]]:
    """docs/findings.md's n with L(n) - l(n) >= 2j: n = q_{8j+5} + q_1, with the FQ-legal
    decompositions {8j+5, 1} (2 terms) and {2, 4} and {8t+1, 8t+3} for t = 1..j (2j + 2 terms)."""
    q = quilt_terms(10**12)
    n = q[8 * j + 5 - 1] + q[0]
    return n, [8 * j + 5, 1], [2, 4, *[8 * t + s for t in range(1, j + 1) for s in (1, 3)]]


def odd_construction(j: int) -> tuple[int, list[int], list[int]]:
    """n = q_{8j+1} + q_4, with {8j+1, 4} and {1, 6, 8} and {8t+5, 8t+7} for t = 1..j-1 (2j + 1 terms)."""
    q = quilt_terms(10**12)
    n = q[8 * j + 1 - 1] + q[3]
    return n, [8 * j + 1, 4], [1, 6, 8, *[8 * t + s for t in range(1, j) for s in (5, 7)]]


@pytest.mark.parametrize("make", [construction, odd_construction])
def test_the_construction_of_an_unbounded_difference(make, first_to_10_5):
    q = quilt_terms(10**12)
    for j in range(1, 12):
        n, few, many = make(j)
        for decomposition in (few, many):
            assert legal(decomposition) and sum(q[i - 1] for i in decomposition) == n, (j, decomposition)
    # the identity behind it, q_{r+8} = q_{r+6} + q_{r+4} + q_r (r >= 2), and where it fails
    assert all(q[r + 7] == q[r + 5] + q[r + 3] + q[r - 1] for r in range(2, 40)) and q[8] != q[6] + q[4] + q[0]
    # where the query reaches them, they are the first n of their difference
    first = {r["difference"]: r for r in first_to_10_5}
    reached = [make(j) for j in range(1, 12) if make(j)[0] <= 100_000]
    assert len(reached) == 4
    for n, few, many in reached:
        d = len(many) - len(few)
        assert first[d]["n"] == n and first[d]["most_terms"] == len(many) and first[d]["fewest_terms"] == 2


def test_the_findings_table_is_the_querys(first_to_10_5):
    """docs/findings.md's table of the first n of each difference: its rows to 10^5 are what the
    query gives (the rest need a larger max_n than a test should run)."""
    text = (ROOT / "docs" / "findings.md").read_text()
    begin, end = "<!-- findings:fq-first -->", "<!-- /findings:fq-first -->"
    table = text[text.index(begin) + len(begin): text.index(end)]
    written = [tuple(int(cell) for cell in line.strip("| ").split(" | "))
               for line in table.strip().splitlines() if re.match(r"\| \d", line)]
    rows = first_to_10_5
    columns = ["difference", "n", "most_terms", "fewest_terms", "decompositions", "largest_index", "beyond_largest"]
    assert [row for row in written if row[1] <= 100_000] == [tuple(r[c] for c in columns) for r in rows]
    assert len(written) > len(rows)  # the table goes past 10^5


def test_the_bound_on_the_most_terms(db):
    """Sorted indices of an FQ-legal decomposition step by 2 or by 5 or more, never by 2 twice in a
    row: so L(n) <= 2 (k - 1) / 7 + 2 for the largest index k <= n (docs/findings.md)."""
    rows = ask(db, max_n=100_000)
    assert len(rows) == 100_000
    for r in rows:
        assert r["most_terms"] <= 2 * (r["largest_index"] - 1) / 7 + 2, r
