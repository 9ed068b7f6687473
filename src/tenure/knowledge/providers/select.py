"""Choosing the chat model from `[knowledge.model]` and the environment (a config key wins):

| setting (env) | config key | meaning |
|---|---|---|
| ``TENURE_LLM`` | ``provider`` | ``openai`` (any OpenAI-compatible server), ``ollama`` or ``none`` (default: offline) |
| ``TENURE_LLM_URL`` | ``url`` | base URL, e.g. ``http://127.0.0.1:8080/v1`` (openai: required; ollama: its default) |
| ``TENURE_LLM_MODEL`` | ``model`` | model name (required) |
| ``TENURE_LLM_API_KEY`` | ``api_key`` | bearer token, if the server wants one |
| ``TENURE_LLM_TIMEOUT`` | ``timeout`` | seconds per request (default 120) |
| ``TENURE_LLM_MAX_RETRIES`` | ``max_retries`` | retries of a 429 / 5xx / timeout (default 4) |
| ``TENURE_LLM_JSON`` | ``json_mode`` | ``1``: ask an OpenAI-compatible server for ``response_format: json_object`` |

The config is the project's tenure.toml, someone else's input in a cloned repository: the key from the
environment goes to a ``url`` it names only when the user's tenure config lists the host (``[knowledge]
allowed_hosts``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from tenure.knowledge.providers.base import ChatProvider

PROVIDERS = ("openai", "ollama", "none")
TIMEOUT_S = 120.0
MAX_RETRIES = 4


def get_chat_provider(config: Mapping[str, Any] | None = None) -> ChatProvider | None:
    """The configured model, or None (offline mode). A missing or malformed setting raises a
    ValueError naming it; the server is not contacted here."""
    config = config or {}
    if str(config.get("provider") or os.environ.get("TENURE_LLM") or "none").strip().lower() == "none":
        return None  # offline mode, decided without importing the HTTP clients
    from tenure.embeddings.base import EmbeddingConfigError
    from tenure.embeddings.remote import Endpoint, check_url
    from tenure.embeddings.select import OLLAMA_URL, positive, setting
    from tenure.knowledge.providers.http import OllamaChat, OpenAIChat

    choice = setting(config, "provider", "TENURE_LLM")
    kind = (choice.value or "none").strip().lower()
    if kind not in PROVIDERS:
        raise EmbeddingConfigError(f"{choice.label}={choice.value!r}: expected one of {', '.join(PROVIDERS)}")
    url = setting(config, "url", "TENURE_LLM_URL")
    model = setting(config, "model", "TENURE_LLM_MODEL")
    if kind == "openai" and url.value is None:
        raise EmbeddingConfigError(f"TENURE_LLM=openai needs {url.label} (e.g. http://127.0.0.1:8080/v1)")
    if model.value is None:
        raise EmbeddingConfigError(f"TENURE_LLM={kind} needs {model.label} (the model's name on that server)")
    key = setting(config, "api_key", "TENURE_LLM_API_KEY")
    if key.value and "api_key" not in config and "url" in config:  # (config: the project's [knowledge.model])
        _check_key_may_go(str(config["url"]), key.label)
    endpoint = Endpoint(
        url=check_url(url.value or OLLAMA_URL, url.label), model=model.value,
        timeout=positive(setting(config, "timeout", "TENURE_LLM_TIMEOUT"), float) or TIMEOUT_S,
        api_key=key.value, url_setting=url.label, model_setting=model.label, key_setting=key.label)
    retries = setting(config, "max_retries", "TENURE_LLM_MAX_RETRIES")
    max_retries = MAX_RETRIES if retries.value is None else (0 if retries.value == "0" else positive(retries, int))
    if kind == "ollama":
        return OllamaChat(endpoint, max_retries or 0)
    json_mode = str(setting(config, "json_mode", "TENURE_LLM_JSON").value or "").lower() in ("1", "true", "yes")
    return OpenAIChat(endpoint, max_retries or 0, json_mode)


def _check_key_may_go(url: str, key_label: str) -> None:
    """The project's tenure.toml chose the server and the key is the user's (the environment's): a cloned
    repository must not choose where the user's key goes, unless the user's config lists its host."""
    from urllib.parse import urlsplit

    from tenure.config import ConfigError
    from tenure.embeddings.base import EmbeddingConfigError
    from tenure.http_guard import LOOPBACK_NAMES
    from tenure.team.user_config import allows_host, user_config_path

    host = urlsplit(url).hostname or ""
    try:
        allowed = allows_host("knowledge", host)
    except ConfigError as exc:  # (the user's config broken: as any setting of the model's)
        raise EmbeddingConfigError(str(exc)) from exc
    if not allowed:
        raise EmbeddingConfigError(
            f"tenure.toml [knowledge.model] url {url!r}: your {key_label} is not sent to a server a repository "
            f"chose; to send it there, add {host!r} to [knowledge] allowed_hosts in {user_config_path()}")
    if urlsplit(url).scheme != "https" and host not in LOOPBACK_NAMES:  # (the repository chose the scheme too)
        raise EmbeddingConfigError(
            f"tenure.toml [knowledge.model] url {url!r}: your {key_label} goes to a server a repository chose only "
            "over https (or to this machine)")

