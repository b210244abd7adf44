"""`zeckdb verify` passes on every variant's clean layers and catches rows deleted or edited by hand."""

from __future__ import annotations

import re
import shutil

import duckdb
import pytest

from zeckdb.verify import partition_count

from . import reference as ref

from .conftest import run


def test_partition_count_is_the_references_layer_size():
    fibonacci = [1, 2, 3, 5, 8, 13, 21, 34]  # the Zeckendorf game's bins up to 40
    for n in range(1, 41):
        assert partition_count(n, fibonacci) == len(ref.positions("zeckendorf", n)) == len(ref.positions("reversed", n))


def test_partition_count_counts_into_any_weights():
    # by hand: 4 = 4 = 2+2 = 2+1+1 = 1+1+1+1 (powers of two); 5 in 1s and 3s: 3+1+1, 1*5
    assert partition_count(4, [1, 2, 4, 8]) == 4
    assert partition_count(5, [1, 3]) == 2
    assert partition_count(5, [1, 0, 3]) == 2  # a column of weight 0 adds nothing
    assert partition_count(0, [2]) == 1 and partition_count(3, [2]) == 0


def test_a_verify_of_everything_passes_every_layer_but_the_one_edited(capsys, small_db, tmp_path):
    """The whole small database (every variant) verified, with one row of one layer deleted by
    hand: that layer fails each check that sees it, once, and every other layer passes every
    check (one verify of everything: the cases below verify only the layer they edit)."""
    sql, expected = TAMPERING[0]
    code, out, err = run(capsys, "verify", "--db", str(tamper(small_db, tmp_path, sql)))
    assert code == 1 and "every check passed" not in out
    lines = out.splitlines()
    checked = {" ".join(line.split()[:-2]): line.split()[-2:] for line in lines[2:]}
    assert set(checked) == {"complete layers", "layer sizes", "partition counts", "values", "solved columns", "starts",
                            "checksums", "lengths and odds", "summary checksums", "summary layers", "catalog"}
    assert int(checked["values"][0].replace(",", "")) > 100_000  # every position of every variant
    failed = {name for name, (_, count) in checked.items() if count != "0"}
    assert failed == {"complete layers", "layer sizes", "partition counts", "values", "solved columns", "checksums"}
    assert all(checked[name][1] == "1" for name in failed)
    assert all(text in err for text in expected), err
    *mismatches, holes = err.split("the first of them:\n")[1].splitlines()
    assert holes.endswith("`zeckdb build --variant zeckendorf --n 10 --force --db "
                          f"{tmp_path / 'tampered.duckdb'}` fills it")
    assert len(mismatches) == len(failed) and all("zeckendorf n=10" in m for m in mismatches), err


# Rows are edited in the tables behind the view positions (migration 0011): position_rows for
# two-player count-vector games of at most eleven bins (a variant by its variant_id, some
# columns by others: migration 0013), position_rows_wide for the others.


def lean(variant: str) -> str:
    return f"variant_id = (SELECT variant_id FROM variant_ids WHERE variant = '{variant}')"


