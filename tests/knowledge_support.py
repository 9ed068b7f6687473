"""A repository with rationale in it (ADRs, a postmortem, a PR export, code, a git history with thin
commits), and an OpenAI-compatible model served for real on loopback with canned answers."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tenure import Tenure
from tenure.knowledge import tokens

SERVICE = '''"""Settlement."""


class SettlementService:
    def retry(self, payment):
        """Retries a failed settlement three times."""
        for _ in range(3):
            if self.settle(payment):
                return True
        return False

    def settle(self, payment):
        return payment.ok


def reconcile(batch):
    return [p for p in batch if p.ok]
'''

ADR_1 = """# ADR-0001: Retry settlements three times

## Context

Settlement calls to the bank time out under load. `SettlementService.retry` gives up after the first
failure, so payments stay unsettled until the nightly `reconcile` job.

## Decision

`SettlementService.retry` retries three times, because the counterparty SLA allows three attempts
within its five-minute window. See #412. The limit lives in `SETTLEMENT_RETRIES`.
"""

ADR_2 = """# ADR-0002: Keep reconciliation nightly

## Decision

`reconcile` runs nightly, not after every batch: the bank's reporting API is rate limited (ADR-0001).
"""

POSTMORTEM = """# Incident review: duplicate settlements (2024-03-02)

## What happened

A fourth retry in `SettlementService.retry` settled payments twice when the bank answered late.

## Follow-up

