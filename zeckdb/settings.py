"""zeckdb's tunable limits, each defined once.

A limit has one default, here. The environment (`ZECKDB_` and the setting's name in capitals)
sets it for every command and the service; a command-line option, where there is one, sets
it for that run. The command line, the service and the library all read the same `Settings`
object, so a limit is the same wherever it applies. docs/commands.md lists them (a test
checks that list against this module).

A library user's own Settings (`zeckdb.open(path, settings=...)`, `zeckdb.build(...,
settings=...)`) governs everything that call does. Only the doors (the command line, the
library's zeckdb.api, the service) read the environment or `current()`: each folds what it is
given into one Settings and hands it down, as an argument, to the code below it, the threads
it starts and the processes it starts (pickled, or on a probe's command line). Below the
doors a function that takes a Settings defaults to DEFAULTS, the documented values, never to
the environment (tests/test_settings.py holds every module to that).

Left out on purpose: block sizes and algorithm thresholds (rows fetched at a time, when a
sweep switches method), which change speed but never an answer or a refusal: those live in
zeckdb.tuning.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
import os
import re
import sys
import threading
from typing import Any

from .errors import UsageError

ENV_PREFIX = "ZECKDB_"
MEMORY_SIZE = r"([0-9]{1,6}(?:\.[0-9]{1,3})?) ?(KB|MB|GB|TB|KiB|MiB|GiB|TiB)"
MEMORY_UNITS = {"kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
                "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def memory_bytes(text: str) -> int:
    """A memory limit's bytes, as DuckDB reads it: 2GB is 2 * 10**9, 1GiB 2**30."""
    match = re.fullmatch(MEMORY_SIZE, text.strip(), re.IGNORECASE)
    if match is None:
        raise UsageError(f"bad memory limit {text[:30]!r}: give a size such as 2GB or 512MB")
    return int(float(match[1]) * MEMORY_UNITS[match[2].lower()])


def _setting(default: Any, help: str, *, low: float | None = None, high: float | None = None,
             option: str | None = None, memory: bool = False, whole: bool = False) -> Any:
    return field(default=default, metadata={"help": help, "low": low, "high": high, "option": option,
                                            "memory": memory, "whole": whole or isinstance(default, int)})


