"""The zeckdb command line (a thin layer over zeckdb.api, zeckdb.builder and zeckdb.store)."""
