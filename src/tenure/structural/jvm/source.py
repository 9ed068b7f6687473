"""The JVM source `tenure index` runs after tree-sitter: class directories, jars and beans files
found in the repository (or named in tenure.toml, or ingested by hand) -> `bytecode` and `di`
edges and symbols. A repository without JVM code (or tenure.toml, or inputs found before) costs no
walk and reports nothing, one with it a directory walk per index (class directories and jars are
build output git ignores); an origin whose content hash is unchanged is never read again (its class
models are cached)."""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tenure.structural.jvm import di, merge, model
from tenure.structural.jvm.after_index import JvmState
from tenure.structural.jvm.discover import (
    BeansInput,
    JvmInputError,
    ModelCache,
    Origin,
    content_hash,
    find_inputs,
)
from tenure.structural.jvm.dispatch import Instantiation
from tenure.structural.jvm.model import ClassModel
from tenure.structural.jvm.project import Hierarchy, SourceSide
from tenure.words import first_few

if TYPE_CHECKING:
    from tenure.structural.after_index import SourceContext

CACHE_DIR = "jvm"


def ingest_classpath(context: SourceContext, path: Path) -> dict:
    """Add a jar or class directory by hand; it is read again on every index from now on."""
    state = JvmState.load(context)
    entry = str(path.resolve())
    if not path.exists():
        raise JvmInputError(f"{path}: no such jar or class directory")
    if not (path.is_dir() or zipfile.is_zipfile(path)):  # (else kept for good, failing every index)
        raise JvmInputError(f"{path}: neither a jar nor a directory of class files")
    if entry not in state.classpath:
        state.classpath.append(entry)
        state.save(context)
    return index_jvm(context, force=True)


def ingest_beans(context: SourceContext, path: Path, profile: str = "") -> dict:
    """Add an actuator beans file by hand (its content is kept: the file may go away)."""
    contexts = di.read_beans_file(path, profile)  # raises BeansFileError before anything is stored
    state = JvmState.load(context)
    origin = str(path.resolve()) + (f"#{profile}" if profile else "")
    state.manual_beans = [b for b in state.manual_beans if b["origin"] != origin]
    state.manual_beans.append({"origin": origin, "profile": profile, "data": json.loads(path.read_bytes())})
    state.save(context)
    report = index_jvm(context, force=True)
    report["contexts"] = len(contexts)
    return report


@dataclass
class _Run:
    """One pass: what was read, and what could not be (whose previous edges are kept)."""

    digests: dict[str, str] = field(default_factory=dict)  # readable origin -> content hash
    classes: list[tuple[Origin, ClassModel]] = field(default_factory=list)
    unreadable: set[str] = field(default_factory=set)  # origins and beans files that failed this time
    problems: list[str] = field(default_factory=list)
    skipped_classes: int = 0


def index_jvm(context: SourceContext, force: bool = False) -> dict:
    state = JvmState.load(context)
    inputs = find_inputs(context.root, state.classpath)
    if not inputs and not state.manual_beans and not state.origins and not state.beans:
        return {}
    run = _Run()
    origins = _hash_origins(inputs.origins, run)
    fingerprint = _fingerprint(run.digests, inputs.beans, state.manual_beans)
    outside = {"not read": first_few(inputs.outside, 5, "; ")} if inputs.outside else {}
    if fingerprint == state.fingerprint and not force and not run.problems:
        return {"origins": len(origins), "unchanged": "yes", **outside}
    _read_origins(ModelCache(context.state_dir / CACHE_DIR), origins, state, run)
    hierarchy = Hierarchy({m.name: m for _, m in run.classes}, SourceSide.load(context.structural))
    wiring = _wiring(inputs.beans, state.manual_beans, hierarchy, run)
    made = Instantiation.of((m for _, m in run.classes), wired=wiring.beans > 0)
    graph = merge.build_graph(run.classes, hierarchy, set(wiring.decided), made)
    wiring.decide_calls(graph.virtual_sites, hierarchy)
    _store(context, state, run, graph, wiring, fingerprint)
    result = {
        "origins": len(run.digests), "classes": graph.classes, "methods": graph.methods,
        "bytecode edges": sum(len(e) for e in graph.edges.values()),
        "generated symbols": sum(len(s) for (_, gen), s in graph.symbols.items() if gen),
        "beans": wiring.beans, "di edges": sum(len(e) for e in wiring.edges.values()), **outside,
    }
    if graph.stale_classes:  # degraded, and said so: rebuild to let javac rule out tree-sitter's guesses
        result["stale classes"] = f"{graph.stale_classes} older than their source (they confirm, never refute)"
    if run.skipped_classes or run.problems:
        kept = f" (last good edges of {len(run.unreadable)} kept)" if run.unreadable else ""
        result["skipped"] = f"{run.skipped_classes} classes{kept}; " + "; ".join(run.problems[:5])
    return result


