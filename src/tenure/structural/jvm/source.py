"""The JVM source `tenure index` runs after tree-sitter: class directories, jars and beans files
found in the repository (or named in tenure.toml, or ingested by hand) -> `bytecode` and `di`
edges and symbols. A repository without any of them costs one directory walk and reports nothing;
an origin whose content hash is unchanged is never read again (its class models are cached)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tenure.structural.jvm import di, merge
from tenure.structural.jvm.discover import JvmInputError, ModelCache, Origin, content_hash, find_inputs
from tenure.structural.jvm.model import ClassModel

if TYPE_CHECKING:
    from tenure.api import Tenure
    from tenure.structural.indexer import IndexReport

STATE_KEY = "jvm.state"
CACHE_DIR = "jvm"


@dataclass
class JvmState:
    """What the last run read (kept in the structural store's meta table)."""

    origins: dict[str, str] = field(default_factory=dict)  # origin -> content hash
    beans: list[str] = field(default_factory=list)  # beans origins written
    classpath: list[str] = field(default_factory=list)  # origins added by hand (`tenure bytecode ingest`)
    manual_beans: list[dict] = field(default_factory=list)  # {origin, profile, data}: `tenure di ingest`
    fingerprint: str = ""

    @classmethod
    def load(cls, tenure: Tenure) -> JvmState:
        raw = tenure.structural.get_meta(STATE_KEY)
        return cls(**json.loads(raw)) if raw else cls()

    def save(self, tenure: Tenure) -> None:
        tenure.structural.set_meta(STATE_KEY, json.dumps(self.__dict__))


class JvmSource:
    name = "jvm"

    def run(self, tenure: Tenure, report: IndexReport) -> dict:
        source_changed = bool(report.files_parsed or report.files_removed)
        return index_jvm(tenure, force=source_changed)


def ingest_classpath(tenure: Tenure, path: Path) -> dict:
    """Add a jar or class directory by hand; it is read again on every index from now on."""
    state = JvmState.load(tenure)
    entry = str(path.resolve())
    if not path.exists():
        raise JvmInputError(f"{path}: no such jar or class directory")
    if entry not in state.classpath:
        state.classpath.append(entry)
        state.save(tenure)
    return index_jvm(tenure, force=True)


def ingest_beans(tenure: Tenure, path: Path, profile: str = "") -> dict:
    """Add an actuator beans file by hand (its content is kept: the file may go away)."""
    contexts = di.read_beans_file(path, profile)  # raises BeansFileError before anything is stored
    state = JvmState.load(tenure)
    origin = str(path.resolve()) + (f"#{profile}" if profile else "")
    state.manual_beans = [b for b in state.manual_beans if b["origin"] != origin]
    state.manual_beans.append({"origin": origin, "profile": profile, "data": json.loads(path.read_bytes())})
    state.save(tenure)
    report = index_jvm(tenure, force=True)
    report["contexts"] = len(contexts)
    return report


def index_jvm(tenure: Tenure, force: bool = False) -> dict:
    state = JvmState.load(tenure)
    inputs = find_inputs(tenure.root, state.classpath)
    if not inputs and not state.manual_beans and not state.origins and not state.beans:
        return {}
    problems: list[str] = []
    digests: dict[str, str] = {}
    origins: list[Origin] = []
    for origin in inputs.origins:
        try:
            digests[origin.name] = content_hash(origin)
            origins.append(origin)
        except JvmInputError as exc:
            problems.append(str(exc))
    beans_hash = hashlib.blake2b(digest_size=16)
    for b in inputs.beans:
        beans_hash.update(f"{b.name}\0{b.profile}\0".encode() + (b.path.read_bytes() if b.path.is_file() else b""))
    beans_hash.update(json.dumps(state.manual_beans, sort_keys=True).encode())
    fingerprint = hashlib.blake2b(json.dumps([digests, beans_hash.hexdigest()], sort_keys=True).encode(),
                                  digest_size=16).hexdigest()
    if fingerprint == state.fingerprint and not force and not problems:
        return {"origins": len(origins), "unchanged": "yes"}

    cache = ModelCache(tenure.root / ".tenure" / CACHE_DIR)
    classes: list[tuple[Origin, ClassModel]] = []
    seen: set[str] = set()
    skipped = 0
    for origin in origins:
        try:
            held = cache.load(origin, digests[origin.name])
        except JvmInputError as exc:
            problems.append(str(exc))
            digests.pop(origin.name)
            continue
        skipped += len(held.skipped)
        problems += [f"{path}: {why}" for path, why in held.skipped[:20]]
        for m in held.models:
            if m.name not in seen:  # the first origin holding a class wins (class directories before jars)
                seen.add(m.name)
                classes.append((origin, m))
    cache.keep_only(set(digests.values()))

    source = merge.SourceSide.load(tenure.db)
    hierarchy = merge.Hierarchy({m.name: m for _, m in classes}, source)
    wiring = di.Wiring()
    for b in inputs.beans:
        try:
            wiring.add_contexts(b.name, di.read_beans_file(b.path, b.profile), hierarchy)
        except di.BeansFileError as exc:
            problems.append(str(exc))
    for manual in state.manual_beans:
        wiring.add_contexts(manual["origin"], di.parse_beans(manual["data"], manual["profile"]), hierarchy)
    aot = di.aot_context([m for _, m in classes])
    if aot is not None:
        wiring.add_contexts(di.AOT_CONTEXT, [aot], hierarchy)
    graph = merge.build_graph(classes, hierarchy, set(wiring.decided))
    wiring.decide_calls(graph.virtual_sites, hierarchy)

    store = tenure.structural
    with tenure.db.transaction():
        store.delete_source_edges(merge.SOURCE, [o for o in state.origins if o not in digests])
        for gone in state.origins:
            if gone not in digests:
                for generated in (False, True):
                    store.replace_source_symbols(_symbol_origin(gone, generated), [], generated)
        for name in digests:
            store.replace_source_edges(merge.SOURCE, name, graph.edges.get(name, []))
            for generated in (False, True):
                store.replace_source_symbols(_symbol_origin(name, generated), graph.symbols.get((name, generated), []),
                                             generated)
        store.delete_source_edges(di.SOURCE, [o for o in state.beans if o not in wiring.edges])
        for name, edges in wiring.edges.items():
            store.replace_source_edges(di.SOURCE, name, edges)
        state.origins, state.beans, state.fingerprint = digests, sorted(wiring.edges), fingerprint
        state.save(tenure)
    result = {
        "origins": len(digests), "classes": graph.classes, "methods": graph.methods,
        "bytecode edges": sum(len(e) for e in graph.edges.values()),
        "generated symbols": sum(len(s) for (_, gen), s in graph.symbols.items() if gen),
        "beans": wiring.beans, "di edges": sum(len(e) for e in wiring.edges.values()),
    }
    if graph.stale_classes:  # degraded, and said so: rebuild to let javac rule out tree-sitter's guesses
        result["stale classes"] = f"{graph.stale_classes} older than their source (they confirm, never refute)"
    if skipped or problems:
        result["skipped"] = f"{skipped} classes; " + "; ".join(problems[:5])
    return result


def _symbol_origin(origin: str, generated: bool) -> str:
    return f"bytecode:{origin}" + ("#generated" if generated else "")
