"""Scope- and import-aware name resolution from the generic facts, for every language.

Order of lookup for a name, nearest first: the enclosing definitions (nested functions), the
enclosing type and its super types (for `self`/`this` receivers, and bare calls where the language
calls members implicitly), the file's imports, the file's module (other files of the same package),
then the whole project by name. One candidate is `inferred`, several `ambiguous` (all kept).
"""

from __future__ import annotations

from tenure.namespace.tiers import Relation, Tier
from tenure.structural.facts import FileFacts, Import, Reference
from tenure.structural.languages import LanguageSpec, language_table
from tenure.structural.naming import file_scope_name, qualify, short_name
from tenure.structural.resolve import MAX_CANDIDATES, EdgeOut, ProjectView, SymbolInfo

CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro"})


class FileResolver:
    """Resolution state for one file: its language, local definitions and import bindings."""

    def __init__(self, facts: FileFacts, view: ProjectView) -> None:
        self.facts = facts
        self.view = view
        self.spec: LanguageSpec = language_table()[facts.language]
        self.prefix = facts.package if self.spec.module_scheme == "package" else facts.module
        self.file_scope = file_scope_name(self.spec, facts.module, facts.path, facts.package)
        self.local = {d.qualname: d for d in facts.definitions}
        self.bindings: dict[str, list[Import]] = {}
        for imp in facts.imports:
            local_name = imp.alias or imp.name or imp.module.replace("/", ".").split(".")[-1]
            self.bindings.setdefault(local_name, []).append(imp)
        self.family = set(self.spec.extra.get("family", [facts.language]))
        self.implicit_this = bool(self.spec.extra.get("implicit_this", False))

    # names -------------------------------------------------------------------------------------
    def fqn(self, qualname: str) -> str:
        return qualify(self.prefix, qualname) if qualname else self.file_scope

    def same_language(self, syms: list[SymbolInfo]) -> list[SymbolInfo]:
        return [s for s in syms if s.language in self.family]

    def enclosing_type(self, scope: str) -> str:
        """Qualname of the innermost type around `scope`, or ''."""
        while scope:
            d = self.local.get(scope)
            if d is not None and d.kind in self.spec.type_kinds:
                return scope
            scope = _parent(scope, self.spec)
        return ""

    # lookups -----------------------------------------------------------------------------------
    def members(self, type_fqn: str, name: str, seen: set[str] | None = None) -> list[SymbolInfo]:
        """`name` defined on the type or, failing that, on its super types (nearest first)."""
        seen = seen if seen is not None else set()
        if type_fqn in seen:
            return []
        seen.add(type_fqn)
        own = [s for s in self.view.members(type_fqn) if s.name == name]
        if own:
            return own
        found: list[SymbolInfo] = []
        for cls in self.view.symbols(type_fqn):
            for base in cls.bases:
                for base_sym in self.resolve_type_from(base, cls):
                    found.extend(self.members(base_sym.fqn, name, seen))
        return found

    def resolve_type_from(self, name: str, owner: SymbolInfo) -> list[SymbolInfo]:
        """A super type named in `owner`'s declaration. Same-file names first, then everywhere."""
        if owner.path == self.facts.path:
            return self.resolve_type(name, "")
        simple = short_name(name.split("<", 1)[0].split("[", 1)[0])
        return self._types(self.view.named(simple))

    def resolve_type(self, name: str, scope: str) -> list[SymbolInfo]:
        name = name.split("<", 1)[0].split("[", 1)[0].strip()
        if "." in name and not name.startswith("."):
            head, _, tail = name.rpartition(".")
            qualified = self._types(self.view.symbols(self.fqn_of_dotted(head) + "." + tail))
            if qualified:
                return qualified
            name = tail
        return self._types(self.resolve_name(name, scope))

    def fqn_of_dotted(self, head: str) -> str:
        imps = self.bindings.get(head.split(".")[0])
        if imps:
            base = _import_target(imps[0])
            return ".".join([base, *head.split(".")[1:]])
        return head

    def _types(self, syms: list[SymbolInfo]) -> list[SymbolInfo]:
        return [s for s in syms if s.kind in self.spec.type_kinds]

    def resolve_name(self, name: str, scope: str) -> list[SymbolInfo]:
        # 1. enclosing definitions, innermost first (nested functions, then the file's top level)
        s = scope
        while True:
            qual = f"{s}.{name}" if s else name
            if qual in self.local and (not s or self.local[s].kind not in self.spec.type_kinds):
                return self.view.symbols(self.fqn(qual))
            if not s:
                break
            s = _parent(s, self.spec)
        # 2. members of the enclosing type, where the language calls them without `this.`
        if self.implicit_this:
            owner = self.enclosing_type(scope)
            if owner:
                found = self.members(self.fqn(owner), name)
                if found:
                    return found
            if name in self.local:
                return self.view.symbols(self.fqn(name))
        # 3. imports
        for imp in self.bindings.get(name, []):
            found = self.view.symbols(_import_target(imp))
            if found:
                return found
        # 4. the same module (other files of the package)
        found = self.same_language(self.view.symbols(qualify(self.prefix, name)))
        if found:
            return found
        # 5. the whole project by name
        return self.same_language(self.view.named(name))

    def resolve_call(self, ref: Reference) -> list[SymbolInfo]:
        receiver = ref.receiver
        if not receiver:
            return self.resolve_name(ref.name, ref.scope)
        if receiver in self.spec.self_names:
            owner = self.enclosing_type(ref.scope)
            return self.members(self.fqn(owner), ref.name) if owner else []
        head = receiver.split(".")[0].split("(")[0]
        if receiver.replace(".", "").isidentifier():
            for imp in self.bindings.get(head, []):
                target = _import_target(imp) + receiver[len(head):]
                found = self.view.symbols(f"{target}.{ref.name}")
                if found:
                    return found
            for type_sym in self.resolve_type(receiver, ref.scope):
                found = self.members(type_sym.fqn, ref.name)
                if found:
                    return found
        # Unknown receiver: every same-named member anywhere is a candidate.
        return [s for s in self.same_language(self.view.named(ref.name)) if s.kind in CALLABLE_KINDS]

    # edges -------------------------------------------------------------------------------------
    def edges(self) -> list[EdgeOut]:
        out: list[EdgeOut] = []
        for ref in self.facts.references:
            src = self.fqn(ref.scope)
            if ref.kind == "dynamic":
                out.append(EdgeOut(src, None, Relation.CALLS, Tier.DYNAMIC, ref.line, ref.name, ref.detail))
                continue
            if ref.kind in ("inherits", "implements"):
                targets = self.resolve_type(ref.name, _parent(ref.scope, self.spec))
                relation = Relation.INHERITS if ref.kind == "inherits" else Relation.IMPLEMENTS
                out.extend(self._edges_to(src, targets, relation, ref))
                continue
            targets = self.resolve_call(ref)
            types = self._types(targets)
            if ref.kind == "new" or types:
                types = types or self._types(self.resolve_type(ref.name, ref.scope))
                out.extend(self._edges_to(src, types, Relation.INSTANTIATES, ref))
                ctors = [c for t in types for c in self.constructors(t)]
                out.extend(self._edges_to(src, ctors, Relation.CALLS, ref))
                continue
            out.extend(self._edges_to(src, targets, Relation.CALLS, ref))
        for imp in self.facts.imports:
            found = self.view.symbols(_import_target(imp))
            if found or self.view.module_exists(_import_target(imp)):
                target = found[0].fqn if found else _import_target(imp)
                out.append(EdgeOut(self.fqn(imp.scope), target, Relation.IMPORTS, Tier.INFERRED, imp.line, imp.name))
        return out

    def constructors(self, type_sym: SymbolInfo) -> list[SymbolInfo]:
        names = self.spec.extra.get("constructor_names", [])
        return [m for m in self.view.members(type_sym.fqn) if m.kind == "constructor" or m.name in names]

    def _edges_to(self, src: str, targets: list[SymbolInfo], relation: str, ref: Reference) -> list[EdgeOut]:
        unique = sorted({t.fqn for t in targets})
        if not unique:
            return []
        if len(unique) > MAX_CANDIDATES:
            detail = f"{len(unique)} candidates named {ref.name}"
            return [EdgeOut(src, None, relation, Tier.AMBIGUOUS, ref.line, ref.name, detail)]
        tier = Tier.INFERRED if len(unique) == 1 else Tier.AMBIGUOUS
        return [EdgeOut(src, fqn, relation, tier, ref.line, ref.name) for fqn in unique]


def _parent(qualname: str, spec: LanguageSpec) -> str:
    cut = max(qualname.rfind("."), qualname.rfind(spec.nested_type_separator))
    return qualname[:cut] if cut > 0 else ""


def _import_target(imp: Import) -> str:
    module = imp.module.replace("/", ".").replace("::", ".")
    return f"{module}.{imp.name}" if imp.name else module


def resolve(facts: FileFacts, view: ProjectView) -> list[EdgeOut]:
    return FileResolver(facts, view).edges()
