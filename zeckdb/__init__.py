"""zeckdb: an exhaustive, SQL-backed position database for the Zeckendorf game family."""

import os

# NumPy asks the kernel for transparent huge pages for every array of 4 MB or more (where
# THP is set to madvise); on virtual machines a huge page's first touch can cost several
# times its 512 small pages, and the builder touches fresh arrays of hundreds of MB per
# layer (docs/scaling.md). NumPy reads this at import; a value the user set is kept.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

__version__ = "0.1.0"
ENGINE_VERSION = __version__


def __getattr__(name: str):  # the library's face, imported when first used: `import zeckdb` stays light
    if name in ("open", "build", "Database"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'zeckdb' has no attribute {name!r}")
