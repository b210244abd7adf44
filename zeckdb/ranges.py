"""Parsing of the numbers users type: n ranges (`7`, `1..150`, `1..20,30`) and counts.

Only ASCII digits are numbers here (Python's int() would also take `٣`, `1_0`
or ` 7 `), and every bound is checked before anything is allocated.
"""

from __future__ import annotations

import re

from .errors import UsageError, opt

MAX_N = 10_000  # above every variant's limit; a range is refused before it is expanded
_DIGITS = re.compile(r"[0-9]{1,100}")  # [0-9], not \d: \d matches every script's digits


def parse_count(text: str) -> int | None:
    """A whole number written in ASCII digits (at most 100 of them: the callers bound the value), else None."""
    text = text.strip(" ")
    return int(text) if _DIGITS.fullmatch(text) else None


def parse_ns(text: str, max_n: int = MAX_N) -> list[int]:
    """The sorted, distinct n of a range expression; each n from 0 to max_n (where a game starts,
    at its min_n, is its own to say: most start at 1, games whose play can empty the board at 0)."""
    hint = "write n as 7, 1..150 or 1..20,30"
    if len(text) > 10_000:
        raise UsageError(f"bad {opt('n')}: {len(text):,} characters is too long ({hint})")
    ranges: list[tuple[int, int]] = []
    for part in text.split(","):
        lo_text, sep, hi_text = part.strip(" ").partition("..")
        lo, hi = parse_count(lo_text), parse_count(hi_text) if sep else parse_count(lo_text)
        if lo is None or hi is None:
            raise UsageError(f"bad {opt('n')} {_shown(text)}: {hint} (ASCII digits only)")
        if hi < lo:
            raise UsageError(f"bad {opt('n')} {_shown(text)}: the range {lo}..{hi} is empty, write the smaller end first")
        if hi > max_n:
            raise UsageError(f"bad {opt('n')} {_shown(text)}: n goes up to {max_n}")
        ranges.append((lo, hi))
    return sorted(set().union(*(range(lo, hi + 1) for lo, hi in ranges)))


def parse_n(text: str, name: str = "n") -> int:
    """One n in ASCII digits, else a UsageError naming the parameter as the caller writes it
    (`name`: --n or --start on the command line, n over HTTP)."""
    n = parse_count(text)
    if n is None:
        example = f"{name} 7" if name.startswith("-") else "7"
        raise UsageError(f"bad {name} {text[:40]!r}: give one n in ASCII digits, e.g. {example}")
    return n


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def format_ns(ns: list[int]) -> str:
    """The inverse of parse_ns: [1, 2, 3, 7] -> '1..3,7'."""
    parts: list[str] = []
    ns = sorted(ns)
    i = 0
    while i < len(ns):
        j = i
        while j + 1 < len(ns) and ns[j + 1] == ns[j] + 1:
            j += 1
        parts.append(str(ns[i]) if i == j else f"{ns[i]}..{ns[j]}")
        i = j + 1
    return ",".join(parts)
