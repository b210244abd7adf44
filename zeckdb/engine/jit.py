"""The one numba policy of zeckdb's compiled loops (the engine's generic kernels and the
games' own): compiled on first use and cached on disk, and without the GIL, so that the
builder can compute one layer while another is written. Imports nothing of zeckdb."""

from __future__ import annotations

from numba import njit

jit = njit(cache=True, nogil=True)
# a helper called from other kernels' inner loops: compiled into each of them
inline_jit = njit(cache=True, nogil=True, inline="always")
