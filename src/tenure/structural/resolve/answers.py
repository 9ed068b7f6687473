"""Answers: what resolving a file learned of other modules, kept so that a later index can check
they still hold and keep the file's edges instead of resolving it again (an early cutoff: adding
a function to a module its 900 importers read re-resolves only those that asked for that name).

A resolver asks its questions through :class:`Answers`, which notes a digest of each answer and a
Bloom filter of the dependency keys answering it read; `verify_stored` asks again only the stored
questions whose filters hold a key an edit touched, and `spare` widens them without asking. What a
question is and how it is asked again is the resolver's: here a question is a tuple msgpack encodes.
"""

from __future__ import annotations

import hashlib
import zlib
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator
from functools import partial, reduce
from itertools import chain, islice
from operator import and_, or_

import msgspec

from tenure.structural.memo import Memo
from tenure.structural.resolve import Dependants, ProjectView, Recording, Verified, module_key


class Answers:
    """Every question a file's analysis asked of the rest of the project: a digest of the answer,
    and a small Bloom filter of the dependency keys that answering it read. The questions are
    context-free (another module on its own), so the same question asked of the same project
    gets the same answer; after an edit only those whose keys were touched need asking again."""

    def __init__(self, view: ProjectView, lazy_filters: bool = False, shared: bool = False) -> None:
        self.view = view
        # a check's (`verify_stored`, `spare`): a question's key filter is made when bookkeeping needs
        # it (`remembered`)
        self.lazy_filters = lazy_filters
        # a resolution's: a question another file asked in this index state is answered as it was then
        # (`ANSWERED`), its reads taken on, instead of computed again (seven questions in ten)
        self.shared = shared
        self._answered: dict | None = None  # ANSWERED's table for the view's state (one resolution's: it stays)
        self._remembered: dict[tuple, _Remembered] = {}
        self.log: dict[tuple, tuple[bytes, bytes]] = {}  # question -> (answer digest, key filter)
        self.reads: dict[tuple, Recording] = {}  # question -> what answering it read
        # a resolution's (`shared`) question -> its answer, given again when the fixpoint asks again
        # (a file asks a question twice on average); no analysis of another module records
        # the project's reads of a file's own questions, so replaying what it read is all of it
        self._given: dict[tuple, object] = {}
        self.complete = True  # False: the analysis read something no question covers

    def ask(self, query: tuple, compute: Callable[[], object],
            summary: Callable[[object], object] | None = None) -> object:
        """`compute()`, noted by the digest of its answer (or of `summary(answer)`: what of it the
        analysis uses)."""
        if query in self.log:
            if query in self._given:
                self.view.replay(self.reads[query])  # (for the question asking it, if any)
                return _callers(self._given[query])
            return compute()  # its reads are already recorded
        # (asked inside another question, answering may also feed a recorder: always computed)
        shared = None
        if self.shared and not self.view.recording:
            shared = self._answered
            if shared is None:
                shared = self._answered = for_state(ANSWERED, self.view)
        if shared is not None and (hit := shared.pop(query, None)) is not None:
            shared[query] = hit  # (`put_last`: popped, it is below the limit)
            answer, read, self.log[query] = hit
            self.view.absorb(read)
            self.reads[query], self._given[query] = read, answer
            return _callers(answer)
        self.view.begin()
        try:
            answer = compute()
        finally:
            read, parts = self.view.end_parts()
        digest = _digest(answer if summary is None else summary(answer))
        if self.lazy_filters:
            self.log[query] = (digest, b"")
        else:
            read, key_filter = _kept_filter(self.view, read, parts)
            self.log[query] = (digest, key_filter)
        self.reads[query] = read
        if shared is not None:
            self._given[query] = _callers(answer)
            put_last(shared, query, (self._given[query], read, self.log[query]), _ANSWERED_KEPT)
        return answer

    def remembered(self, query: tuple) -> _Remembered:
        """An asked question's key filter and the fingerprint of what it read (`_Remembered`)."""
        hit = self._remembered.get(query)
        if hit is None:
            hit = self._remembered[query] = _remembered(query, self.reads[query], self.view)
        return hit

    def encode(self) -> bytes | None:
        """The log as `verify_stored` reads it (`_ANSWERS_DECODER`): digests and 128-bit filters packed in
        fixed-size runs, so that matching touched keys is one vectorised pass over every dependant's
        filters, and only the questions matched are decoded; wide filters apart, by position."""
        if not self.complete:
            return None
        log = self.log.values()
        try:
            return msgspec.msgpack.encode((
                _ANSWERS_FORMAT, b"".join([d for d, _ in log]), b"".join([f[:FILTER_BYTES] for _, f in log]),
                list(self.log), [(i, f[FILTER_BYTES:]) for i, (_, f) in enumerate(log) if len(f) > FILTER_BYTES]))
        except (TypeError, msgspec.EncodeError):
            return None


