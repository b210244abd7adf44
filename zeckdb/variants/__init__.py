"""The registry of game variants. Adding a variant: one rules module, one line here."""

from __future__ import annotations

from ..errors import UnknownVariantError
from .base import Position, Variant
from .quilt import Quilt
from .reversed import Reversed
from .zeckendorf import Zeckendorf

_REGISTRY: dict[str, type[Variant]] = {
    "zeckendorf": Zeckendorf,
    "reversed": Reversed,
    "quilt": Quilt,
}

_instances: dict[str, Variant] = {}


def variant_names() -> list[str]:
    return list(_REGISTRY)


def get_variant(name: str) -> Variant:
    """The variant registered under `name`; the error lists the valid names."""
    if name not in _instances:
        try:
            cls = _REGISTRY[name]
        except KeyError:
            raise UnknownVariantError(
                f"unknown variant {name!r}: choose one of {', '.join(_REGISTRY)}"
            ) from None
        _instances[name] = cls()
    return _instances[name]


__all__ = ["Position", "Variant", "get_variant", "variant_names"]
