"""Reading a model's JSON answer: the object out of whatever surrounds it (code fences, a sentence),
checked for the shape a step expects. A malformed answer is asked again once with a repair prompt;
a second malformed answer is a :class:`MalformedAnswer` with its reason (and both answers are
forgotten: the next build asks again)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from tenure.knowledge import prompts
from tenure.knowledge.cache import CachedModel
from tenure.knowledge.providers.base import Message

_FENCE = re.compile(r"^```[a-zA-Z]*\n|\n?```$")


class MalformedAnswer(ValueError):
    """The model's answer is not the JSON asked for, twice."""


def parse_object(text: str) -> dict[str, Any]:
    """The JSON object in a model's answer; ValueError with the reason when there is none."""
    body = _FENCE.sub("", text.strip()).strip()
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        start, end = body.find("{"), body.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("no JSON object in the answer") from None
        try:
            value = json.loads(body[start:end + 1])
        except json.JSONDecodeError as exc:
            raise ValueError(f"malformed JSON ({exc.msg} at character {exc.pos})") from None
        except RecursionError:
            raise ValueError("JSON nested too deep") from None
    if not isinstance(value, dict):
        raise ValueError(f"a JSON {type(value).__name__}, not an object")
    return value


def ask_json(model: CachedModel, step: str, messages: list[Message], max_tokens: int,
             check: Callable[[dict[str, Any]], str | None]) -> tuple[dict[str, Any], list[Message]]:
    """The checked object of the answer, and the conversation that led to it (for a follow-up).
    `check` returns what is wrong with an object, or None."""
    answer = model.ask(step, messages, max_tokens)
    problem = _problem(answer, check)
    if problem is None:
        return parse_object(answer), [*messages, {"role": "assistant", "content": answer}]
    repair = [*messages, {"role": "assistant", "content": answer},
              {"role": "user", "content": prompts.REPAIR.format(error=problem)}]
    second = model.ask(step, repair, max_tokens)
    again = _problem(second, check)
    if again is not None:
        model.forget(step, [messages, repair], max_tokens)
        raise MalformedAnswer(f"malformed answer twice: {problem}; after the repair prompt: {again}")
    return parse_object(second), [*repair, {"role": "assistant", "content": second}]


def _problem(answer: str, check: Callable[[dict[str, Any]], str | None]) -> str | None:
    try:
        value = parse_object(answer)
    except ValueError as exc:
        return str(exc)
    return check(value)


def has_lists(*keys: str) -> Callable[[dict[str, Any]], str | None]:
    def check(value: dict[str, Any]) -> str | None:
        missing = [k for k in keys if not isinstance(value.get(k), list)]
        return f"no list {', '.join(repr(k) for k in missing)}" if len(missing) == len(keys) else None
    return check


def has_text(*keys: str) -> Callable[[dict[str, Any]], str | None]:
    def check(value: dict[str, Any]) -> str | None:
        missing = [k for k in keys if not isinstance(value.get(k), str)]
        return f"no text {', '.join(repr(k) for k in missing)}" if missing else None
    return check
