"""How far a game builds: its largest n, from what one layer costs (docs/scaling.md).

A build holds one layer at a time (the builder bounds the layers in flight), so the
largest n a game can build is the last n up to which every layer fits a memory budget:

    full build    positions(n) * variant.full_bytes_per_position  <=  build budget
    summary mode  positions(n) * summary state bytes per position  <=  summary budget

`positions(n)` is the game's own count (Variant.layer_sizes). A game's representation
bounds both: a full build never passes `max_n` (its keys and ids), summary mode never
passes `summary_max_n` (its lengths and ranks). The budgets are shares of this machine's
memory, or what ZECKDB_BUILD_MEMORY and ZECKDB_SUMMARY_MEMORY say (GiB).
"""

from __future__ import annotations

from dataclasses import dataclass
import os

import numpy as np

from ..errors import UsageError, opt
from ..settings import DEFAULTS, Settings, env_name
from .contract import Variant

#: The shares of the machine's memory a full build's layer and summary mode's state may take.
BUILD_SHARE = 0.25
SUMMARY_SHARE = 0.4
#: Where the machine does not say how much memory it has.
FALLBACK_MEMORY = 8 << 30

# summary mode's state per position (engine.summary): remoteness, shortest and longest
# game as int16 (and a padding column); the float columns are kept only while they fit
SUMMARY_INT_BYTES = 8
SUMMARY_FLOAT_BYTES = 40
SUMMARY_TEAM_BYTES = 8  # games of three or more players: the teams that can force a win
SUMMARY_WIN_BYTES = 1  # --winner-only: whether the position is won, instead of the integers


def physical_memory() -> int:
    """This machine's memory in bytes (FALLBACK_MEMORY where the system does not tell)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return FALLBACK_MEMORY


def _budget(gib: float | None, share: float) -> int:
    return int(physical_memory() * share) if gib is None else int(gib * 2**30)


def build_memory(settings: Settings = DEFAULTS) -> int:
    """A full build's budget for one layer, in bytes: the build_memory setting (GiB,
    $ZECKDB_BUILD_MEMORY), else a quarter of memory."""
    return _budget(settings.build_memory, BUILD_SHARE)


def summary_memory(settings: Settings = DEFAULTS) -> int:
    """Summary mode's budget for its state, in bytes: the summary_memory setting (GiB,
    $ZECKDB_SUMMARY_MEMORY), else 40 % of memory."""
    return _budget(settings.summary_memory, SUMMARY_SHARE)


def summary_bytes(variant: Variant, floats: bool = False, winner_only: bool = False) -> int:
    """Summary mode's state per position: the solved integers, the float columns (if kept),
    the teams of a game of three or more players, and what the game's own pass holds;
    winner_only (two-player games): one byte, and what the game's own pass holds."""
    if winner_only:
        return SUMMARY_WIN_BYTES + variant.summary_overhead
    return (SUMMARY_INT_BYTES + (SUMMARY_FLOAT_BYTES if floats else 0)
            + (SUMMARY_TEAM_BYTES if variant.players > 2 else 0) + variant.summary_overhead)


def _last_fitting(sizes: np.ndarray, first: int, each: int, budget: int) -> int:
    """The last n >= first up to which every layer (sizes[n] positions, `each` bytes apiece)
    fits `budget`; first - 1 when even the first does not."""
    over = np.flatnonzero(sizes[first:].astype(np.float64) * each > budget)
    return first - 1 + (int(over[0]) if len(over) else len(sizes) - first)


def full_limit(variant: Variant, budget: int) -> int:
    """The largest n a full build of `variant` reaches within `budget` bytes a layer."""
    sizes = variant.layer_sizes(variant.max_n)
    return _last_fitting(sizes, max(variant.min_n, 1), variant.full_bytes_per_position, budget)


def summary_first_n(variant: Variant) -> int:
    """The first n summary mode solves for `variant`: its first layer, never 0 (a layer of 0 is
    one terminal position, which only a full build stores)."""
    return max(variant.min_n, 1)


