"""The generic, query-driven extractor: tree-sitter captures -> FileFacts, for every language.

Capture names (tree-sitter `tags.scm` conventions, extended; see queries/README.md):
  @definition.<kind> + @name [+ @returns]  a definition, its name, its declared result type
  @definition.<kind> + @anonymous.<label>  a definition without a name (`<label1>`, `<label2>`, ...
                                       in its enclosing definition)
  @definition.<kind> + @value          a definition written as an expression: when its node is the
                                       child of a named definition's node, it is that definition
                                       (the function of `const f = () => {}` is f)
  @reference.call + @name [+ @receiver] a call site; receiver is the qualifier expression
  @reference.new + @name               a constructor call (`new Foo()`)
  @reference.inherits / .implements    on a super type's name node, inside the class definition
  @reference.dynamic                   a call whose target is computed at run time
  @escape.<how> + @name [+ @receiver]  a name taken as a value, not called (`FileFacts.escapes`)
  @import [+ .module .name .alias .relative .wildcard .default]
  @binding + .name + .type | .alias | .call [+ .field]  a name whose type is known where it is declared
  @package                             the declared package / namespace
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

from tree_sitter import Node, Query, QueryCursor, Tree

from tenure.structural.facts import Binding, Definition, FileFacts, Import, Reference
from tenure.structural.languages import LanguageSpec


def text_of(node: Node) -> str:
    text = node.text  # (read once: a node makes its text anew at each read)
    return text.decode("utf-8", "replace") if text is not None else ""


def fingerprint(node: Node) -> str:
    return fingerprint_of(node.text or b"")


def fingerprint_of(text: bytes) -> str:
    """Hash of a definition's text with white space folded: stable across re-indentation."""
    return hashlib.blake2b(b" ".join(text.split()), digest_size=10).hexdigest()


def signature(node: Node) -> str:
    return signature_of(text_of(node).split("\n", 1)[0])


def signature_of(first_line: str) -> str:
    """A definition's signature: its first line, trimmed."""
    return first_line.strip()[:200]


class _Scopes:
    """Nested definition spans, so a byte offset finds its innermost enclosing definition."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._spans: list[tuple[int, int, str]] = []
        # Per span, the index of the nearest earlier span ending after it (-1: none). The spans in
        # between end no later, so a search for one reaching past some offset skips them: without
        # this, a reference after many sibling definitions scanned all of them (quadratic per file).
        self._back: list[int] = []

    def add(self, start: int, end: int, qualname: str) -> None:
        i = bisect.bisect_right(self._starts, start)
        self._starts.insert(i, start)
        self._spans.insert(i, (start, end, qualname))
        if i == len(self._back):  # the extractor adds definitions in order of their start
            self._back.append(self._last_ending_after(i - 1, end))
        else:
            self._back = []
            for j, (_, e, _) in enumerate(self._spans):
                self._back.append(self._last_ending_after(j - 1, e))

    def _last_ending_after(self, i: int, offset: int) -> int:
        """The last span at index i or before that ends after `offset`, or -1."""
        while i >= 0 and self._spans[i][1] <= offset:
            i = self._back[i]
        return i

    def enclosing(self, start: int, end: int | None = None) -> str:
        end = start if end is None else end
        # every span up to i starts at or before `start`: the innermost enclosing one is the last that reaches `end`
        i = self._last_ending_after(bisect.bisect_right(self._starts, start) - 1, end - 1)
        return self._spans[i][2] if i >= 0 else ""


def _count_errors(tree: Tree) -> int:
    if not tree.root_node.has_error:
        return 0
    count, stack = 0, [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        elif node.has_error:
            stack.extend(node.children)
    return count


Span = tuple[int, int]  # a node's start and end byte


@dataclass
class Located:
    """Where the facts of one extraction sit in the tree, for a dedicated extractor that walks the
    same tree: each definition's qualname by its node's span, and the anchor node's span of each
    reference (in the order of `FileFacts.references`)."""

    spans: dict[Span, str] = field(default_factory=dict)
    anchors: list[Span] = field(default_factory=list)


def extract(spec: LanguageSpec, tree: Tree, path: str) -> FileFacts:
    return extract_located(spec, tree, path)[0]


# Captures of the sites and values a file too large to link its calls leaves out (`extract_symbols`).
_SITE_CAPTURES = ("@reference.call", "@reference.new", "@reference.dynamic", "@escape.", "@binding")
_CALLED = re.compile(rb"([A-Za-z_$][A-Za-z0-9_$]*)\s*\(")


@cache
def _symbols_query(spec: LanguageSpec) -> Query:
    """The language's query without the patterns of call sites, escapes and bindings."""
    query = Query(spec.language, spec.query_text)
    for i in range(query.pattern_count):
        pattern = spec.query_text[query.start_byte_for_pattern(i):query.end_byte_for_pattern(i)]
        if any(capture in pattern for capture in _SITE_CAPTURES):
            query.disable_pattern(i)
    return query


