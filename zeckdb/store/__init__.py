"""The storage layer: the database file and everything zeckdb does with it, one job a module.

    paths        which file is the database (resolve_db_path)
    schema       Alembic's migrations, the revision a file is at, the head schema, creation
    connections  readers and writers under DuckDB's lock, damage named, transactions
    layout       how the tables lay a layer out (lean and wide position rows, keys)
    records      the plain records the store writes (the builder makes them)
    checksummed  a layer's checksums as its stored rows give them
    probing      positions by (n, id) across the lean and wide layouts (PositionProbe)
    database     the Store: a file open under the locks (zeckdb.locking, OpenFile), what is built, zeckdb's reads
    writer       the StoreWriter (StoreWriter.open_write): the build's one writer, its writes, and
                 the Store it reads through on the same file

A user's statement runs through zeckdb.executor on a connection opened here (zeckdb.apart:
in a process of its own). Alembic owns the schema (migrations/); writers bring the file to
the head revision before writing, readers only check the revision, so that lookups do not
pay for importing Alembic and SQLAlchemy.
"""

from ..errors import interrupted_statement
from .checksummed import layer_checksum, layer_checksums, rows_checksums, summary_rows_checksum
from .connections import transaction, close_connection, open_sandboxed
from .database import Store
from .writer import StoreWriter, upgrade
from .layout import LAYER_TABLES, LEAN_COLUMNS, POSITION_COLUMNS, POSITIONS_TABLES, PROBE_COLUMNS
from .paths import resolve_db_path, suggested
from .records import GameRecord, LayerCache, LayerTables, SummaryRecord, positions_table
from .schema import (SCHEMA_HEAD, alembic_config, dump_head_schema, in_dependency_order, migrate, schema_revision,
                     write_head_schema)

__all__ = ["LAYER_TABLES", "LEAN_COLUMNS", "POSITIONS_TABLES", "POSITION_COLUMNS", "PROBE_COLUMNS", "SCHEMA_HEAD",
           "GameRecord", "LayerCache", "LayerTables", "Store", "StoreWriter", "SummaryRecord", "alembic_config",
           "in_dependency_order", "migrate", "transaction", "close_connection",
           "dump_head_schema", "interrupted_statement", "layer_checksum", "layer_checksums", "open_sandboxed",
           "positions_table", "resolve_db_path", "rows_checksums", "suggested", "schema_revision", "summary_rows_checksum",
           "upgrade", "write_head_schema"]
