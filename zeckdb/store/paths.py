"""Which file is the database: --db, $ZECKDB_DB or ./zeckdb.duckdb, resolved as DuckDB resolves
it, and refused where it is not one database file of one name.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import TYPE_CHECKING


from ..errors import DatabaseError, opt, printable
from ..settings import DEFAULTS, Settings

if TYPE_CHECKING:
    pass


# The file zeckdb writes into the folder in which it creates a database (schema._create): the
# mark by which a folder left by a killed creation is known as zeckdb's, not one a user made.
CREATION_MARK = ".zeckdb-creating"


def resolve_db_path(db: str | os.PathLike[str] | None, creating: bool = False, settings: Settings = DEFAULTS) -> Path:
    """The database's real path: --db if given, else the settings' (the door's: $ZECKDB_DB, else
    ./zeckdb.duckdb), its symbolic links resolved, as DuckDB resolves them, so that its side files (the write-ahead
    log, the lock folder) are the ones DuckDB and every other zeckdb process use. Refused: what
    exists and is no regular file (a folder, a FIFO, a device), and the name of a side file of
    a database that exists (`X.duckdb.wal` beside X.duckdb). `creating`: for the commands that
    create and write databases (StoreWriter.open_write), which may clear what a killed creation left."""
    import stat

    from ..outputs import DATABASE_SIDE_FILES

    given = Path(db or settings.db)
    shown = printable(str(given)[:200])
    path = Path(os.path.realpath(given))
    if "?" in path.name:
        raise DatabaseError(f"{shown}: a database's name may not hold a '?': DuckDB reads what follows it as options, "
                            "and would put the file's write-ahead log under another name; rename it")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise DatabaseError(f"cannot use {shown} as the database: {exc.strerror}; pass {opt('db')} with a database "
                            "file") from None
    if mode is not None and not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
        raise DatabaseError(f"{shown} is {kind}, not a database file: pass {opt('db')} with a database file "
                            "(or a new file name)")
    if mode is not None:
        _check_one_name(path, shown, creating)
    for place in [path, *path.parents]:
        for suffix in (*DATABASE_SIDE_FILES, ".locks"):
            owner = place.with_name(place.name.removesuffix(suffix)) if place.name.endswith(suffix) else None
            if owner is not None and owner.name and owner.is_file():
                where = f"inside the {suffix} folder" if place != path else f"the {suffix} file"
                raise DatabaseError(f"{shown} is {where} of the database {owner.name}: pass {opt('db')} {owner.name} "
                                    "to use that database, or name a database file of its own")
    return path


def suggested(words: str, path: Path | None = None, settings: Settings = DEFAULTS) -> str:
    """A zeckdb command to suggest, in backquotes: `zeckdb WORDS`, with `--db PATH` unless
    `path` is the database the command finds by itself (the settings' db: $ZECKDB_DB, else
    ./zeckdb.duckdb, as the door read them), so
    that the advice, typed as given in the folder the user is in, acts on the file it is about."""
    import shlex

    tail = ""
    if path is not None and os.path.realpath(settings.db) != os.path.realpath(path):
        relative = os.path.relpath(path)
        tail = f" --db {shlex.quote(relative if not relative.startswith('..') else str(path))}"
    return printable(f"`zeckdb {words}{tail}`")


def _check_one_name(path: Path, shown: str, creating: bool) -> None:
    """DuckDB keeps a database's write-ahead log, and zeckdb its lock folder, beside the name it
    was opened by: through two names of one file (a hard link) a build and a reader would not
    take turns, and a log written through one name would be stranded at the other's. A file
    with more than one name is refused."""
    try:
        names = os.stat(path).st_nlink
    except OSError:
        return
    if names > 1 and creating:
        _drop_creation_leftovers(path)
        names = os.stat(path).st_nlink
    if names > 1 and _creation_leftovers(path):
        raise DatabaseError(f"{shown} was being created when its build stopped: run {suggested('build', path)} "
                            "to finish it, then read it")
    if names > 1:
        raise DatabaseError(f"{shown} has {names} names (hard links): DuckDB's log and zeckdb's locks go beside each "
                            "name, so two names of one database would damage it; give it one name (copy it with "
                            f"`cp {path.name} NEW.duckdb`, or remove the other link) and pass {opt('db')} with it")


def _creation_leftovers(path: Path) -> list[Path]:
    """The folders a creation killed between its link and its cleanup left (_create): zeckdb's
    own `.NAME.new-XXXXXXXX/` beside the file, holding its mark and the file's second name and
    nothing else. A folder of that name that a user made (no mark, or more in it) is not one."""
    try:
        mine = os.stat(path)
        folders = [p for p in path.parent.glob(f".{glob.escape(path.name)}.new-*") if p.is_dir() and not p.is_symlink()]
    except OSError:
        return []
    found = []
    for folder in folders:
        try:
            if sorted(os.listdir(folder)) == sorted([CREATION_MARK, path.name]) and \
                    os.path.samestat(os.stat(folder / path.name, follow_symlinks=False), mine) and \
                    not (folder / CREATION_MARK).is_symlink():
                found.append(folder)
        except OSError:
            continue
    return found


def _drop_creation_leftovers(path: Path) -> None:
    """What _creation_leftovers finds, removed: the file's second name, the mark, the folder."""
    for folder in _creation_leftovers(path):
        try:
            (folder / path.name).unlink()
            (folder / CREATION_MARK).unlink()
            folder.rmdir()
        except OSError:
            continue
