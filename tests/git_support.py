"""A git repository the test builds commit by commit, with fixed authors and dates."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tenure import Tenure

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
# a small module the history tests commit and edit: a class with two methods and a function
SERVICE = '''class Settlement:
    def retry(self, payment):
        return self.book(payment)

    def book(self, payment):
        return payment


def audit(payment):
    return payment
'''


class GitRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.when = START
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, when: datetime | None = None) -> str:
        at = (when or self.when).isoformat()
        env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
               "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
               "GIT_AUTHOR_DATE": at, "GIT_COMMITTER_DATE": at, "GIT_CONFIG_GLOBAL": os.devnull,
               "GIT_CONFIG_NOSYSTEM": "1"}
        return subprocess.run(["git", "-C", str(self.root), *args], check=True, capture_output=True, text=True,
                              env=env).stdout

    def write(self, files: dict[str, str]) -> None:
        for rel, text in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def commit(self, message: str, files: dict[str, str] | None = None, days: float = 1,
               remove: tuple[str, ...] = ()) -> str:
        """Write `files`, remove `remove`, commit everything `days` after the previous commit; its sha."""
        self.when += timedelta(days=days)
        self.write(files or {})
        for rel in remove:
            self.git("rm", "-q", rel)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def commit_dated(self, message: str, files: dict[str, str], author: str, committer: str) -> str:
        """Commit `files` with the raw dates `author` and `committer` ("<seconds> <offset>", or anything:
        git's own commands refuse dates before 1970), written as a commit object by hand; its sha."""
        self.write(files)
        self.git("add", "-A")
        tree = self.git("write-tree").strip()
        header = f"tree {tree}\nparent {self.head()}\nauthor Ada <ada@example.com> {author}\n" \
                 f"committer Ada <ada@example.com> {committer}\n\n{message}\n"
        sha = subprocess.run(["git", "-C", str(self.root), "hash-object", "-t", "commit", "-w", "--literally",
                              "--stdin"], input=header, check=True, capture_output=True, text=True).stdout.strip()
        self.git("update-ref", "HEAD", sha)
        return sha

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def revert(self, sha: str, days: float = 1) -> str:
        self.when += timedelta(days=days)
        self.git("revert", "--no-edit", sha)
        return self.head()

    def index(self) -> None:
        with Tenure.open(self.root, discover=False) as t:
            t.index()


@pytest.fixture
def git_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GitRepo]:
    monkeypatch.setenv("TENURE_ENRICH", "off")  # no language server started in the background
    yield GitRepo(tmp_path / "repo")
