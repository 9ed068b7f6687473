"""Knowledge (= Tenure.knowledge): the store's verbs, each returning a JSON-ready dict. The CLI and the
MCP tools are thin layers over these. A verb imports what it runs: `why`, which an agent calls and
waits for, loads none of the build's steps."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tenure.knowledge import citations
from tenure.knowledge import config as settings
from tenure.knowledge.providers import ChatProvider, get_chat_provider
from tenure.knowledge.store import digest, get_meta, migrations
from tenure.knowledge.why import why
from tenure.namespace.lookup import find_symbols
from tenure.namespace.mentions import Mention, code_mentions
from tenure.namespace.phrases import PhraseIndex, PhraseMatch
from tenure.namespace.symbols import index_state
from tenure.refusal import Refusal
from tenure.state import KNOWLEDGE_LOCK, lock_holder, process_lock, state_dir
from tenure.storage import Database
from tenure.words import first_few

if TYPE_CHECKING:
    from tenure.embeddings import EmbeddingProvider

Progress = Callable[[str, int, int], None]


class BuildRunning(Refusal):
    """Another process is building this project's knowledge store; nothing was done."""


def stale(error: str) -> str:
    """What is said of a store built before a setting broke."""
    return f"a setting stops the knowledge store's builds, what it holds may be out of date: {error}"


