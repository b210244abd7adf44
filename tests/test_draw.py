"""`zeckdb draw`: the DOT text of small layers against the reference solver and Lee and
Bitler's lines, SVG through Graphviz, and the refusals."""

from __future__ import annotations

import os
import re
import shutil

import pytest

from . import reference as ref
from .conftest import run
from .facts import LEE_BITLER_LINES, TABLE_A1


def fmt(position) -> str:
    counts = list(position)
    while counts and counts[-1] == 0:
        counts.pop()
    return "(" + ",".join(map(str, counts)) + ")"


def nodes(dot: str) -> dict[str, str]:
    """label -> attribute text of every position node."""
    return {m.group(2): m.group(0) for m in re.finditer(r'^  p(\d+) \[label="([^"\\]+)\\n[^\n]*$', dot, re.M)}


@pytest.mark.parametrize("n", [4, 7, 9])
def test_the_layer_as_the_reference_sees_it(capsys, small_db, n):
    code, dot, err = run(capsys, "draw", "zeckendorf", "--n", str(n), "--db", str(small_db))
    assert code == 0, err
    drawn = nodes(dot)
    positions = ref.positions("zeckendorf", n)
    assert set(drawn) == {fmt(p) for p in positions}
    assert len(re.findall(r"^  p\d+ -> p\d+ ", dot, re.M)) == TABLE_A1[n][0]
    for p in positions:
        shape = "box" if not ref.solve("zeckendorf", p)["win"] else "ellipse"
        assert f'shape="{shape}"' in drawn[fmt(p)]
    assert 'peripheries="2"' in drawn[fmt((n,))]  # the start
    for p in LEE_BITLER_LINES.get(n, []):  # Player 2's winning line lies in the strategy graph
        assert "penwidth" in drawn[fmt(p)]


def test_strategy_only_keeps_the_flagged_positions(capsys, small_db):
    code, full, _ = run(capsys, "draw", "zeckendorf", "--n", "7", "--db", str(small_db))
    code, only, err = run(capsys, "draw", "zeckendorf", "--n", "7", "--strategy-only", "--db", str(small_db))
    assert code == 0, err
    assert set(nodes(only)) == {label for label, attrs in nodes(full).items() if "penwidth" in attrs}
    assert set(nodes(only)) >= {fmt(p) for p in LEE_BITLER_LINES[7]}


@pytest.mark.parametrize("n", [7, 9])
def test_only_the_moves_a_winning_strategy_makes_are_bold(capsys, small_db, n):
    """Every move between two strategy positions was bold, the winner's moves from an
    N-position to another N-position included (at n = 7, combine F2+F3 from (2,1,1) to
    (2,0,0,1), which loses). Bold now: the winner's moves into P-positions and every move of
    the loser, inside the strategy's positions; the outcomes are the reference solver's."""
    code, dot, err = run(capsys, "draw", "zeckendorf", "--n", str(n), "--db", str(small_db))
    assert code == 0, err
    label = {m.group(1): m.group(2) for m in re.finditer(r'^  p(\d+) \[label="([^"\\]+)\\n', dot, re.M)}
    strategic = {pid for pid, attrs in ((m.group(1), m.group(0)) for m in re.finditer(r"^  p(\d+) \[.*$", dot, re.M))
                 if "penwidth" in attrs}
    wins = {fmt(p): ref.solve("zeckendorf", p)["win"] for p in ref.positions("zeckendorf", n)}
    bold_kinds = set()
    for src, dst, attrs in re.findall(r"^  p(\d+) -> p(\d+) (\[.*)$", dot, re.M):
        inside = src in strategic and dst in strategic
        winning = not wins[label[dst]]  # the mover leaves the opponent a P-position
        expected = inside and (not wins[label[src]] or winning)
        assert ("penwidth" in attrs) == expected, (label[src], label[dst], attrs)
        if expected:
            bold_kinds.add((wins[label[src]], wins[label[dst]]))
    assert bold_kinds == {(True, False), (False, True)}  # the winner's moves and the loser's, no other kind
    if n == 7:  # the move once drawn bold: it exists, and is not
        named = [attrs for src, dst, attrs in re.findall(r"^  p(\d+) -> p(\d+) (\[.*)$", dot, re.M)
                 if (label[src], label[dst]) == ("(2,1,1)", "(2,0,0,1)")]
        assert len(named) == 1 and "penwidth" not in named[0]


def test_moves_leaving_the_layer_end_at_dashed_nodes(capsys, small_db):
    code, dot, err = run(capsys, "draw", "black-hole-3", "--n", "4", "--db", str(small_db))
    assert code == 0, err
    assert re.search(r'q\d+_\d+ \[label="\([\d,]*\)\\n\(n = \d+\)", style="dashed"', dot)


def test_svg_and_png_through_graphviz(capsys, small_db, tmp_path):
    if shutil.which("dot") is None:  # CI installs it (.ci/system-packages): there a missing dot is a failure
        if os.environ.get("CI"):
            pytest.fail("Graphviz's dot is not installed: .ci/system-packages installs it")
        pytest.skip("Graphviz's dot is not installed (apt-get install graphviz runs this test)")
    svg = tmp_path / "n7.svg"
    code, out, err = run(capsys, "draw", "zeckendorf", "--n", "7", "--format", "svg", "--out", str(svg),
                         "--db", str(small_db))
    assert code == 0, err
    text = svg.read_text()
    assert "<svg" in text and "(5,1)" in text and "merge 2F1" in text
    png = tmp_path / "n7.png"
    code, out, err = run(capsys, "draw", "zeckendorf", "--n", "7", "--format", "png", "--out", str(png),
                         "--db", str(small_db))
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args, message", [
    (["zeckendorf", "--n", "30"], "has 509 positions, over --max-nodes 500: draw a smaller n, or --strategy-only"),
    (["zeckendorf", "--n", "7", "--max-nodes", "5"], "over --max-nodes 5"),
    (["zeckendorf", "--n", "7..9"], "bad --n '7..9'"),
    (["zeckendorf", "--n", "99"], "holds no zeckendorf positions for n = 99"),
    (["zeckendorf", "--n", "7", "--format", "gif"], "unknown format 'gif'"),
    (["zeckendorf", "--n", "7", "--format", "png"], "give --out FILE.png"),
    (["zeckendorf", "--n", "7", "--out", "no/such/x.dot"], "does not exist"),
    (["nope", "--n", "7"], "unknown variant"),
])
def test_refusals(capsys, small_db, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "draw", *args, "--db", str(small_db))
    assert code != 0 and message in err and len(err.strip().splitlines()) == 1, err
    assert out == "" and list(tmp_path.iterdir()) == []


def test_without_graphviz_the_error_names_the_package(capsys, small_db, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` there
    code, out, err = run(capsys, "draw", "zeckendorf", "--n", "7", "--format", "svg", "--out", str(tmp_path / "x.svg"),
                         "--db", str(small_db))
    assert code != 0 and "apt-get install graphviz" in err and not (tmp_path / "x.svg").exists()
