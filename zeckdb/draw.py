"""`zeckdb draw`: the game graph of one layer in Graphviz's DOT language, and through
Graphviz's `dot` as SVG or PNG.

Every position is labelled as on the command line and every move is an arrow
labelled with its name. P-positions (the player to move loses) are red boxes,
N-positions green ellipses; the winner's strategy graph (the positions flagged
`in_winning_strategies`, as in Lee and Bitler's figures, and the moves a winning
strategy makes between them: the winner's into P-positions, every move of the
loser) is drawn in heavy blue; the start has a double border, terminals a
diagonal-cornered box. Moves leaving the layer (Black Hole games, Fibonacci
nim) end at dashed nodes of the lower layer. In games of three or more players a
position says which seat can force a win: green ellipses where the player to move
can, red boxes where another player can, grey boxes where none can.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from .engine.contract import stored_columns
from .errors import UsageError, ZeckdbError, opt, printable
from .store import Store
from .variants import Variant

FORMATS = ("dot", "svg", "png")
MAX_NODES = 500
# Graphviz's dot lays a layer out in time that grows about as the cube of its positions: about
# this many fit its time limit (GRAPHVIZ_SECONDS) on a 2-core machine (docs/commands.md)
GRAPHVIZ_NODES = 800
GRAPHVIZ_SECONDS = 120
P_FILL, N_FILL, STRATEGY, NONE_FILL = "#f8d4d0", "#d5f0d5", "#1f4e9c", "#e4e4e4"


def _quote(text: str) -> str:
    """A DOT string: quotes and backslashes escaped, line breaks as DOT's \\n, and every other
    control or reordering mark as its escape (a raw ESC byte is no well-formed XML in the SVG)."""
    return '"' + printable(text, keep="\n").replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def layer_dot(store: Store, variant: Variant, n: int, strategy_only: bool = False, max_nodes: int = MAX_NODES) -> str:
    """The DOT text of layer n of a game (refused over max_nodes positions)."""
    if strategy_only and variant.players != 2:
        raise UsageError(f"{opt('strategy_only')} draws the winner's strategy graph of a two-player game; "
                         f"{variant.name} has {variant.players} players: draw its game graph")
    store.require_built(variant.name, n)
    text = _position_text(variant)
    rows = store.rows(
        f"""SELECT id, {text}, outcome, remoteness, is_start, is_terminal, in_winning_strategies, forcing_seat
            FROM positions WHERE variant = ? AND n = ? AND (NOT ? OR in_winning_strategies) ORDER BY id""",
        [variant.name, n, strategy_only])
    if len(rows) > max_nodes:
        raise UsageError(f"layer n = {n} of {variant.name} has {len(rows):,} {'strategy ' if strategy_only else ''}"
                         f"positions, over {opt('max_nodes')} {max_nodes}: draw a smaller n"
                         + ("" if strategy_only else f", or {opt('strategy_only')}") + f", or raise {opt('max_nodes')} "
                         f"(Graphviz lays out about {GRAPHVIZ_NODES} positions within its {GRAPHVIZ_SECONDS} s limit; "
                         "DOT text has no such limit)")
    kept = {r[0] for r in rows}
    moves = store.rows(
        """SELECT src, dst, coalesce(dst_n, n) AS dst_n, move FROM moves
           WHERE variant = ? AND n = ? ORDER BY src, dst_n, dst""", [variant.name, n])
    moves = [m for m in moves if m[0] in kept and (m[2] != n or m[1] in kept)]
    title = (f"{variant.name}, n = {n}: {'the winner' + chr(39) + 's strategy graph' if strategy_only else 'game graph'}"
             f" ({len(rows)} positions, {len(moves)} moves)")
    return "\n".join([f"digraph {_quote(f'{variant.name} n={n}')} {{",
                      f"  graph [label={_quote(title)}, labelloc=t, fontname=Helvetica, fontsize=14];",
                      "  node [fontname=Helvetica, fontsize=11, style=filled];",
                      "  edge [fontname=Helvetica, fontsize=9, color=\"#777777\"];",
                      *_legend(variant.players),
                      *(_position_line(row, variant.players) for row in rows),
                      *_outside_lines(store, variant, {(m[2], m[1]) for m in moves if m[2] != n}),
                      *_move_lines(rows, moves, n, variant.players),
                      "}"]) + "\n"


def _position_text(variant: Variant) -> str:
    """The SQL of a position as its game writes it (the database's macro, as Variant.format)."""
    return f"game_text(entries, [{', '.join(stored_columns(variant))}], {variant.text_width})"


def _position_line(row: tuple[Any, ...], players: int) -> str:
    """A position of the layer as a DOT node: its look by its value, start, terminal and strategy."""
    pid, position, outcome, remoteness, is_start, is_terminal, strategic, seat = row
    shape, fill = _look(outcome, seat, players)
    value = f"remoteness {remoteness}" if players == 2 else ("no forced win" if seat is None else f"seat {seat} forces")
    attrs = {"label": f"{position}\n{value}", "shape": shape, "fillcolor": fill}
    if is_terminal:
        attrs["style"] = "filled,diagonals"
    if is_start:
        attrs["peripheries"] = "2"
    if strategic:
        attrs.update(color=STRATEGY, penwidth="3")
    return f"  p{pid} [" + ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items()) + "];"