def usable_cores() -> int:
    """The cores this process may use: its CPU affinity (taskset, a container's cpuset), else
    the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class Settings:
    """Every tunable limit; `current()` gives the defaults with the environment's values."""

    # -- the database and this process's reads -------------------------------------------
    db: str = _setting("zeckdb.duckdb", "the database file", option="--db")
    memory_limit: str = _setting("4GB", "DuckDB's memory limit for the command line's and the library's "
                                 "readers (zeckdb sql, query, position, ...)", memory=True)
    read_wait_seconds: float = _setting(30.0, "how long a reader waits for a build's commit before it gives up "
                                        "as busy", low=0.0, high=3600)
    # -- builds ----------------------------------------------------------------------------
    threads: int | None = _setting(None, "threads of a build and of summary mode: layers solved at once, the "
                                   "threads of one large layer, the length distributions' and DuckDB's writer "
                                   "(default: the cores this process may use)", low=1, high=4096,
                                   option="build --threads", whole=True)
    build_memory: float | None = _setting(None, "a full build's budget for one layer, in GiB (default: a quarter "
                                          "of this machine's memory); sets how far each game builds", low=0.01,
                                          high=1 << 20)
    summary_memory: float | None = _setting(None, "summary mode's budget for its state, in GiB (default: 40 % of "
                                            "this machine's memory)", low=0.01, high=1 << 20)
    plugin_load_seconds: float = _setting(20.0, "seconds an installed game plugin has to load (in a process of its "
                                          "own, then in zeckdb's); past them it is left out, named in one line",
                                          low=1, high=3600)
    cluster_connect_seconds: float = _setting(10.0, "seconds a Dask scheduler has to answer a build's connection "
                                              "(`--address`); past them the build stops in one line, touching "
                                              "nothing", low=1, high=3600)
    cluster_silent_seconds: float = _setting(60.0, "seconds a Dask worker may go unheard (frozen, overloaded or cut "
                                             "off) before a build names it in one line", low=1, high=86_400)
    # -- the command line's queries, plots and checks -----------------------------------------
    sql_timeout: float = _setting(60.0, "seconds a query of zeckdb sql or zeckdb query may run", low=0.1,
                                  high=86_400, option="sql/query --timeout")
    sql_max_rows: int = _setting(10_000, "rows zeckdb sql or zeckdb query prints at most (0: all of them)",
                                 low=0, high=10**12, option="sql/query --max-rows")
    sql_max_chars: int = _setting(1_000_000, "characters of one zeckdb sql statement (the service's: "
                                  "serve_max_sql_chars)", low=10, high=10**9)
    plot_seconds: float = _setting(600.0, "seconds zeckdb plot may take to read and draw a figure", low=1,
                                   high=86_400)
    verify_examples: int = _setting(5, "mismatches zeckdb verify shows per check", low=1, high=10_000)
    verify_resolve_positions: int = _setting(2_000_000, "summary layers up to this many positions are solved "
                                             "again by zeckdb verify", low=0, high=10**10)
    # -- the service (zeckdb serve) ------------------------------------------------------------
    serve_sql_timeout: float = _setting(10.0, "seconds a POST /v1/sql or a named query may run", low=0.1,
                                        high=3600, option="serve --sql-timeout")
    serve_sql_max_rows: int = _setting(10_000, "rows a POST /v1/sql returns at most", low=1, high=10**7,
                                       option="serve --sql-max-rows")
    serve_sql_max_bytes: int = _setting(32_000_000, "bytes of the rows of one SQL answer, before JSON", low=1000,
                                        high=1 << 34)
    serve_max_sql_chars: int = _setting(100_000, "characters of one POST /v1/sql statement", low=10,
                                        high=10**7)
    serve_max_body_bytes: int = _setting(1 << 20, "bytes of a request's body (413 past it)", low=1000,
                                         high=1 << 30)
    serve_plot_seconds: float = _setting(60.0, "seconds a figure of /v1/plots may take (at least the SQL's)",
                                         low=1, high=3600)
    serve_max_heavy: int = _setting(2, "SQL and named-query worker processes, and plots drawn at once; a "
                                    "request beyond them waits its turn, then gets 429", low=1, high=64,
                                    option="serve --max-heavy")
    serve_queue_seconds: float = _setting(1.0, "how long a heavy request waits for a free worker before 429",
                                          low=0.0, high=600, option="serve --queue-seconds")
    serve_memory_limit: str = _setting("2GB", "DuckDB's memory limit for the service's queries (a query over it "
                                       "gets 408)", option="serve --memory-limit", memory=True)
    serve_max_connections: int = _setting(512, "connections open at once; one more takes the place of one still waiting "
                                          "for its request (the fullest address's, longest waiting first)", low=4,
                                          high=100_000, option="serve --max-connections")
    serve_header_seconds: float = _setting(10.0, "seconds a connection has to send a request's head", low=0.1,
                                           high=3600, option="serve --header-timeout")
    serve_body_seconds: float = _setting(10.0, "seconds a request has, once its head is in, to send its whole body "
                                         "(408 past them)", low=0.1, high=3600, option="serve --body-timeout")
    serve_max_client_connections: int = _setting(64, "connections one client address may hold at once; one more "
                                                 "is closed at once", low=1, high=100_000,
                                                 option="serve --max-client-connections")
    serve_keep_alive_seconds: int = _setting(5, "seconds an idle kept-alive connection stays open", low=1,
                                             high=3600)
    serve_lookup_seconds: float = _setting(10.0, "seconds a lookup, line or summary may take; past them its "
                                           "statement is interrupted (408), and a plugin game's worker is stopped "
                                           "and replaced (503 naming the plugin)", low=0.1, high=3600)
    serve_lookup_threads: int = _setting(40, "lookups answered at once, each on a thread of its own (more wait "
                                         "their turn on the event loop, holding nothing)", low=1, high=1000)
    serve_plugin_workers: int = _setting(1, "worker processes answering the requests for game plugins' games "
                                         "(a plugin's code never runs in the service's own process)", low=1,
                                         high=64)
    serve_allowed_hosts: str = _setting("localhost", "the host names a request may name in its Host header, "
                                        "comma-separated, besides IP addresses (* for any): another name is "
                                        "refused, so that a web page whose name is rebound to this machine (DNS "
                                        "rebinding) cannot read the service from a visitor's browser",
                                        option="serve --allowed-hosts")
    # -- the service's SQL worker processes ----------------------------------------------------
    worker_start_seconds: float = _setting(60.0, "seconds a new worker has to start before it is replaced",
                                           low=1, high=3600)
    worker_grace_seconds: float = _setting(0.5, "seconds past its time limit before a silent worker is killed",
                                           low=0.0, high=60)
    worker_response_seconds: float = _setting(0.5, "seconds of a request's time limit kept back to send its rows",
                                              low=0.0, high=60)
    worker_niceness: int = _setting(10, "added to the workers' scheduling niceness, so lookups keep their pace",
                                    low=0, high=19)
    worker_retire_fraction: float = _setting(0.75, "of a worker's memory cap: past it, the worker is replaced "
                                             "after its answer", low=0.1, high=1.0)

    def __post_init__(self) -> None:
        """Every value checked when the settings are made, each bad one a UsageError naming it:
        `Settings(sql_timeout='5')` or `Settings(threads=-3)` is refused here, not deep in a build."""
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.default is None:
                continue
            if not _of_type(f, value):
                raise UsageError(f"{f.name}={str(value)[:30]!r} is not {_expected(f)}")
            if isinstance(value, os.PathLike):  # the database as a path, kept as its text
                object.__setattr__(self, f.name, os.fspath(value))
            _checked(f, value, f"{f.name}={value!r}")

    def changed(self, **values: Any) -> Settings:
        """These settings with some replaced (None keeps a setting), each checked as the
        environment's values are."""
        known = {f.name: f for f in fields(self)}
        unknown = sorted(set(values) - set(known))
        if unknown:
            from .errors import did_you_mean

            raise UsageError(f"no setting is named {unknown[0][:40]!r}: {did_you_mean(unknown[0], list(known))}"
                             f"docs/commands.md, \"Settings\", lists them")
        checked = {}
        for name, value in values.items():
            if value is not None:
                option = known[name].metadata["option"] or name
                shown = f"{value:g}" if isinstance(value, float) else value
                checked[name] = _checked(known[name], value, f"{option.split()[-1]} {shown}")
        return replace(self, **checked)

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        """The defaults, with each setting the environment names."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            text = environ.get(env_name(f.name), "").strip()
            if text:
                values[f.name] = _checked(f, _parsed(f, text), f"{env_name(f.name)}={text[:30]!r}")
        return cls(**values)


    def as_environment(self) -> dict[str, str]:
        """These settings as the environment would set them (ZECKDB_NAME: text), those that differ
        from the default: for a `zeckdb` command a script starts to read the same (zeckdb's own
        processes are handed a Settings)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None and value != f.default:
                out[env_name(f.name)] = repr(value) if isinstance(value, float) else str(value)
        return out


