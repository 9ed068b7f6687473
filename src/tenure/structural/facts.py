"""What one source file says, before any cross-file resolution.

Extraction turns a parse tree into :class:`FileFacts`; resolution turns the facts of a file plus a
read-only view of the project into edges. Facts are stored per file (msgpack), so an incremental
update re-parses only changed files and re-resolves only the files whose inputs changed.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec


class Definition(msgspec.Struct, frozen=True):
    name: str  # as written: "retry"
    kind: str  # class, interface, struct, enum, trait, function, method, module, ...
    qualname: str  # inside its module: "SettlementService.retry"; Java nested classes "Outer$Inner"
    start_line: int  # 1-based, inclusive
    end_line: int
    signature: str  # the definition's first line, trimmed
    fingerprint: str  # hash of its whitespace-normalised text: changes when its code changes
    bases: tuple[str, ...] = ()  # super types as written (classes)
    decorators: tuple[str, ...] = ()
    returns: str = ""  # declared result type as written (`*Service`, `(*Service, error)`, `Promise<T>`)


class Reference(msgspec.Struct, frozen=True):
    kind: str  # call, new, inherits, implements, dynamic
    name: str  # the referenced simple name: "execute"; "" when unknown (dynamic)
    scope: str  # qualname of the enclosing definition, "" for module level
    line: int
    receiver: str = ""  # the qualifier as written: "self", "os.path", "repo"
    detail: str = ""  # for dynamic sites: the expression text


class Import(msgspec.Struct, frozen=True):
    module: str  # as written: "a.b", "./util", "java.util.List", "fmt"
    scope: str
    line: int
    name: str = ""  # the imported member ("from m import name"); "" for the module itself
    alias: str = ""  # local binding when renamed ("import numpy as np")
    level: int = 0  # relative import depth (Python leading dots)
    wildcard: bool = False


class Binding(msgspec.Struct, frozen=True):
    """A name whose type is known where it is declared: a parameter, field or variable with a
    declared type, or one assigned `new T()` / `&T{}`. Resolvers use it to type call receivers."""

    name: str  # as written: "repo", "#ledger"
    type: str  # as written: "*store.Repo", "List<Foo>"; for an alias or a call, see below
    scope: str  # qualname of the enclosing definition; for a field, its type's qualname
    line: int
    alias: bool = False  # `export default Foo`: the name is another name for `type`, not of that type
    call: bool = False  # `s := NewService()`: `type` is the callee; the name holds what it returns


class FileFacts(msgspec.Struct):
    path: str  # relative to the repository root, "/" separated
    language: str
    module: str  # the module's name in the namespace: "settlement.service"
    definitions: list[Definition]
    references: list[Reference]
    imports: list[Import]
    error_nodes: int = 0  # syntax errors tree-sitter recovered from
    package: str = ""  # declared package/namespace (Java, Go, C#, Kotlin, Scala, PHP)
    flow: Any = None  # language-specific data for a richer resolver (e.g. Python's assignments)
    bindings: list[Binding] = msgspec.field(default_factory=list)
    # Names taken as values, not called (`url_for=self.url_for`, `register(handler)`, `return f`): what
    # calls a function from there (a template, a callback registry) the graph may not follow. `kind`
    # says how (keyword, argument, item, stored, returned), `detail` the text around it.
    escapes: list[Reference] = msgspec.field(default_factory=list)
    # Why the file got the cheaper pass (vendored.py: a vendored library, minified code): its resolver
    # links its calls by name only, and answers counting calls there say so. "": the full analysis.
    read_cheaply: str = ""


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(FileFacts)


def encode_facts(facts: FileFacts) -> bytes:
    return _encoder.encode(facts)


def facts_digest(blob: bytes) -> bytes:
    """What a file's encoded facts are, to compare them across processes without decoding them."""
    return hashlib.blake2b(blob, digest_size=16).digest()


def digest_of(facts: FileFacts) -> bytes:
    """`facts_digest` of facts held decoded: the digest of the blob the store holds for them
    (encoding is deterministic)."""
    return facts_digest(encode_facts(facts))


def decode_facts(blob: bytes) -> FileFacts:
    return _decoder.decode(blob)
