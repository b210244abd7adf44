"""The service's SQL worker pool: every wait counts against the request's time limit."""

from __future__ import annotations

import json
import threading
import time

import pytest

from zeckdb.executor import Limits
from zeckdb.errors import BusyError
from zeckdb.settings import DEFAULTS
from zeckdb.sqlworkers import SqlWorkers

ONE_SMALL = DEFAULTS.changed(serve_max_heavy=1, serve_memory_limit="200MB")  # one worker, DuckDB at 200MB


def test_a_request_does_not_wait_past_its_limit_for_a_starting_worker(small_db):
    """The request is refused while its worker is still starting (a process's start takes far
    longer than the request's 0.2 s), not once it has started: no wall-clock bound."""
    workers = SqlWorkers(small_db, ONE_SMALL)  # its one worker is still importing zeckdb
    try:
        with pytest.raises(BusyError, match="starting: try again"):
            workers.run_sql("SELECT 1", Limits(timeout=0.2))
        assert not any(w.ready for w in workers.all)  # refused without having waited for the start
        workers.wait_ready()
        # the worker stayed in the pool and answers once it is ready
        answer = workers.run_sql("SELECT 42 AS x", Limits(timeout=60))
        assert json.loads(answer)["rows"] == [[42]]
    finally:
        workers.close()



class HeldReplacement(SqlWorkers):
    """A pool whose replacement workers do not start until the test lets them."""

    def __init__(self, *args):
        self.release = threading.Event()
        super().__init__(*args)

    def _start(self):
        if getattr(self, "started_once", False):
            self.release.wait()
        self.started_once = True
        return super()._start()


def test_a_greedy_query_is_answered_before_its_worker_is_replaced(small_db):
    """A worker that ran out of memory is replaced in the background: the request's answer
    (at once, 408) comes while its replacement is still held back from starting."""
    from zeckdb.errors import QueryLimitError

    workers = HeldReplacement(small_db, ONE_SMALL)
    try:
        workers.run_sql("SELECT 1", Limits(timeout=60))  # ready
        (first,) = workers.all
        with pytest.raises(QueryLimitError, match="memory"):
            workers.run_sql("SELECT length(string_agg(repeat('x', 1000), '')) FROM range(300000)", Limits(timeout=30))
        assert not workers.release.is_set()  # answered with the replacement not even begun
        with pytest.raises(BusyError, match="limit of 1 SQL"):  # the new worker is starting
            workers.run_sql("SELECT 7 AS x", Limits(timeout=60))
        workers.release.set()
        deadline = time.monotonic() + 120  # a generous bound for a process to start on a busy machine
        while workers.idle.empty() and time.monotonic() < deadline:
            time.sleep(0.05)
        answer = workers.run_sql("SELECT 7 AS x", Limits(timeout=60))
        assert json.loads(answer)["rows"] == [[7]] and first not in workers.all
    finally:
        workers.release.set()
        workers.close()


def test_workers_yield_the_cpu_to_the_service(small_db):
    """A greedy query runs below the service's priority, so lookups keep their pace."""
    import os

    workers = SqlWorkers(small_db, ONE_SMALL)
    try:
        workers.run_sql("SELECT 1", Limits(timeout=60))  # its one worker has started and answered
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        (worker,) = workers.all
        assert os.getpriority(os.PRIO_PROCESS, worker.process.pid) >= min(mine + 10, 19)
    finally:
        workers.close()


def test_a_map_keyed_by_floats_is_answered_in_json(small_db):
    """JSON names keys in text: a map's NaN or infinite key is named, not refused."""
    workers = SqlWorkers(small_db, ONE_SMALL)
    try:
        answer = workers.run_sql("SELECT map(['nan'::DOUBLE, 'inf'::DOUBLE, 1.5], [1, 2, 3]) AS m", Limits(timeout=60))
        assert json.loads(answer)["rows"] == [[{"nan": 1, "inf": 2, "1.5": 3}]]
    finally:
        workers.close()
