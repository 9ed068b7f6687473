"""A class-file reader (JVM spec chapter 4, class file versions 45–69: Java 1.1 to 25).

Reads what the code graph needs and nothing it does not: the constant pool (every tag up to
Dynamic, Module and Package), the class's super types, fields and methods with descriptors and
annotations, each method's Code decoded instruction by instruction (switch padding and `wide`
included) with its LineNumberTable, BootstrapMethods (invokedynamic), InnerClasses,
EnclosingMethod and SourceFile. Anything malformed — a truncated file, a bad magic number, an
unknown constant-pool tag or opcode, an index that points nowhere — raises :class:`ClassFileError`,
the one error the caller reports and skips.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

MIN_MAJOR, MAX_MAJOR = 45, 69

ACC_PUBLIC = 0x0001
ACC_PRIVATE = 0x0002
ACC_PROTECTED = 0x0004
ACC_STATIC = 0x0008
ACC_FINAL = 0x0010
ACC_BRIDGE = 0x0040
ACC_INTERFACE = 0x0200
ACC_ABSTRACT = 0x0400
ACC_SYNTHETIC = 0x1000
ACC_ANNOTATION = 0x2000
ACC_ENUM = 0x4000
ACC_MODULE = 0x8000

# Constant-pool tags: name and the size of their payload in bytes (Utf8 is length-prefixed).
CP_TAGS: dict[int, tuple[str, int]] = {
    1: ("Utf8", -1), 3: ("Integer", 4), 4: ("Float", 4), 5: ("Long", 8), 6: ("Double", 8), 7: ("Class", 2),
    8: ("String", 2), 9: ("Fieldref", 4), 10: ("Methodref", 4), 11: ("InterfaceMethodref", 4),
    12: ("NameAndType", 4), 15: ("MethodHandle", 3), 16: ("MethodType", 2), 17: ("Dynamic", 4),
    18: ("InvokeDynamic", 4), 19: ("Module", 2), 20: ("Package", 2),
}
_WIDE_TAGS = {5, 6}  # Long and Double take two constant-pool slots

# Opcodes with their operand length in bytes; -1: variable (tableswitch, lookupswitch, wide).
# Opcodes absent from this table are undefined and make the method unreadable.
OPERAND_BYTES: dict[int, int] = {
    **{op: 0 for op in range(0x00, 0x10)},  # nop, aconst_null, iconst_*, lconst_*, fconst_*, dconst_*
    0x10: 1, 0x11: 2, 0x12: 1, 0x13: 2, 0x14: 2,  # bipush, sipush, ldc, ldc_w, ldc2_w
    **{op: 1 for op in range(0x15, 0x1A)},  # iload .. aload
    **{op: 0 for op in range(0x1A, 0x36)},  # *load_<n>, *aload
    **{op: 1 for op in range(0x36, 0x3B)},  # istore .. astore
    **{op: 0 for op in range(0x3B, 0x84)},  # *store_<n>, *astore, stack ops, arithmetic
    0x84: 2,  # iinc
    **{op: 0 for op in range(0x85, 0x99)},  # conversions, compares
    **{op: 2 for op in range(0x99, 0xA9)},  # if*, goto, jsr
    0xA9: 1, 0xAA: -1, 0xAB: -1,  # ret, tableswitch, lookupswitch
    **{op: 0 for op in range(0xAC, 0xB2)},  # *return
    **{op: 2 for op in range(0xB2, 0xB9)},  # get/put static/field, invokevirtual/special/static
    0xB9: 4, 0xBA: 4, 0xBB: 2, 0xBC: 1, 0xBD: 2, 0xBE: 0, 0xBF: 0,  # invokeinterface/dynamic, new, ..., athrow
    0xC0: 2, 0xC1: 2, 0xC2: 0, 0xC3: 0, 0xC4: -1, 0xC5: 3,  # checkcast, instanceof, monitor*, wide, multianewarray
    0xC6: 2, 0xC7: 2, 0xC8: 4, 0xC9: 4,  # ifnull, ifnonnull, goto_w, jsr_w
}
INVOKE_OPCODES = {0xB6: "invokevirtual", 0xB7: "invokespecial", 0xB8: "invokestatic", 0xB9: "invokeinterface",
                  0xBA: "invokedynamic"}
NEW, LDC, LDC_W, TABLESWITCH, LOOKUPSWITCH, WIDE, IINC = 0xBB, 0x12, 0x13, 0xAA, 0xAB, 0xC4, 0x84
# Operands that are constant-pool indexes (what the graph reads: invokes, new, ldc of names).
CP_OPERAND = {*INVOKE_OPCODES, NEW, LDC, LDC_W}


class ClassFileError(Exception):
    """A class file (or an archive of them) that cannot be read: reported and skipped, never fatal."""


@dataclass(frozen=True)
class MemberRef:
    owner: str  # internal name, e.g. com/acme/pay/Outer$Inner
    name: str
    descriptor: str


@dataclass(frozen=True)
class MethodHandle:
    kind: int  # REF_invokeVirtual = 5 ... REF_newInvokeSpecial = 8, REF_invokeInterface = 9
    ref: MemberRef


@dataclass(frozen=True)
class Instruction:
    pc: int
    opcode: int
    operand: int  # the constant-pool index for CP_OPERAND opcodes, else the first operand (or 0)


@dataclass
class Annotation:
    type: str  # descriptor, e.g. Lorg/springframework/stereotype/Service;
    values: dict[str, object] = field(default_factory=dict)
    visible: bool = True


@dataclass
class Code:
    bytecode: bytes
    line_starts: list[int] = field(default_factory=list)  # start pcs, sorted
    lines: list[int] = field(default_factory=list)

    def instructions(self) -> Iterator[Instruction]:
        return decode(self.bytecode)

    def line_at(self, pc: int) -> int:
        i = bisect.bisect_right(self.line_starts, pc) - 1
        return self.lines[i] if i >= 0 else 0


@dataclass
class Member:
    access: int
    name: str
    descriptor: str
    annotations: list[Annotation] = field(default_factory=list)
    code: Code | None = None


@dataclass
class InnerClass:
    inner: str
    outer: str | None  # None: a local or anonymous class
    simple_name: str | None
    access: int


@dataclass
class ClassFile:
    major: int
    minor: int
    access: int
    name: str
    super_name: str | None
    interfaces: list[str]
    fields: list[Member]
    methods: list[Member]
    annotations: list[Annotation]
    source_file: str | None
    inner_classes: list[InnerClass]
    enclosing_method: tuple[str, str | None] | None  # (class, method name) of a local/anonymous class
    bootstrap_methods: list[tuple[MethodHandle, list[object]]]
    pool: ConstantPool

    def invokedynamic_descriptor(self, index: int) -> str:
        """The method descriptor of an invokedynamic's call site (what it takes, what it gives)."""
        tag, (_bsm_index, nat) = self.pool.entry(index)
        if tag not in (17, 18):
            raise ClassFileError(f"constant #{index} is no invokedynamic")
        return self.pool.name_and_type(nat)[1]

    def invokedynamic_target(self, index: int) -> tuple[MethodHandle, list[object]]:
        """The bootstrap method and its static arguments of an invokedynamic's constant."""
        tag, (bsm_index, _nat) = self.pool.entry(index)
        if tag not in (17, 18) or bsm_index >= len(self.bootstrap_methods):
            raise ClassFileError(f"invokedynamic constant #{index} has no bootstrap method")
        return self.bootstrap_methods[bsm_index]