def _callers(answer: object) -> object:
    """An answer as handed out of `ANSWERED`: a list copied (the caller's to change), anything else
    as it is (frozen)."""
    return list(answer) if answer.__class__ is list else answer  # type: ignore[call-overload]


def for_state(tables: dict[tuple[int, int], dict], view: ProjectView) -> dict:
    """The table of `tables` for this view's index state (`view.epoch`); those of earlier states
    are dropped: nothing asks of them again."""
    found = tables.get(view.epoch)
    if found is None:
        tables.clear()
        found = tables[view.epoch] = {}
    return found


# Index state -> question -> (answer, what answering it read, its log entry), asked by files resolved
# in that state (`Answers.shared`), the least recently used first; at most `_ANSWERED_KEPT`.
ANSWERED: dict[tuple[int, int], dict[tuple, tuple[object, Recording, tuple[bytes, bytes]]]] = {}
_ANSWERED_KEPT = 1 << 14


_ANSWERS_FORMAT = 7  # stored answers of another format are not verified: the file is resolved again
# (7: lists builtins make named by site in scope; 6: filters hold fields found too; 5: allocations
# named by scope, `f#0`)
# (format, digests, 128-bit filters, questions, wide filters by position)
_Stored = tuple[int, bytes, bytes, list[msgspec.Raw], list[tuple[int, bytes]]]
_ANSWERS_DECODER = msgspec.msgpack.Decoder(_Stored)
_DIGEST_BYTES = 8


def _digest(answer: object) -> bytes:
    cls = answer.__class__
    if cls is frozenset or cls is set:
        if not answer:  # (half of all answers: nothing)
            return _NOTHING_DIGEST
    elif cls is str or cls is bool:  # (a module's name, a function's flags, whether one exists)
        return _PLAIN_DIGESTS[answer]
    return _blake(canonical(answer))


def _blake(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=_DIGEST_BYTES).digest()


def canonical(answer: object) -> str:
    """Sets in a fixed order (string hashing differs between processes). Values are flat tuples:
    their repr is stable; an answer is a set of them, a list of such sets, or a plain value."""
    cls = answer.__class__
    if cls is frozenset or cls is set:
        if len(answer) < 2:  # most answers: no sort needed
            return "{" + "".join(map(repr, answer)) + "}"  # type: ignore[call-overload]
        return "{" + ",".join(sorted(map(repr, answer))) + "}"  # type: ignore[call-overload]
    if cls is list:
        return "[" + ",".join(map(canonical, answer)) + "]"
    return repr(answer)


_NOTHING_DIGEST = _blake(canonical(frozenset()))
# A string's or a bool's digest (a string equals only itself; True and False are one object each).
_PLAIN_DIGESTS: Memo[object, bytes] = Memo(lambda answer: _blake(repr(answer)), 1 << 16)

_FILTER_BITS = 128
FILTER_BYTES = _FILTER_BITS // 8


def key_bits(key: str) -> int:
    """A dependency key's three bits in a 128-bit filter."""
    h = zlib.crc32(key.encode())
    return (1 << (h & 127)) | (1 << ((h >> 7) & 127)) | (1 << ((h >> 14) & 127))


