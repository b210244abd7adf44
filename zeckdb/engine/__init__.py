"""The generic engine: enumerate a layer, link its edges, solve it, for any variant."""
