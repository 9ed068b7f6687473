"""The words of a rule a person states, encrypted at rest with its scope's key, as memories are: the
project's, or the organisation's for an organisation rule (the keys are the memories' own: Tenure hands
them in). What stays readable is structure: kind, status, counts, who stated it, and a keyed hash of
the words (`key`, which finds the same rule stated twice). A mined rule's text is made from commands
and files that the episodes it is counted from hold readable; it is not sealed. Every rule's notes are:
its events' details (a demotion's reason is a person's words) and its evidence notes.

Rows an older tenure wrote in plain text are sealed the first time their scope's key is at hand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from tenure.storage import Database

PURPOSE = "rule"  # bound into each ciphertext: a rule's blob cannot pass as a memory's
EVENT, EVIDENCE = "rule event", "rule evidence"  # (the purposes of its notes)
MINED = ("mined", "mined (habit)")  # the sources of rules mining wrote (any other is a person's)
STATED_DETAIL = "stated (its words are the rule's, encrypted)"  # the `stated` event, which once repeated them


class Cipher(Protocol):
    def encrypt(self, plaintext: str, purpose: str) -> bytes: ...

    def decrypt(self, blob: bytes | None, purpose: str) -> str: ...

    def term_hash(self, term: str) -> str: ...


Keys = Callable[[str, bool], "Cipher | None"]
"""(scope, first write) -> the scope's cipher; None when this process holds no key for it (an organisation
rule without the organisation's key). `first write`: the organisation's key may be made (no organisation
rule exists yet)."""


def stated_key(cipher: Cipher, words: str) -> str:
    """What makes two rules stated in words the same, without the words."""
    return "stated:" + cipher.term_hash(" ".join(words.lower().split()))


def is_plain(row: dict) -> bool:
    """A person's rule an older tenure stored in plain text."""
    return row["sealed"] is None and row["source"] not in MINED


def text_of(row: dict, cipher: Cipher | None) -> str | None:
    """A rule's words (None: sealed with a key this process does not hold)."""
    if row["sealed"] is None:
        return row["text"]
    return cipher.decrypt(row["sealed"], PURPOSE) if cipher is not None else None


def note_of(row: dict, plain: str, purpose: str, cipher: Cipher) -> str:
    """An event's detail or an evidence note (`plain`: its column), sealed or as an older tenure wrote it."""
    return cipher.decrypt(row["sealed"], purpose) if row["sealed"] is not None else row[plain]


def seal_stored(db: Database, keys: Keys) -> int:
    """Every plain rule `db` holds sealed where its scope's key is at hand, and every plain note (before
    `team push` copies them); how many rules were sealed."""
    sealed = seal_plain(db, db.query("SELECT * FROM rules"), keys)
    with db.transaction():
        for table, plain, purpose, key in (("rule_events", "detail", EVENT, ("id",)),
                                           ("rule_evidence", "why", EVIDENCE, ("rule_id", "episode_id", "counts_as"))):
            for row in db.query(f"SELECT n.*, r.scope FROM {table} n JOIN rules r ON r.id = n.rule_id"
                                " WHERE n.sealed IS NULL"):
                if (cipher := keys(row["scope"], False)) is not None:
                    db.execute(f"UPDATE {table} SET sealed = ?, {plain} = '' WHERE " +
                               " AND ".join(f"{column} = ?" for column in key),
                               (cipher.encrypt(row[plain], purpose), *(row[column] for column in key)))
    return sealed


def seal_plain(db: Database, rows: list[dict], keys: Keys) -> int:
    """Seal the plain rows among `rows` whose scope's key is at hand; how many were sealed."""
    sealed = 0
    with db.transaction():
        for row in rows:
            cipher = keys(row["scope"], False) if is_plain(row) else None
            if cipher is None:
                continue
            key = stated_key(cipher, row["text"]) if row["kind"] == "stated" else row["key"]
            db.execute("UPDATE rules SET sealed = ?, text = '', key = ? WHERE id = ?",
                       (cipher.encrypt(row["text"], PURPOSE), key, row["id"]))
            db.execute("UPDATE rule_events SET detail = '', sealed = ? WHERE rule_id = ? AND event = 'stated'",
                       (cipher.encrypt(STATED_DETAIL, EVENT), row["id"]))
            sealed += 1
    return sealed
