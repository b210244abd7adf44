"""The distributed build: layers fanned out to the workers of a Dask cluster.

    zeckdb build --executor dask --address tcp://HOST:8786 [--shards DIR] [--shards-only]
    zeckdb build --executor dask --address tcp://HOST:8786 --summary-only

In summary mode each (variant, n) layer is a task that returns its Summary, the only
thing that travels: the driver commits each as it arrives (summarise_on_cluster).

The driver plans like a local build (what is stored is skipped), submits one task
per n, and each worker solves that n's layers (every variant of the build) and
writes them as Parquet shards in `zeckdb export`'s layout:

    DIR/positions/variant=V/n=N/part-0.parquet     the layer's positions
    DIR/edges/graph=G/n=N/part-0.parquet           its graph layer's moves, when new
    DIR/length_distribution/variant=V/n=N/part-0.parquet
    DIR/builds/variant=V/n=N/part-0.parquet        its summary row (one row) and its checksums
    DIR/random_play/variant=V/n=N/part-0.parquet
    DIR/graph_layers/graph=G/n=N/part-0.parquet

The driver ingests the n whose tasks finished, those that finished meanwhile in one
transaction (with the checksums the worker computed from the rows it wrote, which travel
with the task's result, not through the folder), and removes their shards; with
--shards-only it leaves them for DuckDB to query in place (a rerun skips the layers
whose builds shard, written last, is there). Layers a run before left in the folder (it
was stopped, or was --shards-only) are solved again, never stored from there: whoever can
write the folder could have written them, checksums included. The folder must be one the
workers and the driver share (a network filesystem on a real cluster); zeckdb.shardfolder
reaches it without following links and removes only what it made.
A task solves the layers its games reach below n itself (Black Hole, Fibonacci
nim): they are not shipped between workers; those lower layers the build also
stores are tasks of their own. Why Dask: docs/scaling.md.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import partial
import logging
import os
from pathlib import Path
import threading
import time
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator

from . import interrupts, shardfolder
from .errors import ClusterError, UsageError, opt, printable
from .shardfolder import TABLE_PARTITIONS
from .settings import DEFAULTS, Settings, pool as named_pool
from .store import LayerTables, Store, StoreWriter, rows_checksums
from .tuning import SHARD_COMPRESSION, TABLES_AHEAD, THREADED_LAYER

if TYPE_CHECKING:
    from .builder import BuildReport, Step
    from .engine.summary import Summary
    from .summaries import SummaryJob

# a layer's checksums (LayerTables.checksums) as columns of its builds shard, as the builds table names them
CHECKSUMS = {"positions": "positions_checksum", "edges": "edges_checksum", "summary": "summary_checksum"}
# a build whose cluster has had no worker for this long stops (what it committed is kept):
# without a worker Dask would wait for one forever
WORKERLESS_SECONDS = 60.0


def solve_to_shards(root: str, n: int, steps: list[tuple[str, bool, bool]],
                    graph_stored: list[str]) -> list[dict[str, Any]]:
    """On a worker: solve layer n of each (variant, write, replace) step and write the layers
    to write as shards under root; a receipt of each layer written, in order: its variant and
    the checksums of the rows written (store.rows_checksums), which travel to the driver with
    the task's result, not through the shard folder (the driver checks the shards it reads
    against them: a folder on a shared filesystem is writable by others). `graph_stored`: the graphs
    whose layer n is stored already (its edges are not written again)."""
    from .builder import LowerLayers, Step, _compute, analyse, layer_tables
    from .variants import get_variant

    todo: dict[int, list[Step]] = {}
    for name, write, replace in steps:
        v = get_variant(name)
        for low in v.closure(n)[1:]:  # solved here, not written: stored layers or tasks of their own
            todo.setdefault(low, []).append(Step(v, write=False))
        todo.setdefault(n, []).append(Step(v, write, replace))
    lower = LowerLayers(todo)
    graphs = {get_variant(name).graph_name for name, _, _ in steps}
    written = []
    for k in sorted(todo):
        stored = {g: ({k} if k != n or g in graph_stored else set()) for g in graphs}
        records, _ = _compute(k, todo[k], stored, lower)
        for job in analyse(records):
            job()
        for record in records:
            written.append({"variant": record.variant.name, "checksums": _write_shards(Path(root), layer_tables(record))})
    return written


def _write_shards(root: Path, layer: LayerTables) -> dict[str, int]:
    """Write a layer's shards; the checksums of its rows (store.rows_checksums)."""
    import pyarrow as pa


    # the builds row with the layer's checksums, hashed here: the driver only ingests the rows
    checksums = rows_checksums(layer)
    build = pa.Table.from_pylist([layer.build])
    for kind, column in CHECKSUMS.items():  # edges: None when the layer brings none
        build = build.append_column(pa.field(column, pa.uint64()), pa.array([checksums.get(kind)], pa.uint64()))
    tables = {"positions": layer.positions,
              "random_play": pa.Table.from_pylist([layer.random_play]) if layer.random_play else None,
              "length_distribution": layer.length_rows(), "edges": layer.edges,
              "graph_layers": (pa.table({"positions": [layer.graph_size[0]], "edges": [layer.graph_size[1]]})
                               if layer.graph_size else None),
              "builds": build}  # last: its shard says the layer's shards are all written (unwritten)
    for table, rows in tables.items():
        if rows is not None:
            owner = layer.graph if TABLE_PARTITIONS[table] == "graph" else layer.variant
            shardfolder.write(root, table, owner, layer.n, rows, SHARD_COMPRESSION)
    return checksums