class ConstantPool:
    def __init__(self, entries: list[tuple[int, Any] | None]) -> None:
        self._entries = entries
        self._members: dict[int, MemberRef] = {}  # a method is invoked from many places: resolve it once

    def kinds(self) -> set[str]:
        """The names of the constant kinds the pool holds (Utf8, Class, Module, …)."""
        return {CP_TAGS[e[0]][0] for e in self._entries if e is not None}

    def entry(self, index: int) -> tuple[int, Any]:
        found = self._entries[index] if 0 < index < len(self._entries) else None
        if found is None:
            raise ClassFileError(f"constant-pool index #{index} points to no entry")
        return found

    def _expect(self, index: int, *tags: int) -> Any:
        tag, value = self.entry(index)
        if tag not in tags:
            raise ClassFileError(f"constant #{index} is a {CP_TAGS[tag][0]}, expected {CP_TAGS[tags[0]][0]}")
        return value

    def utf8(self, index: int) -> str:
        return self._expect(index, 1)

    def class_name(self, index: int) -> str:
        return self.utf8(self._expect(index, 7))

    def name_and_type(self, index: int) -> tuple[str, str]:
        name, desc = self._expect(index, 12)
        return self.utf8(name), self.utf8(desc)

    def member(self, index: int) -> MemberRef:
        ref = self._members.get(index)
        if ref is None:
            owner, nat = self._expect(index, 9, 10, 11)
            ref = self._members[index] = MemberRef(self.class_name(owner), *self.name_and_type(nat))
        return ref

    def constant(self, index: int) -> object:
        """A bootstrap argument or loadable constant as a Python value (handles, types, names)."""
        tag, value = self.entry(index)
        if tag == 15:
            kind, ref = value
            return MethodHandle(kind, self.member(ref))
        if tag == 16:
            return ("MethodType", self.utf8(value))
        if tag == 7:
            return ("Class", self.utf8(value))
        if tag == 8:
            return self.utf8(value)
        if tag in (17, 18):
            return ("Dynamic", self.name_and_type(value[1]))
        return value


