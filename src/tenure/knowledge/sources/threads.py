"""PR and issue threads exported with the GitHub CLI:

    gh pr view 412 --json number,title,body,comments,reviews,state,author,createdAt,mergedAt,files > prs/412.json
    gh issue view 88 --json number,title,body,comments,state,author,createdAt,closedAt > prs/issue-88.json

one thread per file or a JSON list of them, in the folders of `[knowledge] threads` (default
`.tenure/threads/` and `prs/`). `tenure knowledge import-threads FILE...` copies exports into
`.tenure/threads/`, one file per thread. A thread is a PR when it has what only PRs have (reviews,
files, mergedAt, a /pull/ URL). Its description and every comment and review are sections.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tenure.files import write_atomic
from tenure.knowledge.sections import Section
from tenure.knowledge.sources import THIN_WORDS, Skipped, SourceDocument, word_count

MAX_BYTES = 20 * 1024 * 1024
IMPORT_DIR = ".tenure/threads"
LARGEST_NUMBER = 2**63 - 1  # SQLite's largest integer: GitHub's numbers are far below
_PR_ONLY = ("reviews", "files", "mergedAt", "baseRefName", "headRefName", "additions", "reviewDecision")


class ThreadError(ValueError):
    """A file that holds no thread export; the message says what is wrong with it."""


def is_pr(thread: dict[str, Any]) -> bool:
    return any(k in thread for k in _PR_ONLY) or "/pull/" in str(thread.get("url", ""))


def threads_in(data: Any, where: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The threads of one export (an object or a list of them), each checked for number and title, and
    why each entry that is not a thread was skipped (its neighbours are kept)."""
    items = data if isinstance(data, list) else [data]
    threads, skipped = [], []
    for position, item in enumerate(items):
        label = f"{where}[{position}]" if isinstance(data, list) else where
        if (problem := _not_a_thread(item)) is not None:
            skipped.append(f"{label}: {problem}")
        else:
            threads.append(item)
    return threads, skipped


def _not_a_thread(item: Any) -> str | None:
    if not isinstance(item, dict):
        return f"a thread is a JSON object, not {type(item).__name__}"
    number = item.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number <= LARGEST_NUMBER:
        return "no 'number' (export with gh pr view N --json number,title,body,...)"
    if not isinstance(item.get("title"), str):
        return "no 'title'"
    return None