def _builds_row(root: Path, variant: str, n: int) -> dict[str, Any] | None:
    """The one row of a layer's builds shard (written last: the layer's shards are whole),
    or None when it is missing or is not one row of Parquet (put there by hand, or damaged)."""
    try:
        table = shardfolder.read(root, "builds", variant, n)
    except ClusterError:
        return None
    rows = [] if table is None else table.to_pylist()
    return rows[0] if len(rows) == 1 else None


def unwritten(root: Path, todo: dict[int, list[Step]]) -> dict[int, list[Step]]:
    """A --shards-only build's plan (builder.plan) without the layers a run before wrote in
    full to root (their builds shard, written last, is there): a rerun resumes."""
    left = {}
    for n, steps in todo.items():
        kept = [s for s in steps if not (s.write and _builds_row(root, s.variant.name, n) is not None)]
        if any(s.write for s in kept):
            left[n] = kept
    return left


def read_shards(root: Path, variant: str, graph: str, n: int, replace: bool, with_graph: bool,
                shipped: dict[str, int] | None = None) -> LayerTables:
    """A layer's shards as the store's LayerTables (what a local build hands the writer); with
    its graph layer's edges if `with_graph` (variants sharing a graph: the first one of n).
    Checked before the store takes them: the rows read hash to the checksums their task
    `shipped` with its result (for a layer a run before left, which shipped nothing here, to
    those its own builds shard records); a layer whose shards do not is refused in one line."""
    layer = _read_shards(root, variant, graph, n, replace, with_graph)
    found = rows_checksums(layer)
    if shipped is not None:  # every checksum the task shipped, and no table it did not write
        wrong = sorted(kind for kind in {*shipped, *found} if shipped.get(kind) != found.get(kind))
    else:  # those its builds shard records (a shard of an older zeckdb records none)
        wrong = sorted(kind for kind, value in (layer.checksums or {}).items() if found.get(kind) != value)
    if wrong:
        whose = "its task wrote" if shipped is not None else "their builds shard records"
        raise ClusterError(f"the shards of {variant} n = {n} in {root} do not hold the rows {whose} ({', '.join(wrong)} "
                           "differ: changed on disk, or written by another build?): nothing of them is stored; remove "
                           "that layer's shards and run the build again")
    layer.checksums = found
    return layer


def _read_shards(root: Path, variant: str, graph: str, n: int, replace: bool, with_graph: bool) -> LayerTables:
    def table(name: str, owner: str) -> Any:
        return shardfolder.read(root, name, owner, n)

    builds = table("builds", variant)
    if builds is None or builds.num_rows != 1:
        raise ClusterError(f"the shards of {variant} n = {n} in {root} have no builds row (removed or changed on disk?): "
                           "nothing of them is stored; run the build again")
    build = builds.to_pylist()[0]
    # a worker of an older zeckdb sends none: the store then hashes the rows itself
    checksums = {kind: build.pop(column, None) for kind, column in CHECKSUMS.items()}
    random_play = table("random_play", variant)
    graph_size = table("graph_layers", graph) if with_graph else None
    edges = table("edges", graph) if graph_size is not None else None
    return LayerTables(variant, graph, n, table("positions", variant), build,
                       random_play.to_pylist()[0] if random_play is not None else None, edges,
                       tuple(graph_size.to_pylist()[0].values()) if graph_size is not None else None,
                       table("length_distribution", variant), replace,
                       {kind: value for kind, value in checksums.items() if value is not None})