class _ModuleBits(dict[str, object]):
    """Module name -> the bits of its `mod:` key in filters of one size (`keys`: key -> its bits, or
    its bit positions in a wide filter), or none (`nothing`) when the project has no such module
    (lookups in vain are tracked apart, see `ProjectView`). Valid for one index state."""

    def __init__(self, view: ProjectView, keys: Memo[str, object], nothing: object) -> None:
        super().__init__()
        self.epoch, self.paths, self.keys, self.nothing = view.epoch, view.module_paths, keys, nothing

    def __missing__(self, module: str) -> object:
        bits = self[module] = self.keys[module_key(module)] if module in self.paths else self.nothing
        return bits


def _wide_positions(size: int, key: str) -> tuple[int, int, int]:
    """A dependency key's three bit positions in a wide filter of `size` bits (a power of two)."""
    h, low = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=6).digest(), "little"), size - 1
    return h & low, (h >> 16) & low, (h >> 32) & low


def _wide_mask(size: int, key: str) -> int:
    """The same three bits as an int (`_wide_positions`)."""
    a, b, c = _wide_positions(size, key)
    return (1 << a) | (1 << b) | (1 << c)


# (keys recur across questions and files, and filters are built by the hundred thousand)
_KEY_BITS = Memo(key_bits)
_MODULE_BITS: dict[int, _ModuleBits] = {}  # filter size (0: the 128 bits) -> its, for the index state in use
# A question that read more keys than this also gets a wide filter, of 8 bits per key (rounded up to
# a power of two, at most 64 Kbit): 128 bits fill up past a few dozen keys, and a question that read a
# module's whole analysis reads hundreds (all of them matched every edit: a third of an update).
_WIDE_FROM, _WIDE_MAX = 16, 1 << 16
# Key -> its bits in a wide filter of each size: as a mask (an int) up to _MASKS_UP_TO bits, OR-ed
# together; as positions in wider ones, set in one array: a mask is as wide as its filter, and
# OR-ing thousands of them copied the filter once per key (3,000 keys: 2.0 ms a filter, now 0.6)
_MASKS_UP_TO = 1 << 12
_WIDE_KEYS: dict[int, Memo] = {1 << n: Memo(partial(_wide_mask if 1 << n <= _MASKS_UP_TO else _wide_positions, 1 << n),
                                            1 << 18) for n in range(8, 17)}


def may_have_read(key_filter: bytes, keys: Iterable[str]) -> bool:
    """Whether a filter (`key_filter`) holds any of these keys."""
    narrow, wide = int.from_bytes(key_filter[:FILTER_BYTES], "little"), key_filter[FILTER_BYTES:]
    held = [key for key in keys if narrow & (mask := _KEY_BITS[key]) == mask]
    return bool(held) and (not wide or _wide_holds(wide, held))


def _wide_holds(wide: bytes, keys: Iterable[str]) -> bool:
    """Whether a wide filter holds any of these keys."""
    size = len(wide) * 8
    table = _WIDE_KEYS[size]
    if size <= _MASKS_UP_TO:
        bits = int.from_bytes(wide, "little")
        return any(bits & (mask := table[key]) == mask for key in keys)
    return any(all(wide[p >> 3] >> (p & 7) & 1 for p in table[key]) for key in keys)


def key_filter(view: ProjectView, read: Recording) -> bytes:
    """The filter of the keys a recording stands for (`view.keys_of`), without spelling them out:
    128 bits, and a wide part after them when it read many keys (`_WIDE_FROM`). Four questions in
    five, across a run's files, read exactly what one asked before read (a module's analysis,
    replayed whole): their filter is made once per index state (`_FILTERS`)."""
    return _kept_filter(view, read)[1]


