"""Summary mode's scheduler (`zeckdb build --summary-only`): which (variant, n) layers to
solve, within what memory, and the pool that solves them (zeckdb.engine.summary, one pass
per layer) and commits each layer's summary row as it finishes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
import time
from typing import TYPE_CHECKING, Any

from .builder import BuildReport, Progress, game_record, summary_record
from .store import Store, StoreWriter
from .variants import Variant
from .settings import pool as named_pool
from .tuning import IDLE_SECONDS, THREADED_LAYER

if TYPE_CHECKING:
    from .engine.summary import Summary


@dataclass
class SummaryJob:
    variant: Variant
    n: int
    positions: int
    floats: bool  # the float columns (expected length, game count, random-play odds) fit the budget
    bytes: int
    replace: bool
    winner_only: bool = False  # --winner-only: one byte a position, the winner and the counts kept


def check_summary_targets(variants: list[Variant], ns: list[int], memory: int, winner_only: bool = False) -> None:
    """Raise for a variant without a summary mode, an n below its first, or a layer whose
    state alone would not fit `memory` (engine.limits, in the state winner_only says; before
    the database is touched)."""
    from .engine.limits import check_summary, summary_first_n
    from .variants import summary_games

    solved = summary_games()
    for v in variants:
        own = [n for n in ns if n >= summary_first_n(v)] or ns  # none of its own: the first is refused, saying why
        check_summary(v, min(own), memory, solved, winner_only)
        check_summary(v, max(own), memory, solved, winner_only)


def plan_summaries(store: Store, variants: list[Variant], ns: list[int], force: bool, memory: int,
                   workers: int, lean: bool = False, winner_only: bool = False) -> list[SummaryJob]:
    """The (variant, n) summary layers still to compute, in ascending n. A layer built in full
    already has its summary and is never replaced by one; with force, summary layers are recomputed.
    Each layer keeps the float columns while `workers` layers like it fit `memory`, never if `lean`;
    winner_only: each keeps one byte a position (the winner and the counts).
    The targets are checked first, once, by check_summary_targets."""
    from .engine.limits import summary_first_n
    from .engine.summary import layer_bytes, layer_size

    stored = {v.name: (store.built_ns(v.name), store.summary_ns(v.name), store.present_ns(v.name)) for v in variants}
    jobs = []
    for n in sorted(set(ns)):
        for v in variants:
            full, summaries, present = stored[v.name]
            if n < summary_first_n(v) or n in full or (n in summaries and not force):
                continue
            if winner_only:
                jobs.append(SummaryJob(v, n, layer_size(v, n), False, layer_bytes(v, n, False, winner_only=True),
                                       replace=n in present, winner_only=True))
                continue
            small, big = layer_bytes(v, n, floats=False), layer_bytes(v, n, floats=True)
            floats = not lean and big * workers <= memory
            jobs.append(SummaryJob(v, n, layer_size(v, n), floats, big if floats else small, replace=n in present))
    return jobs


def build_summaries(store: StoreWriter, jobs: list[SummaryJob], *, threads: int = 2, memory: int | None = None,
                    progress: Progress | None = None,
                    on_layer: Callable[[object], None] | None = None) -> BuildReport:
    """Solve each planned (variant, n) in one pass and store only its summary (builds,
    random_play), as many layers at a time as `threads` while their state fits `memory`
    (bytes); a large layer started when fewer layers are left than threads free gets the
    spare threads (engine.summary: its blocks stepped on them). Each layer is committed as it
    finishes; the file is let go whenever a reader asks for it or the writer waits
    (IDLE_SECONDS)."""
    from .engine.limits import summary_memory
    from .engine.summary import solve_summary

    memory = summary_memory(store.settings) if memory is None else memory
    report = start_report(store, jobs)
    queue = deque(jobs)
    store.let_go()
    t0 = time.perf_counter()
    running: dict[Future[Any], SummaryJob] = {}
    busy: dict[Future[Any], int] = {}  # threads each running layer holds
    with named_pool(threads, "zeckdb-summary") as pool:
        try:
            while queue or running:
                held = sum(job.bytes for job in running.values())
                while queue and sum(busy.values()) < threads and (not running or held + queue[0].bytes <= memory):
                    job = queue.popleft()
                    free = threads - sum(busy.values())
                    share = max(1, free // (len(queue) + 1)) if job.positions >= THREADED_LAYER else 1
                    future = pool.submit(solve_summary, job.variant, job.n, job.floats, None, share, job.winner_only)
                    running[future], busy[future] = job, share
                    held += job.bytes
                done, _ = wait(running, timeout=IDLE_SECONDS, return_when=FIRST_COMPLETED)
                if not done:  # the writer would idle: the file is the readers' meanwhile
                    store.let_go()
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: running[f].n):
                    job = running.pop(future)
                    busy.pop(future)
                    summary = future.result()
                    commit_summary(store, job, summary, report, progress)
                    if on_layer:
                        on_layer(summary)
        finally:
            for future in running:  # let the layers being solved finish, but write nothing more
                future.cancel()
    report.seconds = time.perf_counter() - t0
    return report


def start_report(store: StoreWriter, jobs: list[SummaryJob]) -> BuildReport:
    """The report of a summary build of `jobs`, their variants registered in the store."""
    for v in {job.variant.name: job.variant for job in jobs}.values():
        store.register_variant(game_record(v))
    return BuildReport(sorted({job.variant.name for job in jobs}), sorted({job.n for job in jobs}))


def commit_summary(store: StoreWriter, job: SummaryJob, summary: Summary, report: BuildReport,
                   progress: Progress | None) -> None:
    """Commit one solved layer's summary (one transaction), let a waiting reader in, and count it."""
    store.write_summary(summary_record(job.variant, summary), job.replace)
    store.let_readers_in()
    report.built.append((job.variant.name, job.n))
    report.positions += summary.positions
    report.edges += summary.edges
    if progress:
        progress(job.positions, f"{job.variant.name} n={job.n}")
