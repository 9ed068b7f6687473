"""What the memories derive from the checkout's code, kept in the checkout's own database (the code
graph's): each element's code as terms and as a vector, by the fingerprint of the code they were made
from (selection reads them; memories/vectors.py ElementVectors writes them). On a team database two
checkouts of one project on two branches each keep their own. Without one it is the one database the
memories use too, and these are the tables the memories' m001 and m005 made there."""

from __future__ import annotations

from tenure.storage import Database, Migrations

# (made by the memories' m001 and m005 too: without a team database the checkout's is their database)
ELEMENT_VECTORS = """CREATE TABLE IF NOT EXISTS element_vectors (
    element TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,       -- the code it was computed from: recomputed when it drifts
    model TEXT NOT NULL,
    vector BLOB NOT NULL             -- plain float32: made from code, which the repository holds anyway
)"""
ELEMENT_TERMS = ("CREATE TABLE IF NOT EXISTS element_terms (element TEXT PRIMARY KEY, fingerprint TEXT NOT NULL,"
                 " terms TEXT NOT NULL)")

checkout_migrations = Migrations("memories_checkout")


@checkout_migrations
def m001_element_tables(db: Database) -> None:
    db.execute(ELEMENT_VECTORS)
    db.execute(ELEMENT_TERMS)
