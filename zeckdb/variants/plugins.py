"""Game plugins: the games other packages add through the entry-point group `zeckdb.games`.

A plugin is code zeckdb did not write, and it runs in zeckdb's process once loaded. So a
plugin is loaded only when its own game is asked for, and loading it is bounded:

1. It is probed first in a child process of its own (probe_here),
   killed at the deadline (the setting plugin_load_seconds). The child reports what the game
   says of itself (title, paper, reach, an example start) on a pipe of its own: a plugin that
   hangs, exits (`os._exit`, `sys.exit`), raises anything or prints at import harms only
   the child, and is named in one line.
2. Only a plugin that loaded in the child is loaded here, in a thread with the same deadline,
   its prints sent to standard error (never into a command's JSON or CSV).

Listing the games (`zeckdb variants`, the service's /v1/variants) needs only step 1, run for
every plugin at once: nothing of a plugin is loaded into the listing process.

Probes and loads are once per process, wherever a game's name is first resolved, so the
settings they run under (the deadline, the budgets a probe measures a game's reach by) are
the process's too: each door hands its settings to `configure` as it resolves them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
import contextlib
from dataclasses import asdict, dataclass
import functools
import json
import math
import os
import subprocess
import sys
import threading
from typing import Any, cast

from ..children import end_group, new_session_for_children
from ..engine.limits import build_memory, summary_memory
from ..settings import DEFAULTS, Settings
from ..engine.contract import MAX_NAME_LENGTH, ContractError, Variant, check_contract, shown_text, valid_name

GROUP = "zeckdb.games"  # the entry-point group through which a package adds a game
# the probe's child ends itself at its deadline (SIGALRM's default action: no Python runs, a loop
# holding the GIL ends too) and with its parent, before it imports anything of zeckdb or the plugin
PROBE = ("import signal, sys; signal.alarm(int(sys.argv[3])); "
         "from zeckdb.children import die_with_parent; die_with_parent(int(sys.argv[4])); "
         "from zeckdb.variants.plugins import probe_here; "
         "probe_here(sys.argv[1], int(sys.argv[2]), int(sys.argv[5]), int(sys.argv[6]))")


@dataclass(frozen=True)
class Probe:
    """What a plugin's game says of itself, as its probe reported it (the listing's facts)."""

    name: str
    title: str
    source: str
    min_n: int
    full_n: int | None  # the last n a full build reaches here (engine.limits.reach)
    summary_n: int | None  # the same in summary mode, None without one
    start_of_5: str
    summary_refusal: str | None


@functools.cache
def discovered(reserved: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The installed plugins (name -> entry point), none of them loaded; a name in `reserved`
    (zeckdb's own games) is left out."""
    from importlib.metadata import entry_points

    found: dict[str, Any] = {}
    for point in entry_points(group=GROUP):
        if point.name not in reserved:
            found.setdefault(point.name, point)
    return found


_configured = [DEFAULTS]  # the settings of this process's probes and loads (configure)


def configure(settings: Settings) -> None:
    """The settings this process's plugin probes and loads run under: a door's, as it resolves them."""
    _configured[0] = settings


def deadline() -> float:
    return _configured[0].plugin_load_seconds


_lock = threading.Lock()
_probes: dict[str, Probe | ContractError] = {}


def probe(name: str, point: Any) -> Probe:
    """The plugin's game as its child process reports it; a ContractError naming the plugin
    if it does not load there within the deadline. Once per process and plugin."""
    with _lock:
        known = _probes.get(name)
    if known is None:
        known = _run_probe(name, point)
        with _lock:
            known = _probes.setdefault(name, known)
    if isinstance(known, ContractError):
        raise known
    return known


_running: set[int] = set()  # the probes' children running now (a Ctrl-C ends them at once)


def stop_probes() -> None:
    """End every probe running now, with whatever its plugin started (the service ending)."""
    for pid in list(_running):
        end_group(pid)


def probe_all(points: dict[str, Any]) -> tuple[list[Probe], list[str]]:
    """Every plugin probed at once (each in its own child process): the games that load, and
    one line for each that does not. A Ctrl-C ends every probe at once, not at its deadline."""
    if not points:
        return [], []
    pool = ThreadPoolExecutor(min(len(points), 16))
    try:
        outcomes = list(pool.map(lambda item: _outcome(probe, *item), points.items()))
    except BaseException:
        stop_probes()
        raise
    finally:
        pool.shutdown()
    return [o for o in outcomes if isinstance(o, Probe)], [str(o) for o in outcomes if isinstance(o, ContractError)]


def load(name: str, point: Any) -> Variant:
    """The plugin's game, loaded into this process: probed first, then loaded in a thread
    with the deadline, its prints sent to standard error."""
    probe(name, point)
    seconds = deadline()
    result: list[Any] = []

    def run() -> None:
        result.append(_outcome(_make, name, point))

    with contextlib.redirect_stdout(sys.stderr):
        loader = threading.Thread(target=run, name=f"zeckdb-plugin-{name}", daemon=True)
        loader.start()
        loader.join(seconds)
    if not result:  # it loaded in its probe but not here: the thread is left behind, never waited on
        raise ContractError(f"{_named(name, point)} did not load within {seconds:g} s (plugin_load_seconds)")
    if isinstance(result[0], ContractError):
        raise result[0]
    return cast(Variant, result[0])


