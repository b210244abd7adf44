"""zeckdb's version; the engine's, recorded with every layer it builds (builds.engine_version)."""

__version__ = "0.6.0"
ENGINE_VERSION = __version__
