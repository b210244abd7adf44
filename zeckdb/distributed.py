"""The distributed build: layers fanned out to the workers of a Dask cluster.

    zeckdb build --executor dask --address tcp://HOST:8786 [--shards DIR] [--shards-only]

The driver plans like a local build (what is stored is skipped), submits one task
per n, and each worker solves that n's layers (every variant of the build) and
writes them as Parquet shards in `zeckdb export`'s layout:

    DIR/positions/variant=V/n=N/part-0.parquet     the layer's positions
    DIR/edges/graph=G/n=N/part-0.parquet           its graph layer's moves, when new
    DIR/length_distribution/variant=V/n=N/part-0.parquet
    DIR/builds/variant=V/n=N/part-0.parquet        its summary row (one row; no checksums)
    DIR/random_play/variant=V/n=N/part-0.parquet
    DIR/graph_layers/graph=G/n=N/part-0.parquet

The driver ingests each n as its task finishes, in one transaction like a local
build (checksums computed from the rows written), and removes its shards; with
--shards-only it leaves them for DuckDB to query in place. The folder must be
one the workers and the driver share (a network filesystem on a real cluster).
A task solves the layers its games reach below n itself (Black Hole, Fibonacci
nim): they are not shipped between workers; those lower layers the build also
stores are tasks of their own. Why Dask: docs/scaling.md.
"""

from __future__ import annotations

from pathlib import Path
import shutil
from typing import Any
from collections.abc import Callable

from .errors import ClusterError, UsageError, opt
from .store import LayerTables, Store

TABLE_PARTITIONS = {"positions": "variant", "edges": "graph", "length_distribution": "variant", "builds": "variant",
                    "random_play": "variant", "graph_layers": "graph"}
CONNECT_SECONDS = 10


def solve_to_shards(root: str, n: int, steps: list[tuple[str, bool, bool]], graph_stored: list[str]) -> list[str]:
    """On a worker: solve layer n of each (variant, write, replace) step and write the layers
    to write as shards under root; the variants written, in order. `graph_stored`: the graphs
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
            _write_shards(Path(root), layer_tables(record))
            written.append(record.variant.name)
    return written


def _write_shards(root: Path, layer: LayerTables) -> None:
    import pyarrow as pa

    from .export import write_part

    tables = {"positions": layer.positions, "builds": pa.Table.from_pylist([layer.build]),
              "random_play": pa.Table.from_pylist([layer.random_play]) if layer.random_play else None,
              "length_distribution": layer.length_rows(), "edges": layer.edges,
              "graph_layers": (pa.table({"positions": [layer.graph_size[0]], "edges": [layer.graph_size[1]]})
                               if layer.graph_size else None)}
    for table, rows in tables.items():
        if rows is not None:
            owner = layer.graph if TABLE_PARTITIONS[table] == "graph" else layer.variant
            write_part(rows, _shard_folder(root, table, owner, layer.n) / "part-0.parquet")


def _shard_folder(root: Path, table: str, owner: str, n: int) -> Path:
    from .export import partition

    return root / partition(table, TABLE_PARTITIONS[table], owner, n)


def read_shards(root: Path, variant: str, graph: str, n: int, replace: bool, with_graph: bool) -> LayerTables:
    """A layer's shards as the store's LayerTables (what a local build hands the writer); with
    its graph layer's edges if `with_graph` (variants sharing a graph: the first one of n)."""
    import pyarrow.parquet as pq

    def table(name: str, owner: str):
        path = _shard_folder(root, name, owner, n) / "part-0.parquet"
        return pq.read_table(path) if path.exists() else None

    build = table("builds", variant).to_pylist()[0]
    random_play = table("random_play", variant)
    graph_size = table("graph_layers", graph) if with_graph else None
    edges = table("edges", graph) if graph_size is not None else None
    return LayerTables(variant, graph, n, table("positions", variant), build,
                       random_play.to_pylist()[0] if random_play is not None else None, edges,
                       tuple(graph_size.to_pylist()[0].values()) if graph_size is not None else None,
                       table("length_distribution", variant), replace)


def remove_shards(root: Path, variant: str, graph: str, n: int) -> None:
    for table, by in TABLE_PARTITIONS.items():
        shutil.rmtree(_shard_folder(root, table, graph if by == "graph" else variant, n), ignore_errors=True)


def connect(address: str):
    """A Dask client of the scheduler at `address`, or a one-line error."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError(f"{opt('executor')} dask needs Dask's distributed package: pip install "
                         "'zeckdb[distributed]'") from None
    try:
        return Client(address, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(f"cannot reach a Dask scheduler at {address!r} ({type(exc).__name__}): start one with "
                         "`dask scheduler` and pass its address, e.g. tcp://127.0.0.1:8786") from None


def build_distributed(store: Store, client: Any, todo: dict[int, list], shards: Path, shards_only: bool = False,
                      progress: Callable[[int, str], None] | None = None) -> tuple[list[tuple[str, int]], int, int]:
    """Run the planned layers (builder.plan) on the cluster; ingest each n as it finishes
    (unless shards_only). Returns the (variant, n) layers built, their positions and edges."""
    from distributed import as_completed

    shards.mkdir(parents=True, exist_ok=True)
    root = str(shards.resolve())
    futures = {}
    for n, steps in todo.items():
        stored = [g for g in {s.variant.graph_name for s in steps} if n in store.graph_ns(g)]
        plain = [(s.variant.name, s.write, s.replace) for s in steps]
        futures[client.submit(solve_to_shards, root, n, plain, stored, pure=False, priority=-n)] = (n, steps)
    store.let_go()
    built, positions, edges = [], 0, 0
    for future in as_completed(list(futures)):
        n, steps = futures[future]
        try:
            written = future.result()
        except Exception as exc:  # whatever the worker raised, or the cluster's own errors (a worker lost)
            first = (str(exc).strip().splitlines() or [""])[0][:200]
            raise ClusterError(f"the task of n = {n} failed on the cluster ({type(exc).__name__}: {first}); the layers "
                               "ingested so far are kept: run the same command again to resume") from None
        graphs: set[str] = set()  # the worker wrote a graph layer's edges with the first variant playing it
        layers = []
        for s in steps:
            if s.variant.name in written:
                g = s.variant.graph_name
                layers.append(read_shards(shards, s.variant.name, g, n, s.replace, with_graph=g not in graphs))
                graphs.add(g)
        if not shards_only:
            store.write_layers(layers)
            store.let_go()
            for layer in layers:
                remove_shards(shards, layer.variant, layer.graph, n)
        built += [(layer.variant, n) for layer in layers]
        positions += sum(layer.build["positions"] for layer in layers)
        edges += sum(layer.build["edges"] for layer in layers)
        if progress:
            progress(sum(s.variant.estimate_work(n) for s in steps), f"n={n}")
    if not shards_only:  # every layer is in the database: the shard folders go (a folder of the user's stays)
        for table in TABLE_PARTITIONS:
            shutil.rmtree(shards / table, ignore_errors=True)
    return built, positions, edges