def _kept_filter(view: ProjectView, read: Recording, parts: Collection[Recording] = ()) -> tuple[Recording, bytes]:
    """`key_filter`, with the recording as `_FILTERS` keeps it: frozen, one object for every
    question that read the same (`ANSWERED` holds it too). `parts`: recordings replayed into it
    whole (`ProjectView.end_parts`), whose bits are made once (`_part_bits`)."""
    keys, modules = read
    if not keys and not modules:  # (a question in ten reads nothing)
        return _READ_NOTHING
    made = for_state(_FILTERS, view)
    recording = (frozenset(keys), frozenset(modules) if modules else _NO_MODULES)
    found = made.pop(recording, None)  # (put back last: the least recently used go first)
    if found is None:
        found = (recording, _make_filter(view, *recording, parts))
        put_last(made, recording, found, _FILTERS_KEPT)
    else:
        made[found[0]] = found  # (`put_last`: popped, it is below the limit)
    return found


_NO_MODULES: frozenset[str] = frozenset()
_READ_NOTHING: tuple[Recording, bytes] = ((frozenset(), _NO_MODULES), bytes(FILTER_BYTES))


def put_last(table: dict, key: object, value: object, limit: int) -> None:
    """`table[key] = value` as the most recently used entry (a hit is popped, then put back); the
    least recently used quarter goes when `limit` is reached."""
    if len(table) >= limit:
        for old in list(islice(table, limit // 4)):
            del table[old]
    table[key] = value


def _make_filter(view: ProjectView, keys: frozenset[str], modules: frozenset[str],
                 parts: Collection[Recording] = ()) -> bytes:
    count = len(keys) + len(modules)
    if count <= _WIDE_FROM:  # (nineteen recordings in twenty)
        return _bits_of(view, keys, modules).to_bytes(FILTER_BYTES, "little")
    size = min(max(256, 1 << (count * 8 - 1).bit_length()), _WIDE_MAX)
    narrow = wide = 0
    if parts:  # (a key sets the same bits whichever recording holds it: the parts', then the rest's)
        for part in {id(part): part for part in parts}.values():
            part_narrow, part_wide = _part_bits(view, part, size)
            narrow, wide = narrow | part_narrow, wide | part_wide
        keys, modules = keys.difference(*(p[0] for p in parts)), modules.difference(*(p[1] for p in parts))
    narrow = _saturating_bits(view, keys, modules, narrow)
    wide |= _wide_bits(view, size, keys, modules)
    return narrow.to_bytes(FILTER_BYTES, "little") + wide.to_bytes(size // 8, "little")


def _part_bits(view: ProjectView, part: Recording, size: int) -> tuple[int, int]:
    """A replayed recording's bits in the 128 bits and in a wide filter of `size` bits, made once
    per index state (`_PARTS`): a module's analysis is replayed into many questions' recordings,
    which differ only by a few keys, and made their wide filters again key by key."""
    made = for_state(_PARTS, view)
    found = made.pop(id(part), None)  # (the entry holds the part: its id names no other while kept)
    if found is None:
        found = (part, {})
    put_last(made, id(part), found, _PARTS_KEPT)
    bits = found[1].get(size)
    if bits is None:
        bits = found[1][size] = (_saturating_bits(view, *part), _wide_bits(view, size, *part))
    return bits


def _bits_of(view: ProjectView, keys: Collection[str], modules: Collection[str]) -> int:
    """The keys' and the modules' bits in the 128 bits (for a few: a loop beats `reduce`'s set-up)."""
    bits = 0
    for key in keys:
        bits |= _KEY_BITS[key]
    if modules:
        module_bits = _module_bits(view, 0)
        for module in modules:
            bits |= module_bits[module]  # type: ignore[operator]
    return bits


def _wide_bits(view: ProjectView, size: int, keys: Collection[str], modules: Collection[str]) -> int:
    """The keys' and the modules' bits in a wide filter of `size` bits (`_WIDE_KEYS`)."""
    table, module_positions = _WIDE_KEYS[size], _module_bits(view, size)
    if size <= _MASKS_UP_TO:
        return reduce(or_, map(module_positions.__getitem__, modules), reduce(or_, map(table.__getitem__, keys), 0))
    # (set in a bytearray, not by NumPy: these filters are few, a hundred keys each past the parts
    # they hold, and each resolve worker imported NumPy for them, a tenth of a second)
    bits = bytearray(size >> 3)
    for p in chain.from_iterable(chain(map(table.__getitem__, keys), map(module_positions.__getitem__, modules))):
        bits[p >> 3] |= 1 << (p & 7)
    return int.from_bytes(bits, "little")


_ALL_BITS = (1 << _FILTER_BITS) - 1
_SATURATION_STEP = 64  # keys between checks whether the 128 bits are all set


def _saturating_bits(view: ProjectView, keys: Collection[str], modules: Collection[str], bits: int = 0) -> int:
    """`_bits_of` the 128 bits, for many keys: three bits a key fill them after some 230 keys on
    average, and the keys of a question that read a module's analysis run to hundreds or thousands
    (the most of all filter making); the rest adds no bit."""
    masks = chain(map(_KEY_BITS.__getitem__, keys), map(_module_bits(view, 0).__getitem__, modules))
    while bits != _ALL_BITS and (chunk := list(islice(masks, _SATURATION_STEP))):
        bits = reduce(or_, chunk, bits)
    return bits


def _module_bits(view: ProjectView, size: int) -> _ModuleBits:
    found = _MODULE_BITS.get(size)
    if found is None or found.epoch != view.epoch:
        keys = _WIDE_KEYS[size] if size else _KEY_BITS
        found = _MODULE_BITS[size] = _ModuleBits(view, keys, () if size > _MASKS_UP_TO else 0)
    return found


# Index state -> recording -> its filter (`key_filter`), for the state in use, the least recently
# used first; at most `_FILTERS_KEPT`: Django's full index makes 57,000, and keeping them all held
# 76 MB in a process for no more CPU saved than keeping the 16,384 in use (about 20 MB).
_FILTERS: dict[tuple[int, int], dict[Recording, tuple[Recording, bytes]]] = {}
_FILTERS_KEPT = 1 << 14
# Index state -> id of a replayed recording -> (it, filter size -> its bits: `_part_bits`), for the
# state in use, the least recently used first; at most `_PARTS_KEPT`.
_PARTS: dict[tuple[int, int], dict[int, tuple[Recording, dict[int, tuple[int, int]]]]] = {}
_PARTS_KEPT = 1 << 11


def verify_stored(items: Dependants, answers: Answers, ask_again: Callable[[tuple], tuple[bytes, bytes]]) -> Verified:
    """Files (id, stored answers, their dependency keys an edit touched) whose resolution would
    come out the same: every question whose key filter matches a touched key is asked again
    (`ask_again`: the digest and key filter of its answer now, noted in `answers`) and answered alike."""
    queries: dict[bytes, tuple] = {}  # a question as stored -> as asked (dependants share most)
    still: Verified = {}
    for (file_id, _, _), stored, matched in _matching_questions(items):
        digests = stored[0]
        questions: list[tuple[int, tuple]] = []
        for i in matched:
            stored_query = bytes(stored[2][i])
            query = queries.get(stored_query)
            if query is None:
                query = queries[stored_query] = question(stored_query)
            if ask_again(query)[0] != digests[i * _DIGEST_BYTES : (i + 1) * _DIGEST_BYTES]:
                break
            questions.append((i, query))
        else:
            still[file_id] = _Checked(stored, questions, answers)
    return still


def spare(items: Dependants, view: ProjectView, reads: Recording) -> Verified:
    """See `Resolver.spare`: each file's questions that read a touched key (a module's analysis, which
    gives what it gave) now read `reads` too, in their filters and in the file's reads; as
    `verify_stored` keeps a check (`_Checked`), without asking anything again. A file with
    unreadable answers, or none that read a touched key, is left out."""
    answers = Answers(view, lazy_filters=True)
    still: Verified = {}
    for (file_id, _, _), stored, matched in _matching_questions(items):
        if matched:
            questions = [(i, question(bytes(stored[2][i]))) for i in matched]
            answers.reads.update((query, reads) for _, query in questions)
            still[file_id] = _Checked(stored, questions, answers)
    return still


class _Checked:
    """A file `verify_stored` found to stand: its stored answers, the questions asked again (by position)."""

    __slots__ = ("stored", "questions", "answers")

    def __init__(self, stored: _Unpacked, questions: list[tuple[int, tuple]],
                 answers: Answers) -> None:
        self.stored, self.questions, self.answers = stored, questions, answers

    def reads_to_keep(self) -> tuple[bytes | None, Recording]:
        # Keys read now but not before widen a question's filter; it never narrows (a filter that
        # covers more only asks again more often), so answers that read alike are not rewritten.
        # A wide filter must hold what the question reads now: the new one's, widened by the old one
        # of the same size; or none (the 128 bits, widened, then stand alone).
        digests, filters, raw, wide = self.stored
        widened_filters: bytearray | None = None
        wide_now = wide
        for i, query in self.questions:
            span = slice(i * FILTER_BYTES, (i + 1) * FILTER_BYTES)
            bits = int.from_bytes(filters[span], "little")
            now = self.answers.remembered(query).key_filter
            widened = bits | int.from_bytes(now[:FILTER_BYTES], "little")
            if widened != bits:
                widened_filters = widened_filters or bytearray(filters)
                widened_filters[span] = widened.to_bytes(FILTER_BYTES, "little")
            was, new = wide.get(i), now[FILTER_BYTES:]
            if was is not None and len(was) == len(new):
                new = (int.from_bytes(was, "little") | int.from_bytes(new, "little")).to_bytes(len(new), "little")
            if new != (was or b""):
                wide_now = wide_now if wide_now is not wide else dict(wide)
                if new:
                    wide_now[i] = new
                else:
                    del wide_now[i]
        blob = None if widened_filters is None and wide_now is wide else msgspec.msgpack.encode(
            (_ANSWERS_FORMAT, digests, bytes(widened_filters or filters), raw, sorted(wide_now.items())))
        return blob, _joined_reads([query for _, query in self.questions], self.answers)


class _Remembered:
    """A question's key filter, and a fingerprint of what its answer read. A watched module's
    dependants ask the same questions after every edit of it, whose answers read the same: kept
    between updates, so the filter is not built again and the union of a file's questions' reads
    is the same object as last time (`_joined_reads`)."""

    __slots__ = ("fingerprint", "modules_version", "key_filter")

    def __init__(self, fingerprint: tuple[int, ...], read: Recording, view: ProjectView) -> None:
        self.fingerprint, self.modules_version = fingerprint, view.modules_version
        self.key_filter = key_filter(view, read)


def _fingerprint(read: Recording) -> tuple[int, ...]:
    """Sizes and hashes of a recording's sets (128 bits of randomised string hashes: the sets are
    too large to keep for thousands of questions)."""
    return len(read[0]), hash(frozenset(read[0])), len(read[1]), hash(frozenset(read[1]))


_REMEMBERED: OrderedDict[tuple, _Remembered] = OrderedDict()
_UNIONS: OrderedDict[tuple[_Remembered, ...], tuple[frozenset[str], frozenset[str]]] = OrderedDict()  # joined reads
# Questions are small to keep; unions hold a file's keys. A hub module's edit re-asks some 4,000
# questions of 1,200 dependants (600 distinct unions).
_REMEMBERED_MAX, _UNIONS_MAX = 1 << 16, 4096


def _remembered(query: tuple, read: Recording, view: ProjectView) -> _Remembered:
    hit = _REMEMBERED.get(query)
    fingerprint = _fingerprint(read)
    if hit is None or hit.fingerprint != fingerprint or hit.modules_version != view.modules_version:
        hit = _REMEMBERED[query] = _Remembered(fingerprint, read, view)
        if len(_REMEMBERED) > _REMEMBERED_MAX:
            _REMEMBERED.popitem(last=False)
    _REMEMBERED.move_to_end(query)
    return hit


def _joined_reads(questions: list[tuple], answers: Answers) -> Recording:
    """What these questions' answers read, together: the same objects while the answers read the
    same, so the indexer sees by identity that it holds them already (`Indexer._not_yet_recorded`)."""
    key = tuple(answers.remembered(q) for q in questions)
    joined = _UNIONS.get(key)
    if joined is None:
        reads = [answers.reads[q] for q in questions]
        joined = _UNIONS[key] = (frozenset().union(*(r[0] for r in reads)), frozenset().union(*(r[1] for r in reads)))
        if len(_UNIONS) > _UNIONS_MAX:
            _UNIONS.popitem(last=False)
    _UNIONS.move_to_end(key)
    return joined  # type: ignore[return-value]


_Unpacked = tuple[bytes, bytes, list[msgspec.Raw], dict[int, bytes]]  # stored answers, less their format


def _matching_questions(items: Dependants) -> Iterator[tuple[tuple[int, bytes, set[str]], _Unpacked, list[int]]]:
    """Each readable item with its stored answers and the positions of the questions whose key
    filter holds all bits of a key the edit touched. One pass over all files' filters at once, in
    C: hundreds of thousands of filters per edit of a module many files read (`filters_holding`)."""
    stored = []
    for item in items:
        try:
            fmt, digests, filters, raw, wide = _ANSWERS_DECODER.decode(item[1])
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue  # unreadable: not verified, so resolved again
        n = len(raw)
        if fmt != _ANSWERS_FORMAT or len(filters) != FILTER_BYTES * n or len(digests) != _DIGEST_BYTES * n:
            continue
        stored.append((item, (digests, filters, raw, dict(wide))))
    if not stored:
        return
    filters = b"".join(s[1] for _, s in stored)
    by_key: dict[str, int] = {}
    by_touched: dict[frozenset[str], bytes] = {}
    start = 0
    for item, answers in stored:
        touched = frozenset(item[2])
        hits = by_touched.get(touched)
        if hits is None:
            found = 0
            for key in touched:
                if key not in by_key:
                    by_key[key] = filters_holding(filters, _KEY_BITS[key])
                found |= by_key[key]
            hits = by_touched[touched] = found.to_bytes(len(filters) // FILTER_BYTES, "little")
        end = start + len(answers[2])
        matched, at, wide = [], hits.find(1, start, end), answers[3]
        while at >= 0:
            i = at - start
            if i not in wide or _wide_holds(wide[i], touched):
                matched.append(i)
            at = hits.find(1, at + 1, end)
        yield item, answers, matched
        start = end


# Byte value -> 1 where the bit at this position is set, else 0 (for `bytes.translate`).
_BIT_SET = [bytes((value >> bit) & 1 for value in range(256)) for bit in range(8)]


def filters_holding(filters: bytes, mask: int) -> int:
    """Of packed filters (`FILTER_BYTES` each), which hold every bit of `mask` (one to three): an
    int whose byte i is 1 when filter i does. Each bit is one strided slice and one table lookup."""
    return reduce(and_, (int.from_bytes(filters[bit // 8 :: FILTER_BYTES].translate(_BIT_SET[bit % 8]), "little")
                         for bit in range(_FILTER_BITS) if mask >> bit & 1))


def question(stored: bytes) -> tuple:
    """A question as stored (msgpack: `Answers.encode`, a resolver's kept analyses) as asked."""
    return thaw(msgspec.msgpack.decode(stored))  # type: ignore[return-value]


def thaw(x: object) -> object:
    """msgpack gives lists where the query had tuples (values are tuples, and hashed)."""
    if x.__class__ is not list:
        return x
    return tuple([e if e.__class__ is not list else thaw(e) for e in x])  # type: ignore[attr-defined]