def _outside_lines(store: Store, variant: Variant, reached: set[tuple[int, int]]) -> list[str]:
    """The positions of lower layers that the drawn moves reach, (n, id) each, as dashed nodes:
    read in one query, not one a position."""
    if not reached:
        return []
    wanted = sorted(reached)
    found = store.rows(
        f"""SELECT p.n, p.id, {_position_text(variant)}, p.outcome, p.forcing_seat
            FROM positions AS p JOIN (SELECT unnest(?) AS n, unnest(?) AS id) AS r ON p.n = r.n AND p.id = r.id
            WHERE p.variant = ? ORDER BY p.n, p.id""", [[k for k, _ in wanted], [i for _, i in wanted], variant.name])
    lines = []
    for dst_n, dst, position, outcome, seat in found:
        label = _quote(f"{position}\n(n = {dst_n})")
        lines.append(f"  q{dst_n}_{dst} [label={label}, style=\"dashed\", shape={_look(outcome, seat, variant.players)[0]}];")
    return lines


def _move_lines(rows: list[tuple[Any, ...]], moves: list[tuple[Any, ...]], n: int, players: int) -> list[str]:
    """The drawn moves as DOT edges, the ones a winning strategy makes in heavy blue."""
    strategic = {r[0] for r in rows if r[6]}
    loses = {r[0] for r in rows if r[2] == "loss"}  # P-positions: the player to move loses
    lines = []
    for src, dst, dst_n, name in moves:
        target = f"p{dst}" if dst_n == n else f"q{dst_n}_{dst}"
        # a move the strategy makes: the loser's (any move from a P-position) or the winner's
        # into a P-position; the winner's move to another N-position is no part of it
        bold = (dst_n == n and src in strategic and dst in strategic
                and (players != 2 or src in loses or dst in loses))
        style = f", color=\"{STRATEGY}\", penwidth=2.5" if bold else ""
        lines.append(f"  p{src} -> {target} [label={_quote(name)}{style}];")
    return lines


def _look(outcome: str | None, seat: int | None, players: int) -> tuple[str, str]:
    """A position's shape and fill: by its outcome (two players) or its forcing seat (more)."""
    if players == 2:
        return ("box", P_FILL) if outcome == "loss" else ("ellipse", N_FILL)
    if seat == 1:
        return "ellipse", N_FILL
    return "box", NONE_FILL if seat is None else P_FILL


def _legend(players: int) -> list[str]:
    if players == 2:
        kinds = [f"legend_p [label=\"P-position: the player to move loses\", shape=box, fillcolor=\"{P_FILL}\"];",
                 f"legend_n [label=\"N-position: the player to move wins\", shape=ellipse, fillcolor=\"{N_FILL}\"];",
                 f"legend_s [label=\"in the winner's strategy graph\", shape=box, fillcolor=white, "
                 f"color=\"{STRATEGY}\", penwidth=3];"]
    else:
        kinds = [f"legend_n [label=\"the player to move (seat 1) can force a win\", shape=ellipse, "
                 f"fillcolor=\"{N_FILL}\"];",
                 f"legend_p [label=\"another seat can force a win (seats count from the player to move)\", "
                 f"shape=box, fillcolor=\"{P_FILL}\"];",
                 f"legend_s [label=\"no player can force a win\", shape=box, fillcolor=\"{NONE_FILL}\"];"]
    return ["  subgraph cluster_legend {",
            "    label=\"legend\"; fontsize=10; color=\"#bbbbbb\";",
            *("    " + kind for kind in kinds),
            "    legend_start [label=\"start (double border); terminal: cut corners\", shape=box, fillcolor=white, "
            "peripheries=2];",
            "    legend_p -> legend_n -> legend_s -> legend_start [style=invis];",
            "  }"]


def render(dot: str, fmt: str) -> bytes:
    """DOT text as SVG or PNG, through Graphviz's `dot` program."""
    program = shutil.which("dot")
    if program is None:
        raise UsageError(f"{opt('fmt')} {fmt} needs Graphviz's `dot` program: install it (Debian: apt-get install "
                         f"graphviz), or write {opt('fmt')} dot and render it elsewhere")
    try:
        done = subprocess.run([program, f"-T{fmt}"], input=dot.encode(), capture_output=True, timeout=GRAPHVIZ_SECONDS)
    except subprocess.TimeoutExpired:
        raise UsageError(f"Graphviz took over {GRAPHVIZ_SECONDS} s: draw a smaller n or {opt('strategy_only')}") from None
    if done.returncode != 0:
        first = (done.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[0]
        raise ZeckdbError(f"Graphviz failed: {first}")
    return done.stdout
