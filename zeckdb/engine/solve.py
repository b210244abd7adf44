"""Enumerate, link and solve one layer (one n) of any variant."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from ..settings import pool as named_pool

from dataclasses import dataclass, field
import math

import numpy as np

from .contract import Solvable, terminal_wins
from . import kernels


class EngineError(RuntimeError):
    """A rules module broke the variant contract (a bug, not a user error)."""


@dataclass
class Graph:
    """One layer of a graph in the graph's own direction, nodes numbered by id.

    Nodes 0..size-1 are the layer's own positions; when moves leave the layer,
    the positions of the lower layers they reach follow, as read-only nodes
    (`lower`: (layer n, first node, count) per lower layer). Edges are grouped by
    source id (offsets[i]..offsets[i+1] are node i's; lower nodes have none here).
    """

    n: int
    keys: np.ndarray  # int64 key of each own id
    order: np.ndarray  # own ids in a topological order: children before parents
    offsets: np.ndarray  # int64, one more than the nodes (own and lower)
    src: np.ndarray  # int32 own id
    dst: np.ndarray  # int32 node (own id, or a lower layer's first node + its id there)
    code: np.ndarray  # int16 move code
    dst_n: np.ndarray | None = None  # int32 layer of each edge's child, when some leave the layer
    dst_id: np.ndarray | None = None  # int32 id of the child within its layer (then)
    lower: list[tuple[int, int, int]] = field(default_factory=list)
    by_key: np.ndarray | None = None  # own ids in ascending key order

    @property
    def size(self) -> tuple[int, int]:
        return len(self.keys), len(self.src)

    @property
    def nodes(self) -> int:
        return len(self.offsets) - 1

    def stored_edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """(src id, dst id within its layer, code, dst layer or None when every move stays)."""
        if self.dst_n is None:
            return self.src, self.dst, self.code, None
        assert self.dst_id is not None  # set together with dst_n
        return self.src, self.dst_id, self.code, self.dst_n


@dataclass
class Play:
    """A layer's moves in one variant's direction of play: CSR by id, and a topological order."""

    offsets: np.ndarray
    targets: np.ndarray
    order: np.ndarray  # children before parents


@dataclass
class Distribution:
    """Length of a complete game from the start, indexed by length."""

    probability: np.ndarray  # under P: both players pick uniformly random moves
    games: np.ndarray  # number of complete games of each length (float)
    games_exact: list[int] | None  # the same, exactly, for n <= EXACT_LENGTH_COUNTS_MAX_N
    mirror: Distribution | None = None  # the mirrored game's, when its sweep was asked for both


@dataclass(frozen=True)
class Sweep:
    """The length sweep whose result is a solution's length distribution
    (kernels.length_distribution): over `play` from `start`, for games of at most `max_len`
    moves and `games` complete games (a float). `mirrored`: the solution's games are the
    sweep's played backwards, whose probability the sweep carries as a third value.

    A solution's sweep depends on its graph layer, its direction of play and its start
    alone, never on what else is solved beside it, so a layer's stored distribution is the
    same whichever games it is built with; solutions whose sweeps are `same` share one."""

    play: Play
    start: int
    max_len: int
    games: float
    mirrored: bool = False

    def same(self, other: Sweep) -> bool:
        """One sweep serves both (each takes its own side of it)."""
        return (self.play.offsets is other.play.offsets and self.play.targets is other.play.targets
                and self.start == other.start)


# Exact per-length game counts cost more than the float sweep (more limbs as n grows;
# docs/scaling.md has the figures): they are kept up to n = 60, the float counts beyond.
EXACT_LENGTH_COUNTS_MAX_N = 60
# From this many moves the exact counts are swept on a thread of their own, beside the
# floats (the ordered game's largest layers: the build waits for them).
SPLIT_SWEEP_EDGES = 1_000_000


# The per-node values a layer hands to the layers above it (kernels.solve and
# kernels.random_play read a child's values by node, whatever layer it is in).
NODE_VALUES = {"win": np.bool_, "remoteness": np.int16, "min_remaining": np.int16, "max_remaining": np.int16,
               "games": np.float64, "expected": np.float64, "grundy": np.int16, "winning_moves": np.int16,
               "q": np.float64, "a": np.float64, "b": np.float64,
               "teams": np.uint64}  # games of three or more players: kernels.team_masks

# A game from the start of n can run through several layers; its length distribution
# is computed on their union graph while the layers below n hold at most this many
# moves (they are kept in memory, and the union is assembled anew for each n).
# Beyond it the layer gets no distribution (Fibonacci nim from n = 311 on).
DISTRIBUTION_MAX_EDGES = 5_000_000


@dataclass
class Solution:
    """Every solved column of one layer, for one variant, indexed by own id."""

    values: dict[str, np.ndarray]  # NODE_VALUES, over own and lower nodes
    exact: np.ndarray | None  # (nodes, limbs) exact number of complete games per node (None with a mirror)
    size: int  # own nodes
    in_strategies: np.ndarray  # on some winning strategy of the winner from the start (own layer)
    start: int  # id of the start position
    start_games: int  # exact number of complete games from the start
    p1_wins_random: float  # both players random
    p1_wins_p1_perfect: float  # Player 1 perfect, Player 2 random
    p1_wins_p2_perfect: float  # Player 2 perfect, Player 1 random
    play: Play
    union: Play | None = None  # the graph a game from the start runs on, when it spans layers
    mirror: Solution | None = None  # a solution whose games are this one's, reversed (see `mirrors`)
    sweep: Sweep | None = None  # what gives its length distribution (None: a union graph too big to assemble)
    players: int = 2
    backwards: bool = False  # its variant plays the graph's edges backwards (contract: reversed)

    @property
    def forcing_seat(self) -> np.ndarray:
        """Games of three or more players: per own id, the seat counted from the player to move
        (0 = the mover) who can force being the last mover, or -1 where none can."""
        return seats_of(self.own("teams"), self.players)

    @property
    def teams(self) -> np.ndarray:
        """Games of three or more players: per own id, the mask of the teams that can force a
        win (kernels.team_masks: bit t, the seats in t counted from the player to move)."""
        return self.own("teams")

    def release_node_values(self) -> None:
        """Drop what only the layers above read (random-play values, exact counts per node)."""
        self.exact = None
        for name in ("q", "a", "b"):
            self.values.pop(name, None)

    def own(self, name: str) -> np.ndarray:
        """A NODE_VALUES array over the layer's own positions, by id."""
        return self.values[name][: self.size]

    win = property(lambda self: self.own("win"))
    remoteness = property(lambda self: self.own("remoteness"))
    min_remaining = property(lambda self: self.own("min_remaining"))
    max_remaining = property(lambda self: self.own("max_remaining"))
    games = property(lambda self: self.own("games"))
    expected = property(lambda self: self.own("expected"))
    grundy = property(lambda self: self.own("grundy"))
    winning_moves = property(lambda self: self.own("winning_moves"))


@dataclass
class SolvedLayer:
    """What the layers above need of a solved layer: how to find its positions by key,
    their values, and (while a union graph may still be assembled) its moves."""

    n: int
    sorted_keys: np.ndarray
    sorted_ids: np.ndarray
    values: dict[str, np.ndarray]  # own nodes only
    exact: np.ndarray
    offsets: np.ndarray | None  # own moves, by id: targets as (layer, id)
    dst_n: np.ndarray | None
    dst_id: np.ndarray | None

    @classmethod
    def of(cls, graph: Graph, solution: Solution, keep_moves: bool) -> SolvedLayer:
        by_key = graph.by_key
        size = solution.size
        values = {name: v[:size].copy() for name, v in solution.values.items()}
        moves: tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None] = (None, None, None)
        assert by_key is not None and solution.exact is not None  # a built graph's key order; its own counts
        if keep_moves:
            _, dst_id, _, dst_n = graph.stored_edges()
            moves = (graph.offsets[: size + 1], np.full(len(dst_id), graph.n, np.int32) if dst_n is None else dst_n,
                     dst_id)
        return cls(graph.n, graph.keys[by_key], by_key, values, solution.exact[:size].copy(), *moves)