TAMPERING = [
    (f"DELETE FROM position_rows WHERE {lean('zeckendorf')} AND n = 10 AND id = 3",
     ["layer sizes: zeckendorf n=10: 21 positions and 45 moves stored, its summary row counts 22 and 45",
      "partition counts: zeckendorf n=10: 21 positions stored, n has 22 partitions",
      "values: zeckendorf n=10", "checksums: zeckendorf n=10: the positions rows do not hash"]),
    # the outcome shown is 'win' exactly when a move wins
    ("UPDATE position_rows SET winning_moves = CASE WHEN winning_moves > 0 THEN 0 ELSE 1 END "
     f"WHERE {lean('reversed')} AND n = 12 AND id = 5",
     ["solved columns: reversed n=12", "checksums: reversed n=12: the positions rows do not hash"]),
    (f"UPDATE position_rows SET grundy = grundy + 1 WHERE {lean('black-hole-3')} AND n = 20 AND id = 4",
     ["solved columns: black-hole-3 n=20", "grundy"]),
    ("DELETE FROM edge_rows WHERE graph_id = (SELECT graph_id FROM graph_ids WHERE graph = 'zeckendorf') "
     "AND n = 15 AND src = 7",
     ["layer sizes: zeckendorf n=15", "checksums: zeckendorf n=15: the moves rows do not hash"]),
    # remoteness and max_remaining are stored as their excess over min_remaining
    (f"UPDATE position_rows SET remoteness_over_min = remoteness_over_min + 2 WHERE {lean('zeckendorf')} "
     "AND n = 14 AND id = 6", ["solved columns: zeckendorf n=14", "remoteness"]),
    (f"UPDATE position_rows SET max_over_min = max_over_min + 1 WHERE {lean('reversed')} AND n = 11 AND id = 2",
     ["solved columns: reversed n=11", "max_remaining"]),
    ("UPDATE builds SET winner = 3 - winner WHERE variant = 'fibonacci-nim' AND n = 9",
     ["starts: fibonacci-nim n=9: the summary says winner"]),
    ("UPDATE builds SET games = '1' WHERE variant = 'quilt' AND n = 12",
     ["starts: quilt n=12: the summary counts 1 games"]),
    (f"UPDATE position_rows SET games_to_end = games_to_end + 1 WHERE {lean('build-up')} AND n = 8 AND id = 2",
     ["solved columns: build-up n=8", "games_to_end"]),
    # games of three or more players: the forcing seat, and the two-player columns left NULL
    ("UPDATE position_rows_wide SET forcing_seat = 1 WHERE variant = 'zeckendorf-p3' AND n = 9 AND is_start",
     ["solved columns: zeckendorf-p3 n=9 (9): forcing_seat 1, its moves give NULL",
      "starts: zeckendorf-p3 n=9: the summary says winner"]),
    ("UPDATE position_rows_wide SET forcing_seat = NULL WHERE variant = 'nacci-2-2-p4' AND n = 12 AND is_start",
     ["solved columns: nacci-2-2-p4 n=12 (12): forcing_seat NULL, its moves give 4"]),
    ("UPDATE position_rows_wide SET outcome = 'win' WHERE variant = 'zeckendorf-p4' AND n = 7 AND id = 0",
     ["solved columns: zeckendorf-p4 n=7", "a two-player column is set in a game of 4 players"]),
    # columns no other check re-derives: only the checksums catch an edit
    ("UPDATE position_rows SET in_winning_strategies = NOT in_winning_strategies "
     f"WHERE {lean('zeckendorf')} AND n = 20 AND id = 30",
     ["checksums: zeckendorf n=20: the positions rows do not hash"]),
    ("UPDATE position_rows_wide SET entries = list_reverse(entries) WHERE variant = 'ordered' AND n = 10 AND id = 7",
     ["checksums: ordered n=10: the positions rows do not hash"]),
    ("UPDATE builds SET winner = 1 WHERE variant = 'zeckendorf-p3' AND n = 4",
     ["starts: zeckendorf-p3 n=4: the summary says winner, lengths, remoteness and teams [1, 2, 3, None, 204]"]),
    # every stored table, not the positions and moves only
    ("UPDATE length_distribution SET probability = 3 * probability WHERE variant = 'zeckendorf' AND n = 20 "
     "AND measure = 'P'",
     ["lengths and odds: zeckendorf n=20: the length distribution sums to", "summary checksums: zeckendorf n=20"]),
    ("UPDATE builds SET expected_length = expected_length + 5 WHERE variant = 'reversed' AND n = 20",
     ["lengths and odds: reversed n=20: expected_length", "summary checksums: reversed n=20"]),
    ("UPDATE random_play SET p1_wins_random = 0.99 WHERE variant = 'zeckendorf' AND n = 18",
     ["summary checksums: zeckendorf n=18: its builds, random_play or length rows do not hash"]),
    ("UPDATE length_distribution SET games_exact = '7' WHERE variant = 'quilt' AND n = 9 AND measure = 'mu' "
     "AND games_exact IS NOT NULL", ["summary checksums: quilt n=9", "starts: quilt n=9: the summary counts"]),
    ("UPDATE graph_layers SET edges = edges + 1 WHERE graph = 'zeckendorf' AND n = 12",
     ["catalog: graph zeckendorf n=12: graph_layers counts"]),
    ("UPDATE move_names SET name = 'teleport' WHERE variant = 'zeckendorf' AND code = 0",
     ["catalog: zeckendorf: its stored move names are not the game's"]),
    ("UPDATE variants SET players = 5 WHERE variant = 'zeckendorf-p3'", ["catalog: zeckendorf-p3: the variants row"]),
    ("UPDATE position_rows_wide SET teams = xor(teams, 2::UBIGINT) WHERE variant = 'zeckendorf-p3' AND n = 8 AND id = 0",
     ["solved columns: zeckendorf-p3 n=8", "teams"]),
    # a boolean set where the rest of a layer is NULL: reported, never a crash
    ("UPDATE position_rows_wide SET in_winning_strategies = true WHERE variant = 'zeckendorf-p3' AND n = 8 AND id = 0",
     ["solved columns: zeckendorf-p3 n=8", "a two-player column is set", "checksums: zeckendorf-p3 n=8"]),
    # a count past 1e9 off by one (a relative tolerance once hid it)
    ("UPDATE position_rows SET games_to_end = games_to_end + 1 WHERE (variant_id, n, id) = (SELECT (variant_id, n, id) "
     "FROM position_rows JOIN variant_ids USING (variant_id) WHERE variant = 'zeckendorf' AND n = 40 "
     "AND games_to_end BETWEEN 1e10 AND 1e15 ORDER BY id LIMIT 1)", ["solved columns: zeckendorf n=40", "games_to_end"]),
    ("UPDATE builds SET start_position = '(1,1)' WHERE variant = 'zeckendorf' AND n = 9",
     ["catalog: zeckendorf n=9: the builds row gives start '(1,1)'"]),
    ("UPDATE builds SET decomposition_terms = 5 WHERE variant = 'reversed' AND n = 10",
     ["catalog: reversed n=10: the builds row gives start"]),
    # odds that are probabilities, but not the game's (and their checksum recomputed)
    ("UPDATE random_play SET p1_wins_random = 0.25 WHERE variant = 'reversed' AND n = 11",
     ["lengths and odds: reversed n=11: random_play's p1_wins_random is 0.25, the stored graph gives"]),
    ("UPDATE random_play SET p1_wins_p2_perfect = 1 - p1_wins_p2_perfect WHERE variant = 'zeckendorf' AND n = 13",
     ["lengths and odds: zeckendorf n=13: random_play's p1_wins_p2_perfect"]),
    ("UPDATE position_rows SET in_winning_strategies = NOT in_winning_strategies WHERE variant_id = (SELECT variant_id "
     "FROM variant_ids WHERE variant = 'zeckendorf') AND n = 14 AND id = 3",
     ["solved columns: zeckendorf n=14: in_winning_strategies of 1 positions (id 3 first)"]),
    ("UPDATE position_rows_wide SET teams = 1 WHERE variant = 'ordered' AND n = 9 AND id = 2",
     ["solved columns: ordered n=9", "a column of games of three or more players is set in a two-player game"]),
    # a move's name changed (its code), the checksum recomputed: the game's own moves say otherwise
    ("UPDATE edge_rows SET code = (code + 1) % 4 WHERE graph_id = (SELECT graph_id FROM graph_ids WHERE graph = "
     "'zeckendorf') AND n = 11 AND src = 2", ["values: zeckendorf n=11: its stored moves are not the game's"]),
    # rows every other check passes over: each is owned by a check now
    ("DELETE FROM builds WHERE variant = 'reversed' AND n = 12",
     ["catalog: reversed: its position_rows rows of n = 12 belong to no layer"]),
    ("UPDATE variants SET max_n = 7 WHERE variant = 'zeckendorf'", ["catalog: zeckendorf: the variants row says"]),
    ("UPDATE variants SET longest_bound = 'n' WHERE variant = 'reversed'", ["catalog: reversed: the variants row says"]),
]


