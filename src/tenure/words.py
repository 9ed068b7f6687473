"""Counts in messages read as English: `1 call site`, `2 call sites`, `1 memory`, `3 dispatches`."""

from __future__ import annotations


def plural(noun: str, count: int) -> str:
    """`noun` as `count` of it is said; a phrase's last word takes the plural (`call site`)."""
    if count == 1:
        return noun
    head, _, last = noun.rpartition(" ")
    if last.endswith("y") and last[-2:-1] not in tuple("aeiou"):
        last = last[:-1] + "ies"
    elif last.endswith(("s", "sh", "ch", "x", "z")):
        last += "es"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def counted(count: int, noun: str) -> str:
    """`1 file`, `2 files`."""
    return f"{count} {plural(noun, count)}"