def build_graph(variant: Solvable, n: int, lower: dict[int, SolvedLayer] | None = None) -> Graph:
    """Enumerate layer n and link its moves; `lower` holds the solved layers that
    variant.lower_layers(n) names (moves into them link to their positions)."""
    variant.check_n(n)
    keys = variant.layer_keys(n)
    if len(keys) < 2 or bool(np.all(keys[1:] > keys[:-1])):  # ids in key order (the chip games' colex ranks)
        by_key, sorted_keys = None, keys
    else:
        by_key = np.argsort(keys).astype(np.int32)  # keys are distinct: no need for a stable sort
        sorted_keys = keys[by_key]
    src, child_keys, code = variant.graph_edges(n, sorted_keys)
    lower_ns = variant.lower_layers(n)
    n_codes = len(variant.move_names)
    src_id = src if by_key is None else by_key[src]
    key_order = by_key if by_key is not None else np.arange(len(keys), dtype=np.int32)
    if not lower_ns:
        dst = _link(variant, n, sorted_keys, by_key, child_keys, code, n_codes)
        graph = _grouped(variant, n, keys, src_id, dst, code, len(keys))
        graph.by_key = key_order
        return graph
    lower = lower or {}
    missing = [low for low in lower_ns if low not in lower]
    if missing:
        raise EngineError(f"{variant.name}, n={n}: lower layers {missing} must be solved first")
    child_n = variant.layers_of(child_keys).astype(np.int32)
    stray = np.setdiff1d(child_n, [n, *lower_ns])
    if len(stray):
        raise EngineError(f"{variant.name}, n={n}: moves lead to layers {stray[:5].tolist()}, "
                          f"which lower_layers({n}) leaves out")
    # Lower layers' nodes follow the own ones; keys are distinct across layers, so one
    # sorted array of all their keys links every move that leaves the layer at once.
    layout, first = [], len(keys)
    first_node = np.zeros(n + 1, dtype=np.int32)  # per layer, its first node (0 for n itself)
    for low in lower_ns:
        layout.append((low, first, len(lower[low].sorted_keys)))
        first_node[low] = first
        first += len(lower[low].sorted_keys)
    lower_keys = np.concatenate([lower[low].sorted_keys for low in lower_ns])
    lower_nodes = np.concatenate([at + lower[low].sorted_ids for low, at, _ in layout]).astype(np.int32)
    by_lower_key = np.argsort(lower_keys, kind="stable")  # nearly sorted runs: cheap
    stays = child_n == n
    dst = np.empty(len(child_keys), dtype=np.int32)
    dst[stays] = _link(variant, n, sorted_keys, by_key, child_keys[stays], code[stays], n_codes)
    dst[~stays] = _link(variant, n, lower_keys[by_lower_key], lower_nodes[by_lower_key], child_keys[~stays],
                        code[~stays], n_codes)
    dst_id = dst - first_node[child_n]
    graph = _grouped(variant, n, keys, src_id, dst, code, first, child_n, dst_id)
    graph.lower, graph.by_key = layout, key_order
    return graph


