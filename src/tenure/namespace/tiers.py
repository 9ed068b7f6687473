"""Trust tiers (SPEC §2.1): how far an edge or a match can be trusted, strongest first."""

from __future__ import annotations

from enum import StrEnum

from tenure.words import plural


class Tier(StrEnum):
    """Declared strongest first: iteration order is trust order."""

    RESOLVED = "resolved"  # a type checker or compiler confirmed it
    OBSERVED = "observed"  # a real execution produced it
    INFERRED = "inferred"  # one name-matched target, unverified
    AMBIGUOUS = "ambiguous"  # several candidates, all kept, none picked
    DYNAMIC = "dynamic"  # computed at run time: target undecidable


class Relation(StrEnum):
    CALLS = "calls"
    INSTANTIATES = "instantiates"  # `Foo()` / `new Foo()`: a dependant of the class itself
    INHERITS = "inherits"  # class -> base class
    IMPLEMENTS = "implements"  # class -> interface
    IMPORTS = "imports"  # module -> module or imported symbol
    REFERENCES = "references"  # a name used without being called (passed, assigned, decorated)
    OVERRIDES = "overrides"  # method -> the method it overrides (derived at query time)
    INJECTS = "injects"  # injection point -> the bean that backs it (DI wiring)
    HTTP = "http"  # client service or symbol -> the server handler it calls over HTTP (traces)
    MESSAGE = "message"  # producer -> topic -> consumer (traces)

    def dependant_noun(self, count: int) -> str:
        return plural(_NOUNS[self], count)


_NOUNS = {
    Relation.CALLS: "caller",
    Relation.INSTANTIATES: "instantiation",
    Relation.INHERITS: "subclass",
    Relation.IMPLEMENTS: "implementer",
    Relation.IMPORTS: "importer",
    Relation.REFERENCES: "reference",
    Relation.OVERRIDES: "overriding method",
    Relation.INJECTS: "injection point",
    Relation.HTTP: "HTTP caller",
    Relation.MESSAGE: "message sender",
}
