"""The `zeckdb` command's entry point (pyproject.toml's [project.scripts]).

zeckdb.cli.main turns a Ctrl-C into one line and exit 130, but only once it runs: a Ctrl-C
while the command line's own modules load would end in Python's traceback. From the first
statement of main() below, a Ctrl-C is held instead, and the command line raises it where
it can report it. Before it come only the console script's own lines and `import zeckdb`;
this module imports nothing but signal (whose enum the console script's `re` has loaded)."""

from __future__ import annotations

import signal

_held: list[int] = []  # the Ctrl-Cs that came while the command line loaded


def _hold(signum: int, frame: object) -> None:
    _held.append(signum)


def main() -> None:
    held = signal.getsignal(signal.SIGINT) is signal.default_int_handler  # not where Ctrl-C is ignored
    if held:
        signal.signal(signal.SIGINT, _hold)
    from zeckdb.cli import main as run

    run(held_ctrl_c=_held if held else None)
