"""Chip games: positions are chip counts in weighted bins, moves are rules "take these
chips, put those" (rules.py), played by the game (game.py) with its compiled loops
(kernels.py) and its one-pass summary over colex ranks (summary.py)."""

from .game import ChipGame
from .rules import Rule

__all__ = ["ChipGame", "Rule"]
