"""Worker processes of an index: files parsed in a pool (results in order, as they are done) and files
resolved in processes forked over the project's index, which leave each other the analyses they make.
Fewer files than PARALLEL_THRESHOLD are done in the index's own process.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

import msgspec

from tenure.state import process_folder
from tenure.structural.languages import language_table
from tenure.structural.parse import extractor, parse_one
from tenure.structural.resolve import ProjectIndex, ProjectView, Resolved, resolver_for
from tenure.structural.store import key_ids
from tenure.structural.vendored import cheap_reason

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.context import BaseContext

    from tenure.structural.discover import Candidate
    from tenure.structural.report import Progress

PARALLEL_THRESHOLD = 64  # below this many files to parse, a process pool costs more than it saves


def _exit_with_parent(parent: int) -> None:
    """A worker leaves when its index process is gone (killed): it would otherwise wait for work
    forever, holding its copy of the project's facts."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def process_pool(workers: int, fork: bool = False) -> ProcessPoolExecutor:
    """Worker processes that leave with their parent (`fork_context`: on the fork start method).
    Imported here: an update of a few files starts none, and multiprocessing is a tenth of a start."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, mp_context=fork_context() if fork else None,
                               initializer=_exit_with_parent, initargs=(os.getpid(),))


def fork_context() -> BaseContext | None:
    """multiprocessing's fork start method, where the platform has one."""
    import multiprocessing

    return multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


def _worker_count() -> int:
    return min(os.cpu_count() or 1, 8)


def _parse_batch(items: list[tuple[str, str, bytes, tuple[str, ...]]]) -> list[tuple[bytes | None, str]]:
    return [parse_one(*item) for item in items]


def parse_all(cands: list[Candidate], progress: Progress | None,
              full_analysis: tuple[str, ...] = ()) -> Iterator[tuple[bytes | None, str]]:
    """Each file's (encoded facts, error), in order, as workers finish them: the caller stores
    one batch while the next is parsed. `full_analysis`: see `parse_one`."""
    items = [(c.spec.name, c.path, c.content or b"", full_analysis) for c in cands]
    workers = _worker_count()
    if len(items) < PARALLEL_THRESHOLD or workers < 2:
        for i, item in enumerate(items):
            yield parse_one(*item)
            if progress:
                progress("parse", i + 1, len(items))
        return
    batches = [items[i : i + 32] for i in range(0, len(items), 32)]
    for name in {c.spec.extractor for c in cands} | {"query"}:  # (imported once, before the workers fork)
        with contextlib.suppress(Exception):  # (one that fails to import fails its files, in the workers)
            extractor(name)
    for spec in {c.spec for c in cands}:  # (compiled once too: JavaScript's query takes 0.05 s of CPU)
        with contextlib.suppress(Exception):  # (as above: the files fail in the workers)
            _ = spec.query  # (the property compiles it and keeps it)
    done = 0
    with process_pool(workers) as pool:
        for batch_result in pool.map(_parse_batch, batches):
            yield from batch_result
            done += len(batch_result)
            if progress:
                progress("parse", done, len(items))


# The index the resolve workers read: set before they are forked, so they share it copy-on-write.
_SHARED_INDEX: ProjectIndex | None = None
# Where the resolve workers leave each other the analyses they made (`_share_analysis`): a popular
# module is then analysed by one worker, and read by the others (a fifth of the work).
_SHARED_ANALYSES = ""


_BATCH_DECODER = msgspec.msgpack.Decoder(tuple[list[Resolved], list[tuple[str, bytes]]])


def _resolve_one(index: ProjectIndex, file_id: int, path: str, language: str) -> Resolved:
    """One file's edges; a file its resolver fails on keeps its definitions, gets no edges and is
    reported, and the run goes on. One it resolved only partly (`ProjectView.note_incomplete`) keeps
    the edges it got, and why they are a part is stored with them."""
    facts = index.facts(path)
    view = ProjectView(index)
    resolver = resolver_for(language_table()[language].resolver)
    edges, failed = [], ""
    if facts is not None and facts.read_cheaply:  # (vendored.py: its calls linked by name only, or not at all)
        view.note_read_cheaply(cheap_reason(facts))
    try:
        edges = resolver.resolve(facts, view) if facts is not None else []
    except Exception as exc:  # noqa: BLE001 — bad input never stops an index
        failed = f"{type(exc).__name__}: {str(exc)[:200]}"
    answers = None if failed else view.answers  # (a resolution cut short has no answers to verify)
    partial = "" if failed else "; ".join(view.incomplete)[:300]
    cheap = "" if failed else view.read_cheaply
    named = sorted(resolver.names_called(facts)) if (failed or partial or cheap) and facts is not None else []
    if cheap and facts is not None:  # its calls through variables are not followed: its own functions may be called so
        named = sorted({*named, *(d.name for d in facts.definitions)})
    deps, missing = view.deps_and_missing()
    return Resolved(file_id, path, edges, key_ids(deps), msgspec.msgpack.encode(sorted(missing)), answers, failed,
                    partial, named, cheap)