def extract_symbols(spec: LanguageSpec, tree: Tree, path: str, content: bytes) -> FileFacts:
    """The facts of a file too large to link its calls (vendored.too_large_because): its definitions,
    imports and super types, and as references the names it calls, each once (read from the text,
    `name(`: the names of its gap, structural/gaps.py), at no line and in no scope: none is linked."""
    facts = extract_located(spec, tree, path, query=_symbols_query(spec))[0]
    facts.references += [Reference("call", name.decode(), "", 0) for name in dict.fromkeys(_CALLED.findall(content))]
    return facts


def extract_located(
    spec: LanguageSpec, tree: Tree, path: str, renamed: dict[Span, tuple[str, str]] | None = None,
    query: Query | None = None,
) -> tuple[FileFacts, Located]:
    """The facts and where they sit. `renamed`: (name, qualname) of definitions the language names
    otherwise than by their name in their enclosing definition (javac's `Outer$1` for an anonymous
    class, `Outer$1Local` for a local one), by their node's span."""
    located = Located()
    matches = QueryCursor(query or spec.query).matches(tree.root_node)
    facts = FileFacts(
        path=path, language=spec.name, module="", definitions=[], references=[], imports=[],
        error_nodes=_count_errors(tree),
    )
    # (definition node, name node (None: anonymous), kind, owner type written outside it (Go
    # receivers), pattern, declared result type, anonymous label, written as a value)
    defs: list[tuple[Node | _Span, Node | None, str, str, int, str, str, bool]] = []
    others: list[tuple[dict[str, list[Node]], _Roles]] = []
    bindings: list[tuple[int, dict[str, list[Node]]]] = []
    escaping: list[tuple[str, dict[str, list[Node]]]] = []
    for pattern, caps in matches:
        roles = _roles(tuple(caps))
        def_key, label = roles.definition, roles.anonymous
        if def_key and ("name" in caps or label):
            owner = _bare_type(_first(caps, "owner"))
            node = _spanning(caps[def_key])
            name_node = caps["name"][0] if "name" in caps else None
            defs.append((node, name_node, def_key.split(".", 1)[1], owner, pattern, _first(caps, "returns"),
                         label.split(".", 1)[1] if label else "", "value" in caps))
        elif "package" in caps and not facts.package:
            facts.package = text_of(caps["package"][0])
        elif "binding" in caps:
            bindings.append((pattern, caps))
        elif escape := roles.escape:
            escaping.append((escape, caps))
        else:
            others.append((caps, roles))

    scopes = _Scopes()
    seen: set[tuple[int, int]] = set()
    named = {(d[0].start_byte, d[0].end_byte) for d in defs if d[1] is not None}
    anonymous: dict[tuple[str, str], int] = {}  # (parent, label) -> how many so far
    # Outermost first. When several patterns match the same node, one naming an @owner wins,
    # else the one written first in the query file.
    for node, name_node, kind, owner, _, returns, label, value in sorted(
        defs, key=lambda d: (d[0].start_byte, -d[0].end_byte, not d[3], d[4])
    ):
        if (node.start_byte, node.end_byte) in seen:
            continue  # two patterns matched the same definition
        parent_node = getattr(node, "parent", None) if value else None
        if parent_node is not None and (parent_node.start_byte, parent_node.end_byte) in named:
            continue  # the value of a named definition: `const f = function g() {}` is f
        seen.add((node.start_byte, node.end_byte))
        parent = owner or scopes.enclosing(node.start_byte, node.end_byte)
        if name_node is None:
            count = anonymous[parent, label] = anonymous.get((parent, label), 0) + 1
            name = f"<{label}{count}>"
        else:
            name = text_of(name_node)
        sep = "."
        if parent and kind in spec.type_kinds and _is_type(facts, parent, spec):
            sep = spec.nested_type_separator
        qualname = f"{parent}{sep}{name}" if parent else name
        if renamed and (node.start_byte, node.end_byte) in renamed:
            name, qualname = renamed[node.start_byte, node.end_byte]
        scopes.add(node.start_byte, node.end_byte, qualname)
        located.spans[node.start_byte, node.end_byte] = qualname
        facts.definitions.append(
            Definition(
                name=name, kind=kind, qualname=qualname,
                start_line=node.start_point[0] + 1, end_line=node.end_point[0] + 1,
                signature=signature(node), fingerprint=fingerprint(node), returns=_one_line(returns),
            )
        )

    import_roots: list[tuple[int, int]] = []
    # A definition's name node is not also a call of it (Elixir's `def f(x)` parses its head as a call).
    def_names = {(d[1].start_byte, d[1].end_byte) for d in defs if d[1] is not None}
    # One reference per name node and kind: where a plain-call pattern and a qualified one both
    # match a call (grammars that nest `f(x)` inside `a.f(x)`), the one with a @receiver wins.
    qualified = {_ref_key(caps, roles) for caps, roles in others if "receiver" in caps}
    emitted: set[tuple[str, int, int]] = set()
    for caps, roles in others:
        name = caps.get("name")
        if name and "reference.call" in caps and (name[0].start_byte, name[0].end_byte) in def_names:
            continue
        key = _ref_key(caps, roles)
        if key is not None:
            if ("receiver" not in caps and key in qualified) or key in emitted:
                continue
            emitted.add(key)
        _add_reference_or_import(facts, caps, roles.anchor, scopes, import_roots, located.anchors)
    facts.imports = _without_subsumed(facts.imports, import_roots)
    facts.escapes = [_escape(caps, key, scopes) for key, caps in escaping]
    facts.bindings = _bindings(bindings, facts, scopes, spec)
    _attach_bases(facts)
    return facts, located


