"""The provider interface every embedding backend implements, and the errors they raise."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


class EmbeddingError(RuntimeError):
    """An embedding backend failed at run time (unreachable endpoint, bad answer)."""


class EmbeddingConfigError(EmbeddingError, ValueError):
    """A setting is missing or wrong; the message names the setting."""


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Text in, unit vectors out.

    ``name`` identifies the vector space (``backend:model``): vectors from providers with different
    names are not comparable. ``embed`` returns float32, shape ``(len(texts), dim)``, each row of
    L2 norm 1 (an all-zero row stays zero).
    """

    name: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray: ...


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm, as contiguous float32; zero rows stay zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.ascontiguousarray(vectors / np.maximum(norms, np.float32(1e-12)))