def shard_counts(root: Path, variant: str, graph: str, n: int, with_graph: bool) -> tuple[str, str, int, int, int]:
    """(variant, graph, n, positions, moves) of a layer written as shards, read from its builds
    shard and (if `with_graph`: the variant its graph layer came with) its graph_layers shard."""
    def row(name: str, owner: str) -> dict[str, Any] | None:
        table = shardfolder.read(root, name, owner, n)
        return None if table is None or table.num_rows != 1 else dict(table.to_pylist()[0])

    build, graph_layer = row("builds", variant), row("graph_layers", graph) if with_graph else None
    if build is None:
        raise ClusterError(f"the shards of {variant} n = {n} in {root} have no builds row (removed or changed on disk?): "
                           "run the build again")
    return variant, graph, n, build["positions"], graph_layer["edges"] if graph_layer is not None else 0


def connect(address: str, settings: Settings = DEFAULTS) -> Any:
    """A Dask client of the scheduler at `address`, or a one-line error within the
    cluster_connect_seconds setting (and a little more: Dask's own bound, then ours), whether
    nothing listens there or a peer accepts and never speaks (Dask's bound covers only the first)."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError(f"{opt('executor')} dask needs Dask's distributed package: pip install "
                         "'zeckdb[distributed]'") from None
    seconds = settings.cluster_connect_seconds
    _check_peer(address, seconds)
    got: list[Any] = []

    connect: Callable[..., Any] = Client  # Dask's Client is untyped
    def make() -> None:
        try:
            got.append(connect(address, timeout=seconds))
        except Exception as exc:  # noqa: BLE001 (handed to the caller's thread)
            got.append(exc)

    # a daemon thread: a peer that never answers holds it, not the build nor the process's exit
    attempt = threading.Thread(target=make, name="zeckdb-connect", daemon=True)
    attempt.start()
    attempt.join(seconds + 5)
    if not got:
        raise UsageError(f"the peer at {address!r} accepted the connection but did not answer as a Dask scheduler "
                         f"within {seconds + 5:g} s: give the address `dask scheduler` prints "
                         "(e.g. tcp://127.0.0.1:8786)")
    if isinstance(got[0], Exception):  # whatever Dask raised of a peer that is not, or not yet, a scheduler
        raise UsageError(f"cannot reach a Dask scheduler at {address!r} ({type(got[0]).__name__}): start one with "
                         "`dask scheduler` and pass its address, e.g. tcp://127.0.0.1:8786")
    return got[0]


# what a Dask scheduler sends first, on every connection and before it reads anything: its
# handshake, a few hundred bytes in Dask's framing (an 8-byte length, then the frames)
HANDSHAKE_MAX_BYTES = 1 << 16


def _check_peer(address: str, seconds: float) -> None:
    """Refuse, in one line, a TCP peer that does not open as a Dask scheduler does: within the
    connect deadline it must send a length of at most HANDSHAKE_MAX_BYTES and that many bytes,
    framed as Dask frames them. Dask itself would take the first 8 bytes of an HTTP answer or
    of garbage for a length and allocate that much (exabytes), or wait on a peer sending a byte
    a second. Addresses of other schemes (tls://, a name Dask resolves) are left to Dask."""
    import socket
    import struct

    scheme, _, rest = address.rpartition("://")
    host, _, port = rest.rpartition(":")
    if scheme not in ("", "tcp") or not port.isdigit() or not host:
        return
    deadline = time.monotonic() + seconds

    def received(sock: socket.socket, count: int) -> bytes:
        data = b""
        while len(data) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            sock.settimeout(left)
            chunk = sock.recv(count - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=seconds) as sock:
            (size,) = struct.unpack("<Q", received(sock, 8))
            if not 16 <= size <= HANDSHAKE_MAX_BYTES:
                raise ValueError(f"a first message of {size:,} bytes")
            frames = received(sock, size)
            (count,) = struct.unpack_from("<Q", frames)
            lengths = struct.unpack_from(f"<{count}Q", frames, 8) if 0 < count <= 64 else None
            if lengths is None or 8 * (count + 1) + sum(lengths) != size:
                raise ValueError("frames that are not Dask's")
    except (OSError, TimeoutError) as exc:
        if isinstance(exc, (ConnectionRefusedError, socket.gaierror)):
            return  # nothing listens, or no such host: Dask's own attempt says so
        raise UsageError(f"the peer at {address!r} did not open as a Dask scheduler does within {seconds:g} s "
                         f"({type(exc).__name__}): give the address `dask scheduler` prints (e.g. tcp://127.0.0.1:8786)"
                         ) from None
    except (ValueError, struct.error) as exc:
        raise UsageError(f"the peer at {address!r} is not a Dask scheduler (it sent {exc}): give the address "
                         "`dask scheduler` prints (e.g. tcp://127.0.0.1:8786)") from None


def build_distributed(store: StoreWriter, client: Any, todo: dict[int, list[Any]], shards: Path, shards_only: bool = False,
                      progress: Callable[[int, str], None] | None = None,
                      own_folder: bool = False) -> tuple[list[tuple[str, int]], int, int]:
    """Run the planned layers (builder.plan) on the cluster; ingest the n that finish, those
    finished meanwhile in one transaction (unless shards_only), then tidy the folder (with
    `own_folder`, one zeckdb chose, remove it once empty). Returns the (variant, n) layers
    built, their positions and the moves stored. One driver at a time holds the folder
    (folder_lock): a second is refused in one line."""
    shardfolder.claim(shards)
    with folder_lock(shards):
        result = _build_distributed(store, client, todo, shards, shards_only, progress)
    if not shards_only:  # every layer is in the database: the shard folders go (a folder of the user's stays)
        shardfolder.tidy(shards, remove_root=own_folder)
    return result


@contextmanager
def folder_lock(shards: Path) -> Iterator[None]:
    """The shard folder held by this driver alone while the block runs (an exclusive flock on
    the folder itself): two builds given one --shards folder ingested and removed each
    other's shards. A folder another driver holds is refused in one line."""
    import fcntl

    fd = os.open(shards, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(f"the shard folder {shards} is in use by another build (one driver at a time): wait for "
                             f"it to finish, or give this build another folder ({opt('shards')} DIR)") from None
        yield
    finally:
        os.close(fd)


def _build_distributed(store: StoreWriter, client: Any, todo: dict[int, list[Any]], shards: Path, shards_only: bool,
                       progress: Callable[[int, str], None] | None) -> tuple[list[tuple[str, int]], int, int]:
    from .builder import progress_words

    futures = _submitted(store.reads, client, todo, shards)
    store.let_go()
    built, positions, edges = [], 0, 0
    readers = named_pool(TABLES_AHEAD, "zeckdb-shards")
    watch = _WorkerWatch(client, store.settings.cluster_silent_seconds, store.let_go)

    def batches() -> Iterator[list[tuple[int, list[Step], dict[str, dict[str, int] | None]]]]:
        """(n, its steps, the variants written with the checksums their task shipped) of the n
        whose tasks finished meanwhile, as they finish."""
        for finished in _as_finished(list(futures), watch):
            yield [(*futures[f], _receipts(_result(f, futures[f][0], watch)))
                   for f in sorted(finished, key=lambda f: futures[f][0])]

    try:
        for batch in batches():
            # every n finished meanwhile goes in at once: the fewer statements, the less the ingest costs
            # variant, graph, n, replace, with its graph layer, the checksums its task shipped
            layers: list[tuple[str, str, int, bool, bool, dict[str, int] | None]] = []
            for n, steps, written in batch:
                graphs: set[str] = set()  # the worker wrote a graph layer's edges with the first variant playing it
                for s in steps:
                    if s.variant.name in written:
                        g = s.variant.graph_name
                        layers.append((s.variant.name, g, n, s.replace, g not in graphs, written[s.variant.name]))
                        graphs.add(g)
            ingested: list[tuple[str, str, int, int, int]] = []
            if shards_only:  # the rows stay in their shards: only what counts them is read
                ingested += [shard_counts(shards, variant, g, n, with_graph)
                             for variant, g, n, _, with_graph, _ in layers]
            else:  # each layer is read from its shards while DuckDB inserts the layers before it
                reads = [partial(read_shards, shards, *layer) for layer in layers]
                store.write_layers(_noted(interrupts.made_ahead(readers, reads, TABLES_AHEAD), ingested))
                store.let_readers_in()  # the file stays open while tasks keep finishing (reopening it costs)
                for variant, graph, n, _, _ in ingested:
                    shardfolder.remove_layer(shards, variant, graph, n)
            built += [(variant, n) for variant, _, n, _, _ in ingested]
            positions += sum(layer[3] for layer in ingested)
            edges += sum(layer[4] for layer in ingested)  # a shared graph's moves once
            if progress:
                for n, steps, _ in batch:
                    progress(sum(s.variant.estimate_work(n) for s in steps),
                             progress_words([s.variant.name for s in steps], n))
    finally:
        with interrupts.ctrl_c_held():
            readers.shutdown(cancel_futures=True)
    return built, positions, edges


def _submitted(store: Store, client: Any, todo: dict[int, list[Step]], shards: Path) -> dict[Any, tuple[int, list[Step]]]:
    """A task per n submitted (the future's n and steps). What a run before left in the folder
    is written over: a shard is stored only with the checksums its own task shipped."""
    root = str(shards.resolve())
    futures = {}
    for n, steps in todo.items():
        stored = [g for g in {s.variant.graph_name for s in steps} if n in store.graph_ns(g)]
        plain = [(s.variant.name, s.write, s.replace) for s in steps]
        futures[client.submit(solve_to_shards, root, n, plain, stored, pure=False, priority=-n)] = (n, steps)
    return futures


def _noted(layers: Iterator[LayerTables], ingested: list[tuple[str, str, int, int, int]]) -> Iterator[LayerTables]:
    """The layers, each noted as it passes (variant, graph, n, positions, moves stored):
    only that stays once the store has taken its rows."""
    for layer in layers:
        ingested.append((layer.variant, layer.graph, layer.n, layer.build["positions"],
                         layer.graph_size[1] if layer.graph_size else 0))
        yield layer


def summarise(name: str, n: int, floats: bool, large: bool = False, settings: Settings = DEFAULTS,
              winner_only: bool = False) -> Summary:
    """On a worker: layer n of the game `name` solved in one pass (engine.summary); a
    `large` one on the threads a task of this worker may use (task_threads). `settings`: the
    driver's, which govern the task. winner_only: the one-byte state of --winner-only."""
    from .engine.summary import solve_summary
    from .variants import get_variant

    return solve_summary(get_variant(name), n, floats, None, task_threads(settings) if large else 1,
                         winner_only=winner_only)


def task_threads(settings: Settings = DEFAULTS) -> int:
    """The threads one task of this worker may use: the threads setting the driver shipped with
    the task (else the cores this worker may use) shared among the tasks it runs at once. A worker of one task slot on a
    machine of its own (the memory of one large layer) then solves it on every core."""
    from distributed import get_worker

    from .settings import thread_count

    try:
        slots = get_worker().state.nthreads
    except ValueError:  # not on a worker
        slots = 1
    return max(1, thread_count(settings) // max(1, slots))


def cluster_threads(client: Any) -> int:
    """The most threads any one worker of the cluster has: the layers it may hold at once."""
    return max(client.nthreads().values(), default=1)


def summarise_on_cluster(store: StoreWriter, client: Any, jobs: list[SummaryJob],
                         progress: Callable[[int, str], None] | None = None) -> BuildReport:
    """Solve the planned summary layers (summaries.plan_summaries) on the cluster, one task
    each, the largest first (the last task to finish is then a small one); commit each
    summary as it arrives, in one transaction, as a local summary build does."""
    from .summaries import commit_summary, start_report

    report = start_report(store, jobs)
    store.let_go()
    t0 = time.perf_counter()
    futures = {client.submit(summarise, job.variant.name, job.n, job.floats, job.positions >= THREADED_LAYER,
                             store.settings, job.winner_only, pure=False, priority=job.positions): job
               for job in jobs}
    watch = _WorkerWatch(client, store.settings.cluster_silent_seconds, store.let_go)
    for finished in _as_finished(list(futures), watch):
        for future in finished:
            job = futures[future]
            commit_summary(store, job, _result(future, job.n, watch), report, progress)
    report.seconds = time.perf_counter() - t0
    return report


def _as_finished(futures: list[Any], watch: _WorkerWatch) -> Iterator[list[Any]]:
    """The futures as they finish, those finished at once together, each wait bounded by
    IDLE_SECONDS and the cluster watched between them (_WorkerWatch.wait). Those left are
    cancelled when the caller stops (Ctrl-C, a failed task)."""
    from distributed import wait as untyped_wait

    wait: Callable[..., tuple[Any, Any]] = untyped_wait  # Dask's wait is untyped

    pending = set(futures)

    def first_done(seconds: float) -> set[Any]:
        return set(wait(pending, timeout=seconds, return_when="FIRST_COMPLETED")[0])
    try:
        while pending:
            done = watch.waited(first_done)
            pending -= done
            yield list(done)
    finally:
        for future in pending:
            future.cancel()


def _receipts(result: list[Any]) -> dict[str, dict[str, int] | None]:
    """A task's receipts (solve_to_shards) by variant; a worker of an older zeckdb sends only
    the variants' names (nothing shipped: its shards are checked against themselves)."""
    return {r: None for r in result if isinstance(r, str)} | \
        {r["variant"]: r["checksums"] for r in result if isinstance(r, dict)}


def _result(future: Any, n: int, watch: _WorkerWatch) -> Any:
    """A task's result, or a one-line ClusterError (whatever the worker raised, or the
    cluster's own errors: a task whose workers died too often). A finished task's result is
    fetched from the worker that holds it: a frozen worker would hold the fetch for good,
    so it is waited for like any task (_WorkerWatch.waited)."""
    def fetched(seconds: float) -> tuple[bool, Any]:
        try:
            return True, future.result(timeout=seconds)
        except TimeoutError:
            raise
        except Exception as exc:  # noqa: BLE001 (what the task raised: re-raised below as one line)
            return False, exc

    finished, value = watch.waited(fetched)
    if finished:
        return value
    first = printable((str(value).strip().splitlines() or [""])[0][:200])
    raise ClusterError(f"the task of n = {n} failed on the cluster ({type(value).__name__}: {first}); the layers "
                       "committed so far are kept: run the same command again to resume") from None


class _WorkerWatch:
    """Names, in one line each, the workers not heard from for the cluster_silent_seconds
    setting (a frozen worker holds its tasks until the scheduler gives it up: Dask's
    distributed.scheduler.worker-ttl, 5 minutes by default), and stops a build whose cluster
    has had no worker for WORKERLESS_SECONDS.

    A worker is heard from when the scheduler's `last_seen` of it (its heartbeats) changes;
    the silence is timed on this machine's clock, never compared with the scheduler's."""

    def __init__(self, client: Any, silent_seconds: float, idle: Callable[[], None] = lambda: None):
        self.client = client
        self.idle = idle  # what the driver does while it waits (the writer lets the file go)
        self.since: float | None = None
        self.silent_seconds = silent_seconds
        self.heard: dict[str, tuple[Any, float]] = {}  # worker -> (its last_seen, when that changed here)
        self.named: set[str] = set()
        self.checked = 0.0

    def waited(self, call: Callable[[float], Any]) -> Any:
        """What `call(seconds)` returns, called again while it times out (TimeoutError) after
        so many seconds: between the tries the driver idles and the cluster is checked, so
        no wait on the cluster goes unwatched, however long a worker is silent."""
        from .tuning import IDLE_SECONDS

        while True:
            try:
                found = call(IDLE_SECONDS)
            except TimeoutError:
                self.idle()
                self.check()
                continue
            self.check()
            return found

    def check(self) -> None:
        from .tuning import IDLE_SECONDS

        now = time.monotonic()
        if now - self.checked < IDLE_SECONDS:
            return
        self.checked = now
        workers = self.client.scheduler_info(n_workers=-1).get("workers", {})
        self._listen(workers, now)
        if workers:
            self.since = None
            return
        self.since = self.since if self.since is not None else now
        if now - self.since >= WORKERLESS_SECONDS:
            raise ClusterError(f"the cluster has had no worker for {WORKERLESS_SECONDS:.0f} s; the layers committed "
                               "so far are kept: start workers and run the same command again to resume")

    def _listen(self, workers: dict[str, dict[str, Any]], now: float) -> None:
        heard = {}
        for address, info in workers.items():
            seen = info.get("last_seen")
            before = self.heard.get(address)
            heard[address] = before if before is not None and before[0] == seen else (seen, now)
            if heard[address][1] == now:
                self.named.discard(address)
            elif now - heard[address][1] >= self.silent_seconds and address not in self.named:
                self.named.add(address)
                logging.getLogger("zeckdb").warning(
                    "zeckdb: the Dask worker %s has not been heard from for %.0f s (frozen, overloaded or cut off): "
                    "its tasks wait for it until the scheduler gives it up (Dask's distributed.scheduler.worker-ttl) "
                    "and runs them on another worker", address, now - heard[address][1])
        self.heard = heard