_ACTIVE: ContextVar[Settings | None] = ContextVar("zeckdb_settings", default=None)


def current() -> Settings:
    """The settings a library call was given (`using`), else the defaults with what the
    environment sets, read now (a change of the environment shows at once)."""
    active = _ACTIVE.get()
    return active if active is not None else Settings.from_env(os.environ)


@contextmanager
def using(settings: Settings | None) -> Iterator[None]:
    """Within the block, `current()` is `settings` (None: leave it as it is)."""
    if settings is None:
        yield
        return
    if not isinstance(settings, Settings):
        raise UsageError(f"bad settings {type(settings).__name__}: give a zeckdb.Settings, e.g. "
                         "zeckdb.Settings().changed(sql_timeout=5)")
    token = _ACTIVE.set(settings)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def activate(settings: Settings) -> None:
    """Make `settings` the ones current() gives for the rest of this thread's context (and the
    pools it makes): the command line's door, for an option given before the command."""
    _ACTIVE.set(settings)


def pool(workers: int, name: str = "") -> ThreadPoolExecutor:
    """A thread pool whose threads carry their name to the system too."""
    return ThreadPoolExecutor(workers, thread_name_prefix=name, initializer=_start_thread)


def _start_thread() -> None:
    """A pool thread's start: its name given to the system too (Python 3.11 does not), so that
    `top -H` and /proc tell the writer from the solvers."""
    if sys.platform == "linux":
        import ctypes

        with suppress(OSError, AttributeError):
            name = threading.current_thread().name.removeprefix("zeckdb-")
            ctypes.CDLL(None).prctl(15, name.encode()[:15])  # PR_SET_NAME


