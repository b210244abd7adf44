"""The service's SQL worker pool: every wait counts against the request's time limit."""

from __future__ import annotations

import json
import time

import pytest

from zeckdb.executor import Limits
from zeckdb.errors import BusyError
from zeckdb.sqlworkers import SqlWorkers


def test_a_request_does_not_wait_past_its_limit_for_a_starting_worker(small_db):
    workers = SqlWorkers(small_db, 1, "200MB")  # its one worker is still importing zeckdb
    try:
        asked = time.monotonic()
        with pytest.raises(BusyError, match="starting: try again"):
            workers.run_sql("SELECT 1", Limits(timeout=0.2))
        assert time.monotonic() - asked < 0.2
        # the worker stayed in the pool and answers once it is ready
        answer = workers.run_sql("SELECT 42 AS x", Limits(timeout=60))
        assert json.loads(answer)["rows"] == [[42]]
    finally:
        workers.close()



class SlowToReplace(SqlWorkers):
    """A pool whose replacement workers take two seconds to start, as under heavy load."""

    def _start(self):
        if getattr(self, "started_once", False):
            time.sleep(2)
        self.started_once = True
        return super()._start()


def test_a_greedy_query_is_answered_before_its_worker_is_replaced(small_db):
    """A worker that ran out of memory is replaced in the background: the request's answer
    (at once, 408) does not wait for the new worker to start."""
    from zeckdb.errors import QueryLimitError

    workers = SlowToReplace(small_db, 1, "200MB")
    try:
        workers.run_sql("SELECT 1", Limits(timeout=60))  # ready
        (first,) = workers.all
        asked = time.monotonic()
        with pytest.raises(QueryLimitError, match="memory"):
            workers.run_sql("SELECT length(string_agg(repeat('x', 1000), '')) FROM range(300000)", Limits(timeout=30))
        assert time.monotonic() - asked < 1.5
        with pytest.raises(BusyError, match="limit of 1 SQL"):  # the new worker is starting
            workers.run_sql("SELECT 7 AS x", Limits(timeout=60))
        time.sleep(2)
        answer = workers.run_sql("SELECT 7 AS x", Limits(timeout=60))
        assert json.loads(answer)["rows"] == [[7]] and first not in workers.all
    finally:
        workers.close()


def test_workers_yield_the_cpu_to_the_service(small_db):
    """A greedy query runs below the service's priority, so lookups keep their pace."""
    import os

    workers = SqlWorkers(small_db, 1, "200MB")
    try:
        workers.run_sql("SELECT 1", Limits(timeout=60))  # its one worker has started and answered
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        (worker,) = workers.all
        assert os.getpriority(os.PRIO_PROCESS, worker.process.pid) >= min(mine + 10, 19)
    finally:
        workers.close()


def test_a_map_keyed_by_floats_is_answered_in_json(small_db):
    """JSON names keys in text: a map's NaN or infinite key is named, not refused."""
    workers = SqlWorkers(small_db, 1, "200MB")
    try:
        answer = workers.run_sql("SELECT map(['nan'::DOUBLE, 'inf'::DOUBLE, 1.5], [1, 2, 3]) AS m", Limits(timeout=60))
        assert json.loads(answer)["rows"] == [[{"nan": 1, "inf": 2, "1.5": 3}]]
    finally:
        workers.close()