class Knowledge:
    def __init__(self, db: Database, root: Path, memory_titled: Callable[[str], int | None] | None = None,
                 code: Database | None = None) -> None:
        """`memory_titled`: the memory of a title (the memories store's), for a comment citing ``[[Title]]``;
        `db`: the store's own database (a team's, shared); `code`: the checkout's, which the namespace
        and the git history are read from (the same one without a team database)."""
        self.db = db
        self.code = code or db
        self.root = root
        self.memory_titled = memory_titled
        migrations.apply(db)
        citations.checkout_migrations.apply(self.code)  # (what is read from the checkout's code is kept there)
        self._embedder: EmbeddingProvider | None | bool = False  # False: not chosen yet
        self._phrases: tuple[str, PhraseIndex] | None = None

    def config(self) -> settings.KnowledgeConfig:
        return settings.load(self.root)

    def provider(self, offline: bool = False) -> ChatProvider | None:
        """The configured model, None in offline mode (nothing configured, or `offline`). A wrong setting
        is a KnowledgeConfigError naming the file, as every other [knowledge] one: a repository's
        [knowledge.model] is someone else's input, and must stop no index or ask with a traceback."""
        if offline:
            return None
        model = self.config().model
        try:
            return get_chat_provider(model)
        except ValueError as exc:  # (EmbeddingConfigError, which names the setting: a key, or a variable)
            where = f"{self.root / settings.CONFIG_FILE} [knowledge.model]" if model else "the TENURE_LLM_* environment"
            raise settings.KnowledgeConfigError(f"{where}: {exc}") from exc

    def embedder(self) -> EmbeddingProvider | None:
        if self._embedder is False:
            from tenure.embeddings import get_provider  # (numpy and the model: only to embed)

            self._embedder = get_provider()
        return self._embedder or None

    def check(self) -> dict:
        """What the sources hold and what a model build would cost (ours and graphrag's defaults)."""
        from tenure.knowledge import cost
        from tenure.knowledge.discovery import discover

        config = self.config()
        found = discover(self.db, self.code, self.root, config, incremental=False)
        provider = self.provider()
        prices = (float(config.model["price_in"]), float(config.model["price_out"])) \
            if "price_in" in config.model and "price_out" in config.model else None
        report = cost.check(found.documents, config, provider.name if provider else None, prices)
        report["skipped"] = [s.as_dict() for s in found.skipped]
        report["history"] = found.history
        return report

    def build(self, dry_run: bool = False, offline: bool = False, max_calls: int | None = None,
              max_tokens: int | None = None, embed: bool = True, progress: Progress | None = None,
              provider: ChatProvider | None = None) -> dict:
        """Bring the store up to date (see pipeline.build); `provider` overrides the configured model
        (MCP sampling passes the client's)."""
        from tenure.knowledge import pipeline
        from tenure.knowledge.cache import Budget

        config = self.config()
        model = provider if provider is not None else self.provider(offline)
        if dry_run:
            return self._plan(config, model)
        budget = Budget(config.max_calls if max_calls is None else max_calls,
                        config.max_tokens if max_tokens is None else max_tokens)
        with self._one_build():
            report = pipeline.build(self.db, self.code, self.root, config, model,
                                    self.embedder() if embed else None, budget, progress)
        return report.as_dict()

    @contextlib.contextmanager
    def _one_build(self) -> Iterator[None]:
        """One build of the store at a time per project (two would both add what neither had stored yet)."""
        state = state_dir(self.root)
        with process_lock(state, KNOWLEDGE_LOCK) as mine:
            if not mine:
                raise BuildRunning(f"the knowledge store is being built by {lock_holder(state, KNOWLEDGE_LOCK)} "
                                   "(an index or `tenure knowledge build`): run this again when it ends")
            yield

    def after_index(self, progress: Progress | None = None) -> dict:
        """The build `tenure index` runs, so that `why` answers after one index: offline, incremental
        (only new or changed material is read), never a model call. It stands aside where a model
        builds the store (one is configured, or built it last): an offline pass would put extractive
        descriptions and reports in place of the model's for what changed. A summary ({} when
        `[knowledge] on_index = false`)."""
        try:
            config = self.config()
            if not config.on_index:
                return {}
            if self.provider() is not None:
                return {"skipped": "a model is configured: `tenure knowledge build` builds with it"}
        except settings.ConfigError as exc:
            return {"unavailable": str(exc)}
        if (get_meta(self.db, "last_build") or {}).get("mode") == "model":
            return {"skipped": "a model built the store: `tenure knowledge build` keeps it up to date"}
        from tenure.knowledge import pipeline
        from tenure.knowledge.cache import Budget

        try:
            with self._one_build():
                report = pipeline.build(self.db, self.code, self.root, config, None, None, Budget(), progress)
        except BuildRunning as exc:
            return {"skipped": str(exc)}
        ingested, merged = report.steps["ingest"], report.steps["merge"]
        return {"mode": "offline", "documents": ingested["documents"],
                **{k: ingested[k] for k in ("new", "changed", "removed") if ingested[k]},
                "entities": merged["entities"], "relationships": merged["relationships"],
                **({"communities": report.steps["communities"]["communities"]} if "communities" in report.steps
                   else {}),
                "seconds": round(sum(report.seconds.values()), 2),
                # (a threads folder outside the repository, an unreadable document: said, not dropped)
                **({"not read": first_few([f"{s['path']}: {s['reason']}" for s in report.skipped], between="; ")}
                   if report.skipped else {})}

    def _plan(self, config: settings.KnowledgeConfig, model: ChatProvider | None) -> dict:
        """What a build would read and ask, written nowhere."""
        from tenure.knowledge import tokens
        from tenure.knowledge.chunking import chunk_sections
        from tenure.knowledge.cost import batch_sizes
        from tenure.knowledge.discovery import discover

        found = discover(self.db, self.code, self.root, config)
        stored = dict(self.db.rows("SELECT key, content_hash FROM knowledge_documents"))
        known_chunks = {r[0] for r in self.db.rows("SELECT text_hash FROM knowledge_chunks")}
        changed = [d for d in found.documents if stored.get(d.key) != d.content_hash]
        new_chunks = [c for d in changed if not d.thin_reason
                      for c in chunk_sections(list(d.sections), config.chunk_size, config.chunk_overlap)
                      if digest(c.text) not in known_chunks]
        pending = self.db.rows("SELECT tokens, text FROM knowledge_chunks WHERE model_state IS NULL"
                               " OR model_state = 'failed'")  # (a failed unit is read again)
        listed = {d.key for d in found.documents}
        removed = [k for k, origin in self.db.rows("SELECT key, origin FROM knowledge_documents")
                   if origin in found.complete and k not in listed]
        sizes = [c.size + 20 for c in new_chunks] + [tokens.recorded(*r) + 20 for r in pending]
        batches = batch_sizes(sizes, config.batch_tokens)
        calls = sum(1 + (config.gleanings if b >= config.glean_min_tokens else 0) for b in batches)
        return {"dry_run": True, "mode": "model" if model else "offline", "model": model.name if model else None,
                "documents": len(found.documents), "new_or_changed": len(changed), "removed": len(removed),
                "chunks_to_read": len(sizes),
                "extraction_calls": calls if model else 0,
                "note": "summaries and reports are asked for only where their inputs change: see "
                        "`tenure knowledge check` for the whole corpus's estimate" if model else
                        "offline mode: no model call"}

    def setting_error(self) -> str:
        """The broken setting (file and key) that stops every build of the store, the one `tenure index`
        runs too; "" when none does."""
        try:
            self.provider()
        except settings.ConfigError as exc:
            return str(exc)
        return ""

    def why(self, symbol: str, limit: int = 12) -> dict:
        answer = why(self.db, self.code, find_symbols(self.code, symbol), limit, self._resolve, self.memory_titled)
        if error := self.setting_error():  # a broken setting stops the builds: say which, not "run it"
            answer["config_error"] = error
            if answer["built"] is None:
                answer["summary"]["text"] = (f"{answer['symbol'] or answer['query']}: the knowledge store is not "
                                             f"built, a setting stops its build: {error}")
            else:  # (what it holds is as of its last build)
                said, mode, rest = answer["summary"]["text"].partition("; mode:")
                answer["summary"]["text"] = f"{said}; {stale(error)}{mode}{rest}"
        return answer

    def _resolve(self, phrase: str) -> PhraseMatch:
        return self._phrase_index().resolve(phrase)

    def _mentions(self, text: str) -> list[Mention]:
        return code_mentions(self._phrase_index(), text)

    def _phrase_index(self) -> PhraseIndex:
        """The ladder over the index's symbols, read once per index state (a server answers many)."""
        state = index_state(self.code)
        if self._phrases is None or self._phrases[0] != state:
            self._phrases = (state, PhraseIndex.of(self.code))
        return self._phrases[1]

    def ask(self, question: str, global_: bool = False, offline: bool = False) -> dict:
        from tenure.knowledge.ask import Searcher  # (numpy: vectors are searched in process)
        from tenure.knowledge.cache import CachedModel

        provider = self.provider(offline)
        model = CachedModel(provider, self.db) if provider is not None else None
        answer = Searcher(self.db, model, self.embedder(), self._mentions).ask(question, global_)
        if model is not None:
            answer["model_use"] = model.totals()
        return answer

    def import_threads(self, files: list[Path]) -> dict:
        from tenure.knowledge.sources import threads

        return threads.import_files(self.root, files)