def _resolve_batch(batch: list[tuple[int, str, str]]) -> bytes:
    """A batch's resolutions, and the analyses made for them that the store is to keep (the next
    process to check the files that read those modules takes them instead of analysing again)."""
    index = _SHARED_INDEX
    assert index is not None, "workers are forked after the index is shared"
    resolved, kept = [], []
    for item in batch:
        resolved.append(_resolve_one(index, *item))
        made, index.analyses_to_keep = index.analyses_to_keep, {}
        for path, encode in made.items():
            if (blob := encode()) is not None:
                kept.append((path, blob))
                _share_analysis(path, blob)
    return msgspec.msgpack.encode((resolved, kept))


def _shared_analysis_file(path: str) -> str:
    return os.path.join(_SHARED_ANALYSES, hashlib.blake2b(path.encode(), digest_size=12).hexdigest())


def _share_analysis(path: str, blob: bytes) -> None:
    """An analysis a worker made, for the others at once (written, then renamed: a reader sees it
    whole or not at all). They check it holds, as they check what an earlier process kept."""
    target = _shared_analysis_file(path)
    with open(f"{target}.{os.getpid()}", "wb") as out:
        out.write(blob)
    os.replace(f"{target}.{os.getpid()}", target)


def _shared_analysis(path: str) -> bytes | None:
    """A worker's `load_analysis`: what another worker analysed of the file, if one did yet."""
    try:
        with open(_shared_analysis_file(path), "rb") as found:
            return found.read()
    except OSError:
        return None


_ANALYSES_FOLDER = "tenure-analyses-"  # then the pid of the index that made it (state.process_folder)


def _trim_before_fork() -> None:
    """The C heap's free pages handed back before the workers fork: what they inherit stays in the
    tree's PSS while any of them maps it, and the parent reusing it later makes a copy. (ctypes imported
    here: a tenth of a process start.)"""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # (glibc's; elsewhere nothing to hand back)
        ctypes.CDLL(None).malloc_trim(0)


def resolves_in_workers(files: int) -> bool:
    """Whether `resolve_all` forks worker processes for this many files (else it resolves them itself)."""
    return files >= PARALLEL_THRESHOLD and _worker_count() >= 2 and fork_context() is not None


def resolve_all(index: ProjectIndex, todo: list[tuple[int, str, str]], scratch: str | None = None
                ) -> Iterator[Resolved]:
    """Resolve files, in worker processes when there are many (results arrive in order). The workers
    leave each other their analyses in a folder made in `scratch` (the project's state directory; the
    system's temporary directory if None), removed after them."""
    global _SHARED_INDEX, _SHARED_ANALYSES
    if not resolves_in_workers(len(todo)):
        for item in todo:
            yield _resolve_one(index, *item)
        return
    index.complete()  # read in the parent: workers cannot see this uncommitted transaction
    for language in {language for _, _, language in todo}:  # (imported once, before the workers fork)
        resolver_for(language_table()[language].resolver)
    for paths in index.module_paths.values():
        for path in paths:
            index.facts(path)
    _SHARED_INDEX = index
    _trim_before_fork()
    stored = index.load_analysis, index.load_digest
    index.load_analysis, index.load_digest = _shared_analysis, None  # (workers read no store)
    index.fixed = True  # (in the workers, forked over it)
    try:
        batches = [todo[i : i + 16] for i in range(0, len(todo), 16)]
        with (process_folder(scratch or tempfile.gettempdir(), _ANALYSES_FOLDER) as shared,
              process_pool(_worker_count(), fork=True) as pool):
            _SHARED_ANALYSES = shared  # (before the first batch forks the workers)
            for results in pool.map(_resolve_batch, batches):
                resolved, analyses = _BATCH_DECODER.decode(results)
                for path, blob in analyses:
                    index.analyses_to_keep[path] = partial(bytes, blob)
                yield from resolved
    finally:
        _SHARED_INDEX, _SHARED_ANALYSES = None, ""
        index.load_analysis, index.load_digest = stored
        index.fixed = False