class _Reader:
    """Big-endian reads; reading past the end raises (IndexError from u1/u2, ClassFileError from take)."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if end > len(self.data):
            raise ClassFileError(f"truncated: needs {end} bytes, has {len(self.data)}")
        chunk = self.data[self.pos:end]
        self.pos = end
        return chunk

    def u1(self) -> int:
        pos = self.pos
        self.pos = pos + 1
        return self.data[pos]

    def u2(self) -> int:
        pos, data = self.pos, self.data
        self.pos = pos + 2
        return data[pos] << 8 | data[pos + 1]

    def u4(self) -> int:
        return int.from_bytes(self.take(4), "big")


def parse(data: bytes) -> ClassFile:
    """Read one class file. Raises ClassFileError for anything malformed."""
    try:
        return _parse(_Reader(data))
    except ClassFileError:
        raise
    except IndexError as exc:
        raise ClassFileError("truncated: the class file ends inside a structure") from exc
    except (struct.error, ValueError, TypeError, KeyError, RecursionError) as exc:
        raise ClassFileError(f"malformed class file: {type(exc).__name__}: {exc}") from exc


def _parse(r: _Reader) -> ClassFile:
    if r.take(4) != b"\xca\xfe\xba\xbe":
        raise ClassFileError("not a class file (bad magic number)")
    minor, major = r.u2(), r.u2()
    if not MIN_MAJOR <= major <= MAX_MAJOR:
        raise ClassFileError(f"class file version {major}.{minor} is outside the versions read "
                             f"({MIN_MAJOR}–{MAX_MAJOR})")
    pool = _constant_pool(r)
    access, this, sup = r.u2(), r.u2(), r.u2()
    interfaces = [pool.class_name(r.u2()) for _ in range(r.u2())]
    fields = [_member(r, pool) for _ in range(r.u2())]
    methods = [_member(r, pool) for _ in range(r.u2())]
    cf = ClassFile(
        major=major, minor=minor, access=access, name=pool.class_name(this),
        super_name=pool.class_name(sup) if sup else None, interfaces=interfaces, fields=fields, methods=methods,
        annotations=[], source_file=None, inner_classes=[], enclosing_method=None, bootstrap_methods=[], pool=pool,
    )
    for name, body in _attributes(r, pool):
        b = _Reader(body)
        if name in _ANNOTATION_ATTRIBUTES:
            cf.annotations += _annotations(b, pool, _ANNOTATION_ATTRIBUTES[name])
        elif name == "SourceFile":
            cf.source_file = pool.utf8(b.u2())
        elif name == "InnerClasses":
            for _ in range(b.u2()):
                inner, outer, simple, flags = b.u2(), b.u2(), b.u2(), b.u2()
                cf.inner_classes.append(InnerClass(pool.class_name(inner), pool.class_name(outer) if outer else None,
                                                   pool.utf8(simple) if simple else None, flags))
        elif name == "EnclosingMethod":
            owner, nat = b.u2(), b.u2()
            cf.enclosing_method = (pool.class_name(owner), pool.name_and_type(nat)[0] if nat else None)
        elif name == "BootstrapMethods":
            for _ in range(b.u2()):
                handle = pool.constant(b.u2())
                args = [pool.constant(b.u2()) for _ in range(b.u2())]
                if not isinstance(handle, MethodHandle):
                    raise ClassFileError("bootstrap method is not a method handle")
                cf.bootstrap_methods.append((handle, args))
    if r.pos != len(r.data):
        raise ClassFileError(f"{len(r.data) - r.pos} bytes after the end of the class")
    return cf


def _constant_pool(r: _Reader) -> ConstantPool:
    count = r.u2()
    entries: list[tuple[int, Any] | None] = [None] * count
    i = 1
    while i < count:
        tag = r.u1()
        if tag not in CP_TAGS:
            raise ClassFileError(f"unknown constant-pool tag {tag} at entry #{i}")
        size = CP_TAGS[tag][1]
        if tag == 1:
            entries[i] = (1, _modified_utf8(r.take(r.u2())))
        elif tag in (3, 4):
            entries[i] = (tag, r.take(4))
        elif tag in _WIDE_TAGS:
            entries[i] = (tag, r.take(8))
        elif size == 2:
            entries[i] = (tag, r.u2())
        elif tag == 15:
            entries[i] = (tag, (r.u1(), r.u2()))
        else:
            entries[i] = (tag, (r.u2(), r.u2()))
        i += 2 if tag in _WIDE_TAGS else 1
    return ConstantPool(entries)


def _modified_utf8(raw: bytes) -> str:
    """Java's modified UTF-8: NUL as C0 80, characters beyond the BMP as surrogate pairs."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _attributes(r: _Reader, pool: ConstantPool) -> Iterator[tuple[str, bytes]]:
    for _ in range(r.u2()):
        name = pool.utf8(r.u2())
        yield name, r.take(r.u4())