def _link(variant: Solvable, n: int, sorted_keys: np.ndarray, ids: np.ndarray | None, child_keys: np.ndarray,
          code: np.ndarray, n_codes: int) -> np.ndarray:
    """The ids (`ids` of the sorted keys; None: their positions) of the child keys."""
    found = kernels.link(sorted_keys, child_keys, code, n_codes)
    if len(found) and found.min() < 0:
        bad = int(child_keys[np.argmin(found)])
        raise EngineError(f"{variant.name}, n={n}: a move leads to key {bad}, which is not a position of the layer")
    return found if ids is None else ids[found]


def _grouped(variant: Solvable, n: int, keys: np.ndarray, src_id: np.ndarray, dst: np.ndarray, code: np.ndarray,
             nodes: int, dst_n: np.ndarray | None = None, dst_id: np.ndarray | None = None) -> Graph:
    """The layer's graph: edges grouped by source id, own nodes ordered topologically."""
    if len(src_id) and bool(np.all(src_id[1:] >= src_id[:-1])):  # grouped already (ids in key order)
        offsets = np.zeros(nodes + 1, dtype=np.int64)
        np.cumsum(np.bincount(src_id, minlength=nodes), out=offsets[1:])
        perm = None
    else:
        offsets, perm = kernels.group(src_id, nodes)
        src_id, dst, code = src_id[perm], dst[perm], code[perm]
        dst_n = None if dst_n is None else dst_n[perm]
        dst_id = None if dst_id is None else dst_id[perm]
    order = _id_order(src_id, dst, len(keys))
    if order is None:
        order = kernels.topological_order(offsets, dst)
        order = order[order < len(keys)]  # lower layers' nodes are solved already
    if len(order) < len(keys):
        raise EngineError(f"{variant.name}, n={n}: the moves form a cycle; a game must always end")
    return Graph(n, keys, order, offsets, src_id, dst, code, dst_n, dst_id)


def _id_order(src: np.ndarray, dst: np.ndarray, size: int) -> np.ndarray | None:
    """The own ids in descending (ascending) order when every move within the layer leads
    to a larger (smaller) id, else None. Then the solving kernels walk the nodes and their
    moves' targets in memory order: at n = 150 of the Zeckendorf game (whose moves all raise
    the colex rank, the id) they solve 3.5x faster than in Kahn's order."""
    own = dst < size
    if not own.all():  # moves into lower layers: not compared
        src, dst = src[own], dst[own]
    if not len(dst) or bool(np.all(dst > src)):
        return np.arange(size - 1, -1, -1, dtype=np.int32)
    if bool(np.all(dst < src)):
        return np.arange(size, dtype=np.int32)
    return None


def play_graph(variant: Solvable, graph: Graph) -> Play:
    if variant.reversed:  # children have larger keys
        if graph.lower:
            raise EngineError(f"{variant.name}: a reversed variant cannot play a graph whose moves leave the layer")
        offsets, perm = kernels.group(graph.dst, len(graph.keys))
        return Play(offsets, graph.src[perm], graph.order[::-1].copy())
    return Play(graph.offsets, graph.dst, graph.order)


def mirrors(a: Solution, b: Solution) -> bool:
    """True when b plays a's graph backwards from a's only terminal to a's start (and so
    b's complete games are a's, reversed: same number, same lengths), whatever each one's
    convention."""
    def only_terminal(s: Solution) -> int | None:
        ends = np.flatnonzero(s.max_remaining == 0)
        return int(ends[0]) if len(ends) == 1 else None

    # opposite directions of play: a game and its misère twin play the same way, and a layer of
    # one position is its own start and terminal in both
    return a.backwards != b.backwards and only_terminal(a) == b.start and only_terminal(b) == a.start


def solve_graph(variant: Solvable, graph: Graph, solved: Sequence[Solution] = (),
                lower: dict[int, SolvedLayer] | None = None) -> Solution:
    """Solve a layer in the variant's direction of play. `solved`: solutions of other
    variants on the same graph layer; a mirror among them lends its game count.
    `lower`: the solved lower layers the graph's moves reach."""
    lower = lower or {}  # needed when the graph has lower layers
    play = play_graph(variant, graph)
    size = len(graph.keys)
    values = {name: np.concatenate([np.zeros(size, dtype=dtype), *(lower[low].values[name] for low, _, _ in graph.lower)])
              for name, dtype in NODE_VALUES.items()}
    misere = terminal_wins(variant)
    kernels.solve(play.offsets, play.targets, play.order,  # type: ignore[call-arg]  # numba's stubs: 11 at most
                  *(values[k] for k in ["win", "remoteness", "min_remaining", "max_remaining", "games", "expected",
                                        "grundy", "winning_moves"]), misere)
    kernels.random_play(play.offsets, play.targets, play.order, values["q"], values["a"], values["b"], misere)
    if variant.players != 2:
        check_players(variant.players)
        kernels.team_masks(play.offsets, play.targets, play.order, variant.players, values["teams"])
    start = variant.id_of(variant.start(graph.n))
    sol = Solution(
        values, None, size,
        in_strategies=kernels.winning_strategies(play.offsets, play.targets, play.order, values["win"], start)[:size],
        start=start,
        start_games=0,
        p1_wins_random=float(values["q"][start]),
        p1_wins_p1_perfect=float(values["a"][start]),
        p1_wins_p2_perfect=1.0 - float(values["b"][start]),
        play=play,
        players=variant.players,
        backwards=variant.reversed,
    )
    sol.mirror = next((other for other in solved if mirrors(other, sol)), None)
    if sol.mirror:
        sol.start_games = sol.mirror.start_games
    else:
        sol.exact = _exact_games(play, sol.games, graph, lower)
        sol.start_games = _limbs_to_int(sol.exact[start])
    if graph.lower:
        sol.union = union_play(variant, graph, lower)
    sol.sweep = _sweep_of(graph, sol)
    return sol


def _sweep_of(graph: Graph, sol: Solution) -> Sweep | None:
    """The sweep that gives a solution's length distribution. A game played backwards along
    a layer with one terminal each way (the reversed games, and their misère twins) is the
    graph's forward game from its own only terminal, read backwards: it is swept forwards
    from there, carrying its probability as the mirrored value, which is the sweep its
    forward game (the graph's owner, a twin of it) makes from its start. So a forward game
    and its reversed one share a sweep when built together, and each gets the same bits
    when built alone. Otherwise a game sweeps its own moves (the union of the layers its
    games reach, when they leave the layer: None when that union was too big to assemble)."""
    start = sol.start
    if sol.union is None and graph.lower:
        return None
    own = Sweep(sol.union if sol.union is not None else sol.play, start, int(sol.max_remaining[start]),
                float(sol.games[start]))
    if not sol.backwards or graph.lower:
        return own
    ends = np.flatnonzero(sol.max_remaining == 0)  # its terminals: where the forward game starts
    forward_ends = np.flatnonzero(np.diff(graph.offsets[: sol.size + 1]) == 0)
    if len(ends) != 1 or len(forward_ends) != 1 or int(forward_ends[0]) != start:
        return own
    forward = Play(graph.offsets, graph.dst, graph.order)
    return Sweep(forward, int(ends[0]), own.max_len, own.games, mirrored=True)


def with_distribution(variant: Solvable, ns: Sequence[int], moves: Callable[[int], int | None]) -> dict[int, bool | None]:
    """Which of the layers `ns` a build gives a length distribution, from the number of moves
    of each layer their games reach (`moves(k)`, None where layer k is not built: then None).
    A layer whose moves stay in it always has one; one whose moves leave it has one while the
    union of the layers below it could be assembled (union_play): each of them kept its moves
    (at most DISTRIBUTION_MAX_EDGES, and its own union assembled) and together they hold at
    most DISTRIBUTION_MAX_EDGES. What zeckdb verify and the build's plan expect of a layer."""
    layers = sorted(set().union(*(variant.closure(n) for n in ns)))  # ascending: a layer's lower layers first
    kept: dict[int, bool | None] = {}
    union: dict[int, bool | None] = {}
    for k in layers:
        below = variant.closure(k)[1:]
        counts = [moves(low) for low in below]
        if any(c is None or kept[low] is None for c, low in zip(counts, below, strict=True)):
            union[k] = None
        else:
            union[k] = all(kept[low] for low in below) and sum(c or 0 for c in counts) <= DISTRIBUTION_MAX_EDGES
        own = moves(k)
        stays = not variant.lower_layers(k)
        kept[k] = None if own is None or (not stays and union[k] is None) else \
            own <= DISTRIBUTION_MAX_EDGES and (stays or bool(union[k]))
    return {n: True if not variant.lower_layers(n) else union[n] for n in ns}


def union_play(variant: Solvable, graph: Graph, lower: dict[int, SolvedLayer]) -> Play | None:
    """The graph of every layer a game from the start of n can reach, own nodes first
    (so the start keeps its id); None when it is too big or a layer's moves were dropped."""
    layers = variant.closure(graph.n)[1:]
    if any(low not in lower or lower[low].offsets is None for low in layers):
        return None
    kept = [lower[low].dst_id for low in layers]
    if sum(len(d) for d in kept if d is not None) > DISTRIBUTION_MAX_EDGES:
        return None
    first = np.full(graph.n + 1, -1, dtype=np.int64)
    first[graph.n] = 0
    at = len(graph.keys)
    for low in layers:
        first[low] = at
        at += len(lower[low].sorted_keys)
    _, own_id, _, own_n = graph.stored_edges()
    pieces = [(graph.offsets[: len(graph.keys) + 1], own_n if own_n is not None else np.full(len(own_id), graph.n),
               own_id)] + [(lower[low].offsets, lower[low].dst_n, lower[low].dst_id) for low in layers]
    offsets, targets, shift = [np.zeros(1, dtype=np.int64)], [], 0
    for offs, dst_n, dst_id in pieces:
        assert offs is not None and dst_n is not None and dst_id is not None  # checked above: moves kept
        offsets.append(offs[1:] + shift)
        shift += offs[-1]
        targets.append((first[dst_n] + dst_id).astype(np.int32))
    return Play(np.concatenate(offsets), np.concatenate(targets), np.empty(0, dtype=np.int32))  # no solving on it


