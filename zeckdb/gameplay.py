"""Games, positions and moves as objects a notebook walks:

    with zeckdb.open("zeckdb.duckdb") as db:
        game = db.game("reversed")             # a Game: its name, title, paper, limits, convention
        p = game.start(10)                     # a Position: its values, its moves best first
        p.outcome, p.remoteness, p.best_move   # "win", 5, Move(name='split F3', text='(2,0,1)')
        q = p.play(p.best_move)                # the Position it leads to (or p.play("split F3"))
        q.line()                               # the game from q under optimal play: (Move, Position)s
        p.profiles("random", "perfect")        # a random Player 1 against a perfect one (PlayResult)

Every object is frozen and hashable, a position by its game and counts. They are made from
the lookups the command line and the service answer with (Database.position, line, play),
so the three cannot drift; each lookup reads the database the game came from, while it is
open. A game of three or more players gives PlayersPosition: who can force being the last
mover, and which teams can, instead of a two-player outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, Union, cast
from collections.abc import Sequence

from .answers import Layer, Outcome, PositionInfo
from .errors import UsageError, did_you_mean, html_text

if TYPE_CHECKING:
    from .engine.contract import Variant
    from .profiles import PlayResult


class Lookups(Protocol):
    """What a game asks of the database it belongs to (zeckdb.api.Database answers it), naming
    the game by the Variant it holds: the name is resolved once, when the Game is made."""

    def sql(self, text: str, params: Any = None, *, max_rows: int | None = None) -> Any: ...

    def position(self, variant: Variant, position: str | tuple[int, ...] | None = None, *,
                 start: int | None = None) -> PositionInfo: ...

    def line(self, variant: Variant, position: tuple[int, ...]) -> Sequence[tuple[str | None, PositionInfo]]: ...

    def play(self, variant: Variant, position: tuple[int, ...], *, p1: str, p2: str) -> PlayResult: ...

    def summary(self, variant: Variant, n: str | int | Sequence[int] | None = None) -> list[Layer]: ...


AnyPosition = Union["Position", "PlayersPosition"]
# the kind of position a game has: a two-player game's (Position: outcome, remoteness), or a game
# of three or more players' (PlayersPosition: who can force a win); Database.game gives the first,
# Database.players_game the second, so that a typed script needs no isinstance
P = TypeVar("P", "Position", "PlayersPosition")


@dataclass(frozen=True, repr=False)
class Game(Generic[P]):
    """A game of an open database (Database.game, Database.players_game): what it is (its
    Variant, whose name, title, paper, players, convention and limits it shows), and the door
    to its positions, each of its kind P."""

    variant: Variant
    database: Lookups = field(compare=False)

    @property
    def name(self) -> str:
        return self.variant.name

    @property
    def title(self) -> str:
        return self.variant.title

    @property
    def source(self) -> str:
        return self.variant.source

    @property
    def players(self) -> int:
        return self.variant.players

    @property
    def convention(self) -> str:
        """"normal" (the last mover wins) or "misere" (the last mover loses)."""
        return self.variant.convention

    @property
    def min_n(self) -> int:
        return self.variant.min_n

    @property
    def max_n(self) -> int:
        return self.variant.max_n

    @property
    def bins(self) -> tuple[str, ...]:
        """Its bins as a notebook heads them: each column's name and weight."""
        v = self.variant
        return tuple(f"{name} ({weight})" for name, weight in zip(v.columns, v.column_weights, strict=True))

    def __repr__(self) -> str:
        return (f"Game(name={self.name!r}, title={self.title!r}, source={self.source!r}, players={self.players}, "
                f"convention={self.convention!r}, min_n={self.min_n}, max_n={self.max_n})")

    def start(self, n: int) -> P:
        """The start of n."""
        return self._made(self.database.position(self.variant, start=n))

    def position(self, position: str | Sequence[int]) -> P:
        """A position as the game writes it ("3,1,0,2") or as its counts ((3, 1, 0, 2))."""
        return self._made(self.database.position(self.variant, position if isinstance(position, str)
                                                 else tuple(position)))

    def summary(self, n: str | int | Sequence[int] | None = None) -> list[Layer]:
        """The per-n summary of the game (every n built, or those of `n`: "1..20,30", 7, [5, 6])."""
        return self.database.summary(self.variant, n)

    def layer(self, n: int) -> GameLayer:
        """Layer n whole, for a researcher's own code: its positions and its moves as Arrow tables
        (pandas frames with pandas installed) and as a networkx graph (GameLayer)."""
        positions = self.database.sql("SELECT * EXCLUDE (variant) FROM positions WHERE variant = $v AND n = $n "
                                      "ORDER BY id", {"v": self.name, "n": n}, max_rows=0).arrow()
        if positions.num_rows == 0:
            self.database.position(self.variant, start=n)  # the one-line error that says why it is not there
        moves = self.database.sql("SELECT src, move, dst, dst_n FROM moves WHERE variant = $v AND n = $n "
                                  "ORDER BY src, code, dst", {"v": self.name, "n": n}, max_rows=0).arrow()
        return GameLayer(self.name, n, positions, moves)

    def _made(self, info: PositionInfo) -> P:
        moves = tuple(Move(m.move, tuple(m.position), m.text, self, m.outcome, m.remoteness, m.forcing_seat)
                      for m in info.moves)
        common: dict[str, Any] = dict(game=self, counts=tuple(info.position), text=info.text, n=info.value,
                      min_remaining=info.min_remaining, max_remaining=info.max_remaining,
                      games_to_end=info.games_to_end, expected_remaining_random=info.expected_remaining_random,
                      is_start=info.is_start, is_terminal=info.is_terminal, moves=moves)
        made: AnyPosition
        if info.players != 2:
            made = PlayersPosition(**common, forcing_seat=info.forcing_seat,
                                   teams=tuple(tuple(t) for t in info.teams or ()))
        else:
            assert info.outcome is not None and info.remoteness is not None  # two-player games store them
            made = Position(**common, outcome=info.outcome, remoteness=info.remoteness, grundy=info.grundy)
        return cast(P, made)  # Database.game and players_game made this Game for its kind of positions