def _hash_origins(origins: list[Origin], run: _Run) -> list[Origin]:
    readable = []
    for origin in origins:
        try:
            run.digests[origin.name] = content_hash(origin)
            readable.append(origin)
        except JvmInputError as exc:
            run.problems.append(str(exc))
            run.unreadable.add(origin.name)
    return readable


def _fingerprint(digests: dict[str, str], beans: list[BeansInput], manual_beans: list[dict]) -> str:
    h = hashlib.blake2b(json.dumps(digests, sort_keys=True).encode(), digest_size=16)
    h.update(f"models {model.MODEL_FORMAT}\0".encode())  # a newer reader reads every origin again
    for b in beans:
        try:
            content = b.path.read_bytes()
        except OSError:
            content = b""  # reported when the file is read for its wiring
        h.update(f"{b.name}\0{b.profile}\0".encode() + content)
    h.update(json.dumps(manual_beans, sort_keys=True).encode())
    return h.hexdigest()


def _read_origins(cache: ModelCache, origins: list[Origin], state: JvmState, run: _Run) -> None:
    seen: set[str] = set()
    for origin in origins:
        try:
            held = cache.load(origin, run.digests[origin.name])
        except JvmInputError as exc:
            run.problems.append(str(exc))
            del run.digests[origin.name]
            run.unreadable.add(origin.name)
            continue
        run.skipped_classes += len(held.skipped)
        run.problems += [f"{path}: {why}" for path, why in held.skipped[:20]]
        for m in held.models:
            if m.name not in seen:  # the first origin holding a class wins (class directories before jars)
                seen.add(m.name)
                run.classes.append((origin, m))
    # an unreadable origin's models stay cached with its last good edges
    cache.keep_only(set(run.digests.values()) | {state.origins[o] for o in run.unreadable if o in state.origins})


def _wiring(beans: list[BeansInput], manual_beans: list[dict], hierarchy: Hierarchy, run: _Run) -> di.Wiring:
    wiring = di.Wiring()
    for b in beans:
        try:
            wiring.add_contexts(b.name, di.read_beans_file(b.path, b.profile), hierarchy)
        except di.BeansFileError as exc:
            run.problems.append(str(exc))
            run.unreadable.add(b.name)
    for manual in manual_beans:  # validated when ingested
        wiring.add_contexts(manual["origin"], di.parse_beans(manual["data"], manual["profile"]), hierarchy)
    aot = di.aot_context([m for _, m in run.classes])
    if aot is not None:
        wiring.add_contexts(di.AOT_CONTEXT, [aot], hierarchy)
    return wiring


def _store(context: SourceContext, state: JvmState, run: _Run, graph: merge.BytecodeGraph, wiring: di.Wiring,
           fingerprint: str) -> None:
    """Swap in every origin's edges and symbols in one transaction; origins gone from the repository
    lose theirs, origins that failed to read this time keep their last good ones."""
    store = context.structural
    gone = [o for o in state.origins if o not in run.digests and o not in run.unreadable]
    with context.db.transaction():
        store.delete_source_edges(merge.SOURCE, gone)
        for name in [*gone, *run.digests]:
            for generated in (False, True):
                store.replace_source_symbols(_symbol_origin(name, generated), graph.symbols.get((name, generated), []),
                                             generated)
        for name in run.digests:
            store.replace_source_edges(merge.SOURCE, name, graph.edges.get(name, []))
        store.delete_source_edges(di.SOURCE, [o for o in state.beans if o not in wiring.edges
                                              and o not in run.unreadable])
        for name, edges in wiring.edges.items():
            store.replace_source_edges(di.SOURCE, name, edges)
        state.origins = {**{o: d for o, d in state.origins.items() if o in run.unreadable}, **run.digests}
        state.beans = sorted(set(wiring.edges) | (set(state.beans) & run.unreadable))
        state.fingerprint = fingerprint
        state.save(context)


def _symbol_origin(origin: str, generated: bool) -> str:
    return f"bytecode:{origin}" + ("#generated" if generated else "")