def _escape(caps: dict[str, list[Node]], key: str, scopes: _Scopes) -> Reference:
    """A name taken as a value: where (its line, the text of the construct taking it), and how."""
    site, name = caps[key][0], caps["name"][0]
    return Reference(kind=key.split(".", 1)[1], name=text_of(name), line=name.start_point[0] + 1,
                     scope=scopes.enclosing(name.start_byte, name.end_byte), receiver=_first(caps, "receiver"),
                     detail=" ".join(text_of(site).split())[:120])


class _Roles(NamedTuple):
    """What a match's capture names make of it: its first capture named `definition.*` (None: none),
    `anonymous.*` (of a definition; "": none), `escape.*`, `reference.*`, and `reference.*` or `import*`."""

    definition: str | None
    anonymous: str
    escape: str | None
    reference: str | None
    anchor: str | None


@cache
def _roles(names: tuple[str, ...]) -> _Roles:
    """The roles of a match's capture names, once per combination (a query has few, a file many matches)."""
    definition = next((k for k in names if k.startswith("definition.")), None)
    return _Roles(definition, next((k for k in names if k.startswith("anonymous.")), "") if definition else "",
                  next((k for k in names if k.startswith("escape.")), None),
                  next((k for k in names if k.startswith("reference.")), None),
                  next((k for k in names if k.startswith(("reference.", "import"))), None))


def _ref_key(caps: dict[str, list[Node]], roles: _Roles) -> tuple[str, int, int] | None:
    kind = roles.reference
    name = caps.get("name")
    return (kind, name[0].start_byte, name[0].end_byte) if kind and name else None


def _is_type(facts: FileFacts, qualname: str, spec: LanguageSpec) -> bool:
    for d in reversed(facts.definitions):
        if d.qualname == qualname:
            return d.kind in spec.type_kinds
    return False


def _add_reference_or_import(
    facts: FileFacts, caps: dict[str, list[Node]], anchor_key: str | None, scopes: _Scopes, import_roots: list[Span],
    anchors: list[Span],
) -> None:
    """`anchor_key`: the match's first capture named `reference.*` or `import*` (`_Roles.anchor`)."""
    if anchor_key is None:
        return
    anchor = caps[anchor_key][0]
    # @owner: the reference belongs to a type written outside it (Rust `impl Trait for T`).
    scope = _bare_type(_first(caps, "owner")) or scopes.enclosing(anchor.start_byte, anchor.end_byte)
    line = anchor.start_point[0] + 1
    if anchor_key.startswith("import"):
        root = caps.get("import", [anchor])[0]
        facts.imports.append(
            Import(
                module=_first(caps, "import.module").strip("\"'`<>"),
                scope=scopes.enclosing(root.start_byte, root.end_byte),
                line=root.start_point[0] + 1,
                name="default" if "import.default" in caps else _first(caps, "import.name"),
                alias=_first(caps, "import.alias"),
                level=len(_first(caps, "import.relative")) if "import.relative" in caps else 0,
                wildcard="import.wildcard" in caps,
            )
        )
        import_roots.append((root.start_byte, root.end_byte))
        return
    kind = anchor_key.split(".", 1)[1]
    name_node = caps.get("name", [anchor])[0]
    anchors.append((anchor.start_byte, anchor.end_byte))
    facts.references.append(
        Reference(
            kind=kind,
            name=text_of(name_node) if kind != "dynamic" else _first(caps, "name"),
            scope=scope,
            line=line,
            receiver=_first(caps, "receiver"),
            detail=text_of(anchor)[:120] if kind == "dynamic" else "",
        )
    )


