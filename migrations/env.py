"""Alembic environment: runs zeckdb's migrations against a DuckDB file."""

from __future__ import annotations

from typing import Any

from alembic import context
from alembic.ddl.impl import DefaultImpl
import sqlalchemy as sa


class DuckDBImpl(DefaultImpl):
    """duckdb_engine ships no Alembic implementation; the default one serves."""

    __dialect__ = "duckdb"
    transactional_ddl = True


def _url() -> Any:
    """The database: a URL object from zeckdb (store.schema.alembic_config), which no name can
    break; alembic.ini's text for a developer's own `alembic` command."""
    return context.config.attributes.get("url") or context.config.get_main_option("sqlalchemy.url")


def run_migrations_online() -> None:
    url = _url()
    # no access to anything but the file: a migration reads views stored in it, and a file
    # someone else made may hold views of its own (zeckdb.store.schema restores zeckdb's first)
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool,
                              connect_args={"config": {"enable_external_access": False}})

    @sa.event.listens_for(engine, "connect")
    def quiet(dbapi_connection: Any, _record: Any) -> None:
        # DuckDB's progress bar would print on the caller's standard output during a long migration
        cursor = dbapi_connection.cursor()
        cursor.execute("SELECT current_setting('enable_progress_bar')")
        if tuple(cursor.fetchone()) != (False,):  # a SET is refused in a Jupyter kernel without ipywidgets (off there)
            cursor.execute("SET enable_progress_bar = false")
        cursor.close()

    with engine.connect() as connection:
        context.configure(connection=connection)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    context.configure(url=_url(), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
