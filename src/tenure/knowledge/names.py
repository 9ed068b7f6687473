"""The code names the offline reader takes from prose written bare (``SettlementService``,
``MAX_RETRIES``, ``url_for``), found by the namespace (tenure.namespace.mentions: knowledge keeps no
phrase resolution of its own), and which chunks to read again when the symbols are named differently.

What a chunk's prose names depends on the index: a sentence that writes ``SettlementService`` before
the class exists names nothing. Each short name the symbols have is kept with a digest of the full names
it has (`knowledge_code_names`); a new index changes the digests of the names it added, removed, moved or
doubled, and only the chunks whose text has one of those names are read again.
"""

from __future__ import annotations

import re

from tenure.knowledge.store import digest, get_meta, set_meta
from tenure.namespace.mentions import code_mentions
from tenure.namespace.phrases import PhraseIndex, PhraseMatch
from tenure.namespace.symbols import naming_state
from tenure.storage import Database

ALL_CHUNKS_PAST = 2000  # more changed names than this: every chunk is read again (one pass beats a huge pattern)


class CodeNames:
    """A sentence -> the spans of the code names it writes (offline.CodeNames), over the index's symbols
    as they are now; the phrase index is built at the first sentence."""

    def __init__(self, db: Database, code: Database) -> None:
        self.db, self.code = db, code  # the store's database, and the checkout's (the code's names)
        self._index: PhraseIndex | None = None
        self._state = ""
        self._now: dict[str, str] | None = None
        self._said: dict[str, list[tuple[int, int, str]]] = {}

    @property
    def index(self) -> PhraseIndex:
        if self._index is None:
            self._index = _Remembering.of(self.code)
        return self._index

    def __call__(self, sentence: str) -> list[tuple[int, int, str]]:
        said = self._said.get(sentence)  # (a history repeats its sentences: sign-offs, bumps, merges)
        if said is None:
            said = self._said[sentence] = [(m.start, m.end, m.name) for m in code_mentions(self.index, sentence)]
        return said

    def renamed(self) -> set[str] | None:
        """The short names whose full names changed since the chunks were last read (None: all of them,
        the first time); `record` keeps them as read. Nothing is read when the naming is unchanged."""
        self._state = naming_state(self.code)
        if get_meta(self.db, "code_names") == self._state:
            self._now = None
            return set()
        full: dict[str, list[str]] = {}
        for fqn in self.index.fqns:
            full.setdefault(re.split(r"[.:#$/]", fqn)[-1], []).append(fqn)
        self._now = {name: digest(*sorted(fqns)) for name, fqns in full.items()}
        before = dict(self.db.rows("SELECT name, digest FROM knowledge_code_names"))
        changed = {n for n in self._now.keys() | before.keys() if self._now.get(n) != before.get(n)}
        return None if not before or len(changed) > ALL_CHUNKS_PAST else changed

    def record(self) -> None:
        """The names `renamed` found, kept as the ones the chunks were read with (in the caller's transaction)."""
        if self._now is None:
            return
        self.db.execute("DELETE FROM knowledge_code_names")
        self.db.executemany("INSERT INTO knowledge_code_names (name, digest) VALUES (?, ?)", sorted(self._now.items()))
        set_meta(self.db, "code_names", self._state)


class _Remembering(PhraseIndex):
    """The ladder, each name's answer kept: a corpus writes the same names thousands of times."""

    def resolve_name(self, phrase: str) -> PhraseMatch | None:
        answers = self.__dict__.setdefault("_answers", {})
        if phrase not in answers:
            answers[phrase] = super().resolve_name(phrase)
        return answers[phrase]


def chunks_naming(db: Database, names: set[str]) -> list[int]:
    """The chunks whose text has one of `names` as a word (of a dotted name too)."""
    if not names:
        return []
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")(?![\w])")
    return [chunk_id for chunk_id, text in db.rows("SELECT id, text FROM knowledge_chunks") if pattern.search(text)]
