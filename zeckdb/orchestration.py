"""A build as a user asks for it (`zeckdb build`, zeckdb.build): the options checked, the
games and the n chosen, the plan, then a full build here (zeckdb.builder) or on a Dask
cluster (zeckdb.distributed), or summary mode here (zeckdb.summaries) or on the cluster;
its progress, its notices and Ctrl-C. The library's door (zeckdb.api.build) checks the
arguments' types and hands a BuildRequest to run().
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import contextlib
from contextlib import contextmanager
from dataclasses import dataclass
import os
from pathlib import Path
import time
from typing import TYPE_CHECKING, Any, Protocol

from .errors import UsageError, caused_by_ctrl_c, opt
from .outputs import check_folder
from .settings import Settings
from .store import StoreWriter
from .variants import get_variant

if TYPE_CHECKING:
    from .builder import Step
    from .store import Store
    from .variants import Variant


@dataclass
class BuildResult:
    """What a build did: the (variant, n) layers it computed, their size, where they went."""

    variants: list[str]
    ns: list[int]
    built: list[tuple[str, int]]
    positions: int
    edges: int  # moves stored (a graph two games share, as zeckendorf and reversed do, once); solved in summary mode
    seconds: float
    path: str
    summary_only: bool = False
    shards: str | None = None  # with shards_only: the folder the Parquet shards were left in


class BuildInterrupted(KeyboardInterrupt):
    """Ctrl-C during a build; `committed` lists the n of the build's range that are committed
    (None when the file could not be read any more: every finished n is). `shards`, for a
    full build on a cluster: the folder where the tasks still running after the Ctrl-C (Dask
    lets a running task finish) write their layers, which a rerun writes over and removes."""

    def __init__(self, committed: list[int] | None, shards: str | None = None):
        super().__init__()
        self.committed = committed
        self.shards = shards


class Progress(Protocol):
    """What long work reports as it goes (a build, verify, export): the total work once
    planned, then each step's share."""

    def start(self, total: int, verb: str) -> None: ...

    def advance(self, positions: int, description: str) -> None: ...

    def stop(self) -> None: ...


@dataclass(frozen=True)
class BuildRequest:
    """What to build (zeckdb.api.build's arguments, their types checked): variants None for
    every game, each as far as it can go; `settings`, the door's, govern all of it."""

    db: str | os.PathLike[str] | None
    settings: Settings
    variants: list[str] | None
    ns: list[int]
    force: bool = False
    summary_only: bool = False
    lean: bool = False
    winner_only: bool = False
    executor: str = "local"
    address: str | None = None
    shards: str | None = None
    shards_only: bool = False


def run(request: BuildRequest, progress: Progress | None, say: Callable[[str], None]) -> BuildResult:
    """Run a build under the request's settings (the door folded its arguments into them): every
    option checked before the file is touched; Ctrl-C (or an error it caused) becomes
    BuildInterrupted, naming what is committed."""
    r = request
    count = _threads(r.settings, say)
    _check_build_options(r)
    if r.summary_only:
        return _build_summaries(r, count, progress, say)
    return _build_full(r, count, progress, say)


def _build_full(r: BuildRequest, threads: int, progress: Progress | None, say: Callable[[str], None]) -> BuildResult:
    from .builder import check_targets, layer_weight, plan
    from .engine.limits import build_memory
    from .variants import variant_names

    names = r.variants or variant_names()
    chosen = [get_variant(name) for name in names]
    skip = not r.variants  # by default each variant goes up to what it can build; named ones must fit
    skipped = check_targets(chosen, r.ns, skip, build_memory(r.settings))  # before the file is touched
    if r.executor == "local" and (path := _untouched(r, chosen, lambda s: not plan(s, chosen, r.ns, r.force))):
        _notify_build(skipped if skip else None, False, r.settings, say)
        return BuildResult(names, r.ns, [], 0, 0, 0.0, str(path))
    committed: list[list[int]] = []  # what is committed, read before the file is closed
    client, shards = _cluster(r) if r.executor == "dask" else (None, None)
    left = str(shards) if shards is not None and not r.shards_only else None
    with _ending(client, lambda: committed[0] if committed else None, left):
        store = StoreWriter.open_write(r.db, on_wait=lambda: say(
            "zeckdb: waiting for readers to close the database (a long query, `zeckdb verify`?) before the next "
            "commit"), settings=r.settings)
        try:
            todo = _todo(store.reads, chosen, r, shards)
            _notify_build(skipped if skip else None, bool(todo), r.settings, say)  # once everything is checked
            if progress is not None:
                progress.start(sum(layer_weight(vs, k) for k, vs in todo.items()), "building")
            advance = progress.advance if progress is not None else None
            if client is not None:
                assert shards is not None  # set with the client
                return _on_cluster(store, client, todo, shards, r, names, advance)
            return _here(store, chosen, r, skipped, todo, skip, threads, advance)
        finally:
            if progress is not None:
                progress.stop()
            try:
                committed.append(sorted(set().union(*(store.reads.built_ns(v.name) for v in chosen)) & set(r.ns)))
            finally:
                store.close()  # a checkpoint: Ctrl-C can land here too, after every layer is committed


