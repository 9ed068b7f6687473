"""Java: resolution with Java's static types, on the facts the Java extractor gives
(extractors/java.py). The generic resolver's scopes, imports and type hierarchy are shared
(generic.py: `JavaFileResolver` extends its `FileResolver`); what is Java's own lives here:

    types.py     types as written and resolved (type arguments, variables, substitution), methods
    jdk.py       the JDK's generic types and signatures (jdk.toml): what values flow through them
    resolver.py  typing every expression, overloads by arity and argument types, lambda parameters
                 from the parameter they are passed to, generic methods' results
    runtime.py   the edges of each kind of site, with the calls javac writes and the JVM makes on a
                 program's behalf (marked `jvm: ...`), and reflection named by constants

Like the generic resolver it keeps no answers to check later: an edit resolves again every file
that read what it touched (every read goes through the ProjectView).
"""

from __future__ import annotations

from tenure.structural.facts import FileFacts
from tenure.structural.resolve import EdgeOut, ProjectView, Resolver
from tenure.structural.resolve.java.resolver import JavaFileResolver


class JavaResolver(Resolver):
    def resolve(self, facts: FileFacts, view: ProjectView) -> list[EdgeOut]:
        return JavaFileResolver(facts, view).edges()


resolver = JavaResolver()
