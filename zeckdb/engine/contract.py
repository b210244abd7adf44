"""The variant contract, owned by the engine: what a game supplies so the engine can
enumerate, link, solve and store it, and the lookups can find and play its positions. A
game (zeckdb/variants/, or a plugin: docs/adding-a-game.md) subclasses Variant; it imports
no database, CLI or file code. The engine imports nothing of the games.

The contract in three parts, as typing.Protocols below: Solvable (what solving a layer
needs: engine.solve takes it), Playable (the lookups') and Summarisable (summary mode's, an
optional capability: engine.summary takes it). Variant, the base class games subclass,
supplies defaults for what can be derived and requires the rest.

REQUIRED by the engine (build, store):
  name, title, source      registry name, human title, paper it comes from
  columns                  names of the count columns a position has, distinct (e.g. c1, c2,
                           ...; or the bins' values). Listed in variant_columns; the
                           tables store the k-th column as ck whatever its name
  column_weights           per column, its weight: a position's layer n is the weighted sum
                           of its counts (chip games: the bin values). A weight is 0 or
                           more: a count of weight 0 does not add to n (a marker, not a
                           quantity; `zeckdb verify` sums the others), and a game whose
                           layers_are_partitions has none (its layers would be unbounded)
  max_n                    the largest n the variant can be built for
  move_names               name of each move code, in this variant's direction
  start(n)                 the start position of n
  id_of(position)          its id: its index in layer_keys(layer_of(position))
  layer_keys(n)            every key of layer n, in id order (the stored order)
  decode(keys)             keys -> (len, len(columns)) count matrix
  graph_edges(n, keys)     for any ascending subset of layer n's keys (the whole layer when a
                           build solves it, one key when a lookup plays a position), the
                           edges as (src index into `keys`, dst key, code)

REQUIRED by the lookups (position, line, the service, simulate):
  parse(text)              a position as the user writes it -> tuple of ints (default: counts)
  layer_of(position)       the n whose layer holds a position (or raise)
  play_moves(position)     [(code, child position)] in this variant's direction (default:
                           derived from graph_edges on the position's key; a reversed game
                           supplies its own)

OPTIONAL:
  graph     name of the variant whose edges this one plays on (default: its own
            name). Variants sharing a graph store its edges once.
  reversed  True if this variant plays the graph's edges backwards (default False).
  min_n     the smallest layer (default 1; 0 for games whose play can empty the board)
  lower_layers(n)  the layers below n that a move from layer n can reach (default
            none: every move keeps the layer). The engine solves those first and
            links such moves to their solved positions.
  layers_of(keys)  the layer of each key (default: the column-weighted sum of the
            decoded counts); needed only with lower_layers.
  layers_are_partitions  True if layer n holds every partition of n into the
            column weights (`zeckdb verify` checks the layer's size against them).
  text_width  format() keeps at least this many counts (default 0: trailing zeros dropped;
            Fibonacci nim's `(r,k)` keeps 2). Stored in the variants table: the SQL macro
            game_text and the view position_texts write a position as format() does.
  key_of(position)  the int64 key of a position (see "keys" below), for tests and tools
            that find a position among layer_keys without its id.
  family_title  for a member of a family (`black-hole-M`): the family's title,
            with M in it (`zeckdb variants` lists a family once, under it).
  convention  how a terminal position scores (CONVENTIONS): "normal" (default), the player
            to move there has lost, the last mover wins; "misere", the player to move there
            has won, the last mover loses. The engine solves both; the moves, lengths, counts
            and random-play columns are the game's own either way. Two-player games only.
  players   how many players move in turn, the last mover winning (default 2). With
            more, the engine stores which player can force a win (positions.forcing_seat,
            builds.winner) instead of the two-player columns (variants/players.py).
  shortest_is_n_minus_terms, longest_bound  facts the game declares about its lengths, stored
            in the variants table for the `lengths` query: the shortest game is n minus the
            terms of n's decomposition; the longest obeys the bound named (`theorem-1.4`).
  query_columns  the columns of the named queries that mean something for this game (a query
            names them in its header, `-- game-columns:`; rows of other games show NULL there):
            the reversed game declares `minus_inverse_phi`, its Conjecture 1.3's distance.
  decomposition_terms(n)  the number of terms of n's decomposition in the game's sequence
            (Z(n) for the Fibonacci games), or None where the game has none (default).
  estimate_positions(n)  how many positions layer n has: the limits of engine.limits and the
            progress bars read it (and layer_sizes, its array form). A game that supplies it
            gives the exact count (the chip games: the coin-change count), and the conformance
            checks hold it to that; without it, the default n is a guess, and how far the
            game builds is then guessed too (counts_positions says which).
  summary_walk(n)  summary mode (engine/summary.py): layer n solved in one pass, without its
            moves, by the engine. The game returns a SummaryWalk: its positions in a solving
            order (children first) stepped by a numba-compiled function that gives a batch
            of positions' ids and their children's ids, found by arithmetic; the engine
            solves each from its children. has_summary_walk: whether the game has one (default: it
            overrides summary_walk). summary_size(n): the layer's size (default:
            estimate_positions(n), exact then); summary_overhead: bytes per position the
            walk holds. Chip games whose moves go one way in rank have one
            (variants/chips/summary.py), as has the ordered game.
  random_lengths(n, games, seed)  the lengths of `games` uniformly random games of n,
            played by a compiled loop (any n); default None: `zeckdb simulate` plays them
            through play_moves, up to simulate_max_n.
  entries(keys)  for games whose positions are ordered lists (the ordered game): each
            position's entries left to right, as (offsets, values) of a list column;
            the store keeps them in positions.entries (the counts cannot say which
            ordering a position is). Default None: the counts are the position.

Keys and ids: keys are what the engine computes with: distinct int64s, one per
position, so that sorted keys link a move's result to its position. Ids are
what the database stores: a dense numbering 0..size-1 of a layer that a lookup
can compute from a position alone, without the layer. The moves must not form
a cycle (the engine checks it while ordering the layer).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
import numbers
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import UsageError, ZeckdbError

Position = tuple[int, ...]



MAX_COUNT_COLUMNS = 16  # positions.c1 .. c16
# how a terminal position scores for the player to move there: lost under normal play (the
# last mover wins), won under misère play (the last mover loses); docs/games.md
CONVENTIONS = ("normal", "misere")
MAX_PLAYERS = 6  # teams: a 64-bit mask over the 2^P seat sets


@dataclass(frozen=True)
class SummaryWalk:
    """A layer's positions in a solving order, for summary mode: the engine calls
    steps(first, count, cursor, ids, ends, kids) for first = 0, B, 2B, ... (B positions at a
    time, each batch then solved by engine.kernels.solve_batch). The call writes the positions first .. first +
    count - 1 of the order: the j-th one's id in ids[j] (every child of a position stepped
    before it), its children's ids in kids[ends[j - 1]:ends[j]] (from 0 for j = 0), and
    returns 0; or it returns -1 - id where a move of position id breaks the order (a bug of
    the game: nothing is then stored). steps is a numba-compiled function; cursor, a tuple
    of what it reads and the state it carries from one call to the next (arrays it updates
    in place)."""

    size: int  # the layer's positions (ids 0 .. size - 1)
    start: int  # the start's id
    max_moves: int  # the most moves a position has (kids holds count * max_moves)
    steps: Callable[..., int]
    cursor: tuple[Any, ...]
    # OPTIONAL: a new cursor of the walk's own, with which steps may be called for any first
    # (batches in any order, each thread with its cursor): the engine then steps a large layer
    # on several threads. Without it, batches are stepped in order with `cursor` alone.
    fork: Callable[[], tuple[Any, ...]] | None = None


@runtime_checkable
class Solvable(Protocol):
    """What solving a layer needs of a game, and no more (engine.solve's functions take it):
    its layer's keys in id order, their moves, the start and the players. Variant below
    supplies the rest of the contract's members with defaults, or requires them."""

    name: str
    players: int
    reversed: bool  # its moves are the graph's edges backwards
    convention: str  # CONVENTIONS: how its terminal positions score

    @property
    def move_names(self) -> list[str]: ...

    def check_n(self, n: int) -> None: ...

    def closure(self, n: int) -> list[int]: ...

    def start(self, n: int) -> Position: ...

    def id_of(self, position: Position) -> int: ...

    def layer_keys(self, n: int) -> np.ndarray: ...

    def graph_edges(self, n: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...

    def lower_layers(self, n: int) -> list[int]: ...

    def layers_of(self, keys: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class Summarisable(Protocol):
    """The summary-mode capability (engine.summary's functions take it): a layer solved in
    one pass over its ids, without its moves."""

    name: str
    players: int
    convention: str
    summary_overhead: int

    def summary_size(self, n: int) -> int: ...

    def summary_walk(self, n: int) -> SummaryWalk: ...


@runtime_checkable
class Playable(Protocol):
    """The lookups' capability (position, line, the service, simulate): positions as users
    write them, and the moves from one of them."""

    name: str

    def parse(self, text: str) -> Position: ...

    def format(self, position: Sequence[int]) -> str: ...

    def layer_of(self, position: Position) -> int: ...

    def play_moves(self, position: Position) -> list[tuple[int, Position]]: ...


class ContractError(ZeckdbError, ValueError):
    """A game breaks a limit of the variant contract (a bug of the game, named when it registers),
    or a plugin's game fails to load: one line naming it."""


# A game's name (and its graph's): lower-case ASCII letters, digits and single hyphens, a letter
# first, at most 64 characters. Names become file names (exports, shards, plots) and SQL
# values: nothing else is safe in both, and a name read from a database file is held to it too.
NAME_PATTERN = r"[a-z][a-z0-9]*(-[a-z0-9]+)*"
# the largest n a game may declare (max_n, summary_max_n): zeckdb's limits hold an entry per n,
# and no game of the family has a layer past this that fits a machine
MAX_DECLARED_N = 100_000
MAX_NAME_LENGTH = 64


def terminal_wins(variant: object) -> bool:
    """What a terminal position (no move left) is worth to the player to move there: a win
    under misère play (the other player moved last), a loss under normal play. The one value
    every rule of a convention reads: the engine's kernels, the stored outcome
    (variants.terminal_wins, store.layout.OUTCOME), the parity of a game's length (mover_wins)."""
    return getattr(variant, "convention", "normal") == "misere"


def mover_wins(moves: int, terminal_value: bool) -> bool:
    """Whether the player to move wins a game that lasts exactly `moves` more moves: they make
    the last move when `moves` is odd, and the last mover wins unless terminal positions win
    (terminal_value: terminal_wins of the game)."""
    return (moves % 2 == 1) != terminal_value


def valid_name(name: object) -> bool:
    import re

    return isinstance(name, str) and len(name) <= MAX_NAME_LENGTH and re.fullmatch(NAME_PATTERN, name) is not None


def check_contract(variant: Variant) -> None:
    """Every limit the contract declares, checked when a game registers (before anything is
    solved): a game past one would solve, then fail to store or store wrong numbers."""
    name = getattr(variant, "name", type(variant).__name__)
    problems = []
    for what, value in (("name", getattr(variant, "name", None)), ("graph", getattr(variant, "graph", None))):
        if what == "graph" and value is None:
            continue
        if not valid_name(value):
            problems.append(f"its {what} {shown_text(str(value))} is not a game name (lower-case letters, digits and "
                            f"single hyphens, a letter first, at most {MAX_NAME_LENGTH} characters)")
    problems += _column_problems(variant)
    if not 0 <= variant.min_n <= variant.max_n:
        problems.append(f"its n range {variant.min_n}..{variant.max_n} is empty")
    if variant.max_n > MAX_DECLARED_N or (variant.summary_max_n or 0) > MAX_DECLARED_N:
        problems.append(f"it declares n up to {max(variant.max_n, variant.summary_max_n or 0):,}, past the "
                        f"{MAX_DECLARED_N:,} any layer of a game can reach (its limits are computed per n)")
    if not 2 <= variant.players <= MAX_PLAYERS:
        problems.append(f"{variant.players} players: the engine solves 2 to {MAX_PLAYERS}")
    problems += _convention_problems(variant)
    if len(variant.move_names) > 32767:
        problems.append(f"{len(variant.move_names)} move codes do not fit a SMALLINT")
    if variant.summary_max_n is not None and variant.summary_max_n < variant.min_n:
        problems.append("its summary_max_n is below its first n")
    if problems:
        raise ContractError(f"the game {name} breaks the variant contract: {'; '.join(problems)}")


def _column_problems(variant: Variant) -> list[str]:
    """What breaks the contract in a game's count columns and their weights."""
    problems = []
    if len(variant.columns) > MAX_COUNT_COLUMNS:
        problems.append(f"it has {len(variant.columns)} count columns, the database stores at most {MAX_COUNT_COLUMNS}")
    names = list(variant.columns)
    if len(set(names)) != len(names) or not all(isinstance(c, str) and c for c in names):
        problems.append("its column names are not distinct, non-empty texts")
    if len(variant.column_weights) != len(variant.columns):
        problems.append(f"its {len(variant.columns)} columns have {len(variant.column_weights)} weights")
    if any(not isinstance(w, numbers.Integral) or isinstance(w, bool) or w < 0 for w in variant.column_weights):
        problems.append("its column weights are not whole numbers of 0 or more")
    elif getattr(variant, "layers_are_partitions", False) and 0 in variant.column_weights:
        problems.append("it says layers_are_partitions with a column of weight 0, whose count n would not bound")
    return problems


def _convention_problems(variant: Variant) -> list[str]:
    """What breaks the contract in a game's convention (CONVENTIONS; misère play: two players)."""
    convention = getattr(variant, "convention", None)
    if convention not in CONVENTIONS:
        return [f"its convention {shown_text(str(convention))} is not one zeckdb knows ({' or '.join(CONVENTIONS)})"]
    if convention == "misere" and variant.players != 2:
        return [f"misère play is defined here for two players, not {variant.players}"]
    normal_of = getattr(variant, "normal_of", None)
    if normal_of is not None and (convention != "misere" or normal_of == variant.name):
        return [f"it says normal_of {shown_text(str(normal_of))}, which only a misère twin zeckdb makes of a "
                "normal game says (a game of its own leaves it None)"]
    return []


def stored_columns(variant: Variant) -> list[str]:
    """The names the tables give a game's count columns, by position: c1, c2, ... (the
    game's own names are listed in variant_columns)."""
    return [f"c{k}" for k in range(1, len(variant.columns) + 1)]


def unbracket(text: str) -> str:
    """A position's text without the one pair of brackets, ( ) or [ ], that may enclose it."""
    raw = text.strip()
    if raw[:1] in ("(", "[") and raw[-1:] == {"(": ")", "[": "]"}[raw[0]]:
        raw = raw[1:-1].strip(" ")  # spaces only, as parse_count takes them: no tab or newline inside
    return raw


def shown_text(text: str) -> str:
    """A user's text as an error message quotes it: repr'd, cut at 40 characters."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


class Variant(ABC):
    name: str
    title: str
    source: str
    max_n: int
    graph: str | None = None  # None: the variant owns its graph
    reversed: bool = False
    min_n: int = 1
    #: OPTIONAL: what to suggest for n beyond max_n (the exhaustive limit)
    beyond_max_n: str = ""
    #: OPTIONAL: layer n holds every partition of n into the column weights (`zeckdb verify` counts them)
    layers_are_partitions: bool = False
    #: OPTIONAL, for members of a family: the family's title (`zeckdb variants` lists the family once)
    family_title: str = ""
    #: OPTIONAL: format() keeps at least this many counts (the SQL macro game_text too)
    text_width: int = 0
    #: OPTIONAL: how many players move in turn
    players: int = 2
    #: OPTIONAL: how a terminal position scores (CONVENTIONS): "normal", the player to move there
    #: has lost (the last mover wins); "misere", has won (the last mover loses). Two players only.
    convention: str = "normal"
    #: the normal-play game this game is the misère twin of (variants/misere.py), else None
    normal_of: str | None = None
    #: OPTIONAL: the shortest game of n is n - decomposition_terms(n) (the `lengths` query checks it)
    shortest_is_n_minus_terms: bool = False
    #: OPTIONAL: a published bound on the longest game, by name (`lengths` knows `theorem-1.4`)
    longest_bound: str | None = None
    #: OPTIONAL: the game-specific columns of the named queries (`-- game-columns:`) it gives a meaning to
    query_columns: frozenset[str] = frozenset()
    #: OPTIONAL, games of three or more players: the n from which a theorem proves that no player
    #: can force a win from the start (None where none applies)
    forcing_bound: int | None = None
    #: OPTIONAL: the largest n whose games play_moves can play (`zeckdb simulate`; None: max_n)
    simulate_max_n: int | None = None
    #: OPTIONAL: what a full build holds per position of a layer (its moves included), in bytes:
    #: with the layer's size, what bounds the n a full build reaches (engine.limits)
    full_bytes_per_position: int = 512
    #: OPTIONAL: the largest n summary mode can represent (None: max_n), and why it stops there
    summary_max_n: int | None = None
    summary_max_n_reason: str = ""

    @property
    def graph_name(self) -> str:
        return self.graph or self.name

    @property
    @abstractmethod
    def columns(self) -> list[str]: ...

    @property
    @abstractmethod
    def column_weights(self) -> tuple[int, ...]: ...

    @property
    @abstractmethod
    def move_names(self) -> list[str]: ...

    @abstractmethod
    def layer_of(self, position: Position) -> int: ...

    def key_of(self, position: Position) -> int:
        raise NotImplementedError(f"{self.name} does not compute a position's key")

    @abstractmethod
    def id_of(self, position: Position) -> int: ...

    @abstractmethod
    def start(self, n: int) -> Position: ...

    @abstractmethod
    def layer_keys(self, n: int) -> np.ndarray: ...

    @abstractmethod
    def decode(self, keys: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def graph_edges(self, n: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...

    def play_moves(self, position: Position) -> list[tuple[int, Position]]:
        """[(move code, child position)] in this variant's direction. By default derived from
        graph_edges on the position's own key, so that the lookups and the builds cannot
        disagree; a game may supply a faster one (zeckdb.testing compares the two)."""
        if self.reversed:
            raise NotImplementedError(f"{self.name} plays its graph backwards: it supplies its own play_moves")
        keys = np.array([self.key_of(position)], dtype=np.int64)
        _, child_keys, codes = self.graph_edges(self.layer_of(position), keys)
        entries = self.entries(child_keys)
        if entries is not None:
            offsets, values = entries
            return [(int(c), tuple(int(v) for v in values[offsets[i]:offsets[i + 1]])) for i, c in enumerate(codes)]
        width = self.text_width  # the counts a position keeps, as format() writes them
        return [(int(c), tuple(int(x) for x in row[:max(len(np.trim_zeros(row, "b")), width)])) for c, row in
                zip(codes, self.decode(child_keys), strict=True)]

    def lower_layers(self, n: int) -> list[int]:
        return []

    def entries(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        return None

    def decomposition_terms(self, n: int) -> int | None:
        return None

    summary_overhead: int = 0

    def summary_walk(self, n: int) -> SummaryWalk:
        raise NotImplementedError(f"{self.name} has no summary mode")

    @property
    def has_summary_walk(self) -> bool:
        return type(self).summary_walk is not Variant.summary_walk

    #: teams are a 64-bit mask over the 2^P seat sets (engine.kernels.team_masks)
    MAX_TEAM_PLAYERS = MAX_PLAYERS

    @property
    def summary_refusal(self) -> str | None:
        """Why summary mode cannot solve this game, in a few words; None when it can."""
        if self.players > self.MAX_TEAM_PLAYERS:
            return f"the teams of {self.players} players do not fit a 64-bit mask"
        if not self.has_summary_walk:
            return "it has no one-pass walk over its positions"
        return None

    def layer_sizes(self, top: int) -> np.ndarray:
        """The number of positions of each layer 0..top (float64: only compared with budgets;
        engine.limits). By default estimate_positions of each n."""
        return np.array([self.estimate_positions(n) for n in range(top + 1)], dtype=np.float64)

    def summary_size(self, n: int) -> int:
        return self.estimate_positions(n)

    def random_lengths(self, n: int, games: int, seed: int) -> np.ndarray | None:
        return None

    def layers_of(self, keys: np.ndarray) -> np.ndarray:
        weights = np.asarray(self.column_weights, dtype=np.int64)
        return self.decode(keys).astype(np.int64) @ weights

    def closure(self, n: int) -> list[int]:
        """Every layer a game from layer n can pass through, n first, then descending."""
        return [n] + sorted(self._closure_set(n) - {n}, reverse=True)

    def _closure_set(self, n: int) -> frozenset[int]:
        memo: dict[int, frozenset[int]] = self.__dict__.setdefault("_closures", {})
        stack = [n]
        while stack:  # lower layers first, without recursion (Fibonacci nim chains 1000 layers)
            top = stack[-1]
            if top in memo:
                stack.pop()
                continue
            pending = [low for low in self.lower_layers(top) if low not in memo]
            if pending:
                stack.extend(pending)
                continue
            reach = {top}
            for low in self.lower_layers(top):
                if low not in reach:
                    reach |= memo[low]
            memo[top] = frozenset(reach)
            stack.pop()
        return memo[n]

    def estimate_positions(self, n: int) -> int:
        """OPTIONAL: how many positions layer n has (limits, notices, progress): exact where the
        game supplies it; this default is a guess."""
        return n

    @property
    def counts_positions(self) -> bool:
        """Whether estimate_positions is the game's own, exact count (not the default guess)."""
        return type(self).estimate_positions is not Variant.estimate_positions

    def estimate_work(self, n: int) -> int:
        """OPTIONAL: the relative cost of building layer n, for progress bars (default: its positions)."""
        return self.estimate_positions(n)

    # -- shared helpers -------------------------------------------------
    def check_n(self, n: int) -> None:
        if not self.min_n <= n <= self.max_n:
            hint = f"; {self.beyond_max_n}" if n > self.max_n and self.beyond_max_n else ""
            raise UsageError(f"n = {n} is out of range for {self.name}: choose n from {self.min_n} to {self.max_n}{hint}")

    def parse(self, text: str) -> Position:
        """Parse a count vector written bin 1 first, e.g. '3,1,0,2' or '(3,1,0,2)' (ASCII digits only)."""
        from ..ranges import parse_count

        shown = shown_text(text)
        raw = unbracket(text)
        if not raw.strip("()[], "):
            raise UsageError(f"empty position for {self.name}: write the counts bin 1 first, e.g. 3,1,0,2")
        parts = raw.split(",")
        if len(parts) > len(self.columns) + 64:  # trailing zeros are allowed, without end they are not
            raise UsageError(f"position {shown} has {len(parts)} bins; {self.name} has at most {len(self.columns)}")
        counts = [parse_count(p) for p in parts]
        negative = [c is None and parse_count(p.strip(" ").removeprefix("-")) is not None for c, p in zip(counts, parts,
                                                                                                        strict=True)]
        if any(negative):
            raise UsageError(f"malformed position {shown}: counts cannot be negative")
        if any(c is None for c in counts):
            raise UsageError(f"malformed position {shown}: write whole numbers (ASCII digits) separated by commas, "
                             "e.g. 3,1,0,2")
        while counts and counts[-1] == 0:
            counts.pop()
        if len(counts) > len(self.columns):
            raise UsageError(f"position {shown} has {len(counts)} bins; {self.name} has at most {len(self.columns)}")
        return tuple(counts)  # type: ignore[arg-type]  # no None left

    def format(self, position: Sequence[int]) -> str:
        """A position as the user writes it and reads it back: its counts, trailing zeros dropped."""
        counts = list(position) + [0] * (self.text_width - len(position))
        while len(counts) > self.text_width and counts[-1] == 0:
            counts.pop()
        return "(" + ",".join(str(int(c)) for c in counts) + ")"
