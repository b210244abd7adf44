"""`zeckdb plot`: figures from the database, each drawn from a named query's rows (the same
numbers `zeckdb query` prints, which `--data` writes beside the image).

Every figure names the variant, n and measure in its title, labels its axes, and
says where its numbers come from (all are exact: read from the solved game graphs).
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from pathlib import Path
from typing import Any, BinaryIO

from .errors import QueryLimitError, UsageError, did_you_mean, opt
from .executor import Limits
from .queries import run_query
from .store import Store
from .variants import Variant

KINDS = ("length-distribution", "winners", "conventions", "lengths", "p-positions", "remoteness", "profiles")
# the profile pairs of `profiles` (Player 1's, Player 2's), as `zeckdb play` names them
PROFILE_PAIRS = [("perfect", "random"), ("random", "perfect"), ("best-response", "random"), ("random", "best-response"),
                 ("random", "random")]
SUFFIXES = (".png", ".svg")
MAX_PANELS = 12
VISIBLE = 1e-3  # a bar below this share of the tallest is under a pixel high: the axis ends where such bars begin
PHI = (1 + 5 ** 0.5) / 2
EXACT = "exact: every game counted from the solved game graph (zeckdb)"


@dataclass
class Plot:
    """A figure and the numbers it plots."""

    figure: Any  # matplotlib.figure.Figure
    columns: list[str]  # the numbers plotted, for --data
    rows: list[tuple[Any, ...]]

    def image(self, fmt: str = "svg") -> bytes:
        """The figure as the bytes of an SVG or PNG image."""
        import io

        out = io.BytesIO()
        save(self, out, fmt)
        return out.getvalue()

    def _repr_png_(self) -> bytes:  # a notebook shows the figure
        return self.image("png")

    def __repr__(self) -> str:
        return f"<zeckdb Plot: a figure of {len(self.rows):,} rows of {', '.join(self.columns)} (.image(), .rows)>"


def _rows(store: Store, query: str, game: Variant, ns: list[int] | None,
          params: dict[str, Any] | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
    result = run_query(store, query, game, ns, params or {}, Limits(timeout=store.settings.plot_seconds, max_rows=None))
    if not result.rows:
        raise UsageError(f"nothing to plot: {query} has no rows for {game.name}"
                         + ("" if ns is None else " at these n")
                         + f": build them with {store.suggested(f'build --variant {game.name}')}")
    return result.columns, result.rows


def _series(columns: list[str], rows: list[tuple[Any, ...]]) -> dict[str, list[Any]]:
    """The rows of a query as one list per column."""
    return {name: [r[i] for r in rows] for i, name in enumerate(columns)}


def _new_figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure  # files only: a Figure needs no screen and no pyplot state

    return Figure(figsize=(width, height), layout="constrained")


def _figure(panels: int = 1, width: float = 7.0, height: float = 4.2) -> tuple[Any, Any]:
    """A figure of `panels` axes (small multiples, three to a row)."""
    cols = min(panels, 3)
    rows = math.ceil(panels / cols)
    fig = _new_figure(width if panels == 1 else 4.2 * cols, height if panels == 1 else 3.2 * rows)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[panels:]:
        ax.set_visible(False)
    return fig, axes[:panels]


def _source(fig: Any, text: str = EXACT) -> None:
    """Where the numbers come from, in a strip kept free below the axes."""
    fig.get_layout_engine().set(rect=(0, 0.035, 1, 0.965))
    fig.text(0.995, 0.004, text, ha="right", va="bottom", fontsize=7, color="#555")


def length_distribution(store: Store, game: Variant, ns: list[int], measure: str = "P") -> Plot:
    variant = game.name
    if measure not in ("P", "mu"):
        raise UsageError(f"{opt('measure')} {measure[:10]!r}: choose P (random play) or mu (every game equally likely)")
    if len(ns) > MAX_PANELS:
        raise UsageError(f"{len(ns)} values of n: give at most {MAX_PANELS} (one panel each)")
    columns, rows = _rows(store, "length-distribution", game, ns, {"measure": measure})
    at = {c: i for i, c in enumerate(columns)}
    fig, axes = _figure(len(ns))
    what = "both players move uniformly at random (P)" if measure == "P" else "every complete game equally likely (mu)"
    for ax, n in zip(axes, ns, strict=False):
        mine = [r for r in rows if r[at["n"]] == n]
        if not mine:
            raise UsageError(f"n = {n} of {variant} is not built: run "
                             f"{store.suggested(f'build --variant {variant} --n {n}')}")
        _length_panel(ax, [r[at["length"]] for r in mine], [r[at["probability"]] for r in mine], len(ns) == 1)
        ax.set_title(f"{variant}, n = {n}" if len(ns) > 1 else f"{variant}, n = {n}: game length, {what}", fontsize=10)
    if len(ns) > 1:
        fig.suptitle(f"{variant}: game length, {what}")
    _source(fig)
    return Plot(fig, columns, rows)


def _length_panel(ax: Any, lengths: list[int], probs: list[float], alone: bool) -> None:
    """One n's exact distribution as bars, the Gaussian of its mean and variance over them, the
    axis cut to the lengths an eye sees (the label says what is left out)."""
    from matplotlib.ticker import MaxNLocator

    mean = sum(x * p for x, p in zip(lengths, probs, strict=False))
    var = sum((x - mean) ** 2 * p for x, p in zip(lengths, probs, strict=False))
    ax.bar(lengths, probs, width=0.85, color="#4a78c2", label="exact distribution")
    lo, hi = _visible(lengths, probs)
    if (lo, hi) == (lengths[0], lengths[-1]):
        ax.set_xlabel("length of the game (moves)")
    else:  # the rest would be bars no eye sees, half the axis empty
        ax.set_xlim(lo - 1, hi + 1)
        outside = sum(p for x, p in zip(lengths, probs, strict=False) if not lo <= x <= hi)
        ax.set_xlabel(f"length of the game (moves)\nlengths {lo}-{hi} shown of {lengths[0]}-{lengths[-1]} "
                      f"({outside:.2g} of the probability outside)", fontsize=9 if alone else 7)
    if var > 0:
        xs = [lo + i * (hi - lo) / 200 for i in range(201)]
        ax.plot(xs, [math.exp(-(x - mean) ** 2 / (2 * var)) / math.sqrt(2 * math.pi * var) for x in xs],
                color="#d1495b", label=f"Gaussian, mean {mean:.2f}, sd {math.sqrt(var):.2f}")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # lengths are whole numbers of moves
    ax.set_ylabel("probability")
    ax.set_ylim(0, max(probs) * 1.3)  # room above the bars for the legend
    ax.legend(fontsize=7, loc="upper left")


def _visible(lengths: list[int], probs: list[float]) -> tuple[int, int]:
    """The lengths from the first to the last whose bar is at least VISIBLE of the tallest."""
    top = max(probs)
    shown = [x for x, p in zip(lengths, probs, strict=False) if p >= top * VISIBLE]
    return shown[0], shown[-1]


def winners(store: Store, game: Variant, ns: list[int] | None) -> Plot:
    variant = game.name
    columns, rows = _rows(store, "winners", game, ns)
    c = _series(columns, rows)
    players = game.players
    if players > 2:  # who can force a win: a player, or nobody (0)
        fig, (ax,) = _figure(1, height=3.2)
        ax.scatter(c["n"], [w or 0 for w in c["winner"]], s=8, color="#4a78c2")
        ax.set_yticks(range(players + 1), ["nobody", *(f"Player {p}" for p in range(1, players + 1))])
        ax.set_ylim(-0.5, players + 0.5)
        ax.set_xlabel("n")
        ax.set_title(f"{variant}: who can force a win from the start of n, {players} players", fontsize=10)
        _source(fig)
        return Plot(fig, columns, rows)
    fig = _new_figure(7.0, 5.0)
    ax_top, ax_bottom = fig.subplots(2, 1, sharex=True, height_ratios=[1, 2])
    ax_top.scatter(c["n"], c["winner"], s=8, color="#4a78c2")
    ax_top.set_yticks([1, 2], ["Player 1", "Player 2"])
    ax_top.set_ylim(0.5, 2.5)
    ax_top.set_title(f"{variant}: who wins from the start of n, perfect play", fontsize=10)
    ax_bottom.plot(c["n"], c["p1_fraction"], color="#4a78c2", label="fraction of n <= N that Player 1 wins")
    if "minus_inverse_phi" in game.query_columns:  # a game conjectured to tend to 1/phi (the reversed game's 1.3)
        ax_bottom.axhline(1 / PHI, color="#d1495b", linestyle="--", label="1/phi = 0.618 (Conjecture 1.3)")
    ax_bottom.set_xlabel("n")
    ax_bottom.set_ylabel("running fraction of Player 1 wins")
    ax_bottom.set_ylim(-0.02, 1.02)
    ax_bottom.legend(fontsize=7)
    _source(fig)
    return Plot(fig, columns, rows)


def conventions(store: Store, game: Variant, ns: list[int] | None) -> Plot:
    """Who wins each n under normal play and under misère play (a game and its twin), and the
    running fractions of Player 1's wins under each and of the n where they agree."""
    normal = game.normal_of or game.name
    columns, rows = _rows(store, "conventions", game, ns)
    c = _series(columns, rows)
    fig = _new_figure(7.0, 5.0)
    ax_top, ax_bottom = fig.subplots(2, 1, sharex=True, height_ratios=[1, 2])
    ax_top.scatter(c["n"], [w - 0.12 for w in c["normal_winner"]], s=8, color="#4a78c2", label="normal play")
    ax_top.scatter(c["n"], [w + 0.12 for w in c["misere_winner"]], s=8, color="#d1495b", marker="s",
                   label="misère play")
    ax_top.set_yticks([1, 2], ["Player 1", "Player 2"])
    ax_top.set_ylim(0.5, 2.5)
    ax_top.legend(fontsize=7, loc="center right")
    ax_top.set_title(f"{normal}: who wins from the start of n, under normal and misère play", fontsize=10)
    ax_bottom.plot(c["n"], c["normal_p1_fraction"], color="#4a78c2", label="fraction of n <= N Player 1 wins, normal")
    ax_bottom.plot(c["n"], c["misere_p1_fraction"], color="#d1495b", label="the same, misère")
    ax_bottom.plot(c["n"], c["agree_fraction"], color="#555555", linestyle=":",
                   label="fraction of n <= N where the two agree")
    ax_bottom.set_xlabel("n")
    ax_bottom.set_ylabel("running fraction")
    ax_bottom.set_ylim(-0.02, 1.02)
    ax_bottom.legend(fontsize=7)
    _source(fig)
    return Plot(fig, columns, rows)


