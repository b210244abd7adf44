"""Where zeckdb may write: the one rule for every file and folder a command or an API call writes
(plot images and data, drawings, exports, the distributed build's shards).

- Never the open database's own files: the database, its write-ahead log (and the log's
  recovery and checkpoint files), DuckDB's temporary folder beside it, and the `.locks`
  folder or anything inside it; whether named directly, through symbolic links, `..`, or a
  hard link (the same inode). Never any DuckDB database file, even with force: a database
  is rebuilt, not overwritten by a picture.
- An existing file is replaced only with force; a folder to fill must be new or empty.
- A file is written to a temporary file in its own folder and renamed into place, so a
  write that fails or is interrupted leaves the old file (or no file) behind, never half
  of one.

Each refusal is an OutputError with one line that says what is wrong and what to do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
import contextlib
import os
from pathlib import Path
import tempfile
from typing import BinaryIO

from .errors import OutputError, opt

DUCKDB_MAGIC = b"DUCK"  # bytes 8..11 of every DuckDB database file
UMASK = os.umask(0o022)  # read once, at import (setting it is process-wide), and put back at once
os.umask(UMASK)
DATABASE_SIDE_FILES = (".wal", ".wal.recovery", ".wal.checkpoint", ".tmp")  # DuckDB's files beside a database


def database_files(database: Path) -> list[Path]:
    """The files and folders that belong to the database at `database` (which may not exist yet)."""
    from .locking import lock_dir

    return [database, *(database.with_name(database.name + suffix) for suffix in DATABASE_SIDE_FILES),
            lock_dir(database)]


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _is_duckdb_file(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(12)[8:12] == DUCKDB_MAGIC
    except OSError:
        return False


def _check_not_database(path: Path, database: Path | None, shown: str) -> None:
    """Refuse `path` if it is, reaches or lies inside one of the database's own files."""
    if database is None:
        return
    real = _real(path)
    protected = database_files(database)
    for own in protected:
        if _within(real, _real(own)):
            raise OutputError(f"cannot write {shown}: it is {_describe(own, database, inside=real != _real(own))}; "
                              "name a file or folder of your own")
    try:
        target = os.stat(path)  # follows links: a hard link to the database is the same inode
    except OSError:
        return
    for own in protected:
        try:
            if os.path.samestat(target, os.stat(own)):
                raise OutputError(f"cannot write {shown}: it is a link to {_describe(own, database)}; "
                                  "name a file or folder of your own")
        except FileNotFoundError:
            continue


def _describe(own: Path, database: Path, inside: bool = False) -> str:
    if own == database:
        return f"the open database {database.name}"
    kind = "folder" if own.name.endswith((".locks", ".tmp")) else "file"
    return f"{'inside ' if inside else ''}the open database's {own.name.removeprefix(database.name)} {kind}"


def check_file(path: Path, *, database: Path | None, force: bool = False, suffixes: Iterable[str] = ()) -> Path:
    """Check that zeckdb may write the file `path` (see the module's docstring); returns it.

    `database`: the database the command has open (its files are refused); `suffixes`: the
    allowed endings (e.g. .png, .svg), any when empty."""
    shown = str(path)[:200]
    _check_not_database(path, database, shown)
    allowed = tuple(suffixes)
    if allowed and path.suffix.lower() not in allowed:
        raise OutputError(f"cannot write {shown}: name a {' or '.join(allowed)} file (the format comes from the suffix)")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"cannot write {shown}: the folder {str(folder)[:200]} does not exist; create it first")
    if not os.access(folder, os.W_OK):
        raise OutputError(f"cannot write {shown}: the folder {str(folder)[:200]} is read-only")
    if path.is_dir():
        raise OutputError(f"cannot write {shown}: it is a folder; name a file")
    if path.exists() or path.is_symlink():
        if _is_duckdb_file(path):
            raise OutputError(f"cannot write {shown}: it is a DuckDB database, which zeckdb never overwrites "
                              "(not even with force); name another file")
        if not force:
            raise OutputError(f"{shown} exists: name a new file, or replace it with {opt('force')}")
    return path


def check_folder(path: Path, *, database: Path | None, may_hold: Iterable[str] | None = None) -> Path:
    """Check that zeckdb may fill the folder `path`: new or empty (or holding only the entries
    named in `may_hold`), not the database's, its parent writable; returns it."""
    shown = str(path)[:200]
    _check_not_database(path, database, shown)
    if database is not None and _within(_real(database), _real(path)):
        raise OutputError(f"cannot write into {shown}: it holds the open database {database.name}; name a new folder")
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise OutputError(f"cannot write into {shown}: it is a file, not a folder; name a new folder")
        allowed = set(may_hold or ())
        if any(entry.name not in allowed for entry in path.iterdir()):
            raise OutputError(f"cannot write into {shown}: it exists and is not empty; name a new or empty folder")
        if not os.access(path, os.W_OK):
            raise OutputError(f"cannot write into {shown}: the folder is read-only")
        return path
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"cannot write into {shown}: the folder {str(parent)[:200]} does not exist; create it first")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"cannot write into {shown}: the folder {str(parent)[:200]} is read-only")
    return path


def write_file(path: Path, content: bytes | Callable[[BinaryIO], None]) -> None:
    """Write `content` (bytes, or a function writing to a binary file) to `path` atomically:
    a temporary file in the same folder, flushed to disk, then renamed over `path`.
    Check the path first (check_file); on any failure the temporary file is removed."""
    folder = path.parent if str(path.parent) else Path(".")
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(content, bytes):
                f.write(content)
            else:
                content(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o666 & ~UMASK)  # mkstemp's 0600 would hide a picture from the user's group
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
