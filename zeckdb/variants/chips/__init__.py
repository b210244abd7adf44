"""Chip games: positions are chip counts in weighted bins, moves are rules "take these
chips, put those" (game.py), with their compiled loops (kernels.py) and their one-pass
summary over colex ranks (summary.py)."""

from .game import ChipGame, Rule

__all__ = ["ChipGame", "Rule"]
