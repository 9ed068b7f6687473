"""The interface every chat backend implements, beside tenure.embeddings' EmbeddingProvider: a
``name`` (``backend:model``, which also keys the cache of answers) and one call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, TypedDict, runtime_checkable


class Message(TypedDict):
    role: str  # system | user | assistant
    content: str


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int  # as the server counted them (counted locally when it does not say)
    completion_tokens: int


class ProviderError(RuntimeError):
    """The model could not be asked (unreachable, refused, retries spent); the message says what to check."""


@runtime_checkable
class ChatProvider(Protocol):
    name: str

    def complete(self, messages: list[Message], max_tokens: int) -> Completion: ...
