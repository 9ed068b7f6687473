"""What one enrichment may spend, from the `[lsp]` table of the user's tenure config or a project's
tenure.toml, which can only lower them (`servers.bounds_for`):

```toml
[lsp]
max_memory_mb = 3072   # a server whose processes together hold more is ended (Django 5.1 peaks at 2.9 GB)
max_minutes = 20       # a run stops here; the next `tenure index` schedules the rest
max_file_kb = 512      # larger files (generated code) are not asked about, and the run says so
```

Memory is watched, not limited: RLIMIT_AS would refuse Node its address-space reservations at
start, so the resident memory of the server's whole process group is read from /proc every
WATCH_S (its members found anew every few seconds) and the group is killed past the bound. Where
/proc is missing only the time bound holds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path

from tenure.config import ConfigError, number_error

WATCH_S = 0.5
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True)
class Bounds:
    max_memory_mb: int = 3072
    max_minutes: float = 20.0
    max_file_kb: int = 512

    @classmethod
    def of(cls, table: dict, where: str) -> Bounds:
        """The bounds a project's `[lsp]` table sets (its language tables aside); a wrong value is an error."""
        values = {}
        for f in fields(cls):
            if f.name in table:
                value = table[f.name]
                if wrong := number_error(value):
                    raise ConfigError(f"{where}: [lsp] {f.name} must be {wrong}, not {value!r}")
                values[f.name] = value
        return cls(**values)

    @property
    def max_rss(self) -> int:
        return int(self.max_memory_mb * 1024 * 1024)

    @property
    def max_seconds(self) -> float:
        return self.max_minutes * 60

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_kb * 1024)


class GroupMemory:
    """Resident bytes of every process in one process group (the server and what it spawned: node,
    tsserver, workers). Finding the members means reading every process's stat in /proc (~5 ms for
    a hundred processes, far more on a busy laptop), so that full scan runs every RESCAN ticks; the
    ticks between read only the members already known."""

    RESCAN = 10

    def __init__(self, pgid: int) -> None:
        self.pgid = pgid
        self._members: list[Path] = []
        self._ticks = 0

    def rss(self) -> int | None:
        """The group's resident bytes now; None where /proc cannot tell."""
        proc = Path("/proc")
        if not proc.is_dir():
            return None
        if self._ticks % self.RESCAN == 0:
            self._members = [entry for entry in proc.iterdir() if entry.name.isdigit()]
        self._ticks += 1
        total, members = 0, []
        for entry in self._members:
            rss = _member_rss(entry, self.pgid)
            if rss is not None:
                members.append(entry)
                total += rss
        self._members = members
        return total


def _member_rss(entry: Path, pgid: int) -> int | None:
    """The resident bytes of the process at /proc/PID when it is in the group, else None."""
    try:
        stat = (entry / "stat").read_text()
    except OSError:
        return None  # ended meanwhile, or not ours to read
    # "pid (comm) state ppid pgrp ... rss" — comm may hold spaces and parentheses: split after its end
    rest = stat[stat.rfind(")") + 2:].split()
    if len(rest) > 21 and int(rest[2]) == pgid:
        return int(rest[21]) * _PAGE
    return None