Never retry more than the counterparty SLA allows; see ADR-0001 and #412.
"""

PR_412 = {
    "number": 412, "title": "Retry settlements three times", "state": "MERGED",
    "author": {"login": "sarah"}, "createdAt": "2024-02-20T10:00:00Z", "mergedAt": "2024-02-21T09:00:00Z",
    "body": "Makes `SettlementService.retry` retry three times (ADR-0001). The SLA allows no more.",
    "comments": [{"author": {"login": "tom"}, "body": "Why not five? The incident in March says four was too many.",
                  "createdAt": "2024-02-20T12:00:00Z"}],
    "reviews": [{"author": {"login": "ana"}, "body": "LGTM", "state": "APPROVED",
                 "submittedAt": "2024-02-21T08:00:00Z"}],
    "files": [{"path": "settlement/service.py", "additions": 5, "deletions": 1}],
}

COMMITS = [  # (message, files to write)
    ("Add the settlement service", {"settlement/__init__.py": "", "settlement/service.py": SERVICE}),
    ("wip", {"notes.txt": "x\n"}),
    ("fix bug", {"notes.txt": "y\n"}),
    ("Record ADR-0001 and ADR-0002 on settlement retries\n\nThe counterparty SLA allows three attempts.",
     {"docs/adr/0001-retry-settlements.md": ADR_1, "docs/adr/0002-nightly-reconciliation.md": ADR_2}),
    ("Retry settlements three times (#412)\n\nSettlementService.retry gave up after one failure.",
     {"settlement/service.py": SERVICE.replace("range(3)", "range(3)  # the SLA allows three")}),
    ("typo", {"notes.txt": "z\n"}),
    ("Add the duplicate settlements incident review",
     {"docs/postmortems/2024-03-duplicate-settlements.md": POSTMORTEM, "prs/412.json": json.dumps(PR_412)}),
]


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "Sarah", "GIT_AUTHOR_EMAIL": "s@example.com", "GIT_COMMITTER_NAME": "Sarah",
           "GIT_COMMITTER_EMAIL": "s@example.com", "HOME": str(repo), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env).stdout


def make_repo(root: Path) -> Path:
    repo = root / "payments"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for n, (message, files) in enumerate(COMMITS):
        for path, text in files.items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", message, "--date", f"2024-01-{n + 1:02d}T10:00:00")
    return repo


@contextmanager
def built_store(root: Path) -> Iterator[tuple[Tenure, dict]]:
    """The repository indexed, then its knowledge store built offline (with TENURE_KNOWLEDGE=off set by
    the caller, the index builds none: this build is the one under test)."""
    with Tenure.open(make_repo(root)) as t:
        t.index()
        yield t, t.knowledge.build(embed=False)


# --- the model ------------------------------------------------------------------------------------

ENTITY_WORDS = ("SettlementService.retry", "reconcile", "ADR-0001", "ADR-0002", "#412", "counterparty SLA")


def canned_answer(messages: list[dict]) -> str:
    """What the fake model answers, by step (told apart by the system prompt)."""
    system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
    last = messages[-1]["content"]
    if "extract the knowledge graph" in system:
        if "may have been missed" in last:
            return json.dumps({"entities": [], "relationships": []})
        return json.dumps(_extraction(messages[1]["content"]))
    if "Merge each item's descriptions" in system:
        items = json.loads(last)
        return json.dumps({"summaries": {i["id"]: f"{i['name']}: merged from {len(i['descriptions'])} descriptions"
                                         for i in items}})
    if "report on one community" in system:
        return json.dumps({"title": "Settlement retries", "summary": "Retries are bounded by the counterparty SLA.",
                           "rating": 7, "rating_explanation": "money moves twice otherwise",
                           "findings": [{"summary": "Three attempts at most", "explanation": "ADR-0001.",
                                         "cites": ["e:adr-1"]}]})
    if "as a list of points" in system:
        return json.dumps({"points": [{"description": "Retries are bounded by the SLA [c]", "score": 80}]})
    if "Combine them into one answer" in system or "Answer the question about" in system:
        return json.dumps({"answer": "Three retries, because the counterparty SLA allows three."})
    return json.dumps({})


def _extraction(text: str) -> dict:
    entities, relationships = [], []
    for unit, body in re.findall(r"\[(u\d+)\] \([^\n]*\)\n(.*?)(?=\n\n\[u\d+\] \(|\Z)", text, re.DOTALL):
        named = [w for w in ENTITY_WORDS if w in body]
        for word in named:
            entities.append({"name": word, "type": "decision" if word.startswith("ADR") else "component",
                             "description": f"{word} as {unit} describes it: {body[:60]}", "units": [unit]})
        for a, b in zip(named, named[1:], strict=False):
            relationships.append({"source": a, "target": b, "description": f"{a} relates to {b} in {unit}",
                                  "weight": 6, "units": [unit]})
    return {"entities": entities, "relationships": relationships}


@dataclass
class FakeModel:
    """State of the served model: what it was asked, and the failures it plays once each."""

    requests: list[dict] = field(default_factory=list)
    fail_with_429: int = 0  # the next N requests answer 429 with Retry-After: 1
    hang_next: int = 0  # the next N requests answer after `hang_seconds` (past the client's timeout)
    hang_seconds: float = 2.0
    malformed_next: int = 0  # the next N answers are not JSON
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def calls(self) -> int:
        return len(self.requests)


@contextmanager
def fake_model(answer: Callable[[list[dict]], str] = canned_answer) -> Iterator[FakeModel]:
    """An OpenAI-compatible /chat/completions on 127.0.0.1 answering `answer(messages)`; usage counted
    with the tokenizer tenure counts with."""
    state = FakeModel()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(body)
                if state.fail_with_429:
                    state.fail_with_429 -= 1
                    return self._send(429, {"error": "slow down"}, {"Retry-After": "1"})
                hang = state.hang_next > 0
                state.hang_next -= hang
                malformed = state.malformed_next > 0
                state.malformed_next -= malformed
            if hang:
                time.sleep(state.hang_seconds)
            text = "Sure! Here is the graph: {entities: [oops" if malformed else answer(body["messages"])
            prompt = sum(tokens.count(m["content"]) for m in body["messages"])
            self._send(200, {"choices": [{"message": {"role": "assistant", "content": text}}],
                             "usage": {"prompt_tokens": prompt, "completion_tokens": tokens.count(text)}})

        def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (the timeout case)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def model_settings(url: str, timeout: float = 5.0) -> str:
    return f'[knowledge.model]\nprovider = "openai"\nurl = "{url}"\nmodel = "canned"\ntimeout = {timeout}\n'
