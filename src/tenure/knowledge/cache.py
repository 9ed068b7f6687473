"""Every model call goes through here: answered from the cache when the exact input was asked before
(the hash of the model's name, the messages and the answer's length), else asked once, within the
budget, and its answer stored at once (a build killed mid-way loses no answer it paid for).

The budget (`--max-calls`, `--max-tokens`, else `[knowledge] max_calls` / `max_tokens`) is checked
before a call: one that would pass it is not made, and :class:`BudgetExhausted` stops the build where
it is; the next build resumes from the cache.

A call that fails is counted for its step (the build reports it). After FAILURES_IN_A_ROW failures
with no answer between them the endpoint is taken for down: the build's remaining calls fail at
once, unasked, rather than each waiting out its retries. An answer found unusable is forgotten
(`forget`), so that the next build asks again rather than reading the same bad answer back.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime

from tenure.knowledge import tokens
from tenure.knowledge.providers.base import ChatProvider, Message, ProviderError
from tenure.knowledge.store import digest
from tenure.storage import Database

FAILURES_IN_A_ROW = 3


class BudgetExhausted(RuntimeError):
    """The next model call would pass --max-calls or --max-tokens."""


@dataclass
class Budget:
    max_calls: int | None = None
    max_tokens: int | None = None
    calls: int = 0
    tokens: int = 0

    def check(self, prompt_tokens: int, max_answer: int) -> None:
        if self.max_calls is not None and self.calls + 1 > self.max_calls:
            raise BudgetExhausted(f"--max-calls {self.max_calls} reached (the default: [knowledge] max_calls)")
        if self.max_tokens is not None and self.tokens + prompt_tokens + max_answer > self.max_tokens:
            raise BudgetExhausted(f"--max-tokens {self.max_tokens} (the default: [knowledge] max_tokens) would be"
                                  " passed by the next call "
                                  f"({self.tokens} spent, {prompt_tokens + max_answer} more asked)")

    def charge(self, spent: int) -> None:
        self.calls += 1
        self.tokens += spent


@dataclass
class StepUse:
    calls: int = 0  # made: not answered from the cache
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failed: int = 0  # calls not answered, or answered unusably twice

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class CachedModel:
    provider: ChatProvider
    db: Database
    budget: Budget = field(default_factory=Budget)
    use: dict[str, StepUse] = field(default_factory=lambda: defaultdict(StepUse))
    failures_in_a_row: list[str] = field(default_factory=list)  # why, since the last answer

    @property
    def name(self) -> str:
        return self.provider.name

    def ask(self, step: str, messages: list[Message], max_tokens: int) -> str:
        key = self._key(messages, max_tokens)
        rows = self.db.rows("SELECT answer FROM knowledge_calls WHERE key = ?", (key,))
        use = self.use[step]
        if rows:
            use.cached += 1
            return rows[0][0]
        if len(self.failures_in_a_row) >= FAILURES_IN_A_ROW:
            use.failed += 1
            raise ProviderError(f"not asked: the model failed {len(self.failures_in_a_row)} times in a row "
                                f"(last: {self.failures_in_a_row[-1]})")
        self.budget.check(sum(tokens.count(m["content"]) for m in messages), max_tokens)
        try:
            answer = self.provider.complete(messages, max_tokens)
        except ProviderError as exc:
            use.failed += 1
            self.failures_in_a_row.append(str(exc)[:300])
            raise
        self.failures_in_a_row.clear()
        self.budget.charge(answer.prompt_tokens + answer.completion_tokens)
        use.calls += 1
        use.prompt_tokens += answer.prompt_tokens
        use.completion_tokens += answer.completion_tokens
        with self.db.transaction():
            self.db.execute(
                "INSERT INTO knowledge_calls (key, step, model, prompt_tokens, completion_tokens, answer, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
                (key, step, self.provider.name, answer.prompt_tokens, answer.completion_tokens, answer.text,
                 datetime.now(UTC).isoformat(timespec="seconds")))
        return answer.text

    def forget(self, step: str, asked: list[list[Message]], max_tokens: int) -> None:
        """Drop the cached answers to these conversations (found unusable: the next build asks again)."""
        self.use[step].failed += 1
        with self.db.transaction():
            self.db.executemany("DELETE FROM knowledge_calls WHERE key = ?",
                                [(self._key(messages, max_tokens),) for messages in asked])

    def _key(self, messages: list[Message], max_tokens: int) -> str:
        return digest(self.provider.name, str(max_tokens), json.dumps(messages, ensure_ascii=False, sort_keys=True))

    def totals(self) -> dict:
        steps = {step: use.as_dict() for step, use in sorted(self.use.items())}
        return {"model": self.provider.name, "calls": sum(u.calls for u in self.use.values()),
                "cached": sum(u.cached for u in self.use.values()),
                "prompt_tokens": sum(u.prompt_tokens for u in self.use.values()),
                "completion_tokens": sum(u.completion_tokens for u in self.use.values()),
                "failed": sum(u.failed for u in self.use.values()), "steps": steps}
