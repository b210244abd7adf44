"""ChipGame: a variant whose positions are chip counts in weighted bins and whose
moves are rules "take these chips, put those", each a constant key delta.

A rules module describes its game as data (bin weights and rules); this class
turns the data into keys, layers and edges, and implements the contract's hooks for
summary mode and random games. The compiled loops live in kernels.py beside it and
are imported only when a layer is built or played, so parsing and probing positions
stays free of numba's start-up cost.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ...errors import UsageError
from ...engine.contract import Position, SummaryWalk, Variant
from .rules import Rule, leaves_layer, rank_direction, rule_arrays


class ChipGame(Variant):
    #: value of a chip in each bin, bin 1 first (bin 1 must be worth 1)
    weights: tuple[int, ...]
    #: the moves of the graph, in the graph's (forward) direction
    rules: tuple[Rule, ...]

    # -- layout ----------------------------------------------------------
    @cached_property
    def _field_bits(self) -> list[int]:
        return [max(1, (self.max_n // w).bit_length()) for w in self.weights]

    @cached_property
    def _offsets(self) -> list[int]:
        offs, at = [], 0
        for b in self._field_bits:
            offs.append(at)
            at += b
        if at > 63:
            raise ValueError(f"{self.name}: keys do not fit in 63 bits at max_n={self.max_n}")
        return offs

    @property
    def columns(self) -> list[str]:
        return [f"c{i + 1}" for i in range(len(self.weights))]

    @property
    def column_weights(self) -> tuple[int, ...]:
        return self.weights

    @property
    def move_names(self) -> list[str]:
        return [r.name for r in self.play_rules]

    @property
    def play_rules(self) -> tuple[Rule, ...]:
        """The rules in this variant's direction (code i is rule i either way)."""
        return self.rules

    def game_for(self, n: int) -> tuple[tuple[int, ...], tuple[Rule, ...]]:
        """OPTIONAL: bin weights and rules (in the direction of play) covering any n, for
        simulations and summaries beyond max_n; by default those of the exhaustive builds."""
        return self.weights, self.play_rules

    # -- positions -------------------------------------------------------
    def value(self, position: Position) -> int:
        return sum(c * w for c, w in zip(position, self.weights, strict=False))

    def layer_of(self, position: Position) -> int:
        n = self.value(position)
        if n < self.min_n:
            raise UsageError(f"position {self.format(position)} is empty: put at least one chip on the board")
        self.check_n(n)
        return n

    def key_of(self, position: Position) -> int:
        if len(position) > len(self.weights):
            raise UsageError(f"{self.name} has {len(self.weights)} bins, the position has {len(position)}")
        key = 0
        for c, off, bits in zip(position, self._offsets, self._field_bits, strict=False):
            if c >= 1 << bits:
                raise UsageError(f"position {self.format(position)} exceeds {self.name}'s n <= {self.max_n}")
            key |= c << off
        return key

    def _ways_table(self, top: int) -> list[list[int]]:
        """[j][v]: count vectors of value v <= top using bins 1..j+1 only (coin-change table)."""
        table, row = [], [1] + [0] * top
        for w in self.weights:
            row = row.copy()
            for v in range(w, top + 1):
                row[v] += row[v - w]
            table.append(row)
        return table

    @cached_property
    def _ways(self) -> list[list[int]]:
        return self._ways_table(self.max_n)

    def layer_sizes(self, top: int) -> np.ndarray:
        """The number of positions of each value 0..top (the coin-change count over the bins
        of game_for(top), one cumulative sum per bin along the residues of its weight)."""
        weights, _ = self.game_for(top)
        row = np.zeros(top + 1, dtype=np.float64)
        row[0] = 1.0
        for w in weights:
            if w > top:
                continue
            padded = np.zeros(-(-(top + 1) // w) * w, dtype=np.float64)
            padded[: top + 1] = row
            row = np.cumsum(padded.reshape(-1, w), axis=0).reshape(-1)[: top + 1]
        return row

    def estimate_positions(self, n: int) -> int:
        """The number of positions of value n: exact up to max_n, a lower bound beyond
        (bins heavier than the variant's are not counted)."""
        return (self._ways if n <= self.max_n else self._ways_table(n))[-1][n]

    def id_of(self, position: Position) -> int:
        """Colex rank among the count vectors of the same value, heaviest bin most significant.

        Vectors with c_j < x (heavier bins fixed, R left to place in bins 1..j)
        number ways_j(R) - ways_j(R - x w_j), so the rank is a sum over bins.
        """
        counts = list(position) + [0] * (len(self.weights) - len(position))
        remaining = self.value(tuple(counts))
        rank = 0
        for j in range(len(self.weights) - 1, 0, -1):
            c, w = counts[j], self.weights[j]
            if c:
                rank += self._ways[j][remaining] - self._ways[j][remaining - c * w]
                remaining -= c * w
        return rank

    def decode(self, keys: np.ndarray) -> np.ndarray:
        keys = np.asarray(keys, dtype=np.int64)
        out = np.empty((len(keys), len(self.weights)), dtype=np.int16)
        for j, (off, bits) in enumerate(zip(self._offsets, self._field_bits, strict=False)):
            out[:, j] = (keys >> off) & ((1 << bits) - 1)
        return out

    def layer_keys(self, n: int) -> np.ndarray:
        """Every count vector of value n in id (colex) order, by expanding the heaviest bin first."""
        assert self.weights[0] == 1
        rem = np.array([n], dtype=np.int64)
        fields = np.zeros(1, dtype=np.int64)
        for j in range(len(self.weights) - 1, 0, -1):
            w = self.weights[j]
            if w > n:
                continue
            choices = rem // w + 1
            row = np.repeat(np.arange(len(rem)), choices)
            starts = np.cumsum(choices) - choices
            c = np.arange(len(row), dtype=np.int64) - starts[row]
            rem = rem[row] - c * w
            fields = fields[row] | (c << self._offsets[j])
        return fields | (rem << self._offsets[0])

    # -- moves -------------------------------------------------------------
    @cached_property
    def _rule_arrays(self) -> tuple[np.ndarray, ...]:
        """Rules as arrays for the kernel: conditions (shift, mask, need) and key delta."""
        width = max(len(r.take) for r in self.rules)
        shift = np.zeros((len(self.rules), width), dtype=np.int64)
        mask = np.zeros((len(self.rules), width), dtype=np.int64)
        need = np.zeros((len(self.rules), width), dtype=np.int64)
        delta = np.zeros(len(self.rules), dtype=np.int64)
        fallback = np.zeros(len(self.rules), dtype=np.bool_)
        for r, rule in enumerate(self.rules):
            for j, (b, cnt) in enumerate(rule.take):
                shift[r, j] = self._offsets[b - 1]
                mask[r, j] = (1 << self._field_bits[b - 1]) - 1
                need[r, j] = cnt
            for b, cnt in rule.put:
                delta[r] += cnt << self._offsets[b - 1]
            for b, cnt in rule.take:
                delta[r] -= cnt << self._offsets[b - 1]
            fallback[r] = rule.fallback
        return shift, mask, need, delta, fallback

    def graph_edges(self, n: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from .kernels import chip_moves

        return chip_moves(keys, *self._rule_arrays)

    # -- summary mode and random games (the contract's optional hooks) -------
    #: OPTIONAL: the bins hold every position of any n (a board of fixed bins: build-up), so the
    #: game needs no game_for of its own to be summarised past max_n
    bins_are_complete: bool = False

    @property
    def _bins_for_any_n(self) -> bool:
        return type(self).game_for is not ChipGame.game_for or self.bins_are_complete

    @property
    def summary_max_n(self) -> int:  # type: ignore[override]  # a property here, an attribute in the contract
        """8,000 where game_for gives the bins of any n (or the bins are all there are); else
        max_n: past it the bins of max_n would miss positions, and the counts would be wrong."""
        return 8000 if self._bins_for_any_n else self.max_n

    @property
    def summary_max_n_reason(self) -> str:  # type: ignore[override]
        return ("the lengths of its games must fit 16 bits" if self._bins_for_any_n else
                "its bins are those of n up to there: past it, a game_for giving the bins of any n is needed")

    @property
    def has_summary_walk(self) -> bool:
        """A chip game has a one-pass summary when its moves stay in the layer and all go one way in rank."""
        return rank_direction(*self.game_for(self.max_n)) != 0

    @property
    def summary_refusal(self) -> str | None:
        if self.has_summary_walk or self.players > self.MAX_TEAM_PLAYERS:
            return super().summary_refusal
        if leaves_layer(*self.game_for(self.max_n)):
            return "its moves change the value, so its games leave the layer"
        return "its moves do not all go one way in rank, so no order of its positions solves it in one pass"

    def summary_size(self, n: int) -> int:
        from .summary import layer_size

        return layer_size(self.game_for(n)[0], n)

    def summary_walk(self, n: int) -> SummaryWalk:
        from .summary import summary_walk

        weights, rules = self.game_for(n)
        return summary_walk(self.name, weights, rules, self.start(n), n)

    def random_lengths(self, n: int, games: int, seed: int) -> np.ndarray:
        """Played by a compiled loop on the rule data (game_for: any n)."""
        from .kernels import random_game_lengths

        weights, rules = self.game_for(n)
        start = np.zeros(len(weights), dtype=np.int64)
        start[: len(self.start(n))] = self.start(n)
        return random_game_lengths(start, *rule_arrays(rules), games, seed)  # type: ignore[call-arg]

    def play_moves(self, position: Position) -> list[tuple[int, Position]]:
        counts = list(position) + [0] * (len(self.weights) - len(position))

        def apply(rule: Rule) -> Position | None:
            new = counts.copy()
            for b, cnt in rule.take:
                if new[b - 1] < cnt:
                    return None
                new[b - 1] -= cnt
            for b, cnt in rule.put:
                new[b - 1] += cnt
            while new and new[-1] == 0:
                new.pop()
            return tuple(new)

        rules = self.play_rules
        moves = [(code, child) for code, rule in enumerate(rules) if not rule.fallback
                 if (child := apply(rule)) is not None]
        if not moves:
            moves = [(code, child) for code, rule in enumerate(rules) if rule.fallback
                     if (child := apply(rule)) is not None]
        return moves
