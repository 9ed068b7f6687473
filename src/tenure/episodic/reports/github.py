"""Pull requests as GitHub's CLI exports them: `gh pr list --state all --json number,title,state,author,
createdAt,mergedAt,closedAt,mergeCommit,commits,files,reviews,url` (an array), `gh pr view N --json …`
(one object) or JSON lines. Untrusted input: streamed, each malformed entry reported by reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tenure.episodic.reports.jsonstream import JSONProblem, JsonStream, TooDeep
from tenure.episodic.reports.tests import MESSAGE_CHARS, ReportError

REVIEW_STATES = ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED")
LARGEST_NUMBER = 2**63 - 1  # SQLite's largest integer: GitHub's numbers are far below


@dataclass
class Review:
    author: str
    state: str  # APPROVED | CHANGES_REQUESTED | COMMENTED | DISMISSED
    body: str
    at: str | None


@dataclass
class PullRequest:
    number: int
    title: str
    state: str  # merged | closed (without merging) | open
    author: str
    created_at: str | None
    ended_at: str | None  # merged or closed
    url: str = ""
    merge_commit: str | None = None
    commits: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    reviews: list[Review] = field(default_factory=list)


@dataclass
class PullRequestExport:
    pulls: list[PullRequest] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def read_pull_requests(path: Path) -> PullRequestExport:
    export = PullRequestExport()
    try:
        with open(path, encoding="utf-8", errors="replace") as source:
            stream = JsonStream(source)
            first = stream.peek()
            if first not in ("[", "{"):
                raise ReportError(f"{path} is not a GitHub CLI export: it holds no JSON array or object")
            try:
                for n, item in enumerate(stream.array() if first == "[" else stream.values(), 1):
                    pull = _pull(item)
                    if isinstance(pull, str):
                        export.problems.append(f"entry {n}: {pull}")
                    else:
                        export.pulls.append(pull)
            except JSONProblem as exc:
                export.problems.append(f"{exc} ({len(export.pulls)} pull requests read before it are kept)")
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return export


def _pull(item: object) -> PullRequest | str:
    """A pull request, or why the entry is not one."""
    if isinstance(item, TooDeep):
        return str(item)
    if not isinstance(item, dict):
        return "not an object"
    number = item.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        return "no pull request number"
    if number > LARGEST_NUMBER:
        return f"pull request number {str(number)[:30]}… is larger than any GitHub gives"
    state = str(item.get("state", "")).upper()
    merged_at, closed_at = _when(item.get("mergedAt")), _when(item.get("closedAt"))
    if state == "MERGED" or merged_at:
        status = "merged"
    elif state == "CLOSED":
        status = "closed"
    elif state == "OPEN":
        status = "open"
    else:
        return f"pull request #{number} has no state (OPEN, CLOSED or MERGED)"
    merge = item.get("mergeCommit")
    return PullRequest(
        number=number, title=_text(item.get("title"))[:300], state=status, author=_login(item.get("author")),
        created_at=_when(item.get("createdAt")), ended_at=merged_at or closed_at, url=_text(item.get("url")),
        merge_commit=_sha(merge.get("oid")) if isinstance(merge, dict) else None,
        commits=[sha for c in _list(item.get("commits")) if isinstance(c, dict) and (sha := _sha(c.get("oid")))],
        files=[_text(f.get("path")) for f in _list(item.get("files")) if isinstance(f, dict) and f.get("path")],
        reviews=[Review(_login(r.get("author")), str(r.get("state")), _text(r.get("body"))[:MESSAGE_CHARS],
                        _when(r.get("submittedAt")))
                 for r in _list(item.get("reviews")) if isinstance(r, dict) and r.get("state") in REVIEW_STATES],
    )


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _list(value: object) -> list:
    return value if isinstance(value, list) else []


def _login(value: object) -> str:
    login = value.get("login") if isinstance(value, dict) else None
    return f"human/{login}" if isinstance(login, str) and login else "human/unknown"


def _sha(value: object) -> str | None:
    return value.lower() if isinstance(value, str) and len(value) == 40 and all(
        c in "0123456789abcdefABCDEF" for c in value) else None


def _when(value: object) -> str | None:
    """GitHub's timestamps (`2024-05-01T10:00:00Z`) in UTC; a missing or unreadable one is None."""
    if not isinstance(value, str) or not value or value.startswith("0001-"):
        return None
    try:
        return datetime.fromisoformat(value).astimezone(UTC).isoformat()
    except ValueError:
        return None
