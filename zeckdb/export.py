"""`zeckdb export`: the database's tables as Parquet or CSV files, partitioned hive-style.

    DIR/positions/variant=V/n=N/part-0.parquet      every position of a layer
    DIR/edges/graph=G/n=N/part-0.parquet            every move of a graph layer (src, dst, code, dst_n)
    DIR/length_distribution/variant=V/n=N/part-0.parquet
    DIR/builds.parquet, random_play, variants, move_names, variant_columns, graph_layers
    DIR/manifest.json                               schema revision, version, rows and sha256 per file
    DIR/README.txt                                  how to read it back

The partition columns live in the paths, not in the files (as DuckDB's
`hive_partitioning`, pandas, polars and pyarrow datasets expect). The rows are
read through the store's read-only connection as Arrow and written by pyarrow;
the export is written into a fresh folder beside DIR and renamed to DIR only
when complete, so an interrupted export leaves nothing at DIR; every step is
taken relative to DIR's folder, opened once, so a link swapped in meanwhile is
never followed.
"""

from __future__ import annotations


from dataclasses import dataclass
import datetime as dt
from typing import Any, BinaryIO
import contextlib
import hashlib
import json
import os
from pathlib import Path
import secrets
import stat
from collections.abc import Callable

from .version import __version__
from .checksums import by_layer
from .engine.contract import shown_text, valid_name
from .errors import DatabaseError, OutputError, UsageError, opt
from .outputs import EXPORT_FORMATS as FORMATS, UMASK, check_entry_is_not_database, check_folder
from .settings import pool as named_pool
from .store import SCHEMA_HEAD, Store
from .tuning import GROUP_ROWS, SMALL_LAYER_ROWS

LIST_COLUMNS = {"positions": ["entries"]}  # list-typed columns, by table
# table -> the column naming the variant (or graph) it is partitioned by, with n; None: one file
TABLES = {"positions": "variant", "edges": "graph", "length_distribution": "variant", "builds": None,
          "random_play": None, "variants": None, "move_names": None, "variant_columns": None, "graph_layers": None}


def partition(table: str, by: str, owner: str, n: int) -> str:
    """The hive-style folder of one layer's rows of a table, relative to the export's root: the
    one layout of exports and of the distributed build's shards (zeckdb.distributed)."""
    return f"{table}/{by}={owner}/n={n}"


@dataclass
class Part:
    table: str
    path: str  # relative to the export folder
    where: str  # the SQL filter of its rows
    params: list[Any]
    exclude: tuple[str, ...] = ()  # partition columns, in the path instead
    rows: int = 0  # about how many rows it holds, known for the layers (0: a table in one file)


ROW_KEYS = {"positions": "id", "edges": "src, code, dst", "length_distribution": "measure, length"}  # a total order


def plan(store: Store, variants: list[str] | None, ns: list[int] | None) -> list[Part]:
    """The files to write: every built layer of the chosen variants and n (all by default)."""
    layers = store.rows("SELECT variant, n, graph, positions, edges, 2 * (coalesce(max_length, 0) + 1) "
                         "FROM builds JOIN variants USING (variant) "
                         "WHERE ($vs IS NULL OR list_contains($vs, variant)) AND ($ns IS NULL OR list_contains($ns, n)) "
                         "ORDER BY variant, n", {"vs": variants, "ns": ns})
    if not layers:
        raise UsageError("nothing to export: no built layer matches"
                         + (f" {opt('variant')} {', '.join(variants)}" if variants else "") + (f" and {opt('n')}" if ns else ""))
    chosen = sorted({v for v, *_ in layers})
    parts: list[Part] = []
    edges: dict[tuple[str, int], int] = {}  # a graph layer's moves: the most any of its variants counts
    for _, n, g, _, moves, _ in layers:
        edges[g, n] = max(edges.get((g, n), 0), moves)
    graph_layers = sorted(edges)
    for table, key in TABLES.items():
        if key == "graph":
            parts += [Part(table, f"{partition(table, 'graph', g, n)}/part-0", "graph = ? AND n = ?", [g, n],
                           ("graph", "n"), edges[g, n]) for g, n in graph_layers]
        elif key == "variant":
            parts += [Part(table, f"{partition(table, 'variant', v, n)}/part-0", "variant = ? AND n = ?", [v, n],
                           ("variant", "n"), size if table == "positions" else lengths) for v, n, _, size, _, lengths in layers]
        elif table == "graph_layers":
            parts.append(Part(table, table, "list_contains(?, graph || '/' || n)", [[f"{g}/{n}" for g, n in graph_layers]]))
        elif table in ("builds", "random_play"):
            parts.append(Part(table, table, "list_contains(?, variant || '/' || n)", [[f"{v}/{n}" for v, n, *_ in layers]]))
        else:
            parts.append(Part(table, table, "list_contains(?, variant)", [chosen]))
    return parts


