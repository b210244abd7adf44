"""A distributed build's shard folder, reached only through descriptors opened without
following links: a folder others may write (a shared filesystem) cannot turn a shard's write,
read or removal into one elsewhere.

The layout is `zeckdb export`'s (TABLE/KEY=OWNER/n=N/part-0.parquet). Below the folder the
build was given, every folder and file is opened relative to its parent's descriptor with
O_NOFOLLOW: a layer's folder replaced by a link to another folder is refused, not written
through; a shard that is a FIFO, a device or a link is refused without waiting on it. Only
what zeckdb makes is removed: a shard file (a regular file named part-0.parquet in a layer's
folder) and the folders left empty; a folder the build did not mark as its own (MARK, written
when it first took the folder) and that holds anything is not taken.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import ClusterError, UsageError, opt, printable

# the tables of a layer, and what each is partitioned by (variant or graph)
TABLE_PARTITIONS = {"positions": "variant", "edges": "graph", "length_distribution": "variant", "builds": "variant",
                    "random_play": "variant", "graph_layers": "graph"}
MARK = ".zeckdb-shards"  # a folder zeckdb took as a shard folder: what is in it may be its own
FILE = "part-0.parquet"
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def layer_path(table: str, owner: str, n: int) -> list[str]:
    """The folders of a table's shard of (owner, n), below the shard folder."""
    return [table, f"{TABLE_PARTITIONS[table]}={owner}", f"n={n}"]


def claim(root: Path) -> None:
    """Take `root` as a shard folder: a new or empty one is marked as zeckdb's; one that holds
    anything must hold zeckdb's mark (a run before of a build). Refused in one line otherwise:
    a folder of the user's holding folders named like the tables (`positions/thesis.txt`) was
    taken, and its contents removed by the clean-up."""
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        entries = set(os.listdir(fd))
        if not entries:
            os.close(os.open(MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=fd))
        elif MARK not in entries or not stat.S_ISREG(os.stat(MARK, dir_fd=fd, follow_symlinks=False).st_mode):
            raise UsageError(f"the shard folder {printable(str(root))[:200]} holds files zeckdb did not put there: "
                             f"name a new or empty folder ({opt('shards')} DIR)")
    finally:
        os.close(fd)


@contextlib.contextmanager
def _folder(root: Path, parts: list[str], create: bool = False) -> Iterator[int]:
    """A descriptor of root/parts..., each part opened (made, with `create`) without following
    a link; FileNotFoundError where one is missing, ClusterError where one is not a folder."""
    fds = [os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
    try:
        for part in parts:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fds[-1])
            try:
                fds.append(os.open(part, _DIR, dir_fd=fds[-1]))
            except OSError as exc:
                if isinstance(exc, FileNotFoundError):
                    raise
                raise ClusterError(f"{printable(str(root / part))[:200]} in the shard folder is not a folder (a link, "
                                   f"or a file?): zeckdb writes, reads and removes nothing through it; remove it and "
                                   "run the build again") from None
        yield fds[-1]
    finally:
        for fd in reversed(fds):
            os.close(fd)


def write(root: Path, table: str, owner: str, n: int, rows: Any, compression: str) -> None:
    """Write a layer's rows of a table as its shard, whole or not at all: a temporary file of this
    writer's own, renamed over the shard (two tasks may write one layer at once: each puts a
    whole file in place; a link in its place is replaced, never followed)."""
    from .export import write_rows

    root.mkdir(parents=True, exist_ok=True)  # the driver made it (claim); a task run on its own makes it here
    with _folder(root, layer_path(table, owner, n), create=True) as folder:
        temporary = f".{FILE}.{secrets.token_hex(8)}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                     dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as sink:
                write_rows(rows, sink, "parquet", compression)
            os.rename(temporary, FILE, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=folder)
            raise


def read(root: Path, table: str, owner: str, n: int) -> Any:
    """A layer's shard of a table as an Arrow table, None where there is none; a ClusterError in
    one line where it is no regular file (a FIFO is never waited on) or no Parquet file (cut
    short, another kind of file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    where = "/".join(layer_path(table, owner, n) + [FILE])
    try:
        with _folder(root, layer_path(table, owner, n)) as folder:
            fd = os.open(FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ClusterError(f"the shard {printable(where)} cannot be opened ({exc.strerror}: a link?): nothing of its "
                           "layer is stored; remove it and run the build again") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ClusterError(f"the shard {printable(where)} is not a regular file (a FIFO, a device?): nothing of its "
                               "layer is stored; remove it and run the build again")
        try:
            return pq.ParquetFile(file).read()
        except (pa.ArrowException, OSError, ValueError) as exc:
            first = (str(exc).strip().splitlines() or [""])[0][:120]
            raise ClusterError(f"the shard {printable(where)} is not a whole Parquet file ({printable(first)}): nothing "
                               "of its layer is stored; remove it and run the build again") from None


def remove_layer(root: Path, variant: str, graph: str, n: int) -> None:
    """Remove a layer's shards: each table's shard file, then the folders it leaves empty."""
    for table, by in TABLE_PARTITIONS.items():
        parts = layer_path(table, graph if by == "graph" else variant, n)
        with contextlib.suppress(OSError, ClusterError), _folder(root, parts) as folder:
            if stat.S_ISREG(os.stat(FILE, dir_fd=folder, follow_symlinks=False).st_mode):
                os.unlink(FILE, dir_fd=folder)
        for depth in range(len(parts), 0, -1):  # n=N, then KEY=OWNER, then the table's folder, while empty
            try:
                with _folder(root, parts[:depth - 1]) as parent:
                    os.rmdir(parts[depth - 1], dir_fd=parent)
            except (OSError, ClusterError):
                break


def tidy(root: Path, remove_root: bool) -> None:
    """After a build stored every layer: the tables' folders left empty go, and with
    `remove_root` (a folder zeckdb chose) the mark and the folder, if nothing else is in it."""
    for table in TABLE_PARTITIONS:
        with contextlib.suppress(OSError, ClusterError), _folder(root, []) as top:
            for owner in _entries(root, [table]):
                for layer in _entries(root, [table, owner]):
                    with contextlib.suppress(OSError, ClusterError), _folder(root, [table, owner]) as folder:
                        os.rmdir(layer, dir_fd=folder)
                with contextlib.suppress(OSError, ClusterError), _folder(root, [table]) as folder:
                    os.rmdir(owner, dir_fd=folder)
            os.rmdir(table, dir_fd=top)
    if remove_root:
        with contextlib.suppress(OSError):
            with _folder(root, []) as top:
                if set(os.listdir(top)) == {MARK}:
                    os.unlink(MARK, dir_fd=top)
            root.rmdir()


def _entries(root: Path, parts: list[str]) -> list[str]:
    try:
        with _folder(root, parts) as folder:
            return os.listdir(folder)
    except (OSError, ClusterError):  # missing, or not a folder: nothing in it is zeckdb's to remove
        return []
