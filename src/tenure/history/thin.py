"""Thin commit messages: ones that say what was touched, or nothing, but never why.

They are kept and counted (a thin commit is still an attempt on the symbols it touched); consumers
that want rationale skip them, and every answer built on history can say how much of it is thin.
"""

from __future__ import annotations

import re

# (pattern on the whole message without its trailing punctuation, lower-cased; the reason shown)
_SUBJECT_ONLY = [
    (re.compile(r"(fix(ed|es|ing)?|bug ?fix(es)?)( (a|the|some|small|minor))?( (bug|bugs|issue|issues|it|this|"
                r"stuff|things|typo|typos|tests?|build|ci|lint|style|error|errors))?"), "says only that something "
                                                                                         "was fixed"),
    (re.compile(r"(wip|work in progress|tmp|temp|todo|checkpoint|save|backup|oops|whoops|again|more|misc|"
                r"stuff|changes|minor|minor (changes|fixes|edits)|small (changes|fixes)|tweaks?|cleanup|clean ?up|"
                r"refactor(ing)?|formatting|format|reformat|lint|style|pep8|whitespace|typos?|spelling|"
                r"update|updates|updated|improvements?|test|tests|testing|\.+|-+)"), "a placeholder message"),
    (re.compile(r"(update|updated|create|created|delete|deleted|add|added|remove|removed|rename|renamed) "
                r"[\w./-]+"), "names only the file it changed"),
]
_MERGE = re.compile(r"merge (branch|remote-tracking branch|tag|commit|pull request) ")


def thin_reason(message: str, is_merge: bool) -> str | None:
    """Why a commit message carries no rationale, or None when it may."""
    subject, _, body = message.strip().partition("\n")
    subject, body = subject.strip(), body.strip()
    if not subject:
        return "no message"
    if is_merge and not body:
        return "merge commit without a body"
    if body:
        return None
    text = subject.lower().rstrip(".!:; ")
    if not is_merge and _MERGE.match(text + " "):
        return "merge message without a body"
    for pattern, reason in _SUBJECT_ONLY:
        if pattern.fullmatch(text):
            return reason
    if len(text.split()) == 1:
        return "a one-word message"
    return None