def export(store: Store, folder: Path, parts: list[Part], fmt: str = "parquet",
           progress: Callable[[int, str], None] | None = None) -> dict[str, Any]:
    """Write the files `plan` chose (see the module's docstring); returns the manifest.

    Everything is written relative to DIR's parent folder, opened once: a link swapped in for
    that folder (or any above it) meanwhile is never followed, the export is staged in a
    folder made afresh there, and renamed to DIR's name in that same folder."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt[:20]!r}: choose parquet or csv")
    check_folder(folder, database=store.path)
    _check_names(store, parts)
    shown = str(folder)[:200]
    folder = Path(os.path.realpath(folder))  # a link to an empty folder: fill the folder it names
    try:
        home = os.open(folder.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise OutputError(f"cannot write into {shown}: its folder cannot be opened ({exc.strerror})") from None
    staging = f".{folder.name}.partial-{secrets.token_hex(6)}"
    made = False
    try:
        check_entry_is_not_database(home, folder.name, store.path, shown)
        os.mkdir(staging, 0o777 & ~UMASK, dir_fd=home)
        made = True
        root = _Folder(home, staging)
        with named_pool(2, "zeckdb-export") as pool:  # DuckDB's reads and pyarrow's writes release the GIL
            # groups hold consecutive parts and map keeps their order: the files come in the parts' order
            files = [info for infos in pool.map(lambda group: _write_group(store, root, group, fmt, progress),
                                                 _groups(parts)) for info in infos]
        manifest: dict[str, Any] = {
            "zeckdb_version": __version__, "schema_revision": SCHEMA_HEAD, "format": fmt,
            "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "database": str(store.path), "partitioning": "hive (partition columns in the paths, not in the files)",
            "tables": {},
        }
        for part, info in zip(parts, files, strict=True):
            entry = manifest["tables"].setdefault(part.table, {"partitioned_by": list(part.exclude), "rows": 0, "files": []})
            entry["rows"] += info["rows"]
            entry["files"].append(info)
        root.write_bytes("manifest.json", (json.dumps(manifest, indent=1) + "\n").encode())
        root.write_bytes("README.txt", _readme(fmt, manifest).encode())
        check_entry_is_not_database(home, folder.name, store.path, shown)
        with contextlib.suppress(FileNotFoundError):
            os.rmdir(folder.name, dir_fd=home)  # empty (check_folder): rmdir refuses anything else
        os.rename(staging, folder.name, src_dir_fd=home, dst_dir_fd=home)
        made = False
    except BaseException as exc:
        if made:
            _remove_tree(home, staging)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write into {shown}: {exc.strerror or exc}; nothing was written") from None
        raise
    finally:
        os.close(home)
    return manifest


def _check_names(store: Store, parts: list[Part]) -> None:
    """The variant and graph names a layer's folder is named after come from the database, a
    file someone else may have made: each must be a game name (the registry's own rule), or
    nothing is written."""
    for part in parts:
        if part.exclude and not valid_name(part.params[0]):
            raise DatabaseError(f"{store.path} names a {part.exclude[0]} {shown_text(str(part.params[0]))}, which is "
                                "no game name (the file was made or changed by hand?): nothing was exported; "
                                "export the other variants with --variant")


class _Folder:
    """A folder reached from an opened one by names that are never links (the export's staging
    folder): each file is written under a temporary name and renamed into place."""

    def __init__(self, parent: int, name: str):
        self.parent, self.name = parent, name

    def _opened(self, folders: list[str]) -> int:
        """The folder at `folders` inside this one, made where missing, opened."""
        fd = os.open(self.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.parent)
        try:
            for name in folders:
                with contextlib.suppress(FileExistsError):  # made meanwhile by the other thread
                    os.mkdir(name, 0o777 & ~UMASK, dir_fd=fd)
                inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                os.close(fd)
                fd = inner
        except BaseException:
            os.close(fd)
            raise
        return fd

    def write(self, relative: str, fill: Callable[[BinaryIO], int]) -> dict[str, Any]:
        """Write the file at `relative` with `fill(file)` (which returns the rows it wrote): its
        entry of the manifest."""
        *folders, name = relative.split("/")
        fd = self._opened(folders)
        try:
            temporary = f".{name}.tmp"
            out = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                          0o666 & ~UMASK, dir_fd=fd)
            with os.fdopen(out, "wb") as f:
                rows = fill(f)
            os.rename(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
            digest = hashlib.sha256()
            with os.fdopen(os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd), "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
                size = os.fstat(f.fileno()).st_size
        finally:
            os.close(fd)
        return {"path": relative, "rows": rows, "bytes": size, "sha256": digest.hexdigest()}

    def write_bytes(self, relative: str, data: bytes) -> None:
        def fill(file: BinaryIO) -> int:
            file.write(data)
            return 0
        self.write(relative, fill)


def _remove_tree(parent: int, name: str) -> None:
    """Remove the folder `name` of the opened folder `parent` and everything in it, never
    following a link."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        return
    try:
        for entry in os.listdir(fd):
            try:
                if stat.S_ISDIR(os.stat(entry, dir_fd=fd, follow_symlinks=False).st_mode):
                    _remove_tree(fd, entry)
                else:
                    os.unlink(entry, dir_fd=fd)
            except OSError:
                continue
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.rmdir(name, dir_fd=parent)


def write_part(rows: Any, path: Path, fmt: str = "parquet", compression: str = "zstd") -> int:
    """Write Arrow rows (a table, or a RecordBatchReader read batch by batch) as one file of a
    hive layout (a distributed build's shard), whole or not at all: to a temporary file renamed
    into place. The temporary file is this writer's own: two tasks may write the same layer at
    once (one a stopped build left running, one of the rerun), and each puts a whole file in
    place. Returns the rows written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    try:
        with open(temporary, "xb") as sink:
            written = write_rows(rows, sink, fmt, compression)
        temporary.rename(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return written


def write_rows(rows: Any, sink: BinaryIO, fmt: str = "parquet", compression: str = "zstd") -> int:
    """Write Arrow rows (a table, or a RecordBatchReader read batch by batch) to an open file as
    Parquet (its pages compressed by `compression`) or CSV; the rows written."""
    import pyarrow as pa
    import pyarrow.csv
    import pyarrow.parquet

    batches = rows.to_batches() if isinstance(rows, pa.Table) else rows
    writer: Any = (pyarrow.parquet.ParquetWriter(sink, rows.schema, compression=compression) if fmt == "parquet"
                   else pyarrow.csv.CSVWriter(sink, rows.schema))
    written = 0
    try:
        for batch in batches:
            writer.write_batch(batch)
            written += batch.num_rows
    finally:
        writer.close()
    return written


def _groups(parts: list[Part]) -> list[list[Part]]:
    """The parts in the groups they are read in: each small layer of positions or edges with
    the next small layers of its table and variant (or graph), every other part alone."""
    def small(part: Part) -> bool:
        return 0 < part.rows <= SMALL_LAYER_ROWS

    groups: list[list[Part]] = []
    rows = 0
    for part in parts:
        last = groups[-1][0] if groups else None
        if (last is not None and small(part) and small(last) and (last.table, last.params[0]) ==
                (part.table, part.params[0]) and rows + part.rows <= GROUP_ROWS):
            groups[-1].append(part)
            rows += part.rows
        else:
            groups.append([part])
            rows = part.rows
    return groups


def _select(part: Part, fmt: str) -> str:
    """The columns of a part's file: the partition columns left out, lists written out for CSV."""
    exclude = f" EXCLUDE ({', '.join(part.exclude)})" if part.exclude else ""
    lists = LIST_COLUMNS.get(part.table, []) if fmt == "csv" else []  # CSV has no lists: write them as [1,2,3]
    replace = (" REPLACE (" + ", ".join(f"'[' || array_to_string({c}, ',') || ']' AS {c}" for c in lists) + ")"
               if lists else "")
    return f"*{exclude}{replace}"


def _write_group(store: Store, root: _Folder, group: list[Part], fmt: str,
                 progress: Callable[[int, str], None] | None) -> list[dict[str, Any]]:
    """Write a group's files; their entries of the manifest, in the group's order."""
    if len(group) == 1:
        part = group[0]
        # streamed a batch at a time: the export holds a batch per thread, not a layer
        with store.arrow_batches(f"SELECT {_select(part, fmt)} FROM {part.table} WHERE {part.where}",
                                 part.params) as rows:
            return [_file(root, part, rows, fmt, progress)]
    # small layers of one table and owner (the first parameter), in one read cut by n, each
    # layer's rows in the order of their key (a read of many layers has no order of its own)
    first = group[0]
    table = store.arrow(f"SELECT n AS _export_n, {_select(first, fmt)} FROM {first.table} "
                        f"WHERE {first.exclude[0]} = ? AND list_contains(?, n) ORDER BY n, {ROW_KEYS[first.table]}",
                        [first.params[0], [part.params[1] for part in group]])
    layers = by_layer(table, "_export_n")
    empty = table.drop_columns(["_export_n"]).slice(0, 0)  # a layer without rows (no moves) has an empty file
    return [_file(root, part, layers.get(part.params[1], empty), fmt, progress) for part in group]


def _file(root: _Folder, part: Part, rows: Any, fmt: str, progress: Callable[[int, str], None] | None) -> dict[str, Any]:
    """Write one part's file; its entry of the manifest."""
    info = root.write(f"{part.path}.{fmt}", lambda sink: write_rows(rows, sink, fmt))
    if progress:
        progress(1, part.table)
    return info


def _readme(fmt: str, manifest: dict[str, Any]) -> str:
    rows = "\n".join(f"  {name}: {t['rows']:,} rows in {len(t['files'])} file(s)"
                     + (f", partitioned by {', '.join(t['partitioned_by'])}" if t["partitioned_by"] else "")
                     for name, t in manifest["tables"].items())
    reader = "read_parquet" if fmt == "parquet" else "read_csv"
    made = f"zeckdb {manifest['zeckdb_version']}, schema revision {manifest['schema_revision']}, {manifest['created']}"
    return f"""A zeckdb export ({made}).

{rows}

The columns are the database's (docs/schema.md of zeckdb); the partition columns
(variant or graph, and n) are in the folder names, hive-style. manifest.json has
the rows, size and sha256 of every file. To read it back:

  DuckDB:   SELECT * FROM {reader}('positions/*/*/*.{fmt}', hive_partitioning = true)
  pyarrow:  pyarrow.dataset.dataset('positions', format='{fmt}', partitioning='hive')
  polars:   polars.scan_{fmt}('positions/**/*.{fmt}', hive_partitioning=True)
  pandas:   pandas.read_parquet('positions')   (Parquet)
"""
