"""Chat models over HTTP: ``POST {url}/chat/completions`` (OpenAI-compatible) or Ollama's
``POST {url}/api/chat``.

A 429, a 5xx, a timeout or a dropped connection is retried with exponential backoff (1, 2, 4, … s,
at most MAX_WAIT_S), waiting what ``Retry-After`` asks for when the server says (seconds or an HTTP
date); any other status fails at once with a message naming the setting to check.
"""

from __future__ import annotations

import email.utils
import random
import time
from abc import ABC, abstractmethod
from datetime import UTC, datetime
from typing import Any

import httpx

from tenure.embeddings.remote import Endpoint
from tenure.knowledge import tokens
from tenure.knowledge.providers.base import Completion, Message, ProviderError

RETRIED = {429, 500, 502, 503, 504}
MAX_WAIT_S = 60.0


class ChatServer(ABC):
    backend = ""
    path = ""

    def __init__(self, endpoint: Endpoint, max_retries: int = 4, json_mode: bool = False,
                 sleep: Any = time.sleep) -> None:
        self.endpoint = endpoint
        self.name = f"{self.backend}:{endpoint.model}"
        self.max_retries = max_retries
        self.json_mode = json_mode
        self._sleep = sleep
        self.retries = 0  # how many requests were retried, for the build's report

    @abstractmethod
    def request(self, messages: list[Message], max_tokens: int) -> dict[str, Any]: ...

    @abstractmethod
    def parse(self, body: Any) -> tuple[str, int | None, int | None]:
        """(text, prompt tokens, completion tokens) of an answer; tokens None when it does not say."""

    def complete(self, messages: list[Message], max_tokens: int) -> Completion:
        body = self._post(self.request(messages, max_tokens))
        try:
            text, prompt, completion = self.parse(body)
        except (KeyError, IndexError, TypeError) as exc:
            raise ProviderError(f"{self.endpoint.url + self.path} answered without a message ({exc!r}: "
                                f"{str(body)[:200]}); check {self.endpoint.url_setting}") from exc
        if prompt is None:
            prompt = sum(tokens.count(m["content"]) for m in messages)
        if completion is None:
            completion = tokens.count(text)
        return Completion(text, prompt, completion)

    def _post(self, payload: dict[str, Any]) -> Any:
        url = self.endpoint.url + self.path
        headers = {"Authorization": f"Bearer {self.endpoint.api_key}"} if self.endpoint.api_key else {}
        attempt = 0
        while True:
            wait: float | None = None
            try:
                response = httpx.post(url, json=payload, headers=headers, timeout=self.endpoint.timeout)
            except httpx.TimeoutException as exc:
                problem = f"did not answer within {self.endpoint.timeout:g} s"
                error: Exception = exc
            except httpx.HTTPError as exc:
                problem = f"cannot be reached ({type(exc).__name__}: {exc})"
                error = exc
            else:
                if response.status_code == 200:
                    try:
                        return response.json()
                    except ValueError as exc:
                        raise ProviderError(f"{url} answered with non-JSON ({response.text[:200]!r}); "
                                            f"check {self.endpoint.url_setting}") from exc
                if response.status_code not in RETRIED:
                    raise ProviderError(self._status_message(url, response))
                problem = f"answered HTTP {response.status_code}"
                error = ProviderError(response.text[:200])
                wait = retry_after(response.headers.get("retry-after"))
            if attempt >= self.max_retries:
                raise ProviderError(f"{url} {problem}, {attempt + 1} times; check {self.endpoint.url_setting}"
                                    f" (and TENURE_LLM_TIMEOUT, TENURE_LLM_MAX_RETRIES)") from error
            self._sleep(min(MAX_WAIT_S, wait if wait is not None else 2 ** attempt + random.uniform(0, 0.25)))
            attempt += 1
            self.retries += 1

    def _status_message(self, url: str, response: httpx.Response) -> str:
        hint = {401: f"check {self.endpoint.key_setting}", 403: f"check {self.endpoint.key_setting}",
                404: f"check {self.endpoint.url_setting} and {self.endpoint.model_setting}={self.endpoint.model!r}"}
        default = f"check {self.endpoint.url_setting} and {self.endpoint.model_setting}"
        return f"{url} answered HTTP {response.status_code}: {response.text[:200]!r}; " + hint.get(
            response.status_code, default)


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header: a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class OpenAIChat(ChatServer):
    backend = "openai"
    path = "/chat/completions"

    def request(self, messages: list[Message], max_tokens: int) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.endpoint.model, "messages": messages, "temperature": 0,
                                   "max_tokens": max_tokens}
        if self.json_mode:
            payload["response_format"] = {"type": "json_object"}
        return payload

    def parse(self, body: Any) -> tuple[str, int | None, int | None]:
        text = body["choices"][0]["message"]["content"] or ""
        usage = body.get("usage") or {}
        return text, usage.get("prompt_tokens"), usage.get("completion_tokens")


class OllamaChat(ChatServer):
    backend = "ollama"
    path = "/api/chat"

    def request(self, messages: list[Message], max_tokens: int) -> dict[str, Any]:
        return {"model": self.endpoint.model, "messages": messages, "stream": False, "format": "json",
                "options": {"temperature": 0, "num_predict": max_tokens}}

    def parse(self, body: Any) -> tuple[str, int | None, int | None]:
        return body["message"]["content"] or "", body.get("prompt_eval_count"), body.get("eval_count")
