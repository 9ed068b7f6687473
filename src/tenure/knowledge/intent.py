"""The knowledge store's evidence for `related_by_intent`: the entities a text names (a run of its words
is an entity's name: "the settlement retry policy", "url building") and the symbols the join linked
them to, each at the join's tier (`knowledge_entity_symbols`).

An entity of one plain English word ("with", "decorator": offline extraction takes them from prose)
is never matched on its own: only an entity of several words, or one whose name is shaped like code.
The entities' names are read once per process and knowledge state.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Callable

from tenure.namespace.intent import Evidence, Found, Gathered
from tenure.namespace.mentions import code_names
from tenure.namespace.terms import STOPWORDS
from tenure.storage import Database
from tenure.words import counted

LONGEST = 5  # words in an entity's name that a run of the text is matched against
WEIGHT = {"exact": 0.6, "strong": 0.5, "weak": 0.2}
_WORD = re.compile(r"[A-Za-z0-9_]+")


def _folded(words: list[str]) -> str:
    return " ".join(w.lower() for w in words)


class KnowledgeEvidence:
    """An `EvidenceProvider` over the knowledge store's entities and their links to symbols."""

    def __init__(self, db: Database, setting_error: Callable[[], str] = str) -> None:
        """`setting_error`: the broken setting that stops the store's builds, "" when none (Knowledge's)."""
        self.db = db
        self.setting_error = setting_error
        self._kept: tuple[tuple, dict[str, list[tuple[str, int]]]] | None = None
        self._lock = threading.Lock()

    def _names(self) -> dict[str, list[tuple[str, int]]]:
        """folded name -> (entity key, mentions) of the entities linked to a symbol."""
        state = tuple(self.db.rows("SELECT count(*), sum(mentions) FROM knowledge_entities")[0])
        with self._lock:
            if self._kept is None or self._kept[0] != state:
                names: dict[str, list[tuple[str, int]]] = defaultdict(list)
                for key, name, mentions in self.db.rows(
                        "SELECT e.key, e.name, e.mentions FROM knowledge_entities e WHERE EXISTS"
                        " (SELECT 1 FROM knowledge_entity_symbols s WHERE s.entity = e.key)"):
                    names[_folded(_WORD.findall(name))].append((key, mentions))
                self._kept = (state, dict(names))
            return self._kept[1]

    def gather(self, text: str) -> Gathered:
        if not self.db.rows("SELECT 1 FROM knowledge_entities LIMIT 1"):
            error = self.setting_error()
            how = f"a setting stops its build: {error}" if error else "`tenure knowledge build`"
            return Gathered(degraded=(f"no knowledge store built yet ({how}): decisions and documents were not read",))
        names = self._names()
        shaped = {name.lower() for _, _, name in code_names(text)}
        tokens = _WORD.findall(text)
        named: dict[str, tuple[str, int]] = {}
        for n in range(1, LONGEST + 1):
            for i in range(len(tokens) - n + 1):
                run = tokens[i:i + n]
                folded = _folded(run)
                if n == 1 and folded not in shaped:
                    continue  # one plain word is no entity
                if run[0].lower() in STOPWORDS or run[-1].lower() in STOPWORDS:
                    continue
                for key, mentions in names.get(folded, ()):
                    named[key] = (" ".join(run), mentions)
        if not named:
            return Gathered()
        found = []
        for entity, fqn, tier in self.db.rows(
                f"SELECT entity, fqn, tier FROM knowledge_entity_symbols WHERE entity IN {self.db.each}",
                (self.db.many(sorted(named)),)):
            written, mentions = named[entity]
            detail = (f"the knowledge store's '{written}' ({counted(mentions, 'mention')} in documents and commits)"
                      f" is linked to it ({tier})")
            found.append(Found(fqn, Evidence("knowledge", detail, WEIGHT.get(tier, 0.2))))
        return Gathered(tuple(found))