def _outcome(call: Any, *args: Any) -> Any:
    try:
        return call(*args)
    except ContractError as exc:
        return exc


def _named(name: str, point: Any) -> str:
    return f"the game plugin {name if valid_name(name) else shown_text(name)} ({point.value})"


def _make(name: str, point: Any) -> Variant:
    """Import the plugin, make its game and hold it to the contract; every failure (a
    Ctrl-C and sys.exit() while it loads included) is one ContractError naming it."""
    if not valid_name(name):  # it would become folder names (export, shards) and SQL values
        raise ContractError(f"{_named(name, point)} has no valid game name: lower-case letters, digits and "
                            f"single hyphens, a letter first, at most {MAX_NAME_LENGTH} characters")
    try:
        made = point.load()()
    except BaseException as exc:  # a plugin's bug, its sys.exit() and a Ctrl-C while it loads: one line
        what = {SystemExit: "called sys.exit() while it loaded", KeyboardInterrupt: "was interrupted while it loaded"}
        said = next((words for kind, words in what.items() if isinstance(exc, kind)),
                    f"failed to load: {str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}")
        raise ContractError(f"{_named(name, point)} {said}") from None
    if not isinstance(made, Variant):
        raise ContractError(f"{_named(name, point)} gives a {type(made).__name__}, not a Variant")
    if made.name != name:
        raise ContractError(f"{_named(name, point)} names itself {shown_text(str(made.name))}: its entry point and "
                            "its name must be the same")
    try:
        check_contract(made)
    except ContractError:
        raise
    except Exception as exc:  # the checks call the game's own code
        raise ContractError(f"{_named(name, point)} failed its contract checks: {type(exc).__name__}: "
                            f"{shown_text(str(exc)[:200])}") from None
    return made


def _run_probe(name: str, point: Any) -> Probe | ContractError:
    """Load the plugin in a child process, bounded by the deadline; its report comes on a
    pipe of its own (what the plugin prints goes to our standard error)."""
    seconds = deadline()
    read, write = os.pipe()
    budgets = [str(build_memory(_configured[0])), str(summary_memory(_configured[0]))]  # its reach by ours
    own_session = new_session_for_children()
    try:
        # a Ctrl-C of ours is ours to handle (its own session: the terminal's does not reach it); we end it
        child = subprocess.Popen([sys.executable, "-c", PROBE, name, str(write), str(math.ceil(seconds) + 1),
                                  str(os.getpid()), *budgets],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=sys.stderr.fileno() if _has_fd(sys.stderr) else subprocess.DEVNULL,
                                 pass_fds=(write,), start_new_session=own_session)
    finally:
        os.close(write)
    _running.add(child.pid)
    report: list[bytes] = []
    reader = threading.Thread(target=lambda: report.append(_read_all(read)), daemon=True)
    reader.start()
    try:
        child.wait(seconds)
    except subprocess.TimeoutExpired:
        return ContractError(f"{_named(name, point)} did not load within {seconds:g} s (plugin_load_seconds)")
    finally:  # a Ctrl-C here too: ended by us, with whatever the plugin started (it holds our pipes)
        if own_session:
            end_group(child.pid)
        elif child.poll() is None:
            child.kill()
        child.wait()
        _running.discard(child.pid)
        reader.join(5)
    text = report[0].decode("utf-8", "replace") if report else ""
    if not text:
        return ContractError(f"{_named(name, point)} ended its process while it loaded (exit status "
                             f"{child.returncode})")
    try:  # the child's own report; a plugin could have written on the pipe too
        said = json.loads(text)
        return ContractError(str(said["error"])) if "error" in said else Probe(**said)
    except (ValueError, TypeError, KeyError):
        return ContractError(f"{_named(name, point)} garbled its probe's report while it loaded")


def _read_all(fd: int) -> bytes:
    """The probe's report: up to its closing line break (a daemon the plugin forked may hold the
    pipe open for ever: the report does not wait for its end), at most 1 MiB."""
    got = b""
    try:
        while b"\n" not in got and len(got) < 1 << 20:
            piece = os.read(fd, 1 << 16)
            if not piece:
                break
            got += piece
    finally:
        os.close(fd)
    return got.split(b"\n", 1)[0]


def _has_fd(stream: Any) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


def probe_here(name: str, report_fd: int, build_budget: int, summary_budget: int) -> None:
    """The child's side: load the plugin and write what its game says of itself to
    `report_fd` (its reach within the parent's budgets, in bytes), then leave at once (a
    plugin's atexit and threads are not ours to wait for)."""
    from ..engine.limits import reach

    os.dup2(2, 1)  # whatever the plugin prints goes to standard error
    point = discovered().get(name)
    try:
        if point is None:
            raise ContractError(f"no game plugin named {shown_text(name)} is installed")
        game = _make(name, point)
        got = reach(game, build_budget, summary_budget)
        said: dict[str, Any] = asdict(Probe(name, str(game.title), str(game.source), int(game.min_n), got.full,
                                            got.summary, game.format(game.start(5)),
                                            game.summary_refusal))
    except ContractError as exc:
        said = {"error": str(exc)}
    except BaseException as exc:  # the game's own code, run by reach and format
        said = {"error": f"{_named(name, point)} failed while it described its game: {type(exc).__name__}"}
    with os.fdopen(report_fd, "w") as out:
        out.write(json.dumps(said) + "\n")  # the line break ends the report, whoever holds the pipe
    os._exit(0)
