"""The processes zeckdb starts, ended without their cooperation.

Every child (a plugin's probe, the service's workers, `zeckdb sql`'s process) leads a process
group of its own and is ended by group (os.killpg, SIGKILL): whatever it started (a plugin's
own `subprocess.Popen`) goes with it. Each dies with its parent: it asks the kernel for
SIGKILL when its parent ends (PR_SET_PDEATHSIG, Linux), and checks at once that the parent it
was started by is still the one it has (it may have died before the request). Nothing here
needs the child to run any Python once it is asked to end, so a child that holds its GIL in a
loop, sleeps, or ignores SIGTERM ends all the same.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """In a child, first thing: SIGKILL when the parent ends; gone at once if it has ended already
    (where the kernel offers no such request, the caller's own ending of the child remains)."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


_leading = False  # this process leads a group of its own that its parent ends (a worker)


def lead_group() -> None:
    """In a child made by multiprocessing (which cannot start it in a session of its own): lead a
    process group, so that what it starts is ended with it (end_group), and a Ctrl-C at the
    terminal, sent to the terminal's group, reaches its parent alone."""
    global _leading
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
        _leading = True


def new_session_for_children() -> bool:
    """Whether a child this process starts takes a session of its own: yes, unless this
    process leads a group its parent ends as one (a worker), where its children stay in that
    group and end with it, whatever they started too."""
    return not _leading


def end_group(pid: int) -> None:
    """SIGKILL to the process group led by `pid`: the child and whatever it started, however busy."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


PR_SET_CHILD_SUBREAPER = 36


def become_reaper() -> None:
    """In a `zeckdb` process, first thing (Linux): whatever it starts that is orphaned (a plugin's
    daemon, forked, in a session of its own, its parent gone) becomes its child again, not
    init's, so that end_descendants finds it whatever group or session it moved to."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _children() -> list[int]:
    """This process's children, read from /proc (each entry's parent; one that ends meanwhile is skipped)."""
    me, found = os.getpid(), []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    with open(f"/proc/{entry.name}/stat", "rb") as stat:
                        fields = stat.read().rsplit(b")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == me:
                    found.append(int(entry.name))
    return found


def end_descendants(seconds: float = 1.0) -> None:
    """At a `zeckdb` process's end: SIGKILL to every child and its group, each reaped, again as
    long as orphans come back to this process (become_reaper), for at most `seconds`: nothing
    it started outlives it, wherever it moved, and no pipe it inherited holds a reader open."""
    import time

    deadline = time.monotonic() + seconds
    while (children := _children()) and time.monotonic() < deadline:
        for pid in children:
            with contextlib.suppress(OSError):
                if os.getpgid(pid) == pid:  # it leads a group: what is still in it goes too
                    os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
        time.sleep(0.01)  # the orphans of those just ended come back to this process
