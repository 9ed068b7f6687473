"""tenure: the memory a colleague of one year has, for coding agents."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tenure.api import Tenure

__all__ = ["Tenure"]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # Imported on first use, so that `tenure.entry` can start without loading the whole product.
    if name == "Tenure":
        from tenure.api import Tenure

        return Tenure
    raise AttributeError(f"module 'tenure' has no attribute {name!r}")