def scope(message: str) -> list[str]:
    """verify's options for the layer a message names ("checks: VARIANT n=K: ...", "catalog: graph
    VARIANT n=K: ...", "catalog: VARIANT: ..."): verifying one layer, not all of them, keeps the
    cases quick; the whole database is verified in the test above."""
    found = re.match(r"[a-z ]+: (?:graph )?([a-z0-9-]+)(?: n=(\d+))?", message)
    assert found, message
    variant, n = found.groups()
    return ["--variant", variant, *(["--n", n] if n else [])]


def tamper(small_db, tmp_path, sql: str):
    path = tmp_path / "tampered.duckdb"
    shutil.copy(small_db, path)
    con = duckdb.connect(str(path))
    con.execute(sql)
    con.close()
    return path


@pytest.mark.parametrize("sql, expected", TAMPERING, ids=[t[0][:40] for t in TAMPERING])
def test_rows_changed_by_hand_are_caught(capsys, small_db, tmp_path, sql, expected):
    path = tamper(small_db, tmp_path, sql)
    code, out, err = run(capsys, "verify", *scope(expected[0]), "--db", str(path))
    assert code == 1 and "every check passed" not in out
    assert "zeckdb: verify found mismatches; the first of them:\n" in err
    for text in expected:
        assert text in err
    assert "Traceback" not in err


