"""How the tables lay a layer out: the columns a position shows and stores, the lean rows of
two-player games (position_rows) and the wide ones (position_rows_wide), and the keys a
variant's rows are found by.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, NamedTuple
from collections.abc import Callable, Iterable

import duckdb


if TYPE_CHECKING:
    pass


POSITION_COLUMNS = ["outcome", "remoteness", "min_remaining", "max_remaining", "games_to_end",
                    "expected_remaining", "grundy", "winning_moves", "is_start", "is_terminal",
                    "in_winning_strategies", "legal_moves"]
# What a lookup reads: fewer columns scanned is what keeps a probe within a few milliseconds.
PROBE_COLUMNS = ["outcome", "remoteness", "min_remaining", "max_remaining", "games_to_end",
                 "expected_remaining", "grundy", "is_start", "is_terminal", "forcing_seat", "teams"]
# what a lookup reads of the positions its moves lead to (forcing_seat: games of three or more players)
MOVE_COLUMNS = ["outcome", "remoteness", "forcing_seat"]
# The view `positions` shows two tables (migration 0011): position_rows stores the layers of
# two-player count-vector games of at most LEAN_BINS bins, with their columns only (DuckDB
# appends a column an INSERT leaves out at the cost of a written one); position_rows_wide
# stores the other layers, with every column.
POSITIONS_TABLES = ("position_rows", "position_rows_wide")
# Tables holding rows of one (variant, n); a layer counts as built when all were written.
LAYER_TABLES = [*POSITIONS_TABLES, "builds", "random_play", "length_distribution"]
LEAN_BINS = 11
LEAN_COLUMNS = frozenset(["id", *(f"c{i}" for i in range(1, LEAN_BINS + 1)), *POSITION_COLUMNS])


class Derived(NamedTuple):
    """A column of the view positions that position_rows stores by others (revision 0013)."""

    sql: str  # as the view computes it
    stored: tuple[str, ...]  # the stored columns it is computed from
    value: Callable[..., Any]  # the same in Python, for a lookup's few rows: a query plans expressions slowly


class OutcomeRule(NamedTuple):
    """A lean row's outcome, said once: the player to move wins where some move wins (`winning`
    > 0), or where no move is left (`moves` = 0) and terminal positions win for the player to
    move there (the game's terminal_wins: misère play, engine.contract). The view positions
    (revision 0017), a lookup's few rows and the writer's check of a layer read it in SQL,
    Python and Arrow, each form made here from these two columns (tests/test_misere.py
    evaluates the three on every case)."""

    winning: str = "winning_moves"
    moves: str = "legal_moves"

    def sql(self, terminal: bool | str) -> str:
        """As SQL; `terminal` a value, or SQL giving it (the view: v.terminal_wins)."""
        value = terminal if isinstance(terminal, str) else str(terminal).lower()
        return f"{self.winning} > 0 OR ({self.moves} = 0 AND {value})"

    def value(self, winning: int, moves: int, terminal: bool) -> bool:
        """For one row."""
        return winning > 0 or (moves == 0 and terminal)

    def arrow(self, table: Any, terminal: bool) -> Any:
        """For a pyarrow.Table's rows, a boolean array."""
        import pyarrow as pa
        import pyarrow.compute as pc

        return pc.or_(pc.greater(table[self.winning], 0), pc.and_(pc.equal(table[self.moves], 0),
                                                                 pa.scalar(terminal)))


OUTCOME = OutcomeRule()


def outcome_sql(terminal: bool | str) -> str:
    """The outcome of a position_rows row, as the view shows it (OUTCOME)."""
    return f"CASE WHEN {OUTCOME.sql(terminal)} THEN 'win'::ENUM('win', 'loss') ELSE 'loss'::ENUM('win', 'loss') END"


def lean_outcome(winning_moves: int, legal_moves: int, terminal: bool = False) -> str:
    """OUTCOME for one row, as its text."""
    return "win" if OUTCOME.value(winning_moves, legal_moves, terminal) else "loss"


def stored_terminal_wins(con: duckdb.DuckDBPyConnection, variant: str) -> bool:
    """Whether the file stores `variant` with terminal positions that win (variants.terminal_wins),
    which the outcome of its position_rows follows; fetched whole, so the connection's next
    result may follow."""
    return con.execute("SELECT count(*) FROM variants WHERE variant = ? AND terminal_wins",
                       [variant]).fetchall() == [(1,)]


# position_rows stores a variant as its variant_ids.variant_id and these columns by others; the
# outcome as a game of normal play has it (misère play: outcome_sql and lean_values take terminal_wins)
LEAN_DERIVED = {
    "outcome": Derived(outcome_sql(False), ("winning_moves", "legal_moves"), lean_outcome),
    "remoteness": Derived("min_remaining + remoteness_over_min", ("min_remaining", "remoteness_over_min"), operator.add),
    "max_remaining": Derived("min_remaining + max_over_min", ("min_remaining", "max_over_min"), operator.add),
    "is_terminal": Derived("legal_moves = 0", ("legal_moves",), lambda moves: moves == 0),
}


def variant_key(table: str, variant: str, variant_id: int | None) -> tuple[str, Any]:
    """The column and value naming a variant's rows in one of the tables behind the view
    positions: position_rows stores its variant_ids.variant_id (revision 0013)."""
    return ("variant_id", variant_id) if table == "position_rows" else ("variant", variant)


def name_id(con: duckdb.DuckDBPyConnection, kind: str, name: str) -> int | None:
    """The small integer a variant (variant_ids) or a graph (graph_ids) is stored by; None
    when it has none, so has no rows stored by it."""
    found = con.execute(f"SELECT {kind}_id FROM {kind}_ids WHERE {kind} = ?", [name]).fetchall()
    return found[0][0] if found else None


def shown_column(table: str, column: str, terminal: bool = False) -> str:
    """SQL reading the column `column` of the view positions from one of the tables behind it
    (`terminal`: the variant's terminal_wins, which the outcome of position_rows follows)."""
    if table == "position_rows_wide":
        return column
    if column not in LEAN_COLUMNS:
        return f"NULL AS {column}"
    if column == "outcome":
        return f"{outcome_sql(terminal)} AS outcome"
    return f"{LEAN_DERIVED[column].sql} AS {column}" if column in LEAN_DERIVED else column


def lean_stored(columns: Iterable[str]) -> list[str]:
    """The columns of position_rows that hold these columns of the view positions."""
    stored = (LEAN_DERIVED[c].stored if c in LEAN_DERIVED else (c,) for c in columns if c in LEAN_COLUMNS)
    return list(dict.fromkeys(s for group in stored for s in group))


def lean_values(columns: Iterable[str], stored: dict[str, Any], terminal: bool = False) -> dict[str, Any]:
    """These columns of the view positions from a row of position_rows (lean_stored's columns;
    `terminal`: the variant's terminal_wins, which its outcome follows)."""
    out = {c: (LEAN_DERIVED[c].value(*(stored[s] for s in LEAN_DERIVED[c].stored)) if c in LEAN_DERIVED
               else stored[c] if c in LEAN_COLUMNS else None) for c in columns}
    if "outcome" in out:
        out["outcome"] = lean_outcome(stored["winning_moves"], stored["legal_moves"], terminal)
    return out


def lean_holds(positions: Any, terminal: bool = False) -> bool:
    """Whether a layer's positions (a pyarrow.Table of the view's columns) are what
    position_rows would give back: the outcome it derives (OUTCOME, with the game's
    terminal_wins) is every row's; else it is stored wide."""
    import pyarrow.compute as pc

    if "outcome" not in positions.column_names:
        return True
    wins = pc.equal(pc.cast(positions["outcome"], "string"), "win")
    return bool(pc.all(pc.equal(wins, OUTCOME.arrow(positions, terminal))).as_py() is not False)


def lean_rows(positions: Any) -> Any:
    """A layer's positions (a pyarrow.Table of the view's columns) as position_rows stores them."""
    import pyarrow.compute as pc

    least = positions["min_remaining"]
    stored = positions.drop_columns(list(LEAN_DERIVED))
    return stored.append_column("remoteness_over_min", pc.subtract(positions["remoteness"], least)) \
        .append_column("max_over_min", pc.subtract(positions["max_remaining"], least))