THREADS_PER_CORE = 8  # the most threads a setting gets per usable core: more only take turns


def thread_count(settings: Settings) -> int:
    """The threads setting, else the cores this process may use; at most THREADS_PER_CORE a
    usable core (thread_cap: a build says when that cut what was asked)."""
    chosen = settings.threads
    return min(chosen, thread_cap()) if chosen is not None else usable_cores()


def thread_cap() -> int:
    return THREADS_PER_CORE * usable_cores()


def env_name(name: str) -> str:
    return ENV_PREFIX + name.upper()


def documented() -> list[tuple[str, str, str, str]]:
    """(setting, default, how to set it, what it bounds) per setting, as docs/commands.md lists them."""
    rows = []
    for f in fields(Settings):
        ways = f"`{env_name(f.name)}`" + (f", `{f.metadata['option']}`" if f.metadata["option"] else "")
        rows.append((f.name, _default_text(f), ways, f.metadata["help"]))
    return rows


def markdown() -> str:
    """The table of docs/commands.md's "Settings" (`python -m zeckdb.settings` prints it)."""
    lines = ["| setting | default | set by | what it bounds |", "|---|---|---|---|"]
    lines += [f"| `{name}` | {default} | {ways} | {what} |" for name, default, ways, what in documented()]
    return "\n".join(lines)


def help_text(name: str) -> str:
    """A setting's help, as an option's: what it bounds, its default and its environment variable."""
    f = next(f for f in fields(Settings) if f.name == name)
    return f"{f.metadata['help'][0].upper()}{f.metadata['help'][1:]} (default: {_default_text(f)}, or ${env_name(name)})."


def _default_text(f: Any) -> str:
    if f.default is None:
        return "the usable cores" if f.name == "threads" else "a share of memory"
    return f"{f.default:,}" if isinstance(f.default, int | float) else str(f.default)


def _expected(f: Any) -> str:
    if f.metadata["memory"]:
        return "a memory size: give e.g. 2GB or 512MB"
    if f.name.endswith("_memory"):
        return "a memory size: write GiB, e.g. 7 or 0.5"
    if isinstance(f.default, str):
        return "a name"
    if f.metadata["whole"]:
        return f"a whole number from {int(f.metadata['low']):,} to {int(f.metadata['high']):,}"
    return f"a number from {f.metadata['low']:g} to {f.metadata['high']:g}"


def _of_type(f: Any, value: Any) -> bool:
    """Whether a value given in Python is of the setting's type (a whole number where it takes
    one, a number where it takes one; never a bool)."""
    if isinstance(f.default, str):
        return isinstance(value, str) or (f.name == "db" and isinstance(value, os.PathLike))
    if isinstance(value, bool):
        return False
    import numbers

    return isinstance(value, numbers.Integral) if f.metadata["whole"] else isinstance(value, numbers.Real)


def _parsed(f: Any, text: str) -> Any:
    """The environment's text as the setting's type."""
    if isinstance(f.default, str):
        return text
    # as the command line reads a number: ASCII digits only (Python's int() takes "٣" and "5_0")
    number = r"[0-9]+" if f.metadata["whole"] else r"[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
    if not re.fullmatch(number, text):
        raise UsageError(f"{env_name(f.name)}={text[:30]!r} is not {_expected(f)}")
    return (int if f.metadata["whole"] else float)(text)


def _checked(f: Any, value: Any, source: str) -> Any:
    """value if the setting takes it, else a UsageError that says what it takes."""
    if f.metadata["memory"]:
        try:
            memory_bytes(value)
        except UsageError:
            raise UsageError(f"{source} is not {_expected(f)}") from None
        return value.strip()
    low, high = f.metadata["low"], f.metadata["high"]
    if low is not None and not low <= value <= high:
        raise UsageError(f"{source} is not {_expected(f)}")
    return value


DEFAULTS = Settings()  # after the checks it runs are defined

if __name__ == "__main__":
    print(markdown())
