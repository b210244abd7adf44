"""The conformance checks every game gets: zeckdb's own tests run them on each registered game,
and a plugin's test suite can run them on its own (docs/adding-a-game.md):

    from zeckdb.testing import conformance
    def test_my_game_keeps_the_contract():
        conformance(MyGame())

Each check raises ConformanceError (an AssertionError, raised under `python -O` too) naming
the game, n and position that break the contract.
They are consistency checks of the contract, not of a game's rules: what a game's positions
and outcomes should be is for its own tests to check against an independent solver.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .engine.contract import Playable, Solvable, Summarisable, Variant, check_contract
from .engine.solve import solve_in_memory
from .engine.summary import walk_layer

SAMPLED = 20_000  # positions round-tripped per layer at most


class ConformanceError(AssertionError):
    """A game breaks zeckdb's contract: the message names the game, n and what differs. An
    AssertionError, so that a test runner reports it as a failed check, but raised by hand:
    `python -O` strips asserts, and a broken game would pass."""


def _require(holds: object, *what: object) -> None:
    if not holds:
        raise ConformanceError(", ".join(map(str, what)))


def layer_positions(variant: Variant, keys: np.ndarray, trim: bool = False) -> list[Any]:
    """The positions of these keys as the game writes them: the entries of ordered lists, else
    the counts (with trim, without their trailing zeros)."""
    entries = variant.entries(keys)
    if entries is not None:
        offsets, values = entries
        return [values[offsets[i]:offsets[i + 1]] for i in range(len(keys))]
    return [np.trim_zeros(row, "b") if trim else row for row in variant.decode(keys)]


def check_ids_and_keys(variant: Variant, n: int) -> None:
    """Layer n's keys are distinct and, where the game counts its positions (counts_positions),
    as many as estimate_positions says; each position (up to SAMPLED of them) parses from its
    text, has its id and key, lies in layer n and writes back."""
    keys = variant.layer_keys(n)
    _require(len(set(keys.tolist())) == len(keys), variant.name, n, "keys repeat")
    if variant.counts_positions:
        _require(len(keys) == variant.estimate_positions(n), variant.name, n,
                 f"{len(keys)} keys, but estimate_positions says {variant.estimate_positions(n)}")
    ids = np.arange(len(keys))
    if len(keys) > SAMPLED:
        ids = np.unique(np.concatenate([[0, len(keys) - 1], np.random.default_rng(n).choice(len(keys), SAMPLED)]))
    for i, written in zip(ids.tolist(), layer_positions(variant, keys[ids]), strict=True):
        pos = variant.parse(",".join(map(str, written)))
        _require(variant.id_of(pos) == i, variant.name, n, pos)
        _require(variant.key_of(pos) == keys[i], variant.name, n, pos)
        _require(variant.layer_of(pos) == n, variant.name, n, pos)
        _require(variant.parse(variant.format(pos)) == pos, variant.name, n, pos)


def check_moves(variant: Variant, n: int, graph_owner: Variant | None = None) -> None:
    """The scalar move generator (play_moves: lookups) gives the edges the compiled one
    (graph_edges: builds) gives, in the game's own direction of play."""
    graph, _, _ = solve_in_memory(graph_owner or variant, n)
    pos = [tuple(int(x) for x in p) for p in layer_positions(variant, graph.keys, trim=True)]
    src, dst_id, code, dst_n = graph.stored_edges()
    dst_n = np.full(len(src), n) if dst_n is None else dst_n
    edges = {(int(s), (int(dn), int(d)), int(c)) for s, d, c, dn in zip(src, dst_id, code, dst_n, strict=False)}
    if variant.reversed:
        edges = {(d[1], (n, s), c) for s, d, c in edges}
    played = {(i, (variant.layer_of(child), variant.id_of(child)), code) for i, p in enumerate(pos)
              for code, child in variant.play_moves(p)}
    _require(played == edges, variant.name, n, sorted(played ^ edges)[:5])


def check_capabilities(variant: Variant) -> None:
    """The game has the members solving needs and the lookups need, and summary mode's where
    it says summary mode takes it."""
    _require(isinstance(variant, Solvable), variant.name, "not solvable")
    _require(isinstance(variant, Playable), variant.name, "no lookups")
    if variant.summary_refusal is None:
        _require(isinstance(variant, Summarisable) and variant.has_summary_walk, variant.name, "no summary walk")