@dataclass(frozen=True)
class GameLayer:
    """One layer of a game: `positions` (every column of the positions view but the variant, by
    id) and `moves` (src, move, dst, dst_n: the layer of dst, n unless the move leaves it) as
    pyarrow Tables."""

    variant: str
    n: int
    positions: Any  # pyarrow.Table
    moves: Any  # pyarrow.Table

    def frames(self) -> tuple[Any, Any]:
        """(positions, moves) as pandas DataFrames (pandas must be installed)."""
        try:
            import pandas  # noqa: F401  (pyarrow's conversion needs it)
        except ImportError:
            raise UsageError("GameLayer.frames() needs pandas: pip install pandas, or use .positions and .moves "
                             "(Arrow)") from None
        return self.positions.to_pandas(), self.moves.to_pandas()

    def graph(self) -> Any:
        """The layer as a networkx.DiGraph: a node per position (its id; a move into another layer
        leads to the node (dst_n, dst)), each with its columns (outcome, remoteness, the counts,
        ...), an edge per move with its name (`move`). pip install 'zeckdb[graphs]'."""
        try:
            import networkx
        except ImportError:
            raise UsageError("GameLayer.graph() needs networkx: pip install 'zeckdb[graphs]'") from None
        graph = networkx.DiGraph(variant=self.variant, n=self.n)
        for row in self.positions.to_pylist():
            graph.add_node(row["id"], **{k: v for k, v in row.items() if v is not None})
        for src, move, dst, dst_n in zip(*(self.moves.column(c).to_pylist() for c in ("src", "move", "dst", "dst_n")),
                                         strict=True):
            graph.add_edge(src, dst if dst_n == self.n else (dst_n, dst), move=move)
        return graph


@dataclass(frozen=True)
class Move:
    """A legal move: its name, the position it leads to (looked up when asked for), and that
    position's value from the same lookup that listed the move, for the player to move there
    (the opponent): `outcome` and `remoteness` in a two-player game, `forcing_seat` in a game of
    more. Which moves of a position win is read from its moves, without a lookup each."""

    name: str
    counts: tuple[int, ...]
    text: str
    game: Game[Any] = field(repr=False, compare=False)
    outcome: Outcome | None = field(default=None, compare=False)  # the opponent's, after the move
    remoteness: int | None = field(default=None, compare=False)
    forcing_seat: int | None = field(default=None, compare=False)

    @property
    def position(self) -> AnyPosition:
        return cast(AnyPosition, self.game.position(self.counts))

    def __str__(self) -> str:  # print(move) and f"{move}" give its name, as the command line writes it
        return self.name

    @property
    def wins(self) -> bool | None:
        """Whether the move wins for the player making it (it leaves the opponent lost); None in a
        game of more than two players."""
        return None if self.outcome is None else self.outcome == "loss"