def load_file(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The threads of an export file and the entries skipped; ThreadError when it holds no export at all."""
    if path.stat().st_size > MAX_BYTES:
        raise ThreadError(f"{path}: over {MAX_BYTES // (1024 * 1024)} MB")
    try:
        data = json.loads(path.read_text("utf-8"))
    except UnicodeDecodeError as exc:
        raise ThreadError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise ThreadError(f"{path}: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    except RecursionError as exc:
        raise ThreadError(f"{path}: JSON nested too deep to read") from exc
    return threads_in(data, str(path))


def read(root: Path, folders: tuple[str, ...]) -> Iterator[SourceDocument | Skipped]:
    """The threads of the exports in `folders` (a cloned repository's `[knowledge] threads`): only inside
    the repository; a folder or file that leads out of it (`..`, an absolute path, a link) is skipped and
    named, never read."""
    seen: set[str] = set()
    top = root.resolve()
    for folder in folders:
        base = (top / folder).resolve()
        if not base.is_relative_to(top):
            yield Skipped(folder, f"outside the repository ({base}): threads are read only inside it")
            continue
        if not base.is_dir():
            continue
        for path in _exports(base):
            rel = path.relative_to(top).as_posix()
            if not path.resolve().is_relative_to(top):
                yield Skipped(rel, "a link to outside the repository: not read")
                continue
            try:
                threads, skipped = load_file(path)
            except (ThreadError, OSError) as exc:
                yield Skipped(rel, str(exc).replace(str(path), rel))
                continue
            for reason in skipped:
                yield Skipped(rel, reason.replace(str(path), rel))
            for thread in threads:
                doc = document(thread, rel)
                if doc.key not in seen:  # the same thread exported twice: the first file read wins
                    seen.add(doc.key)
                    yield doc


def _exports(base: Path) -> list[Path]:
    """The `.json` files under `base`, in order, without going into linked folders (one may lead anywhere)."""
    found = [Path(folder) / name for folder, _, names in os.walk(base) for name in names if name.endswith(".json")]
    return sorted(found)


def document(thread: dict[str, Any], path: str) -> SourceDocument:
    pr = is_pr(thread)
    number = thread["number"]
    kind = "pr" if pr else "issue"
    sections = [Section((f"{'PR' if pr else 'Issue'} #{number}: {thread['title']}",), 0,
                        f"{thread['title']}\n\n{_text(thread.get('body'))}".strip())]
    for entry in _discussion(thread):
        sections.append(Section((f"#{number}", entry[0]), 0, entry[1]))
    prose = _text(thread.get("body")) + " " + " ".join(s.text for s in sections[1:])
    words = word_count(prose)
    files = [f.get("path") for f in thread.get("files") or [] if isinstance(f, dict) and isinstance(f.get("path"), str)]
    meta = {"number": number, "state": thread.get("state"), "author": _login(thread.get("author")),
            "url": thread.get("url"), "merged_at": thread.get("mergedAt"), "closed_at": thread.get("closedAt"),
            "files": files, "file": path}
    return SourceDocument(
        key=f"{kind}:{number}", kind=kind, origin="threads", ref=f"#{number}", title=thread["title"],
        sections=tuple(s for s in sections if s.text.strip()), path=path,
        thin_reason=f"no description or discussion ({words} words)" if words < THIN_WORDS else None,
        authored_at=thread.get("createdAt") if isinstance(thread.get("createdAt"), str) else None,
        meta={k: v for k, v in meta.items() if v not in (None, [])},
    )


def _discussion(thread: dict[str, Any]) -> list[tuple[str, str]]:
    """(heading, text) of every review and comment with text, in time order."""
    entries: list[tuple[str, str, str]] = []
    for review in thread.get("reviews") or []:
        if isinstance(review, dict) and _text(review.get("body")).strip():
            state = str(review.get("state") or "").lower().replace("_", " ")
            entries.append((str(review.get("submittedAt") or ""),
                            f"review by {_login(review.get('author'))}" + (f" ({state})" if state else ""),
                            _text(review.get("body"))))
    for comment in thread.get("comments") or []:
        if isinstance(comment, dict) and _text(comment.get("body")).strip():
            entries.append((str(comment.get("createdAt") or ""), f"comment by {_login(comment.get('author'))}",
                            _text(comment.get("body"))))
    entries.sort(key=lambda e: e[0])
    return [(heading, body) for _, heading, body in entries]


def _text(value: Any) -> str:
    return value.replace("\r\n", "\n") if isinstance(value, str) else ""


def _login(author: Any) -> str:
    if isinstance(author, dict):
        return str(author.get("login") or author.get("name") or "someone")
    return str(author) if isinstance(author, str) and author else "someone"


def import_files(root: Path, files: list[Path]) -> dict:
    """Copy the threads of these exports into .tenure/threads/ (one file each, written atomically); a
    file that holds no export, and an entry that is no thread, is reported with its reason (the other
    threads of its file are imported)."""
    target = root / IMPORT_DIR
    imported: list[str] = []
    failed: list[dict] = []
    for file in files:
        try:
            threads, skipped = load_file(file)
        except (ThreadError, OSError) as exc:
            failed.append({"file": str(file), "reason": str(exc)})
            continue
        failed += [{"file": str(file), "reason": reason} for reason in skipped]
        target.mkdir(parents=True, exist_ok=True)
        for thread in threads:
            name = f"{'pr' if is_pr(thread) else 'issue'}-{thread['number']}.json"
            write_atomic(target / name, json.dumps(thread, ensure_ascii=False, indent=1))
            imported.append(f"{IMPORT_DIR}/{name}")
    return {"imported": imported, "failed": failed, "folder": IMPORT_DIR}