def check_summary(variant: Variant, n: int) -> None:
    """For a game summary mode takes: its walk numbers layer n as the full build does, and the
    one-pass solve gives every position the values the full solve gives it (the fewest and
    most moves to the end, the remoteness of two players, the teams of more), the same
    number of moves, and the same expected length under random play."""
    if variant.summary_refusal is not None or variant.lower_layers(n):
        return
    if not isinstance(variant, Summarisable):
        raise ConformanceError(f"{variant.name}: summary mode takes it, but it has no summary walk")
    graph, solution, _ = solve_in_memory(variant, n)
    size = solution.size
    _require(variant.summary_size(n) == variant.summary_walk(n).size == size, variant.name, n, "summary_size")
    walked = walk_layer(variant, n, batch=7)  # batches of 7: the walk's state carried across calls
    _require(walked.start == solution.start, variant.name, n, "start id")
    _require(walked.edges == len(graph.stored_edges()[0]), variant.name, n, "moves")
    columns = {"min_remaining": 1, "max_remaining": 2} | ({"remoteness": 0} if variant.players == 2 else {})
    for name, column in columns.items():
        bad = np.flatnonzero(walked.ints[:, column] != solution.own(name))
        _require(not len(bad), variant.name, n, name, "differs at ids", bad[:5].tolist())
    if variant.players > 2:
        bad = np.flatnonzero(walked.teams != solution.teams)
        _require(not len(bad), variant.name, n, "teams differ at ids", bad[:5].tolist())
    _require(np.allclose(walked.floats[:, 0], solution.expected, rtol=1e-12), variant.name, n, "expected length")


def check_convention(variant: Variant, n: int) -> None:
    """The engine scores the game's terminal positions as its convention says (a position with no
    move is lost for the player to move under normal play, won under misère play), and every
    outcome of layer n follows from them: the full solve against a plain recursion over the
    game's own moves (play_moves), for two-player games whose moves stay in their layer."""
    from .engine.contract import terminal_wins

    if variant.players != 2 or variant.lower_layers(n):
        return
    graph, solution, _ = solve_in_memory(variant, n)
    if len(graph.keys) > SAMPLED:
        return
    wins: dict[tuple[int, ...], bool] = {}

    def win(position: tuple[int, ...]) -> bool:
        stack = [position]
        while stack:  # children first, without recursion
            top = stack[-1]
            children = [child for _, child in variant.play_moves(top)]
            pending = [child for child in children if child not in wins]
            if pending:
                stack.extend(pending)
                continue
            wins[top] = any(not wins[child] for child in children) if children else terminal_wins(variant)
            stack.pop()
        return wins[position]

    for i, written in enumerate(layer_positions(variant, graph.keys, trim=True)):
        position = tuple(int(x) for x in written)
        _require(bool(solution.own("win")[i]) == win(position),
                 variant.name, n, position, f"the engine's outcome is not the {variant.convention} convention's")


def check_partitions(variant: Variant, n: int) -> None:
    """A game that declares layers_are_partitions holds every partition of n into its column
    weights in layer n, no more (verify counts them so)."""
    from .verify import partition_count

    if variant.layers_are_partitions:
        size, want = len(variant.layer_keys(n)), partition_count(n, variant.column_weights)
        _require(size == want, variant.name, n, f"layers_are_partitions, but layer {n} holds {size} positions "
                 f"and n has {want} partitions into the column weights {variant.column_weights}")


def check_move_names(variant: Variant) -> None:
    names = list(variant.move_names)
    _require(len(set(names)) == len(names), variant.name, "two moves share a name")


def conformance(variant: Variant, ns: Iterable[int] = (1, 2, 5, 12), graph_owner: Variant | None = None) -> None:
    """Every check of the contract on layers `ns` (each at most the game's max_n); graph_owner:
    the game whose graph a reversed game plays (default: the game itself)."""
    check_contract(variant)
    check_capabilities(variant)
    check_move_names(variant)
    for n in ns:
        n = min(max(n, variant.min_n), variant.max_n)
        check_ids_and_keys(variant, n)
        check_partitions(variant, n)
        check_moves(variant, n, graph_owner)
        check_convention(variant, n)
        check_summary(variant, n)