def _todo(store: Store, chosen: list[Variant], r: BuildRequest, shards: Path | None) -> dict[int, list[Step]]:
    """The layers the build computes: plan's, less those in the shard folder of a build that
    stores nothing (--shards-only: what is done is there)."""
    from .builder import plan

    todo = plan(store, chosen, r.ns, r.force)
    if r.shards_only and not r.force:
        from .distributed import unwritten

        assert shards is not None  # set with the client
        todo = unwritten(shards, todo)
    return todo


def _untouched(r: BuildRequest, games: list[Variant], done: Callable[[Store], bool]) -> Path | None:
    """The database's path if a build of `games` has nothing to do there, found by reading it:
    a file at the newest revision that registers the games as they are and where `done` finds
    nothing left. Then the build touches nothing (no write, no lock folder). None where the
    writer must see to it (no file, an older revision, a game registered otherwise)."""
    from .builder import game_record
    from .errors import DatabaseError
    from .store import Store, resolve_db_path

    try:
        path = resolve_db_path(r.db, settings=r.settings)
        if not path.exists():
            return None
        store = Store.open_read(path, settings=r.settings)
    except DatabaseError:  # an older revision, a file whose creation was cut short: the writer's to see to
        return None
    with store:
        return path if all(store.registered_as(game_record(v)) for v in games) and done(store) else None


@contextmanager
def _ending(client: Any, committed: Callable[[], list[int] | None], shards: str | None = None) -> Iterator[None]:
    """A build's end: Ctrl-C (or an error it caused, caused_by_ctrl_c) becomes BuildInterrupted
    naming what `committed` says is committed (and the shard folder a rerun takes layers
    from, once a task has written to it); the cluster's client is closed."""
    try:
        yield
    except BaseException as interrupt:
        if not caused_by_ctrl_c(interrupt):
            raise
        raise BuildInterrupted(committed(), shards if shards and Path(shards).exists() else None) from interrupt
    finally:
        if client is not None:  # closing the link may time out on a loaded machine: the build's own word stands
            with contextlib.suppress(Exception):
                client.close()


def _cluster(r: BuildRequest) -> tuple[Any, Path]:
    """The Dask client and the shard folder of a distributed full build, both checked."""
    from .distributed import connect
    from .shardfolder import MARK, TABLE_PARTITIONS
    from .store import resolve_db_path

    database = resolve_db_path(r.db, settings=r.settings)
    shards = Path(r.shards or str(database) + ".shards")
    check_folder(shards, database=database, may_hold=[*TABLE_PARTITIONS, MARK])  # or a resumed run's
    return connect(r.address or "", r.settings), shards  # checked before: dask needs an address


def _on_cluster(store: StoreWriter, client: Any, todo: dict[int, list[Step]], shards: Path, r: BuildRequest,
                names: list[str], advance: Callable[[int, str], None] | None) -> BuildResult:
    from .builder import game_record
    from .distributed import build_distributed

    variants: dict[str, Variant] = {s.variant.name: s.variant for steps in todo.values() for s in steps}
    for v in variants.values():
        store.register_variant(game_record(v))
    t0 = time.perf_counter()
    # the folder zeckdb chose goes too, once empty
    built, positions, edges = build_distributed(store, client, todo, shards, r.shards_only, advance,
                                                own_folder=r.shards is None)
    return BuildResult(names, r.ns, built, positions, edges, time.perf_counter() - t0, str(store.path),
                       shards=str(shards) if r.shards_only else None)


def _here(store: StoreWriter, chosen: list[Variant], r: BuildRequest, skipped: dict[str, list[int]],
          todo: dict[int, list[Step]], skip: bool, threads: int,
          advance: Callable[[int, str], None] | None) -> BuildResult:
    from .builder import build

    report = build(store, chosen, r.ns, force=r.force, skip_beyond_limit=skip, progress=advance, threads=threads,
                   planned=(skipped, todo))
    names = [v.name for v in chosen]
    return BuildResult(names, r.ns, report.built, report.positions, report.edges, report.seconds, str(store.path))


def _check_build_options(r: BuildRequest) -> None:
    """Refuse options that do not go together (a UsageError naming them)."""
    summary_only, lean, executor, address, shards, shards_only = (r.summary_only, r.lean, r.executor, r.address,
                                                                  r.shards, r.shards_only)
    if lean and not summary_only:
        raise UsageError(f"{opt('lean')} goes with {opt('summary_only')}: a full build keeps every column")
    if r.winner_only and not summary_only:
        raise UsageError(f"{opt('winner_only')} goes with {opt('summary_only')}: a full build keeps every column")
    if executor not in ("local", "dask"):
        raise UsageError(f"{opt('executor')} {executor[:20]!r} is not one of local, dask")
    if executor == "local" and (address or shards or shards_only):
        raise UsageError(f"{opt('address')}, {opt('shards')} and {opt('shards_only')} go with {opt('executor')} dask")
    if executor == "dask" and not address:
        raise UsageError(f"{opt('executor')} dask needs {opt('address')}: the Dask scheduler, e.g. "
                         "tcp://127.0.0.1:8786")
    if summary_only and (shards or shards_only):
        raise UsageError(f"{opt('shards')} and {opt('shards_only')} go with a full build: {opt('summary_only')} "
                         "sends only each layer's summary back")