@dataclass(frozen=True)
class _Values:
    """What every position knows, whatever the number of players."""

    game: Game[Any] = field(repr=False)
    counts: tuple[int, ...]
    text: str = field(compare=False)
    n: int = field(compare=False)
    min_remaining: int = field(compare=False)  # the fewest moves to the end
    max_remaining: int = field(compare=False)  # the most
    games_to_end: int | float = field(compare=False)  # complete games from here (exact at a start)
    expected_remaining_random: float | None = field(compare=False)  # moves to the end, both players random
    is_start: bool = field(compare=False)
    is_terminal: bool = field(compare=False)
    moves: tuple[Move, ...] = field(compare=False, repr=False)  # best first, as `zeckdb position` ranks them

    def play(self, move: str | Move) -> AnyPosition:
        """The position a move leads to: one of `moves`, or a move's name ("combine F1+F2")."""
        if isinstance(move, Move):
            if move not in self.moves:
                raise UsageError(f"{move.name} ({move.text}) is not a move of {self.text}")
            return move.position
        names = [m.name for m in self.moves]
        if move not in names:
            raise UsageError(f"{str(move)[:60]!r} is not a move of {self.game.name} at {self.text}: "
                             f"{did_you_mean(str(move), names)}choose one of {', '.join(names) or 'none (the game is over)'}")
        return self.moves[names.index(move)].position

    def line(self) -> Sequence[tuple[Move | None, AnyPosition]]:
        """The game from here under optimal play: (the Move that led there, with its verdict, and
        the position), the first move None (a list)."""
        steps: list[tuple[Move | None, AnyPosition]] = []
        for name, info in self.game.database.line(self.game.variant, self.counts):
            reached = self.game._made(info)
            if not steps:
                steps.append((None, reached))
                continue
            # the move as the previous position lists it: a name may lead to several positions
            before = steps[-1][1]
            steps.append((next(m for m in before.moves if m.name == name and m.counts == reached.counts), reached))
        return steps

    def _repr_html_(self) -> str:
        """A notebook shows the position: its chips bin by bin, what it is worth, and its moves
        best first, each with what it leaves the opponent."""
        names = self.game.bins
        chips = "".join(f"<td title='{html_text(name)}'>{'●' * min(count, 12)}{'+' if count > 12 else ''}"
                        f"<br><small>{count}</small></td>" for name, count in zip(names, self.counts, strict=False))
        bins = "".join(f"<th>{html_text(name)}</th>" for name in names[:len(self.counts)])
        moves = "".join(f"<li>{html_text(m.name)} → {html_text(m.text)}: {html_text(_verdict(m))}</li>"
                        for m in self.moves) or "<li>none: the game is over</li>"
        return (f"<div><b>{html_text(self.game.name)} {html_text(self.text)}</b> (n = {self.n}): "
                f"{html_text(self._worth())}<table><tr>{bins}</tr><tr>{chips}</tr></table>"
                f"<ol>{moves}</ol></div>")

    def _worth(self) -> str:
        return ""


def _verdict(move: Move) -> str:
    if move.outcome is not None:
        return (f"wins (leaves the opponent lost, remoteness {move.remoteness})" if move.wins else
                f"loses (leaves the opponent a win, remoteness {move.remoteness})")
    return f"then seat {move.forcing_seat} can force a win" if move.forcing_seat is not None else "then none can force a win"


@dataclass(frozen=True)
class Position(_Values):
    """A position of a two-player game, for the player to move: its outcome (under the game's
    convention), remoteness (the winner hurries, the loser delays) and Grundy value."""

    outcome: Outcome = field(compare=False)
    remoteness: int = field(compare=False)
    grundy: int | None = field(compare=False)

    @property
    def best_move(self) -> Move | None:
        """The fastest win, else the slowest loss; None at the end of the game."""
        return self.moves[0] if self.moves else None

    def _worth(self) -> str:
        return f"a {self.outcome} for the player to move, remoteness {self.remoteness}"

    def play(self, move: str | Move) -> Position:
        """The position a move leads to (a two-player game's, as this one)."""
        return cast(Position, super().play(move))

    def line(self) -> list[tuple[Move | None, Position]]:
        return cast("list[tuple[Move | None, Position]]", super().line())

    def profiles(self, p1: str, p2: str) -> PlayResult:
        """The game from here with Player 1 (the player to move) playing profile p1 and the
        other p2 (perfect, random, best-response, a preference): exact chances and lengths."""
        return self.game.database.play(self.game.variant, self.counts, p1=p1, p2=p2)


@dataclass(frozen=True)
class PlayersPosition(_Values):
    """A position of a game of three or more players: the seat (1 = the player to move) that
    can force being the last mover against every play of the others (None: none can), and the
    teams of seats that can, coordinating."""

    forcing_seat: int | None = field(compare=False)
    teams: tuple[tuple[int, ...], ...] = field(compare=False)

    def _worth(self) -> str:
        return f"seat {self.forcing_seat} can force being the last mover" if self.forcing_seat else \
            "no player can force being the last mover"

    def play(self, move: str | Move) -> PlayersPosition:
        """The position a move leads to (a game of as many players as this one)."""
        return cast(PlayersPosition, super().play(move))

    def line(self) -> list[tuple[Move | None, PlayersPosition]]:
        return cast("list[tuple[Move | None, PlayersPosition]]", super().line())
