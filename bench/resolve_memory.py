"""Where the resolve workers' memory goes: the resolve stage of a full index alone (as
``bench/resolve_cpu.py`` runs it, this tree only), with the process tree's peak PSS and, per worker,
its memory, the parent's pages it copied and what its caches hold.

    python bench/resolve_memory.py [--path DIR] [--at 75] [--deep] [--set MODULE.NAME=N ...]

Printed: the tree's peak PSS (``/proc/PID/smaps_rollup`` summed every 0.1 s) and each process's Rss,
Pss, shared and private dirty pages at that peak; per worker after its batch number ``--at`` (16 files
a batch): the pages holding the parent's index (facts and symbols, mapped before the fork) and how
many of them it copied (written to: mostly reference counts of objects it read), by the type of the
objects on them, and its caches' entries. ``--deep``: also the bytes each cache reaches (walking
them, after the pages are counted: the walk itself touches the parent's objects). ``--set``: a
module-level limit changed in the measured process, e.g.
``tenure.structural.resolve.python.flows.FLOWS_CACHE_SIZE=512``. The peak PSS holds the parent's map of
the index's pages (some 30 MB), and with ``--deep`` the pages that walk copies: compare runs of one kind.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import compiled
from resolve_cpu import _RESOLVE, HERE, indexed

# Run in the measured process before `_RESOLVE`: the index's pages mapped before the workers fork,
# each worker's report written to $REPORTS/<pid>.json after every batch.
_PRELUDE = r"""
import gc, importlib, json, os, struct, sys
from tenure.structural import workers

for limit in filter(None, os.environ["LIMITS"].split(",")):
    name, value = limit.split("=")
    module, attr = name.rsplit(".", 1)
    setattr(importlib.import_module(module), attr, int(value))

_PAGES = {}  # page -> the types of the index's objects on it (mapped in the parent, before the fork)
_SKIP = ("type", "module", "function", "StructMeta", "NoneType", "bool")


def _walk(roots, visit):
    seen, stack = set(), list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen or type(obj).__name__ in _SKIP:
            continue
        seen.add(id(obj))
        visit(obj)
        stack.extend(gc.get_referents(obj))
    return seen


def _index_roots(index):
    return [index._facts, index.by_fqn, index.by_name, index.by_parent, index._by_path, index.module_paths]


def _map_pages(obj):
    start = id(obj)
    for page in range(start >> 12, ((start + sys.getsizeof(obj) - 1) >> 12) + 1):
        _PAGES.setdefault(page, set()).add(type(obj).__name__)


_pool = workers.process_pool
def _mapped_pool(count, fork=False):
    if fork:
        _walk(_index_roots(workers._SHARED_INDEX), _map_pages)
    return _pool(count, fork)
workers.process_pool = _mapped_pool


def _rollup():
    with open("/proc/self/smaps_rollup") as handle:
        return {p[0].rstrip(":"): int(p[1]) >> 10 for p in map(str.split, handle) if len(p) == 3 and p[2] == "kB"}


def _copied():
    by_type, copied = {}, 0
    with open("/proc/self/pagemap", "rb") as pagemap:
        for page, types in _PAGES.items():
            pagemap.seek(page * 8)
            entry = struct.unpack("Q", pagemap.read(8))[0]
            mine = entry >> 63 & 1 and entry >> 56 & 1  # (present, and mapped by this process alone)
            copied += mine
            for name in types:
                counts = by_type.setdefault(name, [0, 0])
                counts[0] += 1
                counts[1] += mine
    return {"index pages": len(_PAGES), "copied": copied,
            "by type (pages, copied)": dict(sorted(by_type.items(), key=lambda kv: -kv[1][1])[:10])}


def _caches():
    from tenure.structural.resolve import answers
    from tenure.structural.resolve.python import analysed, flows, modules

    return {"flows": flows._FLOWS, "analysed": analysed.Analysed._cache, "answered": answers.ANSWERED,
            "filters": answers._FILTERS, "parts": answers._PARTS, "followed": modules.FOLLOWED,
            "key bits": answers._KEY_BITS, "wide keys": answers._WIDE_KEYS}


