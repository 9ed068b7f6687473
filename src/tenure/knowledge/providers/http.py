"""Chat models over HTTP: ``POST {url}/chat/completions`` (OpenAI-compatible) or Ollama's
``POST {url}/api/chat``.

A 429, a 5xx, a timeout or a dropped connection is retried with exponential backoff (1, 2, 4, … s,
at most MAX_WAIT_S), waiting what ``Retry-After`` asks for when the server says (seconds or an HTTP
date); any other status fails at once with a message naming the setting to check.

An answer is read from the stream up to MAX_ANSWER_BYTES and within the request's timeout in all
(not per read: a server trickling bytes is cut off too); past either it is refused, not retried.
"""

from __future__ import annotations

import email.utils
import json
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
MAX_ANSWER_BYTES = 1 << 20  # an answer of a few thousand tokens is some 20 KB; 1 MB is no answer asked for


class _Refused(Exception):
    """The answer broke a bound (size, time): not worth asking again."""


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
            if not isinstance(text, str):
                raise TypeError(f"content is a {type(text).__name__}")
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ProviderError(f"{self.endpoint.url + self.path} answered without a message ({exc!r}: "
                                f"{str(body)[:200]}); check {self.endpoint.url_setting}") from exc
        if not _count(prompt):  # (not said, or nonsense: counted here)
            prompt = sum(tokens.count(m["content"]) for m in messages)
        if not _count(completion):
            completion = tokens.count(text)
        return Completion(text, prompt, completion)

    def _post(self, payload: dict[str, Any]) -> Any:
        url = self.endpoint.url + self.path
        headers = {"Authorization": f"Bearer {self.endpoint.api_key}"} if self.endpoint.api_key else {}
        attempt = 0
        while True:
            wait: float | None = None
            try:
                response, body = self._send(url, payload, headers)
            except _Refused as exc:
                raise ProviderError(f"{url} {exc}; check {self.endpoint.url_setting}") from None
            except httpx.TimeoutException as exc:
                problem = f"did not answer within {self.endpoint.timeout:g} s"
                error: Exception = exc
            except httpx.HTTPError as exc:
                problem = f"cannot be reached ({type(exc).__name__}: {exc})"
                error = exc
            else:
                text = body.decode("utf-8", errors="replace")
                if response.status_code == 200:
                    try:
                        return json.loads(body)
                    except ValueError as exc:
                        raise ProviderError(f"{url} answered with non-JSON ({text[:200]!r}); "
                                            f"check {self.endpoint.url_setting}") from exc
                if response.status_code not in RETRIED:
                    raise ProviderError(self._status_message(url, response.status_code, text))
                problem = f"answered HTTP {response.status_code}"
                error = ProviderError(text[:200])
                wait = retry_after(response.headers.get("retry-after"))
            if attempt >= self.max_retries:
                raise ProviderError(f"{url} {problem}, {attempt + 1} times; check {self.endpoint.url_setting}"
                                    f" (and TENURE_LLM_TIMEOUT, TENURE_LLM_MAX_RETRIES)") from error
            self._sleep(min(MAX_WAIT_S, wait if wait is not None else 2 ** attempt + random.uniform(0, 0.25)))
            attempt += 1
            self.retries += 1

    def _send(self, url: str, payload: dict[str, Any], headers: dict[str, str]) -> tuple[httpx.Response, bytes]:
        """The response and its body, read within MAX_ANSWER_BYTES and the timeout in all."""
        deadline = time.monotonic() + self.endpoint.timeout
        with httpx.stream("POST", url, json=payload, headers=headers, timeout=self.endpoint.timeout) as response:
            body = bytearray()
            for part in response.iter_bytes():
                body += part
                if len(body) > MAX_ANSWER_BYTES:
                    raise _Refused(f"answered more than {MAX_ANSWER_BYTES:,} bytes (read no further)")
                if time.monotonic() > deadline:
                    raise _Refused(f"was still answering after {self.endpoint.timeout:g} s (read no further)")
        return response, bytes(body)

    def _status_message(self, url: str, status: int, text: str) -> str:
        hint = {401: f"check {self.endpoint.key_setting}", 403: f"check {self.endpoint.key_setting}",
                404: f"check {self.endpoint.url_setting} and {self.endpoint.model_setting}={self.endpoint.model!r}"}
        default = f"check {self.endpoint.url_setting} and {self.endpoint.model_setting}"
        return f"{url} answered HTTP {status}: {text[:200]!r}; " + hint.get(status, default)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 40


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
