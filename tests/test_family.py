"""The Black Hole games, their Empty-Board pre-game, Fibonacci nim, the build-up game, the
ordered game and the accelerated game: the database against the independent solver in reference.py, and the facts
of docs/games.md and the papers."""

from __future__ import annotations

import functools
import itertools
import json

import duckdb
import pytest

from zeckdb import api
from zeckdb.store import StoreWriter

from . import reference as ref
from .conftest import (BLACK_HOLE_N, GAMES, BLACK_HOLES, BUILD_UP_N, MORE_BLACK_HOLE_N, MORE_BLACK_HOLES, NIM_N, ORDERED_N,
                       as_games, rows, run)

# every column is cross-checked on these layers (kept small: the reference is plain Python)
CHECKED = {**{name: range(0, 16) for name in BLACK_HOLES}, **{name: range(1, MORE_BLACK_HOLE_N + 1) for name in MORE_BLACK_HOLES},
           "fibonacci-nim": range(0, 26), "build-up": range(1, 13), "ordered": range(1, 12),
           "accelerated": range(1, 15)}


def stored_layer(con, variant: str, n: int) -> dict[tuple, dict]:
    out = {}
    for r in rows(con, "SELECT * FROM positions WHERE variant = ? AND n = ?", [variant, n]):
        if r["entries"] is not None:  # an ordered list: its entries are the position
            out[tuple(r["entries"])] = r
        else:
            out[ref.norm([r[f"c{i}"] or 0 for i in range(1, 17)])] = r
    return out



def assert_matches_reference(row: dict, variant: str, n: int, p: tuple[int, ...]) -> None:
    """A stored position's solved columns against the reference solver's."""
    want = ref.solve(variant, p)
    where = f"{variant} n={n} {p}"
    assert row["outcome"] == ("win" if want["win"] else "loss"), where
    assert (row["remoteness"], row["min_remaining"], row["max_remaining"]) == \
        (want["remoteness"], want["min"], want["max"]), where
    assert row["games_to_end"] == want["games"], where
    assert row["expected_remaining"] == pytest.approx(float(want["expected"]), rel=1e-6), where
    assert (row["grundy"], row["winning_moves"]) == (want["grundy"], want["winning"]), where
    assert row["legal_moves"] == len(ref.MOVES[variant](p)), where
    assert row["is_start"] == (p == ref.family_start(variant, n)), where