def _without_subsumed(imports: list[Import], roots: list[tuple[int, int]]) -> list[Import]:
    """Drop a bare module import when a pattern also bound a name from the same import node:
    `const u = require("./u")` matches both the generic `require(...)` and the binding pattern."""
    def binds(imp: Import) -> bool:
        return bool(imp.name or imp.alias or imp.wildcard)

    named = {(root, imp.module) for root, imp in zip(roots, imports, strict=True) if binds(imp)}
    return [imp for root, imp in zip(roots, imports, strict=True) if binds(imp) or (root, imp.module) not in named]


def _bindings(
    matches: list[tuple[int, dict[str, list[Node]]]], facts: FileFacts, scopes: _Scopes, spec: LanguageSpec
) -> list[Binding]:
    """One binding per declared name; when several patterns match one, the first written wins
    (`const x: Foo = new Bar()` is a Foo)."""
    out: dict[tuple[int, int, str, str], Binding] = {}
    for _, caps in sorted(matches, key=lambda m: m[0]):
        anchor, name = caps["binding"][0], _first(caps, "binding.name")
        type_text = _first(caps, "binding.type") or _first(caps, "binding.alias") or _first(caps, "binding.call")
        if not name or not type_text:
            continue
        scope = scopes.enclosing(anchor.start_byte, anchor.end_byte)
        if "binding.field" in caps:  # `this.x = new X()` inside a method: a field of its class
            scope = _enclosing_type(facts, scope, spec)
        key = (anchor.start_byte, anchor.end_byte, name, scope)
        out.setdefault(key, Binding(
            name=name, type=_one_line(type_text), scope=scope,
            line=anchor.start_point[0] + 1, alias="binding.alias" in caps, call="binding.call" in caps,
        ))
    return list(out.values())


def _one_line(type_text: str) -> str:
    """A type as written, on one line (`Map<\n  K, V>` -> `Map< K, V>`), cut at 200 characters."""
    return " ".join(type_text.split())[:200]


def _enclosing_type(facts: FileFacts, scope: str, spec: LanguageSpec) -> str:
    while scope and not _is_type(facts, scope, spec):
        cut = max(scope.rfind("."), scope.rfind(spec.nested_type_separator))
        scope = scope[:cut] if cut > 0 else ""
    return scope


_TYPE_NOISE = re.compile(r"[*&\s]|\[.*\]|<.*>|^(mut|const)\b")


def _bare_type(text: str) -> str:
    """`*Service[T]` -> `Service`: the owner type's name without pointers or type arguments."""
    return _TYPE_NOISE.sub("", text) if text else ""


def _first(caps: dict[str, list[Node]], key: str) -> str:
    """The captured text; a capture of several nodes gives the source from the first to the last."""
    nodes = caps.get(key)
    return text_of(_spanning(nodes)) if nodes else ""


class _Span(NamedTuple):
    """Several sibling nodes captured under one name, read as one node: a quantified path
    (`((identifier) @import.module ".")+` -> `a.b.c`), or a definition whose grammar puts the
    signature and the body side by side (Dart)."""

    start_byte: int
    end_byte: int
    start_point: tuple[int, int]
    end_point: tuple[int, int]
    text: bytes


def _spanning(nodes: list[Node]) -> Node | _Span:
    if len(nodes) == 1:
        return nodes[0]
    first = min(nodes, key=lambda n: n.start_byte)
    last = max(nodes, key=lambda n: n.end_byte)
    outer = first
    while outer.parent is not None and outer.end_byte < last.end_byte:
        outer = outer.parent
    base = outer.start_byte
    text = (outer.text or b"")[first.start_byte - base : last.end_byte - base]
    return _Span(first.start_byte, last.end_byte, first.start_point, last.end_point, text)


def _attach_bases(facts: FileFacts) -> None:
    """Copy each class's super types onto its definition, where resolvers look for them."""
    bases: dict[str, list[str]] = {}
    for ref in facts.references:
        if ref.kind in ("inherits", "implements"):
            bases.setdefault(ref.scope, []).append(ref.name)
    if not bases:
        return
    facts.definitions = [
        Definition(**{**_asdict(d), "bases": tuple(bases[d.qualname])}) if d.qualname in bases else d
        for d in facts.definitions
    ]


def _asdict(d: Definition) -> dict:
    return {f: getattr(d, f) for f in d.__struct_fields__}
