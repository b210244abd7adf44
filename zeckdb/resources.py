"""Where zeckdb's own files are: the named queries (sql/), the schema migrations (migrations/)
and the service's web page (zeckdb/web/).

In the repository they stand at the top level, beside the package; a wheel
ships them inside it, as the packages zeckdb.sql and zeckdb.migrations
(pyproject.toml maps them), so an installed zeckdb needs no checkout.
"""

from __future__ import annotations

from pathlib import Path

from .errors import DatabaseError

_PACKAGE = Path(__file__).resolve().parent


def _find(name: str, marker: str) -> Path:
    for folder in (_PACKAGE / name, _PACKAGE.parent / name):  # installed wheel, then source checkout
        if (folder / marker).exists():
            return folder
    raise DatabaseError(f"zeckdb's {name}/ folder is missing (looked in {_PACKAGE} and beside it): "
                        "reinstall zeckdb (`pip install zeckdb` or `pip install .` in its source)")


def sql_dir() -> Path:
    """The named queries, one .sql file each."""
    return _find("sql", "winners.sql")


def migrations_dir() -> Path:
    """The Alembic environment and its versions."""
    return _find("migrations", "env.py")


def web_dir() -> Path:
    """The web page `zeckdb serve` serves at / (plain files: nothing to build, nothing fetched from elsewhere)."""
    return _find("web", "index.html")
