"""Edits to other tools' configuration files that can be taken back exactly.

Three kinds: a key of a JSON object, an item of a JSON list, and a block of text appended to a file.
Applying never overwrites what is already there; undoing removes only what applying added, and
only while it is unchanged.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


class SetupConflict(RuntimeError):
    """The file already holds something else where tenure would write; nothing was written."""


@dataclass
class Edit:
    client: str
    path: str  # absolute
    kind: str  # json-key | json-item | text
    value: Any  # the JSON value, or the text block
    keys: list[str] = field(default_factory=list)  # where in the JSON document
    toml_table: list[str] | None = None  # for text appended to TOML: the table it defines
    created_file: bool = False
    created_from: int | None = None  # keys[created_from:] were containers created by this edit

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def apply(edit: Edit) -> bool:
    """Write the edit; False when the file already holds exactly this (nothing to record)."""
    path = Path(edit.path)
    edit.created_file = not path.exists()
    text = updated(edit, _read_text(path) if path.exists() else "")
    if text is None:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return True


def updated(edit: Edit, text: str) -> str | None:
    """The file's text with the edit made (what `apply` writes, and `--print` shows); None when it holds
    exactly this already. Raises SetupConflict where something else is in the way."""
    path = edit.path
    if edit.kind == "text":
        if edit.value in text:
            return None
        if edit.toml_table and _has_table(text, edit.toml_table):
            raise SetupConflict(f"{path} already defines [{'.'.join(edit.toml_table)}], which tenure did not write: "
                                "remove or rename it, then run this again")
        separator = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        return text + separator + edit.value
    doc = _parse_json(text, path)
    parent, edit.created_from = _walk(doc, edit.keys[:-1], create=True)
    last = edit.keys[-1]
    if edit.kind == "json-key":
        if last in parent:
            if parent[last] == edit.value:
                return None
            raise SetupConflict(f"{path} already has {'.'.join(edit.keys)} = {json.dumps(parent[last])}, which tenure "
                                "did not write: remove or rename it, then run this again")
        parent[last] = edit.value
    else:
        if last not in parent and edit.created_from is None:
            edit.created_from = len(edit.keys) - 1
        items = parent.setdefault(last, [])
        if not isinstance(items, list):
            raise SetupConflict(f"{path}: {'.'.join(edit.keys)} is not a JSON list: fix it, then run this again")
        if edit.value in items:
            return None
        items.append(edit.value)
    return _json_text(doc)


def undo(edit: Edit) -> str:
    """Take the edit back; says what happened."""
    path = Path(edit.path)
    if not path.exists():
        return f"{path} is gone: nothing to remove"
    if edit.kind == "text":
        return _undo_text(edit, path)
    doc = _load_json(path)
    parent, _ = _walk(doc, edit.keys[:-1], create=False)
    last = edit.keys[-1]
    if parent is None:
        return f"{path}: {'.'.join(edit.keys)} is gone already"
    if edit.kind == "json-key":
        if parent.get(last) != edit.value:
            return f"{path}: {'.'.join(edit.keys)} changed since tenure wrote it: left as it is"
        del parent[last]
    else:
        items = parent.get(last, [])
        if edit.value not in items:
            return f"{path}: the entry under {'.'.join(edit.keys)} changed since tenure wrote it: left as it is"
        items.remove(edit.value)
    _prune(doc, edit.keys, edit.created_from)
    if edit.created_file and not doc:
        path.unlink()
        _remove_empty_dir(path.parent)
        return f"removed {path} (tenure created it)"
    _save_json(path, doc)
    return f"{path}: removed {'.'.join(edit.keys)}"


def _undo_text(edit: Edit, path: Path) -> str:
    text = _read_text(path)
    if edit.value not in text:
        return f"{path}: the block tenure wrote changed since: left as it is"
    before, _, after = text.partition(edit.value)
    rest = (before.rstrip("\n") + "\n" + after if before.strip() else after) if after.strip() else before.rstrip("\n")
    rest = rest + "\n" if rest.strip() else ""
    if edit.created_file and not rest.strip():
        path.unlink()
        _remove_empty_dir(path.parent)
        return f"removed {path} (tenure created it)"
    path.write_text(rest)
    return f"{path}: removed the block tenure wrote"


def _has_table(text: str, table: list[str]) -> bool:
    try:
        node: Any = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise SetupConflict(f"cannot read the TOML file to merge into it ({exc}): fix it first") from exc
    for key in table:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def _load_json(path: Path) -> dict[str, Any]:
    return _parse_json(_read_text(path) if path.exists() else "", str(path))


def _parse_json(text: str, path: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:  # (RecursionError: nested thousands deep)
        raise SetupConflict(f"{path} is not valid JSON ({exc}): fix it, then run this again") from exc
    if not isinstance(doc, dict):
        raise SetupConflict(f"{path} does not hold a JSON object: fix it, then run this again")
    return doc


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SetupConflict(f"{path} is not UTF-8 text ({exc}): fix it, then run this again") from exc


def _save_json(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_json_text(doc))


def _json_text(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2) + "\n"


def _walk(doc: dict[str, Any], keys: list[str], create: bool) -> tuple[Any, int | None]:
    """The object at `keys`, creating missing ones if asked; and from which depth they were created."""
    node: Any = doc
    created: int | None = None
    for depth, key in enumerate(keys):
        if key not in node:
            if not create:
                return None, None
            node[key] = {}
            created = depth if created is None else created
        node = node[key]
        if not isinstance(node, dict):
            raise SetupConflict(f"{'.'.join(keys[: depth + 1])} is not a JSON object: fix it, then run this again")
    return node, created


def _prune(doc: dict[str, Any], keys: list[str], created_from: int | None) -> None:
    """Remove the containers this edit created, deepest first, once they are empty again."""
    if created_from is None:
        return
    for depth in range(len(keys) - 1, created_from - 1, -1):
        parent, _ = _walk(doc, keys[:depth], create=False)
        name = keys[depth]
        if isinstance(parent, dict) and name in parent and parent[name] in ({}, []):
            del parent[name]


def _remove_empty_dir(directory: Path) -> None:
    if directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
