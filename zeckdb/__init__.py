"""zeckdb: an exhaustive, SQL-backed position database for the Zeckendorf game family."""

__version__ = "0.1.0"
ENGINE_VERSION = __version__