_ANNOTATION_ATTRIBUTES = {"RuntimeVisibleAnnotations": True, "RuntimeInvisibleAnnotations": False}


def _member(r: _Reader, pool: ConstantPool) -> Member:
    member = Member(r.u2(), pool.utf8(r.u2()), pool.utf8(r.u2()))
    for name, body in _attributes(r, pool):
        if name in _ANNOTATION_ATTRIBUTES:
            member.annotations += _annotations(_Reader(body), pool, _ANNOTATION_ATTRIBUTES[name])
        elif name == "Code":
            member.code = _code(_Reader(body), pool)
    return member


def _code(r: _Reader, pool: ConstantPool) -> Code:
    r.u2(), r.u2()  # max_stack, max_locals
    code = Code(r.take(r.u4()))
    r.take(8 * r.u2())  # exception table
    pairs: list[tuple[int, int]] = []
    for name, body in _attributes(r, pool):
        if name == "LineNumberTable":
            b = _Reader(body)
            pairs += [(b.u2(), b.u2()) for _ in range(b.u2())]
    pairs.sort()
    code.line_starts = [pc for pc, _ in pairs]
    code.lines = [line for _, line in pairs]
    return code


def _annotations(r: _Reader, pool: ConstantPool, visible: bool) -> list[Annotation]:
    return [_annotation(r, pool, visible) for _ in range(r.u2())]