def count_vectors(weights: list[int], total: int) -> set[tuple[int, ...]]:
    """Every vector of non-negative counts with sum(count * weight) == total (brute force)."""
    ranges = [range(total // w + 1) for w in weights]
    return {ref.norm(list(c)) for c in itertools.product(*ranges)
            if sum(x * w for x, w in zip(c, weights, strict=True)) == total}


def layer_weights(variant: str) -> list[int]:
    m = int(variant.rsplit("-", 1)[1])
    board = ref.FIB[: m - 1]
    return board + [1] if "empty-board" in variant else board


@pytest.mark.parametrize("variant", sorted(CHECKED))
def test_every_stored_position_matches_the_reference(con, variant):
    for n in CHECKED[variant]:
        stored = stored_layer(con, variant, n)
        if variant == "fibonacci-nim":
            assert set(stored) == {ref.norm([n, k]) for k in range(n + 1)}
        elif variant == "build-up":
            assert set(stored) == count_vectors([1, 2, 3, 1], n)
        elif variant == "ordered":  # every ordering of every Fibonacci partition, and each is reachable
            assert set(stored) == ref.fibonacci_compositions(n) == ref.layer_positions(variant, n)
        elif variant == "accelerated":  # the Zeckendorf game's positions: every Fibonacci partition
            assert set(stored) == count_vectors(ref.FIB[:6], n)
        elif "empty-board" in variant:  # placing leaves bins 2..m-2 empty until nothing is left to place
            m = int(variant.rsplit("-", 1)[1])
            assert set(stored) == {p for p in count_vectors(layer_weights(variant), n)
                                   if len(p) < m or p[m - 1] == 0 or not any(p[1:m - 2])}
        else:
            assert set(stored) == count_vectors(layer_weights(variant), n)
        assert ref.layer_positions(variant, n) <= set(stored)
        for p, row in stored.items():
            assert_matches_reference(row, variant, n, p)


@pytest.mark.parametrize("variant", sorted(CHECKED))
def test_stored_moves_match_the_reference_across_layers(con, variant):
    @functools.cache
    def by_id(n: int) -> dict[int, tuple]:  # each layer read once, however many layers move into it
        return {row["id"]: p for p, row in stored_layer(con, variant, n).items()}

    for n in CHECKED[variant]:
        stored = by_id(n)
        below = {r["dst_n"]: by_id(r["dst_n"])
                 for r in rows(con, "SELECT DISTINCT dst_n FROM moves WHERE variant = ? AND n = ?", [variant, n])}
        got = sorted((stored[r["src"]], below[r["dst_n"]][r["dst"]])
                     for r in rows(con, "SELECT src, dst, dst_n FROM moves WHERE variant = ? AND n = ?", [variant, n]))
        want = sorted((p, c) for p in stored.values() for c in ref.MOVES[variant](p))
        assert got == want, f"{variant} n={n}"


@pytest.mark.parametrize("variant", sorted(CHECKED))
def test_summaries_distributions_and_random_play_match_the_reference(con, variant):
    for n in [n for n in CHECKED[variant] if n >= 1]:
        start = ref.family_start(variant, n)
        want = ref.solve(variant, start)
        (b,) = rows(con, "SELECT * FROM builds WHERE variant = ? AND n = ?", [variant, n])
        assert b["winner"] == (1 if want["win"] else 2)
        assert (b["min_length"], b["max_length"], int(b["games"])) == (want["min"], want["max"], want["games"])
        assert b["expected_length"] == pytest.approx(float(want["expected"]), rel=1e-12)
        prob, count = ref.remaining_lengths(variant, start)
        dist = rows(con, "SELECT measure, length, probability, games_exact FROM length_distribution "
                         "WHERE variant = ? AND n = ?", [variant, n])
        assert {r["length"]: r["probability"] for r in dist if r["measure"] == "P" and r["probability"]} == \
            pytest.approx({k: float(v) for k, v in prob.items()}, rel=1e-12)
        assert {r["length"]: int(r["games_exact"]) for r in dist if r["measure"] == "mu" and int(r["games_exact"])} == count
        (odds,) = rows(con, "SELECT * FROM random_play WHERE variant = ? AND n = ?", [variant, n])
        both, p1_perfect, random_to_move = ref.random_odds(variant, start)
        assert odds["p1_wins_random"] == pytest.approx(float(both), rel=1e-12)
        assert odds["p1_wins_p1_perfect"] == pytest.approx(float(p1_perfect), rel=1e-12)
        assert odds["p1_wins_p2_perfect"] == pytest.approx(float(1 - random_to_move), rel=1e-12)


@pytest.mark.parametrize("variant", ["black-hole-4", "black-hole-empty-board-3", "fibonacci-nim"])
def test_winning_strategy_flags_follow_the_start_within_its_layer(con, variant):
    """Moves that leave the layer belong to the lower layer's own starts; the flag marks
    what the winner's strategies from the start reach without leaving the layer."""
    for n in range(1, 16):
        stored = stored_layer(con, variant, n)
        seen, stack = set(), [ref.family_start(variant, n)]
        while stack:
            p = stack.pop()
            if p in seen or ref.family_layer(variant, p) != n:
                continue
            seen.add(p)
            winner_moves = ref.solve(variant, p)["win"]
            stack.extend(c for c in ref.MOVES[variant](p) if not winner_moves or not ref.solve(variant, c)["win"])
        assert {p for p, r in stored.items() if r["in_winning_strategies"]} == seen, f"{variant} n={n}"


# -- docs/games.md: Cashman, Miller, Shuffelton, Son ---------------------------
def p_positions(con, variant: str) -> set[tuple[int, ...]]:
    return {ref.norm([r[f"c{i}"] or 0 for i in range(1, 17)])
            for r in rows(con, "SELECT * FROM positions WHERE variant = ? AND outcome = 'loss'", [variant])}


def test_black_hole_2_p_positions_are_x_mod_4_in_0_1(con):
    got = p_positions(con, "black-hole-2")
    assert {p for p in got} == {ref.norm([x]) for x in range(BLACK_HOLE_N + 1) if x % 4 in (0, 1)}


def test_black_hole_3_p_positions_by_residues_mod_3(con):
    every = count_vectors([1, 2], 0) | set().union(*(count_vectors([1, 2], n) for n in range(1, BLACK_HOLE_N + 1)))
    want = {p for p in every if ((list(p) + [0, 0])[0] % 3, (list(p) + [0, 0])[1] % 3) in {(0, 0), (1, 0), (0, 1)}}
    assert p_positions(con, "black-hole-3") == want


def test_black_hole_4_facts_on_x1_0_0_and_0_0_x3(con):
    p = p_positions(con, "black-hole-4")
    for x1 in range(BLACK_HOLE_N + 1):
        assert (ref.norm([x1]) in p) == (x1 != 2), x1
    for x3 in range(2, BLACK_HOLE_N // 3 + 1):
        assert (ref.norm([0, 0, x3]) in p) == (x3 == 5), x3  # N-positions for x3 >= 2, except x3 = 5


def empty_board_winners(con, m: int) -> dict[int, int]:
    return {r["n"]: r["winner"] for r in rows(con, "SELECT n, winner FROM builds WHERE variant = ? AND n >= 1",
                                               [f"black-hole-empty-board-{m}"])}


def test_empty_board_winners_for_m_2_3_4(con):
    ns = range(1, BLACK_HOLE_N + 1)
    assert empty_board_winners(con, 2) == {n: 1 if n % 4 in (1, 2) else 2 for n in ns}
    assert empty_board_winners(con, 3) == {n: 1 if n % 9 in (1, 2, 3, 6, 8) else 2 for n in ns}

    def m4(n: int) -> int:
        if n in (17, 47):
            return 2
        if n in (2, 32):
            return 1
        return 1 if n % 16 in (1, 3, 5, 7, 8, 10, 12, 14, 15) else 2

    assert empty_board_winners(con, 4) == {n: m4(n) for n in ns}


def test_black_hole_p_positions_query_lists_exactly_the_p_positions(small_db):
    """Every P-position of black-hole-3 with value <= 50, found by the reference among all its
    positions, and nothing else."""
    with api.open(small_db) as store:
        result = store.query("black-hole-p-positions", variant="black-hole-3", n=None, params={"mod": "3"})
    as_dicts = [dict(zip(result.columns, r, strict=False)) for r in result.rows]
    listed = [ref.norm([r["c1"], r["c2"]]) for r in as_dicts]
    every = set().union(*(count_vectors([1, 2], n) for n in range(0, BLACK_HOLE_N + 1)))
    assert len(listed) == len(set(listed))
    assert set(listed) == {p for p in every if not ref.solve("black-hole-3", p)["win"]}
    assert {tuple(r["residues"]) for r in as_dicts} == {(0, 0), (1, 0), (0, 1)}
    assert all(r["value"] == r["c1"] + 2 * r["c2"] for r in as_dicts)


# -- docs/games.md: Fibonacci nim -------------------------------------------------
def usual_fibonacci(limit: int) -> set[int]:
    a, b, out = 1, 1, set()
    while a <= limit:
        out.add(a)
        a, b = b, a + b
    return out


def test_fibonacci_nim_player_1_loses_exactly_at_fibonacci_numbers(con):
    winners = {r["n"]: r["winner"] for r in rows(con, "SELECT n, winner FROM builds "
                                                      "WHERE variant = 'fibonacci-nim' AND n >= 1")}
    fibs = usual_fibonacci(NIM_N)
    assert winners == {n: 2 if n in fibs else 1 for n in range(1, NIM_N + 1)}


def test_fibonacci_nim_check_query_agrees_with_knuth(small_db):
    with api.open(small_db) as store:
        result = store.query("fibonacci-nim-check")
        columns, got = result.columns, result.rows
    table = [dict(zip(columns, r, strict=False)) for r in got]
    assert [r["n"] for r in table] == list(range(1, NIM_N + 1))
    assert all(r["winner_agrees"] and r["take_agrees"] for r in table)
    fibs = usual_fibonacci(NIM_N)
    for r in table:  # the smallest Zeckendorf term, computed here greedily
        rest, terms = r["n"], []
        while rest:
            f = max(f for f in fibs if f <= rest)
            terms.append(f)
            rest -= f
        assert r["smallest_zeckendorf_term"] == min(terms)
        if r["n"] <= 25:
            n = r["n"]
            winning = [t for t in range(1, n) if not ref.solve("fibonacci-nim", ref.norm([n - t, min(2 * t, n - t)]))["win"]]
            assert r["winning_takes"] == winning
    assert table[99]["winning_takes"][0] == 3  # 100 = 89 + 8 + 3


# -- docs/games.md: the build-up game, Theorem 5.1 ------------------------------
def test_build_up_theorem_5_1(con):
    winners = {r["n"]: r["winner"] for r in rows(con, "SELECT n, winner FROM builds WHERE variant = 'build-up'")}
    assert winners == {n: 1 if n == 4 or n % 2 else 2 for n in range(1, BUILD_UP_N + 1)}


def test_build_up_hands_over_to_the_reversed_game(con):
    """Once everything is placed, a build-up position is the reversed game's (a, b, c)."""
    reversed_outcomes = {ref.norm([r["c1"] or 0, r["c2"] or 0, r["c3"] or 0]): r["outcome"]
                         for r in rows(con, "SELECT * FROM positions WHERE variant = 'reversed' AND n <= 12 "
                                            "AND coalesce(c4, 0) + coalesce(c5, 0) + coalesce(c6, 0) = 0")}
    placed = {ref.norm([r["c1"] or 0, r["c2"] or 0, r["c3"] or 0]): r["outcome"]
              for r in rows(con, "SELECT * FROM positions WHERE variant = 'build-up' AND n <= 12 AND coalesce(c4, 0) = 0")}
    assert len(placed) > 50 and placed == reversed_outcomes


# -- building, looking up and bad input --------------------------------------------------
def test_building_n_builds_the_layers_its_games_reach_and_resumes(tmp_path):
    from zeckdb.builder import build

    path = tmp_path / "bh.duckdb"
    with StoreWriter.open_write(path) as store:
        first = build(store, as_games(["black-hole-4"]), [17])
        assert sorted(n for _, n in first.built) == [2, 7, 12, 17]  # 17 - 5j: a game from (17) passes them all
        again = build(store, as_games(["black-hole-4"]), list(range(1, 21)))
        assert sorted(n for _, n in again.built) == [0, 1, 3, 4, 5, 6, 8, 9, 10, 11, 13, 14, 15, 16, 18, 19, 20]
        assert build(store, as_games(["black-hole-4"]), list(range(1, 21))).built == []
        # an already stored lower layer is recomputed in memory, not rewritten
    with duckdb.connect(str(path)) as con:  # a hand edit, to see whether n = 15 is written again
        con.execute("UPDATE builds SET seconds = -1 WHERE variant = 'black-hole-4' AND n = 15")
    with StoreWriter.open_write(path) as store:
        assert build(store, as_games(["black-hole-4"]), [20], force=True).built == [("black-hole-4", 20)]
        assert store.reads.rows("SELECT seconds FROM builds WHERE variant = 'black-hole-4' AND n = 15") == [(-1,)]


def test_lookups_follow_moves_into_lower_layers(capsys, small_db):
    from .test_cli import run

    code, out, err = run(capsys, "position", "fibonacci-nim", "--start", "100", "--db", str(small_db))
    assert code == 0, err
    assert out.splitlines()[0] == "fibonacci-nim (100,99)  (n = 100, start)"
    winning = [line.split()[2] for line in out.splitlines() if line.rstrip().endswith(")") and " wins " in line]
    assert winning == ["11", "3"]  # 100 = 89 + 8 + 3: take 3 wins, and so does taking 11 (leaving 89 = F)
    code, out, err = run(capsys, "line", "black-hole-3", "--start", "10", "--json", "--db", str(small_db))
    line = json.loads(out)
    assert code == 0 and len(line) == 6 and line[-1]["position"] == [1]  # ends at the decomposition of 10 mod 3
    code, out, err = run(capsys, "position", "black-hole-empty-board-4", "0,0,0,17", "--json", "--db", str(small_db))
    assert code == 0 and json.loads(out)["outcome"] == "loss"  # Player 2 wins n = 17


@pytest.mark.parametrize("args, message", [
    (("position", "black-hole-13", "--start", "5"), "unknown variant 'black-hole-13': did you mean black-hole-3? "
                                                     f"choose one of {', '.join(GAMES)}, black-hole-M (M = 2..12)"),
    (("position", "fibonacci-nim", "10,11"), "position (10,11): at most r = 10 chips can be taken, so k <= r"),
    (("position", "fibonacci-nim", "10"), "write it as r,k"),
    (("position", "black-hole-empty-board-4", "0,1,0,3"),
     "position (0,1,0,3) cannot occur: while chips remain to be placed, only bins 1 and 3 hold chips"),
    (("position", "black-hole-3", "1,1,1"), "position '1,1,1' has 3 bins; black-hole-3 has at most 2"),
    (("position", "fibonacci-nim", "--start", "1001"), "n = 1001 is out of range for fibonacci-nim: choose n from 0 to 1000"),
    (("position", "fibonacci-nim", "--start", "500"), "holds no fibonacci-nim positions for n = 500"),
])
def test_bad_input_is_one_line(capsys, small_db, args, message):
    from .test_cli import run

    code, _, err = run(capsys, *args, "--db", str(small_db))
    assert code != 0 and message in err and len(err.strip().splitlines()) == 1, err


def test_a_black_hole_beyond_reach_is_the_zeckendorf_game(con):
    """With F_m > n nothing reaches the hole: black-hole-m on n is the Zeckendorf game on n."""
    from zeckdb.engine.solve import solve_in_memory
    from zeckdb.variants import get_variant

    v = get_variant("black-hole-8")  # F_8 = 34
    for n in (12, 20, 33):
        graph, solution, _ = solve_in_memory(v, n)
        ours = {ref.norm(row.tolist()): (bool(w), int(r)) for row, w, r in
                zip(v.decode(graph.keys), solution.win, solution.remoteness, strict=False)}
        zeck = {ref.norm([r[f"c{i}"] or 0 for i in range(1, 17)]): (r["outcome"] == "win", r["remoteness"])
                for r in rows(con, "SELECT * FROM positions WHERE variant = 'zeckendorf' AND n = ?", [n])}
        assert ours == zeck


def test_a_move_into_an_undeclared_layer_is_an_engine_error():
    from zeckdb.engine.solve import EngineError, build_graph
    from zeckdb.variants.black_hole import BlackHole

    class Forgetful(BlackHole):
        def lower_layers(self, n: int) -> list[int]:
            return [0] if n else []  # forgets n - F_m

    with pytest.raises(EngineError, match=r"black-hole-3, n=7: moves lead to layers \[4\], which lower_layers\(7\) leaves out"):
        build_graph(Forgetful(3), 7, {0: None})


def test_graph_size_lists_every_layer_even_without_a_terminal(small_db):
    """A Black Hole game ends at the decomposition of n mod F_m, in a lower layer: layer n may hold no end."""
    with api.open(small_db) as store:
        result = store.query("graph-size", variant="black-hole-4", n=range(1, 11))
        columns, got = result.columns, result.rows
    table = {r[columns.index("n")]: dict(zip(columns, r, strict=False)) for r in got}
    assert sorted(table) == list(range(1, 11))
    for n, r in table.items():
        ends = {p for p in count_vectors([1, 2, 3], n) if not ref.MOVES["black-hole-4"](p)}
        assert r["terminals"] == len(ends)
    assert table[5]["terminals"] == 0 and table[4]["terminals"] == 1


# -- the ordered Zeckendorf game: Bortnovskyi et al. 2025 (arXiv:2508.20222) -----------
def test_ordered_player_1_wins_every_n_from_2_except_18(con):
    """The paper's Table: Player 1 wins 2 <= n <= 25 except n = 18; n = 1 has no move."""
    winners = {r["n"]: r["winner"] for r in rows(con, "SELECT n, winner FROM builds WHERE variant = 'ordered'")}
    assert sorted(winners) == list(range(1, ORDERED_N + 1))
    assert {n for n, w in winners.items() if w == 2} == {1, 18}


def test_ordered_shortest_game_is_n_minus_z_and_the_longest_grows_like_n_squared_over_2(con):
    got = {r["n"]: r for r in rows(con, "SELECT n, min_length, max_length FROM builds WHERE variant = 'ordered'")}
    for n, r in got.items():
        assert r["min_length"] == n - len(ref.zeckendorf_indices(n)), n
        if n <= 11:  # the independent solver, as far as it is cheap
            assert r["max_length"] == ref.solve("ordered", (1,) * n)["max"], n
    # n^2 / 2 to leading order: the ratio climbs towards 1/2 from below
    ratios = [got[n]["max_length"] / (n * n / 2) for n in (6, 12, 18)]
    assert ratios == sorted(ratios) and 0.75 < ratios[-1] < 1


def test_ordered_lengths_query_checks_n_minus_z(small_db):
    with api.open(small_db) as store:
        result = store.query("lengths", variant="ordered")
    got = [dict(zip(result.columns, r, strict=False)) for r in result.rows]
    assert [r["n"] for r in got] == list(range(1, ORDERED_N + 1))
    assert all(r["n_minus_z"] == r["n"] - len(ref.zeckendorf_indices(r["n"])) and r["min_is_n_minus_z"] for r in got)
    assert all(r["max_bound"] is None for r in got)  # Theorem 1.4's bound is the reversed game's


def test_ordered_positions_are_looked_up_by_their_entries(capsys, small_db):
    code, out, _ = run(capsys, "position", "ordered", "1,2,1,3", "--db", str(small_db))
    assert code == 0 and "ordered [1,2,1,3]  (n = 7)" in out
    # its moves, from the independent rules: [3,1,3] and [1,1,2,3]
    assert "merge 1,2 -> 3   -> [3,1,3]" in out and "swap 2,1 -> 1,2  -> [1,1,2,3]" in out
    for bad, message in [("1,4", "4 is not a Fibonacci number"), ("1,,2", "malformed position"),
                         ("0,1", "malformed position"), (",".join(["1"] * 40), "goes up to n = ")]:
        code, _, err = run(capsys, "position", "ordered", bad, "--db", str(small_db))
        assert code != 0 and message in err and len(err.strip().splitlines()) == 1, (bad, err)


def test_ordered_winning_moves_query_matches_entries_not_counts(small_db):
    """[1,1,2] and [2,1,1] have the same counts; the query must tell them apart."""
    with api.open(small_db) as store:
        for position in ("1,1,2", "2,1,1"):
            result = store.query("winning-moves", variant="ordered", params={"position": position})
            got = sorted(r[result.columns.index("to_position")] for r in result.rows)
            entries = tuple(int(x) for x in position.split(","))
            assert got == sorted("[" + ",".join(map(str, c)) + "]" for c in ref.ordered_moves(entries)), position


def test_accelerated_moves_name_their_multiplicity(capsys, small_db):
    """(4,2) = four ones and two twos: merge 2F1 once or twice, combine F1+F2 once or twice,
    split 2F2 once (docs/games.md), each named with its m."""
    code, out, err = run(capsys, "position", "accelerated", "4,2", "--json", "--db", str(small_db))
    moves = {m["move"]: tuple(m["position"]) for m in json.loads(out)["moves"]}
    assert code == 0, err
    assert moves == {"merge 2F1 x1": (2, 3), "merge 2F1 x2": (0, 4), "combine F1+F2 x1": (3, 1, 1),
                     "combine F1+F2 x2": (2, 0, 2), "split 2F2 x1": (5, 0, 1)}


def test_accelerated_game_has_the_zeckendorf_layers_and_longest_games(con):
    """m copies can always be made one at a time, and m = 1 is the Zeckendorf game: the longest
    games agree, and so do the layers (both are every Fibonacci partition of n); the shortest is
    never longer."""
    from .conftest import ACCELERATED_N

    got = rows(con, "SELECT a.n, a.positions = z.positions AS same_layer, a.max_length = z.max_length AS same_longest, "
                    "a.min_length <= z.min_length AS not_longer, a.games::HUGEINT >= z.games::HUGEINT AS more_games "
                    "FROM builds a JOIN builds z ON a.n = z.n AND z.variant = 'zeckendorf' WHERE a.variant = 'accelerated'")
    assert len(got) == ACCELERATED_N
    assert all(r["same_layer"] and r["same_longest"] and r["not_longer"] and r["more_games"] for r in got), got
