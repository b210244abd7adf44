"""The service's SQL worker pool: every wait counts against the request's time limit."""

from __future__ import annotations

import time

import pytest

from zeckdb.executor import Limits
from zeckdb.sqlworkers import BusyError, SqlWorkers


def test_a_request_does_not_wait_past_its_limit_for_a_starting_worker(small_db):
    workers = SqlWorkers(small_db, 1, "200MB")  # its one worker is still importing zeckdb
    try:
        asked = time.monotonic()
        with pytest.raises(BusyError, match="starting: try again"):
            workers.run_sql("SELECT 1", Limits(timeout=0.2))
        assert time.monotonic() - asked < 0.2
        # the worker stayed in the pool and answers once it is ready
        answer = workers.run_sql("SELECT 42 AS x", Limits(timeout=60))
        assert answer.rows == [(42,)]
    finally:
        workers.close()