def summary_limit(variant: Variant, budget: int, winner_only: bool = False) -> int | None:
    """The largest n summary mode reaches for `variant` within `budget` bytes (lean: without
    the float columns; winner_only: one byte a position); None for a game summary mode cannot solve."""
    if variant.summary_refusal is not None:
        return None
    top = variant.summary_max_n if variant.summary_max_n is not None else variant.max_n
    sizes = variant.layer_sizes(top)
    return _last_fitting(sizes, summary_first_n(variant), summary_bytes(variant, winner_only=winner_only), budget)


@dataclass(frozen=True)
class Reach:
    """How far a game builds on this machine: in full, and in summary mode (None: it has none)."""

    full: int
    summary: int | None
    build_budget: int
    summary_budget: int


def reach(variant: Variant, build_budget: int | None = None, summary_budget: int | None = None) -> Reach:
    build_budget = build_memory() if build_budget is None else build_budget
    summary_budget = summary_memory() if summary_budget is None else summary_budget
    return Reach(full_limit(variant, build_budget), summary_limit(variant, summary_budget), build_budget,
                 summary_budget)


def _gib(size: float) -> str:
    return f"{size / 2**30:,.2f} GiB"


def check_full(variant: Variant, n: int, budget: int, limit: int | None = None) -> None:
    """Raise, naming the cost, if a full build of `variant` cannot reach n (`limit`: its
    full_limit for `budget`, when the caller has it)."""
    if n < variant.min_n:
        variant.check_n(n)
    limit = full_limit(variant, budget) if limit is None else limit
    if n <= limit:
        return
    if limit >= variant.max_n:  # the game's own bound, not the budget: its own message
        variant.check_n(n)
    first = limit + 1  # the first layer over budget: what the message names
    positions = float(variant.layer_sizes(first)[first])
    need = positions * variant.full_bytes_per_position
    alternative = f"use {opt('summary_only')}, or " if variant.summary_refusal is None else ""
    raise UsageError(f"n = {n} of {variant.name} needs about {_gib(need)} for layer n = {first} alone "
                     f"({positions:,.0f} positions, {variant.full_bytes_per_position} bytes each); the limit is "
                     f"{_gib(budget)}, which a full build reaches to n = {limit}: {alternative}set "
                     f"{env_name('build_memory')} (GiB)")


def check_summary(variant: Variant, n: int, budget: int, summary_games: list[str], winner_only: bool = False) -> None:
    """Raise, naming the cost, if summary mode cannot reach n for `variant` (`summary_games`:
    the games it can solve, for the message; winner_only: the state of --winner-only)."""
    refusal = variant.summary_refusal
    if refusal is not None:
        raise UsageError(f"{variant.name} has no summary mode: {refusal}; build it in full (summary mode "
                         f"solves {', '.join(summary_games)})")
    if n < summary_first_n(variant):
        raise UsageError(f"n = {n} is out of range for {variant.name}: summary mode starts at n = "
                         f"{summary_first_n(variant)}")
    top = variant.summary_max_n if variant.summary_max_n is not None else variant.max_n
    if n > top:
        raise UsageError(f"n = {n} is beyond summary mode's reach for {variant.name}: n goes up to {top} "
                         f"({variant.summary_max_n_reason or 'its positions are numbered to there'})")
    if winner_only and variant.players > 2:
        raise UsageError(f"{opt('winner_only')} is for two-player games: {variant.name} has {variant.players} "
                         "players, whose winner needs the teams that can force a win (build it without it)")
    limit = summary_limit(variant, budget, winner_only)
    assert limit is not None  # it has a summary mode
    if n <= limit:
        return
    size, each = float(variant.layer_sizes(n)[n]), summary_bytes(variant, winner_only=winner_only)
    raise UsageError(f"n = {n} needs {_gib(size * each)} in summary mode ({variant.name}: {size:,.0f} positions, "
                     f"{each} bytes each), more than the budget of {_gib(budget)}, which reaches n = {limit}: "
                     f"choose a smaller n or raise {env_name('summary_memory')} (GiB)")

