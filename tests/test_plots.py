"""`zeckdb plot`: real PNG and SVG files from the small database; the numbers written with
--data checked against the reference solver and the published facts; bad input refused."""

from __future__ import annotations

import csv
from fractions import Fraction

import pytest

from . import reference as ref
from .conftest import run


def plot(capsys, small_db, tmp_path, *args, out="figure.png"):
    target = tmp_path / out
    data = tmp_path / "data.csv"
    code, stdout, err = run(capsys, "plot", *args, "--out", str(target), "--data", str(data), "--force",
                            "--db", str(small_db))
    assert code == 0, err
    assert f"wrote {target}" in stdout
    with open(data) as f:
        return target, list(csv.DictReader(f))


def test_length_distribution_is_the_reference_one(capsys, small_db, tmp_path):
    image, rows = plot(capsys, small_db, tmp_path, "length-distribution", "--variant", "zeckendorf", "--n", "9,12")
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for n in (9, 12):
        want = ref.remaining_lengths("zeckendorf", (n,))[0]
        got = {int(r["length"]): float(r["probability"]) for r in rows if int(r["n"]) == n}
        assert got.keys() == want.keys() and all(abs(got[k] - float(want[k])) < 1e-6 for k in want)  # stored as REAL


def test_the_length_axis_ends_where_the_mass_does(capsys, small_db, tmp_path):
    """The axis ran to the longest game, half the plot empty (bars of 1e-10). It now shows the
    lengths from the first to the last bar of at least a thousandth of the tallest, and says
    what lies outside; --data keeps every length."""
    image, rows = plot(capsys, small_db, tmp_path, "length-distribution", "--variant", "reversed", "--n", "40",
                       out="lengths.svg")
    got = {int(r["length"]): float(r["probability"]) for r in rows}
    assert got.keys() == ref.remaining_lengths("reversed", ref.start("reversed", 40))[0].keys()  # every length
    top = max(got.values())
    shown = [x for x, p in sorted(got.items()) if p >= top / 1000]
    assert (shown[0], shown[-1]) != (min(got), max(got))  # this n has tails to cut
    assert f"lengths {shown[0]}-{shown[-1]} shown of {min(got)}-{max(got)}" in image.read_text()


def test_the_svg_names_variant_n_and_source(capsys, small_db, tmp_path):
    image, rows = plot(capsys, small_db, tmp_path, "length-distribution", "--variant", "reversed", "--n", "15",
                       "--measure", "mu", out="lengths.svg")
    text = image.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert "reversed, n = 15" in text and "every complete game equally likely" in text and "exact" in text
    counts = ref.remaining_lengths("reversed", ref.start("reversed", 15))[1]
    total = sum(counts.values())
    assert {int(r["length"]): Fraction(r["games"].split(".")[0]) / total for r in rows} == \
        {k: Fraction(v, total) for k, v in counts.items()}


def test_winners_and_lengths(capsys, small_db, tmp_path):
    _, rows = plot(capsys, small_db, tmp_path, "winners", "--variant", "zeckendorf")
    assert [int(r["winner"]) for r in rows if int(r["n"]) >= 3] == [2] * (len(rows) - 2)  # Baird-Smith et al.
    _, rows = plot(capsys, small_db, tmp_path, "lengths", "--variant", "reversed", "--n", "1..30")
    assert [int(r["min_length"]) for r in rows] == [n - ref.z_count(n) for n in range(1, 31)]  # Theorem 1.4


def test_p_positions_of_two_bins_follow_the_residues(capsys, small_db, tmp_path):
    _, rows = plot(capsys, small_db, tmp_path, "p-positions", "--variant", "black-hole-3")
    got = {(int(r["c1"]), int(r["c2"])) for r in rows}
    want = {(x1, x2) for x1 in range(51) for x2 in range(26) if x1 + 2 * x2 <= 50
            and (x1 % 3, x2 % 3) in {(0, 0), (1, 0), (0, 1)}}  # Cashman, Miller, Shuffelton, Son
    assert got == want
    for variant in ("black-hole-2", "black-hole-4"):
        image, _ = plot(capsys, small_db, tmp_path, "p-positions", "--variant", variant)
        assert image.stat().st_size > 1000


def test_profiles_are_the_stored_random_play_odds(capsys, small_db, tmp_path, con):
    """random/random is random_play's odds and best-response/random its perfect player's, both
    stored by the build; random against the perfect player never wins from a lost start."""
    image, rows = plot(capsys, small_db, tmp_path, "profiles", "--variant", "zeckendorf", "--n", "1..12",
                       out="profiles.svg")
    assert "chance to win" in image.read_text()
    stored = {n: (a, b, c) for n, a, b, c in con.execute(
        "SELECT n, p1_wins_random, p1_wins_p1_perfect, p1_wins_p2_perfect FROM random_play WHERE variant = 'zeckendorf' "
        "AND n <= 12").fetchall()}
    assert {(r["player_1"], r["player_2"]) for r in rows} == {("perfect", "random"), ("random", "perfect"),
                                                              ("best-response", "random"), ("random", "best-response"),
                                                              ("random", "random")}
    for r in rows:
        n, p1_wins = int(r["n"]), float(r["p1_wins"])
        want = {("random", "random"): stored[n][0], ("best-response", "random"): stored[n][1],
                ("random", "best-response"): stored[n][2]}.get((r["player_1"], r["player_2"]))
        if want is not None:
            assert p1_wins == pytest.approx(want, abs=1e-9), r
        if (r["player_1"], r["player_2"]) == ("random", "perfect") and not ref.solve("zeckendorf", (n,))["win"]:
            assert p1_wins == 0.0, r


def test_remoteness_counts_add_up(capsys, small_db, tmp_path, con):
    _, rows = plot(capsys, small_db, tmp_path, "remoteness", "--variant", "zeckendorf", "--n", "20")
    assert sum(int(r["wins"]) + int(r["losses"]) for r in rows) == \
        con.execute("SELECT positions FROM builds WHERE variant = 'zeckendorf' AND n = 20").fetchone()[0]
    assert all(int(r["wins"]) == 0 for r in rows if int(r["remoteness"]) % 2 == 0)  # wins have odd remoteness


@pytest.mark.parametrize("args, message", [
    (["bars", "--variant", "zeckendorf", "--out", "x.png"], "unknown plot 'bars'"),
    (["winners", "--variant", "zeckendorf", "--out", "x.jpg"], "name a .png or .svg file"),
    (["winners", "--variant", "zeckendorf", "--out", "no/such/x.png"], "does not exist"),
    (["winners", "--variant", "zeckendorf", "--out", "x.png", "--data", "x.txt"], "name a .csv file"),
    (["length-distribution", "--variant", "zeckendorf", "--out", "x.png"], "length-distribution needs n"),
    (["length-distribution", "--variant", "zeckendorf", "--n", "1..13", "--out", "x.png"], "at most 12"),
    (["length-distribution", "--variant", "zeckendorf", "--n", "7", "--measure", "Q", "--out", "x.png"], "--measure 'Q'"),
    (["remoteness", "--variant", "zeckendorf", "--n", "5,6", "--out", "x.png"], "give one n"),
    (["p-positions", "--variant", "black-hole-5", "--out", "x.png"], "one, two or three bins"),
    (["winners", "--variant", "nope", "--out", "x.png"], "unknown variant"),
    (["remoteness", "--variant", "zeckendorf", "--n", "99", "--out", "x.png"], "not built"),
])
def test_bad_input_writes_nothing(capsys, small_db, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "plot", *args, "--db", str(small_db))
    assert code != 0 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []
