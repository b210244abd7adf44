"""The compiled kernels on small hand-made graphs whose answers are known exactly."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from zeckdb.engine import kernels


def chain_with_dead_ends(length: int):
    """Nodes 0..length on a chain; each chain node i < length may also move to its own
    terminal dead end, so the P-mass of reaching node k is 2^-k."""
    targets, offsets = [], [0]
    dead_end = length + 1
    for i in range(length):
        targets += [i + 1, dead_end + i]
        offsets.append(len(targets))
    offsets += [len(targets)] * (length + 1)  # the chain's end and the dead ends are terminal
    return np.array(offsets, dtype=np.int64), np.array(targets, dtype=np.int32)


def test_path_counts_survive_probability_underflow():
    length = 1100  # 2^-1100 underflows a double
    offsets, targets = chain_with_dead_ends(length)
    p, games, _ = kernels.length_distribution(offsets, targets, 0, length, False)
    assert games[1:length].tolist() == [1] * (length - 1)  # into the dead end of node k - 1 after k moves
    assert games[length] == 2  # the whole chain, or the last node's dead end
    assert p[length] == 0.0 and p[1] == 0.5


def test_topological_order_puts_children_first_and_detects_cycles():
    offsets, targets = chain_with_dead_ends(5)
    order = kernels.topological_order(offsets, targets)
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    for v in range(len(offsets) - 1):
        for e in range(offsets[v], offsets[v + 1]):
            assert position[targets[e]] < position[v]
    cycle = kernels.topological_order(np.array([0, 1, 2], dtype=np.int64), np.array([1, 0], dtype=np.int32))
    assert len(cycle) < 2


def random_single_terminal_dag(nodes: int, seed: int):
    """Nodes 0..nodes-1, moves only to larger ids, node 0 the only source and the last node
    the only terminal (every node lies on a path from 0 to it): the shape of a mirror pair."""
    rng = np.random.default_rng(seed)
    children = []
    for v in range(nodes - 1):
        out = {int(rng.integers(v + 1, nodes))}
        out.update(int(w) for w in rng.integers(v + 1, nodes, size=int(rng.integers(0, 3))))
        children.append(sorted(out))
    children.append([])
    for w in range(1, nodes):  # every node but 0 has a parent
        if not any(w in c for c in children):
            children[int(rng.integers(0, w))].append(w)
    offsets = np.cumsum([0] + [len(c) for c in children]).astype(np.int64)
    return children, offsets, np.array([w for c in children for w in c], dtype=np.int32)


def test_one_sweep_gives_both_games_of_a_mirror_pair():
    """Against every path enumerated: forward, a path's probability is the product of
    1 / (moves out of each node it leaves); the mirror plays it backwards from the
    terminal, so its probability is the product of 1 / (moves into each node but the first)."""
    from fractions import Fraction

    differ = 0
    for seed in range(5):
        children, offsets, targets = random_single_terminal_dag(12, seed)
        parents = [sum(v in c for c in children) for v in range(len(children))]
        forward, mirror, count = {}, {}, {}

        def walk(v, length, p, m):
            if not children[v]:
                forward[length] = forward.get(length, 0) + p
                mirror[length] = mirror.get(length, 0) + m
                count[length] = count.get(length, 0) + 1
                return
            for w in children[v]:
                walk(w, length + 1, p / len(children[v]), m / parents[w])

        walk(0, 0, Fraction(1), Fraction(1))
        longest = max(count)
        p, games, p_mirror = kernels.length_distribution(offsets, targets, 0, longest, True)
        exact = kernels.exact_length_counts(offsets, targets, 0, longest, 2, kernels.LIMB_BITS)
        for length in range(longest + 1):
            assert p[length] == pytest.approx(float(forward.get(length, 0)), abs=1e-15)
            assert p_mirror[length] == pytest.approx(float(mirror.get(length, 0)), abs=1e-15)
            assert games[length] == count.get(length, 0) == int(exact[length][0])
        differ += forward != mirror
    assert differ  # the mirror is a game of its own, not the forward one again


def test_exact_length_counts_carry_across_narrow_limbs():
    """Per-length path counts of a DAG with many paths, as integers, against a plain
    big-integer count by length; in limbs narrow enough that nearly every sweep carries
    into several of them, and in the widest limbs the in-degrees allow."""
    from zeckdb.engine.solve import _limbs_to_int

    rng = np.random.default_rng(7)
    nodes = 200
    children = [sorted({int(w) for w in rng.integers(v + 1, min(v + 8, nodes), size=5)}) if v < nodes - 1 else []
                for v in range(nodes)]
    offsets = np.cumsum([0] + [len(c) for c in children]).astype(np.int64)
    targets = np.array([w for c in children for w in c], dtype=np.int32)
    paths: list[dict[int, int]] = [{} for _ in range(nodes)]  # per node: length -> paths from 0
    paths[0][0] = 1
    games: dict[int, int] = {}
    for v in range(nodes):
        for length, count in paths[v].items():
            if not children[v]:
                games[length] = games.get(length, 0) + count
            for w in children[v]:
                paths[w][length + 1] = paths[w].get(length + 1, 0) + count
    longest = max(games)
    assert max(games.values()).bit_length() > 64  # more than a lane holds uncarried
    widest = kernels.limb_bits_for(int(np.bincount(targets).max()))
    for bits in (5, 11, widest):
        limbs = max(games.values()).bit_length() // bits + 2
        exact = kernels.exact_length_counts(offsets, targets, 0, longest, limbs, bits)
        assert [_limbs_to_int(row, bits) for row in exact] == [games.get(k, 0) for k in range(longest + 1)]


@pytest.mark.parametrize("split_from", [0, 10**9])
@pytest.mark.parametrize(("variant", "n"), [("ordered", 9), ("zeckendorf", 14), ("reversed", 14),
                                            ("reversed-misere", 13)])
def test_sweeps_on_one_or_two_threads_give_the_reference_distribution(monkeypatch, variant, n, split_from):
    """engine.solve sweeps the exact counts on a thread of their own from SPLIT_SWEEP_EDGES
    moves on (the ordered game's largest layers), one after the other below. The reversed
    games are swept forwards from their only terminal (the mirrored side of the sweep)."""
    from zeckdb.engine import solve
    from zeckdb.variants import get_variant

    from . import reference as ref

    monkeypatch.setattr(solve, "SPLIT_SWEEP_EDGES", split_from)
    _, sol, _ = solve.solve_in_memory(get_variant(variant), n)
    assert sol.sweep is not None and sol.sweep.mirrored == variant.startswith("reversed")
    dist = solve.length_distribution(sol.sweep, n)
    plays = variant.removesuffix("-misere")  # random play and its lengths do not depend on who wins
    prob, count = ref.remaining_lengths(plays, ref.family_start(plays, n) if plays == "ordered" else ref.start(plays, n))
    assert dist is not None and dist.games_exact is not None
    assert {k: g for k, g in enumerate(dist.games_exact) if g} == count
    assert {k: q for k, q in enumerate(dist.probability) if q} == pytest.approx({k: float(q) for k, q in prob.items()},
                                                                                rel=1e-12)


def test_limb_bits_leave_room_for_every_move_into_a_node():
    for in_degree in (0, 1, 2, 3, 4, 255, 256, 10**6):
        bits = kernels.limb_bits_for(in_degree)
        assert bits <= kernels.LIMB_BITS
        assert max(in_degree, 1) * (2**bits - 1) < 2**64  # the lanes do not overflow
        assert bits == kernels.LIMB_BITS or max(in_degree, 1) * (2**(bits + 1) - 1) >= 2**64  # and are as wide as that allows


def test_id_order_is_used_only_when_every_move_goes_one_way_in_id():
    from zeckdb.engine.solve import _id_order

    up = _id_order(np.array([0, 0, 1]), np.array([1, 2, 2]), 3)
    assert up.tolist() == [2, 1, 0]  # children (larger ids) first
    assert _id_order(np.array([2, 1]), np.array([1, 0]), 3).tolist() == [0, 1, 2]
    assert _id_order(np.array([0, 2]), np.array([1, 1]), 3) is None  # both ways: Kahn's order instead
    assert _id_order(np.array([0, 0]), np.array([1, 5]), 3).tolist() == [2, 1, 0]  # 5: a lower layer's node



@pytest.mark.parametrize("n_codes", [1, 3, 40])
def test_edges_by_code_is_a_stable_sort_by_code(n_codes):
    rng = np.random.default_rng(n_codes)
    src = np.sort(rng.integers(0, 500, 2_000)).astype(np.int32)  # grouped by source, as the engine gives them
    dst = rng.integers(0, 500, 2_000).astype(np.int32)
    code = rng.integers(0, n_codes, 2_000).astype(np.int16)
    order = np.argsort(code, kind="stable")  # numpy's own stable sort as the reference
    got = kernels.edges_by_code(src, dst, code, n_codes)
    for column, want in zip(got, (src[order], dst[order], code[order]), strict=True):
        assert column.dtype == want.dtype and np.array_equal(column, want)
    empty = kernels.edges_by_code(src[:0], dst[:0], code[:0], 0)
    assert [len(column) for column in empty] == [0, 0, 0]


CTRL_C_DURING_A_COMPILE = """
import signal
from numba import njit
from numba.core import event
import zeckdb.engine.jit  # the policy under test

@njit  # not cached: compiled here, in the main thread
def triple(x):
    return 3 * x

class CtrlCInAPass(event.Listener):  # as if Ctrl-C came while LLVM calls back into Python
    def on_start(self, ev):
        signal.raise_signal(signal.SIGINT)
    def on_end(self, ev):
        pass

with event.install_listener("numba:run_pass", CtrlCInAPass()):
    try:
        triple(2)
        print("ran on")
    except KeyboardInterrupt:
        print("interrupted", triple.signatures,
              signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


def test_ctrl_c_while_numba_compiles_is_raised_once_the_compile_ends():
    """Inside the compile, a KeyboardInterrupt would meet LLVM's ctypes callbacks, which
    drop it; held until the compile ends, it is raised then (the compile complete, and
    Python's own SIGINT handler back in place)."""
    out = subprocess.run([sys.executable, "-c", CTRL_C_DURING_A_COMPILE], capture_output=True, text=True,
                         timeout=120,  # SIGINT as a terminal gives it: a shell's background job ignores it
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert out.stdout.strip() == "interrupted [(int64,)] True", out.stdout + out.stderr


def _lock_is_free(path) -> bool:
    """Whether a process could take the lock file now (a new open file: its own lock)."""
    with open(path, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(f, fcntl.LOCK_UN)
        return True


def test_a_compile_holds_the_processes_turn_and_gives_it_back(tmp_path, monkeypatch):
    """Numba writes a cache index before its data file, so processes sharing a cache take
    turns: while this process compiles, no other could take the lock."""
    from numba import njit
    from numba.core import event

    import zeckdb.engine.jit as jit

    lock = tmp_path / "compile.lock"
    monkeypatch.setattr(jit._TurnsAcrossProcesses, "path", staticmethod(lambda: str(lock)))
    seen = []

    class Probe(event.Listener):  # numba's compile event: inside its compiler lock
        def on_start(self, ev):
            seen.append(_lock_is_free(lock))

        def on_end(self, ev):
            pass

    @njit  # not cached, so that it compiles here whatever the cache holds
    def quadruple(x):
        return 4 * x

    with event.install_listener("numba:compile", Probe()):
        assert quadruple(2) == 8
    assert seen == [False]
    assert _lock_is_free(lock)


WAITING_FOR_A_TURN = """
import signal, time
from numba import njit
import zeckdb.engine.jit as jit

turns = jit.while_compiling.turns
turns.wait_s, turns.say_after_s = 0.5, 0.2
start = time.monotonic()

@njit  # numba's first dispatcher takes its compiler lock, and waits for a turn
def double(x):
    return 2 * x

@njit
def triple(x):
    return 3 * x

print("waited", time.monotonic() - start >= 0.5, "then stopped waiting", turns.wait_s == 0.0, double(2),
      flush=True)
turns.wait_s = 600.0
try:
    triple(2)
    print("ran on")
except KeyboardInterrupt:
    print("interrupted", triple.signatures)
"""


def test_the_wait_for_a_turn_ends_after_a_while_or_at_ctrl_c(tmp_path):
    """A process stopped while it compiles (Ctrl-Z) holds its turn: another waits for it a
    while, then compiles anyway and waits no more; and a Ctrl-C ends a wait at once (the
    compile done first, as every Ctrl-C during a compile)."""
    import zeckdb.engine.jit as jit

    env = {**os.environ, "TMPDIR": str(tmp_path)}
    lock = os.path.join(str(tmp_path), os.path.basename(jit._TurnsAcrossProcesses.path()))
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = subprocess.Popen([sys.executable, "-c", WAITING_FOR_A_TURN], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline() == "waited True then stopped waiting True 4\n"
            said: list[str] = []  # until the second wait (which would last 600 s) has said so
            while sum("waiting for another zeckdb process" in line for line in said) < 2:
                line = proc.stderr.readline() if proc.stderr is not None else ""
                if not line:
                    break
                said.append(line)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=120)
            err = "".join(said) + err
        finally:
            proc.kill()
    assert out == "interrupted [(int64,)]\n", out + err
    # each wait said, once, after say_after_s (logging's last resort prints a warning to stderr)
    assert err.count("zeckdb: waiting for another zeckdb process to finish compiling the kernels") == 2, err


KERNEL = """
from numba import njit
import zeckdb.engine.jit  # the policy under test

@njit(cache=True)
def double(x):
    return 2 * x
"""

SLOW_CACHE_WRITER = """
import os
import time
from numba.core import caching
import kernel

def save_index(self, overloads, original=caching.IndexDataCacheFile._save_index):
    original(self, overloads)
    for name in overloads.values():  # what an older compile left in the file the index names
        with open(self._data_path(name), "wb") as f:
            f.write(b"an older compile")
    print("index saved", flush=True)

def save_data(self, name, data, original=caching.IndexDataCacheFile._save_data):
    deadline = time.monotonic() + 60
    while not os.path.exists(os.environ["READER_STARTED"]) and time.monotonic() < deadline:
        time.sleep(0.01)  # the data is saved only once the reader has come in between
    print("reader seen", os.path.exists(os.environ["READER_STARTED"]), flush=True)
    original(self, name, data)

caching.IndexDataCacheFile._save_index = save_index
caching.IndexDataCacheFile._save_data = save_data
print(kernel.double(2), flush=True)
"""


def test_a_process_does_not_load_a_cache_file_another_is_writing(tmp_path):
    """Numba saves a kernel's cache index, then its data. A process that loaded the kernel in
    between read what the data file held before (in CI: another numba version's compile,
    "LLVM bitcode parsing error"). Taking turns, it waits and loads the new data."""
    (tmp_path / "kernel.py").write_text(KERNEL)
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(tmp_path),
           "READER_STARTED": str(tmp_path / "reader-started")}
    writer = subprocess.Popen([sys.executable, "-c", SLOW_CACHE_WRITER], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline() == "index saved\n", writer.stderr.read() if writer.stderr else ""
        reader = subprocess.run([sys.executable, "-c", "import os; open(os.environ['READER_STARTED'], 'w').close(); "
                                 "import kernel; print(kernel.double(2))"],
                                env=env, capture_output=True, text=True, timeout=120)
        out, err = writer.communicate(timeout=120)
    finally:
        writer.kill()
    assert out == "reader seen True\n4\n", err  # the reader came between the index and the data
    assert reader.stdout == "4\n", reader.stderr[-2000:]


def test_profile_kernels_on_a_graph_worked_by_hand():
    """0 -> 1 -> 3 and 0 -> 2 (2 and 3 have no move). Player 1 moves at 0 and wins by moving to 2
    (one move); moving to 1 lets Player 2 make the last move (two moves)."""
    offsets = np.array([0, 2, 3, 3, 3])
    targets = np.array([1, 2, 3])
    order = kernels.topological_order(offsets, targets)
    random = np.array([0.5, 0.5, 1.0])
    win, lose, mean, shortest, longest = kernels.profile_values(offsets, targets, order, random, random, False)
    assert (win[0, 0], lose[0, 0], mean[0, 0], shortest[0, 0], longest[0, 0]) == (0.5, 0.5, 1.5, 1, 2)
    assert (win[0, 2], win[1, 2], lose[0, 2], lose[1, 2]) == (0.0, 1.0, 1.0, 0.0)  # no move: the one to move has lost
    to_two = kernels.lowest_edges(offsets, np.array([1, 0, 0]))
    assert to_two.tolist() == [0.0, 1.0, 1.0] and kernels.walk(offsets, targets, 0, to_two, to_two) == 1
    tied = kernels.lowest_edges(offsets, np.array([5, 5, 0]))  # a tie goes to the first move
    assert tied.tolist() == [1.0, 0.0, 1.0] and kernels.walk(offsets, targets, 0, tied, tied) == 2
    assert kernels.profile_values(offsets, targets, order, tied, tied, False)[0][0, 0] == 0.0


def test_a_sure_win_leaves_the_loser_no_chance_at_all():
    """Ten moves of weight 0.1, each to a position with no move: Player 1 wins every game. The
    float sum of the ten chances is 0.9999999999999999, and 1 minus it printed 1.1e-16 as
    Player 2's chance; the loser's chance is its own sum, of nothing."""
    offsets, targets = np.array([0, 10, 10]), np.array([1] * 10)
    order = kernels.topological_order(offsets, targets)
    tenths = np.full(10, 0.1)
    win, lose, *_ = kernels.profile_values(offsets, targets, order, tenths, tenths, False)
    assert win[0, 0] == sum([0.1] * 10) != 1.0 and lose[0, 0] == 0.0
    win, lose, *_ = kernels.profile_values(offsets, targets, order, tenths, tenths, True)  # misère: the reverse
    assert win[0, 0] == 0.0 and lose[0, 0] == sum([0.1] * 10)


def test_each_numba_cache_has_its_own_compile_turns(tmp_path):
    """The turns protect one cache: processes over another cache (another checkout, install or
    NUMBA_CACHE_DIR) once waited for this one's compiles all the same."""
    script = "from zeckdb.engine import jit; print(jit._TurnsAcrossProcesses.path())"

    def lock_of(cache: str | None) -> str:
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
        if cache is not None:
            env["NUMBA_CACHE_DIR"] = cache
        return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                              check=True).stdout.strip()

    one, other = str(tmp_path / "one"), str(tmp_path / "other")
    assert lock_of(one) == lock_of(one)
    assert len({lock_of(one), lock_of(other), lock_of(None)}) == 3