def lengths(store: Store, game: Variant, ns: list[int] | None) -> Plot:
    variant = game.name
    columns, rows = _rows(store, "lengths", game, ns)
    c = _series(columns, rows)
    fig, (ax,) = _figure(1)
    ax.plot(c["n"], c["max_length"], color="#d1495b", label="longest game")
    ax.plot(c["n"], c["min_length"], color="#4a78c2", label="shortest game")
    if any(x is not None for x in c["n_minus_z"]):
        ax.plot(c["n"], c["n_minus_z"], color="black", linestyle=":", label="n - Z(n)")
    if any(x is not None for x in c["max_bound"]):
        ax.plot(c["n"], c["max_bound"], color="#888", linestyle="--", label="Theorem 1.4 bound on the longest reversed game")
    ax.set_title(f"{variant}: shortest and longest game from the start of n", fontsize=10)
    ax.set_xlabel("n")
    ax.set_ylabel("moves")
    ax.legend(fontsize=7)
    _source(fig)
    return Plot(fig, columns, rows)


def p_positions(store: Store, game: Variant) -> Plot:
    v, variant = game, game.name
    bins = len(v.columns)
    if not variant.startswith("black-hole-") or variant.startswith("black-hole-empty") or bins > 3:
        raise UsageError(f"p-positions draws the Black Hole games of one, two or three bins "
                         f"(black-hole-2, -3, -4), not {variant}")
    columns, rows = _rows(store, "black-hole-p-positions", game, None)
    at = {c: i for i, c in enumerate(columns)}
    built = store.built_ns(variant)
    top = max(built)
    weights = v.column_weights
    p_set = {tuple(r[at[f"c{i + 1}"]] for i in range(bins)) for r in rows}
    import numpy as np
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    cmap = ListedColormap(["#eeeeee", "#f4c7c3", "#1f4e9c"])  # not built, N-position, P-position
    legend = [Patch(color="#1f4e9c", label="P-position (the player to move loses)"),
              Patch(color="#f4c7c3", label="N-position"), Patch(color="#eeeeee", label="value beyond the n built")]
    if bins == 1:
        fig, (ax,) = _figure(1, height=2.2)
        grid = np.array([[2 if (x,) in p_set else 1 for x in range(top + 1)]])
        ax.imshow(grid, cmap=cmap, vmin=0, vmax=2, aspect="auto", origin="lower")
        ax.set_yticks([])
        ax.set_xlabel("chips in bin 1 (x)")
        fig.suptitle(f"{variant}: P-positions (x) for x <= {top}", fontsize=10)
    else:
        layers = [0] if bins == 2 else list(range(min(4, top // weights[2] + 1)))
        fig, axes = _figure(len(layers))
        for ax, c3 in zip(axes, layers, strict=False):
            left = top - (weights[2] * c3 if bins == 3 else 0)
            size1, size2 = left // weights[0] + 1, left // weights[1] + 1
            grid = np.zeros((size2, size1), dtype=int)
            for c2 in range(size2):
                for c1 in range(size1):
                    if c1 * weights[0] + c2 * weights[1] <= left:
                        key = (c1, c2) if bins == 2 else (c1, c2, c3)
                        grid[c2, c1] = 2 if key in p_set else 1
            ax.imshow(grid, cmap=cmap, vmin=0, vmax=2, origin="lower", interpolation="nearest")
            ax.set_xlabel("chips in bin 1 (x1)")
            ax.set_ylabel("chips in bin 2 (x2)")
            if bins == 3:
                ax.set_title(f"x3 = {c3}", fontsize=10)
        fig.suptitle(f"{variant}: P-positions (x1, x2{', x3' if bins == 3 else ''}), value <= {top}", fontsize=10)
    _source(fig, EXACT + "; residues: Cashman, Miller, Shuffelton, Son (2024)")
    fig.legend(handles=legend, loc="outside right center", fontsize=7)  # beside the axes: the foot is the source's
    return Plot(fig, columns, rows)


def remoteness(store: Store, game: Variant, n: int) -> Plot:
    variant = game.name
    players = game.players
    if players > 2:
        raise UsageError(f"remoteness is a two-player measure, and {variant} is a game of {players} players: "
                         f"plot winners (who can force a win) or lengths instead")
    columns, rows = _rows(store, "remoteness", game, [n])
    c = _series(columns, rows)
    fig, (ax,) = _figure(1)
    ax.bar([x - 0.2 for x in c["remoteness"]], c["wins"], width=0.4, color="#3a9d5d", label="wins")
    ax.bar([x + 0.2 for x in c["remoteness"]], c["losses"], width=0.4, color="#d1495b", label="losses")
    ax.set_title(f"{variant}, n = {n}: positions by remoteness and value for the player to move", fontsize=10)
    ax.set_xlabel("remoteness (moves to the end with perfect play)")
    ax.set_ylabel("positions")
    ax.legend(fontsize=8)
    _source(fig)
    return Plot(fig, columns, rows)


def profiles(store: Store, game: Variant, ns: list[int] | None) -> Plot:
    """P(Player 1 wins) from the start of each n under a few profile pairs: the rows `zeckdb query
    play` gives for each pair, computed from the stored graph (each layer read once)."""
    import time

    from .profiles import RELATION_COLUMNS, starts
    from .queries import check_built_ns

    v, variant = game, game.name
    built = store.built_ns(variant)
    if not built:
        raise UsageError(f"nothing to plot: {variant} has no layers built in full here: build them with "
                         f"{store.suggested(f'build --variant {variant}')}")
    if ns is not None:
        check_built_ns({variant: built}, ns, variant, store)
    table, stopped = starts(store, v, sorted(ns or built), PROFILE_PAIRS, time.monotonic() + store.settings.plot_seconds)
    if stopped is not None:  # a figure of part of what was asked would look whole
        raise QueryLimitError(f"the figure's games reached the time limit of {store.settings.plot_seconds:g} s at n = "
                              f"{stopped}: plot fewer n ({opt('n')}) or raise ZECKDB_PLOT_SECONDS")
    rows = list(zip(*(table.column(c).to_pylist() for c in RELATION_COLUMNS), strict=True))
    fig, (ax,) = _figure(1)
    colours = ["#4a78c2", "#d1495b", "#2a9d8f", "#e9a03b", "#555555"]
    for (p1, p2), colour in zip(PROFILE_PAIRS, colours, strict=True):
        mine = [r for r in rows if (r[2], r[3]) == (p1, p2)]
        ax.plot([r[1] for r in mine], [r[4] for r in mine], color=colour, marker=".", markersize=3, linewidth=1,
                linestyle=":" if "perfect" not in (p1, p2) else "-", label=f"Player 1 {p1}, Player 2 {p2}")
    ax.set_title(f"{variant}: Player 1's chance to win from the start of n, by the players' profiles", fontsize=10)
    ax.set_xlabel("n")
    ax.set_ylabel("P(Player 1 wins)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="best")
    _source(fig, "exact: computed from the solved game graph (zeckdb play); best-response answers the other's profile")
    return Plot(fig, list(RELATION_COLUMNS), rows)


def make(store: Store, kind: str, game: Variant, ns: list[int] | None = None, measure: str = "P") -> Plot:
    """One of KINDS, after checking that the arguments fit it."""
    if kind not in KINDS:
        raise UsageError(f"unknown plot {kind[:30]!r}: {did_you_mean(kind, list(KINDS))}choose one of {', '.join(KINDS)}")
    if kind in ("length-distribution", "remoteness") and not ns:
        raise UsageError(f"{kind} needs n (e.g. {opt('n')} 20)")
    if kind == "remoteness" and len(ns or []) != 1:
        raise UsageError(f"remoteness draws one layer: give one n, e.g. {opt('n')} 20")
    if kind == "p-positions" and ns:
        raise UsageError("p-positions draws every n built: leave out n")
    if kind == "length-distribution":
        assert ns  # checked above
        return length_distribution(store, game, ns, measure)
    if kind == "winners":
        return winners(store, game, ns)
    if kind == "conventions":
        return conventions(store, game, ns)
    if kind == "lengths":
        return lengths(store, game, ns)
    if kind == "p-positions":
        return p_positions(store, game)
    if kind == "profiles":
        return profiles(store, game, ns)
    assert ns  # checked above
    return remoteness(store, game, ns[0])


def save(plot: Plot, out: Path | BinaryIO, fmt: str | None = None) -> None:
    """Write the figure to a file (format from its suffix) or a binary stream (`fmt`)."""
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none"}):  # SVG text stays text: searchable, selectable
        plot.figure.savefig(out, dpi=110, format=fmt)