def test_a_fibonacci_row_changed_by_hand_is_caught(capsys, small_db, tmp_path):
    path = tamper(small_db, tmp_path, "UPDATE fibonacci SET f = f + 1 WHERE i = 30")
    code, _, err = run(capsys, "verify", "--variant", "zeckendorf", "--n", "3", "--db", str(path))
    assert code == 1 and "catalog: fibonacci: its 180 rows are not F1 = 1, F2 = 2, F3 = 3" in err, err


def test_verify_takes_variant_and_n(capsys, small_db):
    code, out, _ = run(capsys, "verify", "--variant", "reversed", "--n", "5..7", "--db", str(small_db))
    assert code == 0 and out.startswith("verified 3 layers")
    code, _, err = run(capsys, "verify", "--variant", "reversed", "--n", "41", "--db", str(small_db))
    assert code == 1 and err.strip() == "zeckdb: error: n = 41 is not built for reversed: nothing to verify there"
    code, _, err = run(capsys, "verify", "--variant", "nope", "--db", str(small_db))
    assert code == 2 and "unknown variant 'nope'" in err


def test_summary_layers_are_solved_again(capsys, tmp_path):
    """A layer built with --summary-only holds no rows to re-derive from: verify solves it again
    (and its summary checksum catches an edit of a row it cannot solve again)."""
    db = str(tmp_path / "s.duckdb")
    code, _, err = run(capsys, "build", "--summary-only", "--variant", "reversed", "--variant", "zeckendorf-p3",
                       "--n", "20..24", "--db", db)
    assert code == 0, err
    code, out, err = run(capsys, "verify", "--db", db)
    assert code == 0 and "summary layers               10         0" in out, out + err
    con = duckdb.connect(db)
    con.execute("UPDATE builds SET max_length = max_length + 1 WHERE variant = 'reversed' AND n = 22")
    con.execute("UPDATE builds SET teams = 0 WHERE variant = 'zeckendorf-p3' AND n = 23")
    con.close()
    code, out, err = run(capsys, "verify", "--db", db)
    assert code == 1 and "summary layers: reversed n=22: max_length" in err
    assert "summary layers: zeckendorf-p3 n=23: teams 0, solved again" in err and "summary checksums: reversed n=22" in err


def test_a_refused_insert_raises_duckdbs_own_error_not_the_cleanups(tmp_path):
    """Inside a transaction DuckDB aborts, the cleanup (unregistering the rows) fails too: the
    error raised must be the first one, which says what was wrong."""
    import duckdb
    import pyarrow as pa

    from zeckdb.store import StoreWriter

    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    con.execute("CREATE TABLE t (c1 INTEGER)")
    con.execute("BEGIN TRANSACTION")
    with pytest.raises(duckdb.BinderException, match="c4"):
        StoreWriter._insert_rows(con, "t", pa.table({"c4": [1]}), {})
    con.close()


def test_the_last_net_says_damaged_only_where_the_file_may_be(tmp_path):
    import duckdb

    from zeckdb.cli.main import _may_be_damage

    con = duckdb.connect()
    with pytest.raises(duckdb.Error) as refused:
        con.execute("SELECT no_such_column FROM range(1)")
    assert not _may_be_damage(refused.value)
    (tmp_path / "bad.duckdb").write_bytes(b"\0" * 8192)
    with pytest.raises(duckdb.Error) as damaged:
        duckdb.connect(str(tmp_path / "bad.duckdb"))
    assert _may_be_damage(damaged.value)


def test_summary_layers_checked_by_checksum_only_are_named(tmp_path, capsys, monkeypatch):
    """A tampered summary layer too large to solve again passed as "every check passed", though
    compared only with a checksum anyone can recompute: verify names those layers and how to
    solve them again."""
    from .conftest import run

    path = tmp_path / "s.duckdb"
    assert run(capsys, "build", "--summary-only", "--variant", "zeckendorf", "--n", "20..22", "--db", str(path))[0] == 0
    monkeypatch.setenv("ZECKDB_VERIFY_RESOLVE_POSITIONS", "10")
    code, out, err = run(capsys, "verify", "--db", str(path))
    assert code == 0 and "every check passed (but the summary layers named above, by checksum only)" in out
    assert "checked by their summary checksum only (too large to solve again): zeckendorf n = 20..22" in err
    assert "ZECKDB_VERIFY_RESOLVE_POSITIONS=" in err
    monkeypatch.delenv("ZECKDB_VERIFY_RESOLVE_POSITIONS")
    code, out, err = run(capsys, "verify", "--db", str(path))  # the default: small enough, solved again
    assert code == 0 and out.strip().endswith("every check passed") and "checksum only" not in err
