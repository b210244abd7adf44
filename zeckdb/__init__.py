"""zeckdb: an exhaustive, SQL-backed position database for the Zeckendorf game family.

    import zeckdb
    zeckdb.build("zeckdb.duckdb", ["zeckendorf", "reversed"], "1..40")   # zeckdb.BuildResult
    with zeckdb.open("zeckdb.duckdb") as db:                            # a zeckdb.Database
        info = db.position("zeckendorf", start=10)                      # a zeckdb.PositionInfo
        info.outcome, info.moves[0].move
        db.sql("SELECT n, winner FROM builds WHERE n < ?", [10]).rows  # a zeckdb.Result

open, build and the types they answer with are zeckdb.api's (its docstring shows the rest:
lookups, lines, named queries, plots, drawings, export, verify); every error is a
zeckdb.ZeckdbError. They are imported when first used, so `import zeckdb` stays light.
"""

from __future__ import annotations

import os

# NumPy asks the kernel for transparent huge pages for every array of 4 MB or more (where
# THP is set to madvise); on virtual machines a huge page's first touch can cost several
# times its 512 small pages, and the builder touches fresh arrays of hundreds of MB per
# layer (docs/scaling.md). NumPy reads this at import; a value the user set is kept.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

from .version import ENGINE_VERSION, __version__

# Not typing's: the `zeckdb` command imports this module before zeckdb.launch holds a
# Ctrl-C, so nothing it can do without is imported here. A type checker reads the name as
# typing's.
TYPE_CHECKING = False

# Imported from a source checkout (its folder first on sys.path: `python -m pytest` there), the
# command line, the queries and the migrations stand beside the package, not in it (an install
# maps them in: pyproject.toml's package-dir): zeckdb.cli is then looked for there too.
_HERE = os.path.dirname(os.path.abspath(__file__))
if not os.path.isdir(os.path.join(_HERE, "cli")) and os.path.isfile(os.path.join(_HERE, os.pardir, "cli", "main.py")):
    __path__.append(os.path.dirname(_HERE))
del _HERE

if TYPE_CHECKING:  # what a type checker and an IDE see; at run time __getattr__ imports them
    from typing import Any

    from .answers import Export, GameInfo, Layer, Move as MoveInfo, PositionInfo, Status
    from .api import BuildResult, Database, Line, build, open
    from .errors import (ClusterError, DatabaseError, NotBuiltError, QueryLimitError, UnknownQueryError,
                         UnknownVariantError, UsageError, ZeckdbError)
    from .executor import Limits, Result
    from .gameplay import Game, Move, PlayersPosition, Position
    from .settings import Settings
del TYPE_CHECKING

_FROM = {"open": "api", "build": "api", "Database": "api", "BuildResult": "api", "PositionInfo": "answers",
         "Move": "gameplay", "MoveInfo": "answers:Move",
         "Line": "api", "Result": "executor", "Limits": "executor", "Settings": "settings",
         "ZeckdbError": "errors", "UsageError": "errors", "UnknownVariantError": "errors", "UnknownQueryError": "errors",
         "NotBuiltError": "errors", "DatabaseError": "errors", "QueryLimitError": "errors", "ClusterError": "errors",
         "Status": "answers", "Layer": "answers", "GameInfo": "answers", "Game": "gameplay", "Position": "gameplay",
         "PlayersPosition": "gameplay",
         "Export": "answers"}

__all__ = ["ENGINE_VERSION", "BuildResult", "ClusterError", "Database", "DatabaseError", "Export", "Game",
           "GameInfo", "Layer", "Limits", "Line", "Move", "MoveInfo", "NotBuiltError", "PlayersPosition", "Position",
           "PositionInfo", "QueryLimitError", "Result", "Settings", "Status", "UnknownQueryError",
           "UnknownVariantError", "UsageError", "ZeckdbError", "__version__", "build", "open"]


def __getattr__(name: str) -> Any:
    if name in _FROM:
        import importlib

        module, _, attribute = _FROM[name].partition(":")  # the name it has there, where it is another
        return getattr(importlib.import_module(f"zeckdb.{module}"), attribute or name)
    raise AttributeError(f"module 'zeckdb' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
