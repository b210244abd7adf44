"""One renderer for every tabular output (table, csv, json, markdown), shared by the command line and the service."""

from __future__ import annotations

from decimal import Decimal
import json
import math
from collections.abc import Callable
from typing import Any, Protocol

from .errors import printable

FORMATS = ("table", "csv", "json", "markdown")


def plain(value: Any) -> Any:
    """A JSON-ready value: exact integers stay integers, NaN becomes null, the rest becomes text."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):  # a struct, or a map: JSON names its keys in text
        return {k if isinstance(k, str) else _text(k): plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return str(value)


# a text from a database file someone else made can hold terminal escape sequences (CSI colours,
# OSC 52 writing the clipboard) and marks that reorder a line: shown escaped in tables
def _visible(text: str) -> str:
    """A cell or column name for a table read by a person: every character a terminal would act
    on escaped (\\x1b, \\u202e: errors.printable)."""
    return printable(text)


def _cell(value: Any) -> str:
    return _visible(_text(value))


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.10g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return str(value)


def render(columns: list[str], rows: list[tuple[Any, ...]], fmt: str = "table") -> str:
    """The rows in one of FORMATS, as one text (StreamedRender's, every row in one block)."""
    pieces: list[str] = []
    streamed = StreamedRender(fmt, pieces.append)
    streamed.emit(columns, rows)
    streamed.finish()
    return "".join(pieces).removesuffix("\n")


class _Emitter:
    """One format's writing of rows that come block by block: the first block names the columns."""

    def __init__(self, write: Callable[[str], Any]):
        self.write = write

    def emit(self, columns: list[str], rows: list[tuple[Any, ...]], first: bool, before: int) -> None:
        raise NotImplementedError

    def finish(self, count: int | None) -> None:
        """The end of the rows: count is how many came, None where no block came."""


class _Json(_Emitter):
    def emit(self, columns: list[str], rows: list[tuple[Any, ...]], first: bool, before: int) -> None:
        text = ", ".join(json.dumps({c: plain(v) for c, v in zip(columns, row, strict=False)}) for row in rows)
        self.write(("[" if first else ", " if rows and before else "") + text)

    def finish(self, count: int | None) -> None:
        self.write(("[" if count is None else "") + "]\n")


class _Csv(_Emitter):
    def emit(self, columns: list[str], rows: list[tuple[Any, ...]], first: bool, before: int) -> None:
        lines = [[_text(v) for v in row] for row in rows]
        self.write("".join(",".join(_csv_field(text) for text in values) + "\n"
                           for values in ([columns] if first else []) + lines))


class _Markdown(_Emitter):
    def emit(self, columns: list[str], rows: list[tuple[Any, ...]], first: bool, before: int) -> None:
        head = [[_visible(c) for c in columns], ["---"] * len(columns)] if first else []
        self.write("".join("| " + " | ".join(v.replace("|", "\\|") for v in values) + " |\n"
                           for values in head + [[_cell(v) for v in row] for row in rows]))


class _Table(_Emitter):
    """Columns aligned as the first block sets them (numbers to the right), a count at the end."""

    widths: list[int]
    numeric: list[bool]

    def emit(self, columns: list[str], rows: list[tuple[Any, ...]], first: bool, before: int) -> None:
        cells = [[_cell(v) for v in row] for row in rows]
        if first:
            names = [_visible(c) for c in columns]
            self.widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(names)]
            self.numeric = [bool(rows) and all(_is_number(row[i]) for row in rows) for i in range(len(names))]
            self.write(self._line(names) + "\n" + "  ".join("-" * w for w in self.widths) + "\n")
        self.write("".join(self._line(r) + "\n" for r in cells))

    def _line(self, values: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, self.widths, self.numeric, strict=False)).rstrip()

    def finish(self, count: int | None) -> None:
        count = count or 0
        self.write(f"({count} row{'s' if count != 1 else ''})\n")


_EMITTERS: dict[str, type[_Emitter]] = {"json": _Json, "csv": _Csv, "markdown": _Markdown, "table": _Table}


class StreamedRender:
    """What render() writes, written block by block as the rows come (`write` takes text): the
    same text when every row comes in one block; in a table, the first block sets the widths."""

    def __init__(self, fmt: str, write: Callable[[str], Any]):
        self.emitter = _EMITTERS.get(fmt, _Table)(write)
        self.columns: list[str] | None = None
        self.rows = 0

    def emit(self, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
        self.emitter.emit(columns, rows, self.columns is None, self.rows)
        self.columns = columns
        self.rows += len(rows)

    def finish(self) -> None:
        self.emitter.finish(None if self.columns is None else self.rows)


def _csv_field(text: str) -> str:
    """A field as RFC 4180 writes it: quoted where it holds a comma, a quote or a line break (a
    carriage return too, which Python's csv module leaves bare when its lines end in \\n)."""
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\r\n') else text


def _is_number(v: Any) -> bool:
    return v is None or (isinstance(v, (int, float, Decimal)) and not isinstance(v, bool))


def seat_words(seat: int | None, players: int, start: bool = False) -> str:
    """A forcing seat (games of three or more players) in words, counted from the player to move
    (at the start of a game, the player to move is Player 1, so seat s is Player s)."""
    if seat is None:
        return "no player can force a win"
    if start:
        return f"Player {seat} of {players} can force a win"
    if seat == 1:
        who = "the player to move"
    elif seat == 2:
        who = "the next player"
    elif seat == players:
        who = "the player who just moved"
    else:
        who = f"the player {seat - 1} turns after the one to move"
    return f"{who} (seat {seat} of {players}) can force a win"


def team_words(teams: list[list[int]], players: int, start: bool = False) -> str:
    """The teams that can force a win (games of three or more players) in words: players at the
    start of a game, else seats counted from the player to move (1 = the player to move)."""
    who = "players" if start else "seats from the player to move"
    shown = " ".join("{" + ",".join(str(s) for s in team) + "}" for team in teams)
    return f"{len(teams)} of {2 ** players - 2} can force a win ({who}): {shown}"


class Answer(Protocol):
    """What result_body reads of a query's answer (zeckdb.executor.Result, which renders itself
    with this module: the renderer knows the answer by its shape, not by its class)."""

    @property
    def columns(self) -> list[str]: ...
    @property
    def rows(self) -> list[tuple[Any, ...]]: ...
    @property
    def total_rows(self) -> int | None: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def notice(self) -> str | None: ...


def result_body(result: Answer, fmt: str = "json", extra: dict[str, Any] | None = None) -> bytes:
    """A query's answer as the service sends it: CSV (a header, then the rows), or JSON with the
    columns, the rows, total_rows, truncated, a notice where the rows stop short of what was
    asked, and the fields of `extra`."""
    if fmt == "csv":
        return (render(result.columns, result.rows, "csv") + "\n").encode()
    answer = {"columns": result.columns, "rows": [plain(list(row)) for row in result.rows],
              "total_rows": result.total_rows, "truncated": result.truncated,
              **({"notice": result.notice} if result.notice else {}), **(extra or {})}
    # as Starlette's JSONResponse renders it
    return json.dumps(answer, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