def _annotation(r: _Reader, pool: ConstantPool, visible: bool = True) -> Annotation:
    ann = Annotation(pool.utf8(r.u2()), visible=visible)
    for _ in range(r.u2()):
        name = pool.utf8(r.u2())
        ann.values[name] = _element_value(r, pool)
    return ann


def _element_value(r: _Reader, pool: ConstantPool) -> object:
    tag = chr(r.u1())
    if tag == "s":
        return pool.utf8(r.u2())
    if tag in "BCDFIJSZ":
        return pool.entry(r.u2())[1]
    if tag == "e":
        return (pool.utf8(r.u2()), pool.utf8(r.u2()))  # (enum type descriptor, constant name)
    if tag == "c":
        return ("Class", pool.utf8(r.u2()))
    if tag == "@":
        return _annotation(r, pool)
    if tag == "[":
        return [_element_value(r, pool) for _ in range(r.u2())]
    raise ClassFileError(f"unknown annotation element tag {tag!r}")


def decode(code: bytes) -> Iterator[Instruction]:
    """Every instruction of a method body, in order. Raises ClassFileError on an undefined opcode
    or an instruction that runs past the end."""
    pc, end = 0, len(code)
    while pc < end:
        op = code[pc]
        size = OPERAND_BYTES.get(op)
        if size is None:
            raise ClassFileError(f"undefined opcode 0x{op:02x} at pc {pc}")
        if size == -1:
            size = _variable_length(code, pc, op)
        if pc + 1 + size > end:
            raise ClassFileError(f"instruction 0x{op:02x} at pc {pc} runs past the end of the code")
        operand = 0
        if op in CP_OPERAND:
            operand = code[pc + 1] if op == LDC else code[pc + 1] << 8 | code[pc + 2]
        elif size:
            operand = code[pc + 1]
        yield Instruction(pc, op, operand)
        pc += 1 + size


def _variable_length(code: bytes, pc: int, op: int) -> int:
    """Operand bytes of tableswitch/lookupswitch (padded to a 4-byte boundary) and wide."""
    if op == WIDE:
        return 5 if pc + 1 < len(code) and code[pc + 1] == IINC else 3
    pad = (4 - (pc + 1) % 4) % 4
    base = pc + 1 + pad
    if base + 12 > len(code):
        raise ClassFileError(f"switch at pc {pc} runs past the end of the code")
    if op == TABLESWITCH:
        low, high = struct.unpack(">ii", code[base + 4:base + 12])
        if high < low:
            raise ClassFileError(f"tableswitch at pc {pc} has high < low")
        return pad + 12 + 4 * (high - low + 1)
    (npairs,) = struct.unpack(">i", code[base + 4:base + 8])
    if npairs < 0:
        raise ClassFileError(f"lookupswitch at pc {pc} has a negative pair count")
    return pad + 8 + 8 * npairs


# --- descriptors ----------------------------------------------------------------------------------

_PRIMITIVES = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long", "S": "short",
               "Z": "boolean", "V": "void"}


def field_type(descriptor: str) -> str:
    """`com/acme/Foo`, `int` or `com/acme/Foo[]` of a field descriptor."""
    dims = len(descriptor) - len(descriptor.lstrip("["))
    base = descriptor[dims:]
    if base.startswith("L") and base.endswith(";"):
        return base[1:-1] + "[]" * dims
    if base in _PRIMITIVES:
        return _PRIMITIVES[base] + "[]" * dims
    raise ClassFileError(f"bad field descriptor {descriptor!r}")
