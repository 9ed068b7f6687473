"""One language server kept alive across many files: started and initialised on first use,
restarted with backoff when it crashes or hangs, given up for good after a few failures."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tenure.state import make_state_dir
from tenure.structural.lsp.client import LspClient, LspError
from tenure.structural.lsp.servers import ServerRefused, ServerSpec
from tenure.words import counted

T = TypeVar("T")
MAX_RESTARTS = 2
BACKOFF_S = 1.0  # doubled after every restart


class GaveUp(Exception):
    """The server failed more often than it may restart: its language keeps tree-sitter's tiers."""


class ServerSession:
    def __init__(self, spec: ServerSpec, root: Path, timeout: float, max_restarts: int = MAX_RESTARTS,
                 backoff: float = BACKOFF_S, max_rss: int | None = None) -> None:
        self.spec = spec
        self.max_rss = max_rss
        self.root = root
        self.timeout = timeout
        self.max_restarts = max_restarts
        self.backoff = backoff
        self.client: LspClient | None = None
        self.restarts = 0
        self.failures: list[str] = []  # why each start or request failed, oldest first
        self.pids: list[int] = []  # every server process started (tests check none outlives close)
        self.server_info = ""

    def run(self, work: Callable[[LspClient], T]) -> T:
        """Run `work` against a live server; on a crash or timeout restart the server and run it again."""
        while True:
            try:
                return work(self._live())
            except LspError as exc:
                self.failures.append(str(exc))
                self._drop()
                if self.restarts >= self.max_restarts:
                    raise GaveUp(self.reason()) from exc
                time.sleep(self.backoff * 2**self.restarts)
                self.restarts += 1

    def reason(self) -> str:
        last = self.failures[-1] if self.failures else "unknown failure"
        return f"{self.spec.name} failed {counted(len(self.failures), 'time')}, last: {last}"

    def _live(self) -> LspClient:
        if self.client is None:
            argv = self.spec.argv()
            if argv is None:
                raise GaveUp(f"{self.spec.command[0]} not found ({self.spec.install})")
            try:
                options = self.spec.options(argv[0], self.root)
            except ServerRefused as exc:
                raise GaveUp(str(exc)) from exc
            client = LspClient(argv, self.root, self.timeout, max_rss=self.max_rss,
                               settings=self.spec.settings(self.root), scratch=make_state_dir(self.root))
            self.pids.append(client.pid)
            try:
                client.initialize(options=options)
                if self.spec.ready_log:
                    client.wait_for_log(self.spec.ready_log)
            except LspError:
                client.kill()
                raise
            self.client = client
            self.server_info = client.server_info
        return self.client

    def _drop(self) -> None:
        if self.client is not None:
            self.client.kill()
            self.client = None

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
