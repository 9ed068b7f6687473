"""Embeddings from a server: any OpenAI-compatible ``POST {url}/embeddings``, or Ollama's ``POST {url}/api/embed``.

Each request carries at most ``BATCH`` texts and has a timeout. Failures raise :class:`EmbeddingError`
with a message that names the setting to look at.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import httpx
import numpy as np

from tenure.embeddings.base import EmbeddingConfigError, EmbeddingError, normalize_rows

BATCH = 64


@dataclass(frozen=True)
class Endpoint:
    """Where to send texts; ``url_setting`` and friends are the names shown in error messages."""

    url: str
    model: str
    timeout: float
    api_key: str | None = None
    url_setting: str = "TENURE_EMBEDDINGS_URL"
    model_setting: str = "TENURE_EMBEDDINGS_MODEL"
    key_setting: str = "TENURE_EMBEDDINGS_API_KEY"


def check_url(url: str, setting: str) -> str:
    """``url`` without a trailing slash, or a config error naming ``setting``."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise EmbeddingConfigError(f"{setting}={url!r} is not a valid URL: {exc}") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise EmbeddingConfigError(f"{setting}={url!r} is not an http(s) URL with a host (e.g. http://127.0.0.1:8080/v1)")
    return url.rstrip("/")


class RemoteProvider(ABC):
    """Shared machinery: batching, HTTP with timeouts, error messages, dimension discovery."""

    backend = ""
    path = ""

    def __init__(self, endpoint: Endpoint, dim: int | None = None) -> None:
        self.endpoint = endpoint
        self.name = f"{self.backend}:{endpoint.model}"
        self._dim = dim

    @property
    def dim(self) -> int:
        """The vector size: configured, or learnt from the first answer (asked once if needed)."""
        if self._dim is None:
            self._dim = self._embed_batch(["dimension probe"]).shape[1]
        return self._dim

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._embed_batch(texts[start : start + BATCH]) for start in range(0, len(texts), BATCH)]
        return np.concatenate(parts)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        vectors = self.parse(self._post(self.request(texts)), len(texts))
        if self._dim is None:
            self._dim = vectors.shape[1]
        elif vectors.shape[1] != self._dim:
            raise EmbeddingError(f"{self.name} answered {vectors.shape[1]}-dim vectors, expected {self._dim}")
        return normalize_rows(vectors)

    @abstractmethod
    def request(self, texts: list[str]) -> dict[str, Any]:
        """The JSON body that asks for the vectors of ``texts``."""

    @abstractmethod
    def parse(self, body: Any, count: int) -> np.ndarray:
        """The (count, dim) matrix in the server's answer."""

    def _post(self, payload: dict[str, Any]) -> Any:
        url = self.endpoint.url + self.path
        headers = {"Authorization": f"Bearer {self.endpoint.api_key}"} if self.endpoint.api_key else {}
        try:
            response = httpx.post(url, json=payload, headers=headers, timeout=self.endpoint.timeout)
        except httpx.TimeoutException as exc:
            raise EmbeddingError(f"{url} did not answer within {self.endpoint.timeout:g} s "
                                 f"(check {self.endpoint.url_setting}, TENURE_EMBEDDINGS_TIMEOUT)") from exc
        except httpx.HTTPError as exc:
            raise EmbeddingError(f"cannot reach {url} ({type(exc).__name__}: {exc}); "
                                 f"check {self.endpoint.url_setting}") from exc
        if response.status_code != 200:
            raise EmbeddingError(self._status_message(url, response))
        try:
            return response.json()
        except ValueError as exc:
            raise EmbeddingError(f"{url} answered with non-JSON ({response.text[:200]!r}); "
                                 f"check {self.endpoint.url_setting}") from exc

    def _status_message(self, url: str, response: httpx.Response) -> str:
        hint = {
            401: f"check {self.endpoint.key_setting}",
            403: f"check {self.endpoint.key_setting}",
            404: f"check {self.endpoint.url_setting} and {self.endpoint.model_setting}={self.endpoint.model!r}",
        }.get(response.status_code, f"check {self.endpoint.url_setting} and {self.endpoint.model_setting}")
        return f"{url} answered HTTP {response.status_code}: {response.text[:200]!r}; {hint}"

    def _bad_answer(self, detail: str) -> EmbeddingError:
        return EmbeddingError(f"{self.endpoint.url + self.path} gave no usable embeddings ({detail}); "
                              f"check {self.endpoint.url_setting} and {self.endpoint.model_setting}")

    def _matrix(self, rows: Any, count: int) -> np.ndarray:
        try:
            vectors = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise self._bad_answer(f"not a list of number lists: {exc}") from exc
        if vectors.ndim != 2 or vectors.shape[0] != count or vectors.shape[1] == 0:
            raise self._bad_answer(f"shape {vectors.shape} for {count} texts")
        return vectors


class OpenAIProvider(RemoteProvider):
    """``POST {url}/embeddings`` with ``{"model", "input"}``; answers ``{"data": [{"index", "embedding"}]}``."""

    backend = "openai"
    path = "/embeddings"

    def request(self, texts: list[str]) -> dict[str, Any]:
        return {"model": self.endpoint.model, "input": texts}

    def parse(self, body: Any, count: int) -> np.ndarray:
        try:
            items = sorted(body["data"], key=lambda item: item["index"])
            rows = [item["embedding"] for item in items]
        except (KeyError, TypeError) as exc:
            raise self._bad_answer(f"missing {exc}") from exc
        return self._matrix(rows, count)


class OllamaProvider(RemoteProvider):
    """``POST {url}/api/embed`` with ``{"model", "input"}``; answers ``{"embeddings": [[...], ...]}``."""

    backend = "ollama"
    path = "/api/embed"

    def request(self, texts: list[str]) -> dict[str, Any]:
        return {"model": self.endpoint.model, "input": texts}

    def parse(self, body: Any, count: int) -> np.ndarray:
        try:
            rows = body["embeddings"]
        except (KeyError, TypeError) as exc:
            raise self._bad_answer(f"missing {exc}") from exc
        return self._matrix(rows, count)
