"""The language server's memory is the sum over its process group, including processes it spawns
after the watch began (found at the next full scan), and nothing outside the group."""

import os
import subprocess
import sys
import time

import pytest

from tenure.structural.lsp.bounds import GroupMemory

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")

HOLD = "import sys, time; block = bytearray(int(sys.argv[1]) << 20); time.sleep(60)"


def _spawn(mb: int, group: int | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", HOLD, str(mb)],
                            process_group=0 if group is None else group)


def _until_above(watch: GroupMemory, floor: int) -> int:
    """The group's memory once the watch (ticking as the client's thread does) reads it above `floor`."""
    for _ in range(200):
        if (rss := watch.rss() or 0) > floor:
            return rss
        time.sleep(0.05)
    raise AssertionError(f"the group never held more than {floor >> 20} MB")


def test_a_child_spawned_after_the_watch_began_is_counted_at_the_next_full_scan():
    server = _spawn(40)
    outsider = _spawn(80)
    try:
        watch = GroupMemory(server.pid)
        alone = _until_above(watch, 40 << 20)
        assert alone < 80 << 20  # the outsider, in its own group, is not counted
        child = _spawn(60, group=server.pid)
        try:
            # (above what the server alone reaches: 40 MB and its interpreter; `alone` may have been read
            # while it still allocated, so the floor is absolute, not `alone` plus the child)
            both = _until_above(watch, 100 << 20)
        finally:
            child.kill()
            child.wait()
        assert watch.rss() < both  # a member that ended drops out without a full scan
    finally:
        for p in (server, outsider):
            p.kill()
            p.wait()