def _notify_build(skipped: dict[str, list[int]] | None, work: bool, settings: Settings,
                  say: Callable[[str], None]) -> None:
    """A build's notices: what a build without --variant leaves out (skipped: the n beyond each
    game's limit; None for a build of named variants), and the kernels' first compile."""
    if skipped is not None:
        _notify_default_build(skipped, settings, say)
    if work:
        _notify_compile(say)


def _notify_compile(say: Callable[[str], None]) -> None:
    """Say so before a build waits for the kernels' first compile (once per install)."""
    from .engine import kernels
    from .engine.jit import compiled_before

    if not compiled_before(kernels.solve):
        say("zeckdb: compiling the game kernels first (once per install: about ten seconds, minutes on a busy "
            "machine); the build's progress follows")


def _notify_default_build(skipped: dict[str, list[int]], settings: Settings, say: Callable[[str], None]) -> None:
    """What a build without --variant leaves out: the games built on request, the n beyond a game's limit."""
    from .engine.limits import build_memory, full_limit
    from .ranges import format_ns
    from .variants import on_request

    say(f"zeckdb: these games are built on request, with --variant NAME: {', '.join(on_request())} "
        "(`zeckdb variants` lists them and how far each reaches)")
    for name, beyond in skipped.items():
        v = get_variant(name)
        say(f"skipping {name} for n = {format_ns(beyond)}: about {v.estimate_positions(beyond[0]):,} positions "
            f"at n = {beyond[0]} alone, beyond its exhaustive limit n = {full_limit(v, build_memory(settings))}"
            + (f"; {v.beyond_max_n}" if v.beyond_max_n else ""))


def _threads(settings: Settings, say: Callable[[str], None]) -> int:
    """The threads a build runs (the threads setting): more than the cores this process may use
    is allowed, with a notice; more than THREADS_PER_CORE a core are cut to that, with a notice."""
    from .settings import THREADS_PER_CORE, thread_count, usable_cores

    count, asked, cores = thread_count(settings), settings.threads, usable_cores()
    if asked is not None and asked > count:
        say(f"zeckdb: {asked} threads asked for, {count} used: at most {THREADS_PER_CORE} a core, and this process "
            f"may use {cores} core{'s' if cores > 1 else ''}")
    elif count > cores:
        say(f"zeckdb: {count} threads on the {cores} core{'s' if cores > 1 else ''} this process may use: they will "
            "take turns, which is slower than one thread a core")
    return count


def _build_summaries(r: BuildRequest, threads: int, progress: Progress | None,
                     say: Callable[[str], None]) -> BuildResult:
    """Summary mode here (threads) or on the Dask cluster at the request's address (a task per
    layer, each worker holding as many layers as it has threads, within this machine's summary
    memory); without variants, the two core games."""
    from .engine.limits import summary_memory
    from .summaries import build_summaries, check_summary_targets, plan_summaries

    names, ns = r.variants or ["zeckendorf", "reversed"], r.ns
    address = r.address if r.executor == "dask" else None
    chosen = [get_variant(name) for name in names]
    memory = summary_memory(r.settings)
    check_summary_targets(chosen, ns, memory, r.winner_only)  # before the file is touched
    workers = threads if address is None else None
    if workers is not None and (path := _untouched(r, chosen, lambda s: not plan_summaries(
            s, chosen, ns, r.force, memory, workers=workers, lean=r.lean, winner_only=r.winner_only))):
        return BuildResult(names, ns, [], 0, 0, 0.0, str(path), summary_only=True)
    client = None
    if address is not None:
        from .distributed import connect

        client = connect(address, r.settings)
    # Ctrl-C: every finished layer is committed (None)
    with _ending(client, lambda: None), StoreWriter.open_write(r.db, on_wait=lambda: say(
            "zeckdb: waiting for readers to close the database"), settings=r.settings) as store:
        if client is not None:
            from .distributed import cluster_threads

            threads_held = cluster_threads(client)
        else:
            threads_held = threads
        jobs = plan_summaries(store.reads, chosen, ns, r.force, memory, workers=threads_held, lean=r.lean,
                              winner_only=r.winner_only)
        if jobs and client is None:
            _notify_compile(say)
        if progress is not None:
            progress.start(sum(job.positions for job in jobs), "summarising")
        advance = progress.advance if progress is not None else None
        try:
            if client is not None:
                from .distributed import summarise_on_cluster

                report = summarise_on_cluster(store, client, jobs, advance)
            else:
                report = build_summaries(store, jobs, threads=threads, memory=memory, progress=advance)
        finally:
            if progress is not None:
                progress.stop()
    return BuildResult(report.variants if report.built else names, report.ns if report.built else ns, report.built,
                       report.positions, report.edges, report.seconds, str(store.path), summary_only=True)
