"""What the graph keeps of a class file: its names, super types, fields, methods and their call
sites, in the names tenure uses (`com.acme.pay.Outer$Inner`). Small msgspec structs, so an
origin's classes are cached as one msgpack blob and an unchanged jar is never read again."""

from __future__ import annotations

import msgspec

from tenure.structural.jvm.classfile import (
    ACC_ABSTRACT,
    ACC_ANNOTATION,
    ACC_ENUM,
    ACC_INTERFACE,
    INVOKE_OPCODES,
    LDC,
    LDC_W,
    NEW,
    ClassFile,
    Member,
    MethodHandle,
    field_type,
)

# Bootstrap methods whose second static argument is the implementation behind a lambda or method reference.
LAMBDA_BOOTSTRAPS = {("java/lang/invoke/LambdaMetafactory", "metafactory"),
                     ("java/lang/invoke/LambdaMetafactory", "altMetafactory")}
REF_NEW_INVOKE_SPECIAL = 8


class Site(msgspec.Struct, array_like=True, frozen=True):
    """One instruction the graph cares about. kind: an invoke opcode's name, `new`, `methodref`
    (invokedynamic to a method reference or lambda body), `class` (ldc of a class constant)."""

    kind: str
    owner: str  # dotted class name
    name: str = ""
    descriptor: str = ""
    line: int = 0
    fresh: bool = False  # `<init>` of an object this method created with `new` (not super()/this())
    constant: str | None = None  # the last string constant loaded before this site (names for reflection)
    made_as: str = ""  # a lambda or method reference: the functional interface of the object it makes


class MethodModel(msgspec.Struct, array_like=True):
    name: str
    descriptor: str
    access: int
    line: int  # first line of its code, 0 when it has none
    annotations: list[str]
    sites: list[Site]


class FieldModel(msgspec.Struct, array_like=True):
    name: str
    type: str  # dotted
    annotations: list[str]


class ClassModel(msgspec.Struct, array_like=True):
    name: str  # dotted: com.acme.pay.Outer$Inner
    path: str  # the class file inside its origin
    access: int
    super_name: str | None
    interfaces: list[str]
    annotations: list[str]
    fields: list[FieldModel]
    methods: list[MethodModel]
    outer: str | None = None  # the declaring class of a member class
    enclosing: tuple[str, str | None] | None = None  # (class, method) around a local or anonymous class

    @property
    def kind(self) -> str:
        if self.access & ACC_ANNOTATION or self.access & ACC_INTERFACE:
            return "interface"
        return "enum" if self.access & ACC_ENUM else "class"

    @property
    def is_interface(self) -> bool:
        return bool(self.access & ACC_INTERFACE)

    @property
    def package(self) -> str:
        return self.name.rpartition(".")[0]


def dotted(internal: str) -> str:
    return internal.replace("/", ".")


def build(cf: ClassFile, path: str) -> ClassModel:
    model = ClassModel(
        name=dotted(cf.name), path=path, access=cf.access,
        super_name=dotted(cf.super_name) if cf.super_name else None,
        interfaces=[dotted(i) for i in cf.interfaces], annotations=_annotation_names(cf.annotations),
        fields=[FieldModel(f.name, _type_name(f.descriptor), _annotation_names(f.annotations)) for f in cf.fields],
        methods=[_method(cf, m) for m in cf.methods],
    )
    for inner in cf.inner_classes:
        if inner.inner == cf.name:
            model.outer = dotted(inner.outer) if inner.outer else None
    if cf.enclosing_method:
        owner, method = cf.enclosing_method
        model.enclosing = (dotted(owner), method)
    return model


def is_abstract(method: MethodModel) -> bool:
    return bool(method.access & ACC_ABSTRACT)


def _type_name(descriptor: str) -> str:
    return dotted(field_type(descriptor))


def _annotation_names(annotations: list) -> list[str]:
    return [_type_name(a.type) for a in annotations]


def _method(cf: ClassFile, m: Member) -> MethodModel:
    sites: list[Site] = []
    line = 0
    if m.code is not None:
        code = m.code
        line = min(code.lines) if code.lines else 0
        pending_new: list[str] = []
        constant: str | None = None
        pool = cf.pool
        for ins in code.instructions():
            op = ins.opcode
            if op in (LDC, LDC_W):
                value = pool.constant(ins.operand)
                if isinstance(value, str):
                    constant = value
                elif isinstance(value, tuple) and value[0] == "Class":
                    sites.append(Site("class", dotted(value[1]), line=code.line_at(ins.pc)))
            elif op == NEW:
                owner = dotted(pool.class_name(ins.operand))
                pending_new.append(owner)
                sites.append(Site("new", owner, line=code.line_at(ins.pc)))
            elif op == 0xBA:
                site = _invokedynamic(cf, ins.operand, code.line_at(ins.pc))
                if site is not None:
                    sites.append(site)
            elif op in INVOKE_OPCODES:
                ref = pool.member(ins.operand)
                owner = dotted(ref.owner)
                fresh = ref.name == "<init>" and bool(pending_new) and pending_new[-1] == owner
                if fresh:
                    pending_new.pop()
                sites.append(Site(INVOKE_OPCODES[op], owner, ref.name, ref.descriptor, code.line_at(ins.pc), fresh,
                                  constant))
                constant = None
    return MethodModel(m.name, m.descriptor, m.access, line, _annotation_names(m.annotations), sites)


def _invokedynamic(cf: ClassFile, index: int, line: int) -> Site | None:
    """A lambda or method reference: the implementation method javac named in the bootstrap arguments,
    and the functional interface the call site makes an object of (its descriptor's result)."""
    handle, args = cf.invokedynamic_target(index)
    if (handle.ref.owner, handle.ref.name) not in LAMBDA_BOOTSTRAPS or len(args) < 2:
        return None  # string concatenation, records' ObjectMethods, switch bootstraps: no call target
    impl = args[1]
    if not isinstance(impl, MethodHandle):
        return None
    fresh = impl.kind == REF_NEW_INVOKE_SPECIAL
    made = cf.invokedynamic_descriptor(index).rpartition(")")[2]
    made_as = dotted(made[1:-1]) if made.startswith("L") else ""
    return Site("methodref", dotted(impl.ref.owner), impl.ref.name, impl.ref.descriptor, line, fresh,
                made_as=made_as)


class OriginClasses(msgspec.Struct):
    """What one origin holds: its classes, and (class path, reason) for each one that could not be read."""

    models: list[ClassModel]
    skipped: list[tuple[str, str]]


# What a cached model holds changes with this reader: a model of another format is read again
# (2: lambdas' functional interfaces, Site.made_as)
MODEL_FORMAT = 2


def encode(classes: OriginClasses) -> bytes:
    return msgspec.msgpack.encode((MODEL_FORMAT, classes))


def decode(blob: bytes) -> OriginClasses:
    """Raises ValueError for a damaged blob or one of another format."""
    fmt, classes = msgspec.msgpack.decode(blob, type=tuple[int, OriginClasses])
    if fmt != MODEL_FORMAT:
        raise ValueError(f"class models of format {fmt}, not {MODEL_FORMAT}")
    return classes