def _entries(table):
    nested = all(isinstance(v, dict) for v in table.values()) and table
    return sum(map(len, table.values())) if nested else len(table)


def _deep():
    sizes, seen = {}, _walk(_index_roots(workers._SHARED_INDEX), lambda obj: None)
    for name, table in _caches().items():
        sized = []
        seen |= _walk([table], lambda obj: sized.append(sys.getsizeof(obj)) if id(obj) not in seen else None)
        sizes[name] = sum(sized) >> 20
    return sizes


_batch, _batches = workers._resolve_batch, [0]
def _reported_batch(batch):
    done = _batch(batch)
    _batches[0] += 1
    report = {"batches": _batches[0], "MB": {k: _rollup()[k] for k in ("Rss", "Pss", "Shared_Dirty", "Private_Dirty")},
              "entries": {name: _entries(table) for name, table in _caches().items()}}
    if _batches[0] == int(os.environ["AT"]):
        report["pages"] = _copied()
        if os.environ["DEEP"]:
            report["MB of caches"] = _deep()
    with open(os.path.join(os.environ["REPORTS"], f"{os.getpid()}.json"), "a") as out:
        out.write(json.dumps(report) + "\n")
    return done
workers._resolve_batch = _reported_batch
"""


def tree_of(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, stack = [], [root]
    while stack:
        found.append(pid := stack.pop())
        stack.extend(children.get(pid, []))
    return found


def rollup(pid: int) -> dict[str, int]:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            return {p[0].rstrip(":"): int(p[1]) >> 10 for p in map(str.split, handle) if len(p) == 3 and p[2] == "kB"}
    except OSError:
        return {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=None, help="an indexed directory (default: Django)")
    parser.add_argument("--at", type=int, default=75, help="the worker batch after which pages are counted")
    parser.add_argument("--deep", action="store_true", help="also the bytes each cache reaches")
    parser.add_argument("--set", action="append", default=[], help="MODULE.NAME=N, a limit changed")
    args = parser.parse_args()
    root = indexed(args.path)
    with tempfile.TemporaryDirectory(prefix="resolve-memory-") as reports:
        env = {**os.environ, "PYTHONPATH": str(compiled(HERE)), "PYTHONHASHSEED": "0", "REPORTS": reports,
               "AT": str(args.at), "DEEP": "1" if args.deep else "", "LIMITS": ",".join(args.set)}
        child = subprocess.Popen([sys.executable, "-c", _PRELUDE + _RESOLVE, str(root), "workers"], env=env,
                                 stdout=subprocess.PIPE, text=True)
        peak: tuple[int, dict[int, dict[str, int]]] = (0, {})
        while child.poll() is None:
            at = {pid: rollup(pid) for pid in tree_of(child.pid)}
            if (total := sum(mb.get("Pss", 0) for mb in at.values())) > peak[0]:
                peak = (total, at)
            time.sleep(0.1)
        cpu, own, digest = child.stdout.read().split()  # type: ignore[union-attr]
        print(f"resolutions {digest}; workers' CPU {cpu} s, own {own} s; peak PSS of the tree {peak[0]} MB:")
        for pid, mb in peak[1].items():
            print(f"  {'parent' if pid == child.pid else 'worker'} {pid}: " +
                  ", ".join(f"{k} {mb.get(k, 0)} MB" for k in ("Rss", "Pss", "Shared_Dirty", "Private_Dirty")))
        for name in sorted(os.listdir(reports)):
            with open(os.path.join(reports, name)) as lines:
                reported = [json.loads(line) for line in lines]
            print(f"worker {name.removesuffix('.json')}, {reported[-1]['batches']} batches:")
            for report in reported:
                if "pages" in report or report is reported[-1]:
                    print("  " + json.dumps(report))


if __name__ == "__main__":
    main()
