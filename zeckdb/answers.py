"""The library's typed answers: a position and its moves (PositionInfo, Move), what a
database holds (Status), a layer's summary row (Layer), a game of the catalogue (GameInfo).
Each is a frozen dataclass; to_json() gives the plain object the command line and the
service print.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any, Literal

Outcome = Literal["win", "loss"]


def _plain(value: Any) -> Any:
    """A value as JSON takes it: timestamps as ISO text."""
    return value.isoformat() if isinstance(value, datetime) else value


@dataclass(frozen=True)
class Move:
    """One legal move: its name, the resulting position and that position's value to the mover's opponent."""

    move: str
    position: list[int]
    outcome: Outcome | None  # for the player to move after this move (None: more than two players)
    remoteness: int | None
    text: str = ""  # the position as the variant writes it: (3,1) counts, [1,2,1] an ordered list
    forcing_seat: int | None = None  # more than two players: PositionInfo.forcing_seat of the position it leads to

    # the names zeckdb.Move gives these facts (the fields keep theirs: they are the JSON's keys)
    @property
    def name(self) -> str:
        return self.move

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(self.position)


@dataclass(frozen=True)
class PositionInfo:
    """Everything the database knows of one position, for the player to move.

    outcome: "win" or "loss". remoteness: moves to the end under optimal play
    (the winner hurries, the loser delays). min_remaining / max_remaining: the
    fewest / most moves to the end. games_to_end: complete games from here (an
    exact int at start positions, a float elsewhere). expected_remaining_random:
    expected moves to the end when both players pick uniformly random moves.
    moves: every legal move, best first (wins in fewest moves, then losses in most).

    Games of three or more players (`players`): outcome, remoteness and grundy are None;
    forcing_seat is the player, counted from the one to move (1 = the player to move, 2 =
    the next, ..., players = the one who just moved), who can force being the last mover
    against every joint play of the others, None where none can. teams: every team of
    players (seats counted the same way; at a start, the players' own numbers) that can force
    the last mover to be one of theirs, coordinating against the others, smallest first
    (non-empty and not everyone; None where the database has none). Moves that keep the mover
    forcing come first.
    """

    variant: str
    position: list[int]
    value: int
    outcome: Outcome | None
    remoteness: int | None
    min_remaining: int
    max_remaining: int
    games_to_end: int | float
    expected_remaining_random: float | None
    grundy: int | None
    is_start: bool
    is_terminal: bool
    moves: list[Move] = field(default_factory=list)
    text: str = ""  # the position as the variant writes it: (3,1) counts, [1,2,1] an ordered list
    players: int = 2
    forcing_seat: int | None = None
    teams: list[list[int]] | None = None

    # the names zeckdb.Position gives these facts (the fields keep theirs: they are the JSON's keys)
    @property
    def n(self) -> int:
        return self.value

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(self.position)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        if isinstance(self.games_to_end, int):
            out["games_to_end"] = str(self.games_to_end)
        elif self.games_to_end.is_integer() and self.games_to_end < 2**53:  # still exact in a double
            out["games_to_end"] = int(self.games_to_end)
        return out


@dataclass(frozen=True)
class VariantStatus:
    """One game in a database: the n with a summary row (`ns`, as a range text), those built
    with --summary-only, and the positions and moves stored, the build's seconds."""

    variant: str
    ns: str
    summary_ns: str
    positions: int
    edges: int
    seconds: float


@dataclass(frozen=True)
class Status:
    """What a database holds: its file, size, schema revision, whether a build is writing it
    (what is listed is then what it has committed so far) and, per game, what is built."""

    database: str
    size_bytes: int
    schema_revision: str
    build_running: bool
    variants: list[VariantStatus]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Layer:
    """A layer's summary row (the table builds, but its checksums of positions and moves):
    the start's values, the layer's size, how it was built."""

    variant: str
    n: int
    positions: int
    edges: int
    start_id: int
    start_position: str
    winner: int | None  # 1 or 2; in games of three or more players the seat that can force a win, or None
    min_length: int | None  # None in a winner-only summary row (--winner-only)
    max_length: int | None
    start_remoteness: int | None
    games: str | None  # the exact count of games, as decimal text (None: summary mode)
    games_approx: float | None
    expected_length: float | None
    seconds: float
    engine_version: str
    built_at: datetime
    summary_only: bool
    decomposition_terms: int | None
    teams: int | None
    summary_checksum: int | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Layer:
        return cls(**{f.name: row[f.name] for f in fields(cls)})

    def to_json(self) -> dict[str, Any]:
        return {k: _plain(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class GameInfo:
    """A game of the catalogue, or a family once (its members listed): how far a full build
    and summary mode reach on this machine (None: no summary mode), its start of n = 5."""

    variant: str
    family: str | None
    members: list[str] | None
    game: str
    full_n: str | None
    summary_n: str | None
    start_of_5: str
    source: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ExportedFile:
    """One file an export wrote: its path inside the export's folder, rows, bytes, sha256."""

    path: str
    rows: int
    bytes: int
    sha256: str


@dataclass(frozen=True)
class ExportedTable:
    """A table's files in an export, and the columns in their folders' names."""

    partitioned_by: list[str]
    rows: int
    files: list[ExportedFile]


@dataclass(frozen=True)
class Export:
    """What `zeckdb export` wrote: the folder and its manifest (manifest.json is to_json())."""

    folder: str
    zeckdb_version: str
    schema_revision: str
    format: str
    created: str
    database: str
    partitioning: str
    tables: dict[str, ExportedTable]

    @classmethod
    def from_manifest(cls, folder: str, manifest: dict[str, Any]) -> Export:
        tables = {name: ExportedTable(t["partitioned_by"], t["rows"], [ExportedFile(**f) for f in t["files"]])
                  for name, t in manifest["tables"].items()}
        return cls(folder, **{k: v for k, v in manifest.items() if k != "tables"}, tables=tables)

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables.values())

    @property
    def files(self) -> list[ExportedFile]:
        return [f for t in self.tables.values() for f in t.files]

    def to_json(self) -> dict[str, Any]:
        """The manifest, as manifest.json holds it."""
        out = asdict(self)
        del out["folder"]
        return out
