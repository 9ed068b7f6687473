"""The knowledge map: one cell per element at a level, what is known there, and the gaps.

Levels: `module` (modules as the index names them), `package` (directories holding code, as
`path:<dir>/`), `service` (directories with a build manifest, as `service:<name>`). A memory
documents a cell when one of its elements lies in it at that level or finer: a pitfall on
`OrderProcessor.checkout` documents its module, its directory and its service.

The map is of the architecture: modules and directories of tests and scripts are cells only where
something is written about them (their gaps are counted apart, not as the project's).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from tenure.memories import ranking
from tenure.memories.errors import MemoriesError
from tenure.memories.store import parse_stamp
from tenure.namespace.elements import Place, directory_of, kind_of, places, services
from tenure.namespace.roles import is_architecture
from tenure.namespace.symbols import indexed_files
from tenure.storage import Database
from tenure.words import counted

LEVELS = ("module", "package", "service")
TITLES_PER_CELL = 3


def build(db: Database, code: Database, root: Path, level: str, now: datetime,
          titles: Callable[[list[int]], dict[int, str]]) -> dict:
    if level not in LEVELS:
        raise MemoriesError(f"level {level!r} is not one of {', '.join(LEVELS)}")
    cells, aside = universe(code, root, level)
    memories = _live(db)
    where = places(code, {e for m in memories.values() for e in m["elements"]})
    members: dict[str, list[int]] = defaultdict(list)
    project_wide = []
    for memory_id, m in memories.items():
        homes = {c for e in m["elements"] for c in cells_of(where[e], level, cells)}
        for e in m["elements"]:
            if level == "service" and kind_of(e) == "service" and e not in cells:
                cells[e] = Place(e, frozenset(), frozenset())  # named by hand: no manifest says where it lives
                homes.add(e)
        homes |= {c for e in m["elements"] for c in cells_of(where[e], level, aside)}
        for cell in homes:
            members[cell].append(memory_id)
            if cell in aside:
                cells[cell] = aside[cell]
        if not homes:
            project_wide.append(memory_id)
    shown = titles(sorted({i for ids in members.values() for i in ids[-TITLES_PER_CELL:]}))
    rows = [cell_of(e, members.get(e, []), memories, now, shown) for e in sorted(cells)]
    documented = sum(1 for r in rows if not r["gap"])
    left_out = len(set(aside) - set(cells))
    headline = f"{documented} of {len(rows)} elements documented"
    if left_out:
        noun = "module" if level == "module" else "directory"
        headline += f"; {counted(left_out, noun)} of tests or scripts, with nothing written, not counted"
    return {"level": level, "headline": headline, "documented": documented, "elements": len(rows), "cells": rows,
            "leftOut": left_out, "projectWide": {"memories": len(project_wide)}}


def universe(db: Database, root: Path, level: str) -> tuple[dict[str, Place], dict[str, Place]]:
    """Every element of the architecture at the level, documented or not (the gaps are the point), and
    apart those of tests and scripts only (a module of test files, a directory holding only tests)."""
    files = indexed_files(db)
    if level == "service":
        return services(root), {}
    cells: dict[str, Place] = {}
    aside: dict[str, Place] = {}
    if level == "module":
        by_module: dict[str, set[str]] = defaultdict(set)
        for path, file in files.items():
            if file.module:
                by_module[file.module].add(path)
        for m, paths in by_module.items():
            where = cells if any(is_architecture(p) for p in paths) else aside
            where[f"module:{m}"] = Place(f"module:{m}", frozenset({m}), frozenset(paths))
        return cells, aside
    by_directory: dict[str, set[str]] = defaultdict(set)
    for path in files:
        by_directory[directory_of(path)].add(path)
    for d, paths in by_directory.items():
        where = cells if any(is_architecture(p) for p in paths) else aside
        where[_path_element(d)] = Place(_path_element(d), frozenset(), frozenset({d}))
    return cells, aside


def cells_of(place: Place, level: str, cells: dict[str, Place]) -> set[str]:
    """The cells an element lies in at this level."""
    if place.element in cells:
        return {place.element}
    if level == "module":
        return {f"module:{m}" for m in place.modules} & set(cells)
    if level == "package":
        return {_path_element(directory_of(p)) for p in place.paths if not p.endswith("/")} & set(cells)
    homes = set()
    for p in place.paths:
        inside = [c for c, cp in cells.items() if cp.paths and p.startswith(next(iter(cp.paths)))]
        if inside:  # the innermost service holds it
            homes.add(max(inside, key=lambda c: len(next(iter(cells[c].paths)))))
    return homes


def cell_of(element: str, ids: list[int], memories: dict[int, dict], now: datetime, titles: dict[int, str]) -> dict:
    kinds: dict[str, int] = defaultdict(int)
    for i in ids:
        kinds[memories[i]["kind"]] += 1
    ages = [ranking.age_days(memories[i]["last_true"], now) for i in ids]
    return {
        "element": element,
        "memories": len(ids),
        "kinds": dict(kinds),
        "pitfalls": kinds.get("pitfall", 0),
        "freshestDays": int(min(ages)) if ages else None,
        "stalestDays": int(max(ages)) if ages else None,
        "verify": sum(1 for i in ids if memories[i]["drifted"]),
        "known": [titles[i] for i in ids[-TITLES_PER_CELL:] if i in titles],
        "gap": not ids,
    }


def _live(db: Database) -> dict[int, dict]:
    found: dict[int, dict] = {}
    for r in db.query("""SELECT m.id, m.kind, m.confirmed_at, m.verify, e.element FROM memories m
                         JOIN memory_elements e ON e.memory_id = m.id WHERE m.superseded_by IS NULL ORDER BY m.id"""):
        last_true = parse_stamp(r["confirmed_at"])
        m = found.setdefault(r["id"], {"kind": r["kind"], "last_true": last_true, "elements": [],
                                       "drifted": bool(r["verify"])})
        m["elements"].append(r["element"])
    return found


def _path_element(directory: str) -> str:
    return f"path:{directory}" if directory else "path:./"
