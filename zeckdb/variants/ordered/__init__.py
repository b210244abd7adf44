"""The ordered Zeckendorf game: its rules (game.py) and its compiled loops (kernels.py)."""

from .game import Ordered

__all__ = ["Ordered"]
