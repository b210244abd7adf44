"""Parsing of n ranges as users write them: `7`, `1..150`, `1..20,30`."""

from __future__ import annotations

from .errors import UsageError


def parse_ns(text: str, max_n: int | None = None) -> list[int]:
    """The sorted, distinct n of a range expression; each n must be >= 1 (and <= max_n)."""
    hint = "write n as 7, 1..150 or 1..20,30"
    ns: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        lo_text, sep, hi_text = part.partition("..")
        try:
            lo = int(lo_text)
            hi = int(hi_text) if sep else lo
        except ValueError:
            raise UsageError(f"bad --n {text!r}: {hint}") from None
        if lo < 1:
            raise UsageError(f"bad --n {text!r}: n starts at 1 ({hint})")
        if hi < lo:
            raise UsageError(f"bad --n {text!r}: the range {lo}..{hi} is empty, write the smaller end first")
        if max_n is not None and hi > max_n:
            raise UsageError(f"bad --n {text!r}: n goes up to {max_n}")
        ns.update(range(lo, hi + 1))
    return sorted(ns)


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
