"""Lean JSON schemas: tool definitions are read by the model on every turn, so what pydantic adds
for humans (a title per property, `anyOf [X, null]` with `default: null`) is folded away."""

from __future__ import annotations

from typing import Any

FOLDABLE = {"type", "items"}  # anyOf members made of only these merge into one `type` list


def lean(schema: Any) -> Any:
    if isinstance(schema, list):
        return [lean(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue  # a schema's title; a property *named* title maps to a dict and stays
        out[key] = {name: lean(s) for name, s in value.items()} if key == "properties" else lean(value)
    return _fold_any_of(out)


def _fold_any_of(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf [{type: string}, {type: null}]` -> `type: [string, null]`; a null default goes (absent is null)."""
    members = schema.get("anyOf")
    if not members or not all(isinstance(m, dict) and set(m) <= FOLDABLE and "type" in m for m in members):
        return schema
    if len([m for m in members if "items" in m]) > 1:
        return schema
    folded = {k: v for k, v in schema.items() if k != "anyOf" and not (k == "default" and v is None)}
    folded["type"] = [m["type"] for m in members]
    items = [m["items"] for m in members if "items" in m]
    if items:
        folded["items"] = items[0]
    return folded
