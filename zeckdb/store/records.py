"""What the store writes, as plain records the builder makes: a game's registration, a
summary layer, a full layer's tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from collections.abc import Callable, Iterable
from concurrent.futures import Future

import numpy as np


from .layout import LEAN_COLUMNS

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class GameRecord:
    """A game as the store registers it: its variants row (`facts`: the table's columns but
    `variant`), its move names by code and its count columns' (name, weight), by position.
    The builder makes it from the game (builder.game_record)."""

    variant: str
    graph: str
    facts: dict[str, Any]
    move_names: list[str]
    columns: list[tuple[str, int]]


@dataclass(frozen=True)
class SummaryRecord:
    """A summary-only layer as the store writes it: its builds row but the checksum, the
    version and the timing (`build`), its random-play odds (None: not computed), its seconds.
    The builder makes it from the solved Summary (builder.summary_record)."""

    variant: str
    n: int
    build: dict[str, Any]
    random_play: dict[str, Any] | None
    seconds: float


@dataclass
class LayerTables:
    """One (variant, n) layer as plain rows, what the store writes: the builder makes them
    from its solution (builder.layer_tables); nothing here reads the engine's objects."""

    variant: str
    graph: str
    n: int
    positions: Any  # pyarrow.Table: id, the count columns, then POSITION_COLUMNS (outcome as 'win'/'loss')
    build: dict[str, Any]  # the builds row but its checksums
    random_play: dict[str, Any] | None  # p1_wins_random, p1_wins_p1_perfect, p1_wins_p2_perfect
    edges: Any = None  # pyarrow.Table src, dst, code[, dst_n]: the graph layer's edges, when it is written with this
    graph_size: tuple[int, int] | None = None  # (positions, edges) of that graph layer
    # pyarrow.Table measure, length, probability, games, games_exact; or a function returning it, called
    # when the store comes to it (a build writes positions and edges while the distribution is computed)
    lengths: Any = None
    replace: bool = True  # rows of this layer (or of its graph layer, for `edges`) may exist: delete them first
    # its checksums ("positions", "summary", and "edges" with its edges) when whoever made the rows
    # hashed them (a cluster's worker: checksummed.rows_checksums); the store hashes those missing
    checksums: dict[str, int] | None = None

    def length_rows(self) -> Any:
        """The length_distribution rows (None for a layer without them)."""
        return self.lengths() if callable(self.lengths) else self.lengths


@dataclass(eq=False)
class _Staged:
    """A layer Store.write_layers has made room for, its rows not yet inserted."""

    layer: LayerTables
    variant_id: int
    graph_id: int | None  # when the layer brings its graph layer's edges
    positions_checksum: Future[int]

    @property
    def rows(self) -> int:
        """Its positions and the edges it brings."""
        return self.layer.positions.num_rows + (self.layer.edges.num_rows if self.layer.edges is not None else 0)


def _done(value: int) -> Future[int]:
    """A future already holding value."""
    done: Future[int] = Future()
    done.set_result(value)
    return done


def positions_table(columns: Iterable[str]) -> str:
    """The table behind the view `positions` that stores a layer of these columns."""
    return "position_rows" if set(columns) <= LEAN_COLUMNS else "position_rows_wide"


class LayerCache(Protocol):
    """A long-lived reader's cache of what lookups read of their moves' positions (the
    service's MoveValues): PositionProbe.layer_values of a whole layer, loaded with `load`."""

    def layer(self, variant: str, n: int,
              load: Callable[[str, int], tuple[np.ndarray, ...] | None]) -> tuple[np.ndarray, ...] | None:
        ...
