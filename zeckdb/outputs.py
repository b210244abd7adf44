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
import secrets
import stat
from typing import BinaryIO

from .errors import OutputError, opt

DUCKDB_MAGIC = b"DUCK"  # bytes 8..11 of every DuckDB database file
UMASK = os.umask(0o022)  # read once, at import (setting it is process-wide), and put back at once
os.umask(UMASK)
DATABASE_SIDE_FILES = (".wal", ".wal.recovery", ".wal.checkpoint", ".tmp")  # DuckDB's files beside a database
EXPORT_FORMATS = ("parquet", "csv")  # zeckdb export --format


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
    """Whether `path` is a DuckDB database; read without waiting (a FIFO would block), regular files only."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and os.pread(fd, 12, 0)[8:12] == DUCKDB_MAGIC
    except OSError:
        return False
    finally:
        os.close(fd)


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
    _check_regular(path, shown)
    if path.exists() or path.is_symlink():
        if _is_duckdb_file(path):
            raise OutputError(f"cannot write {shown}: it is a DuckDB database, which zeckdb never overwrites "
                              "(not even with force); name another file")
        if not force:
            raise OutputError(f"{shown} exists: name a new file, or replace it with {opt('force')}")
    return path


def _check_regular(path: Path, shown: str) -> None:
    """Refuse what exists and is not a regular file (a FIFO, a device, a socket, a terminal)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # missing (or a dangling link): nothing is there to write through
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device or a terminal" if stat.S_ISCHR(mode) or stat.S_ISBLK(
            mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
        raise OutputError(f"cannot write {shown}: it is {kind}; name a file (zeckdb writes whole files, "
                          "renamed into place)")


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


def write_file(path: Path, content: bytes | Callable[[BinaryIO], None], *, database: Path | None = None,
               force: bool = False) -> None:
    """Write `content` (bytes, or a function writing to a binary file) to `path` atomically:
    a temporary file in the same folder, flushed to disk, then renamed over `path`. Check the
    path first (check_file); this checks it again where it writes, through the folder opened
    once: what a link swapped in meanwhile points to is never written, the database's own
    files are never replaced, and an existing file only with force. On any failure the
    temporary file is removed and an OutputError says what went wrong."""
    shown = str(path)[:200]
    folder = path.parent if str(path.parent) else Path(".")
    try:
        # the folder as it is now, opened once; every later step is relative to this descriptor
        dfd = os.open(os.path.realpath(folder), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: its folder cannot be opened ({exc.strerror}); check the folder "
                          "and try again") from None
    temporary = f".{path.name}.{secrets.token_hex(6)}.partial"
    try:
        _check_entry(dfd, path.name, database, force, shown)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o666 & ~UMASK, dir_fd=dfd)
        with os.fdopen(fd, "wb") as f:
            if isinstance(content, bytes):
                f.write(content)
            else:
                content(f)
            f.flush()
            os.fsync(f.fileno())
        _check_entry(dfd, path.name, database, force, shown)
        os.rename(temporary, path.name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=dfd)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {shown}: {exc.strerror or exc}") from None
        raise
    finally:
        os.close(dfd)


def check_entry_is_not_database(dfd: int, name: str, database: Path | None, shown: str) -> None:
    """The entry `name` of the opened folder (a folder an export renames into place) is none of
    the open database's files, and no side file's name of any DuckDB database in that folder
    (`X.duckdb.wal` beside X.duckdb: DuckDB would take a folder so named for its own)."""
    _check_entry(dfd, name, database, True, shown, folder=True)
    for suffix in (*DATABASE_SIDE_FILES, ".locks"):
        owner = name.removesuffix(suffix)
        if owner != name and owner:
            try:
                fd = os.open(owner, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dfd)
            except OSError:
                continue
            try:
                is_database = stat.S_ISREG(os.fstat(fd).st_mode) and os.pread(fd, 12, 0)[8:12] == DUCKDB_MAGIC
            finally:
                os.close(fd)
            if is_database:
                raise OutputError(f"cannot write {shown}: {name} is the name of the {suffix} file of the database "
                                  f"{owner} beside it; name a folder of your own")


def _check_entry(dfd: int, name: str, database: Path | None, force: bool, shown: str, folder: bool = False) -> None:
    """The entry `name` of the opened folder may be replaced: not one of the database's files
    (by name in the database's own folder, or by inode: a hard link), not inside its lock or
    temporary folder, and not existing unless with force."""
    here = os.fstat(dfd)
    try:
        entry: os.stat_result | None = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        entry = None
    if database is not None:
        try:
            home = os.stat(database.parent)
        except OSError:
            home = None
        for own in database_files(database):
            try:
                theirs: os.stat_result | None = os.stat(own, follow_symlinks=False)
            except OSError:
                theirs = None  # not there now, but DuckDB makes it there: its name is still the database's
            same_folder = theirs is not None and stat.S_ISDIR(theirs.st_mode) and os.path.samestat(here, theirs)
            named = own.name == name and home is not None and os.path.samestat(here, home)
            linked = entry is not None and theirs is not None and os.path.samestat(entry, theirs)
            if same_folder or named or linked:
                raise OutputError(f"cannot write {shown}: it is {_describe(own, database, inside=same_folder)}; "
                                  "name a file or folder of your own")
    if entry is not None and not folder:
        if stat.S_ISDIR(entry.st_mode):
            raise OutputError(f"cannot write {shown}: it is a folder; name a file")
        if not force:
            raise OutputError(f"{shown} exists: name a new file, or replace it with {opt('force')}")