def length_distribution(sweep: Sweep, n: int, both: bool = False) -> Distribution:
    """The exact distribution of the length of a game from the sweep's start, under P and
    mu: the sweep's own game's, or a mirrored sweep's game's; with `both`, the other side's
    as `.mirror` (the games played backwards, or forwards, along the same moves: the same
    number of each length, other probabilities). The bits of each side do not depend on
    whether the other was asked for: the sweep carrying the mirror moves the same two values
    the same way (kernels.length_distribution)."""
    play, start, max_len = sweep.play, sweep.start, sweep.max_len
    limbs, bits = 0, kernels.LIMB_BITS
    if n <= EXACT_LENGTH_COUNTS_MAX_N:
        bits = kernels.limb_bits_for(int(np.bincount(play.targets).max(initial=0)))
        limbs = int(math.log2(max(sweep.games, 1.0)) // bits) + 2
    mirror = sweep.mirrored or both
    args = (play.offsets, play.targets, start, max_len)
    exact = None
    if limbs and len(play.targets) >= SPLIT_SWEEP_EDGES:  # the exact counts on a thread of their own
        with named_pool(1, "zeckdb-counts") as pool:
            counting = pool.submit(kernels.exact_length_counts, *args, limbs, bits)
            p, games, p_mirror = kernels.length_distribution(*args, mirror)
            exact = counting.result()
    else:
        p, games, p_mirror = kernels.length_distribution(*args, mirror)
        if limbs:
            exact = kernels.exact_length_counts(*args, limbs, bits)
    games_exact = None if exact is None else [_limbs_to_int(row, bits) for row in exact]
    forward, backward = Distribution(p, games, games_exact), Distribution(p_mirror, games, games_exact)
    own, other = (backward, forward) if sweep.mirrored else (forward, backward)
    if both:
        own.mirror = other
    return own


def _exact_games(play: Play, own_games: np.ndarray, graph: Graph, lower: dict[int, SolvedLayer] | None) -> np.ndarray:
    """Exact game counts of every node, with enough limbs for the largest float count."""
    top = float(own_games.max()) if len(own_games) else 1.0
    bits = math.log2(top) if math.isfinite(top) else 1100.0
    limbs = int(bits // kernels.LIMB_BITS) + 2
    lower = lower or {}
    for layer_n, _, _ in graph.lower:
        limbs = max(limbs, lower[layer_n].exact.shape[1])
    count = np.zeros((graph.nodes, limbs), dtype=np.uint64)
    for layer_n, first, n_nodes in graph.lower:
        below = lower[layer_n].exact
        count[first:first + n_nodes, : below.shape[1]] = below
    kernels.exact_games(play.offsets, play.targets, play.order, count)
    return count


def _limbs_to_int(limbs: np.ndarray, bits: int = kernels.LIMB_BITS) -> int:
    return sum(int(limb) << (bits * j) for j, limb in enumerate(limbs))


def solve_in_memory(variant: Solvable, n: int) -> tuple[Graph, Solution, dict[int, SolvedLayer]]:
    """Layer n solved with every layer its games reach, nothing stored (tests, small n)."""
    lower: dict[int, SolvedLayer] = {}
    for low in reversed(variant.closure(n)[1:]):
        graph = build_graph(variant, low, lower)
        lower[low] = SolvedLayer.of(graph, solve_graph(variant, graph, lower=lower), keep_moves=True)
    graph = build_graph(variant, n, lower)
    return graph, solve_graph(variant, graph, lower=lower), lower


MAX_PLAYERS = 6  # a team per bit of a 64-bit mask: 2^6 seat sets


def check_players(players: int) -> None:
    if not 2 <= players <= MAX_PLAYERS:
        raise EngineError(f"{players} players: the engine solves 2..{MAX_PLAYERS}")


def teams_of(play: Play, players: int, nodes: int) -> np.ndarray:
    """The game of `players` players on a layer's moves: per node, the mask of the teams that
    can force a win (kernels.team_masks). Every node must be in play.order."""
    check_players(players)
    masks = np.zeros(nodes, dtype=np.uint64)
    kernels.team_masks(play.offsets, play.targets, play.order, players, masks)
    return masks


def forcing_seats(play: Play, players: int, nodes: int) -> np.ndarray:
    """Per node, the seat counted from the player to move (0 = the mover, 1 = the next, ...)
    who can force being the last mover alone, or -1 where no player can."""
    return seats_of(teams_of(play, players, nodes), players)


def seats_of(teams: np.ndarray, players: int) -> np.ndarray:
    """Per node, the one seat whose team of one is set in its team mask, or -1 where none is."""
    seats = np.full(len(teams), -1, dtype=np.int8)
    forcing = np.zeros(len(teams), dtype=np.int8)
    for seat in range(players):
        has = (teams >> np.uint64(1 << seat)) & np.uint64(1) == 1
        seats[has] = seat
        forcing += has
    if np.any(forcing > 1):  # two players each forcing against the other: impossible in a game
        raise EngineError("two players can force a win from one position")
    return seats
