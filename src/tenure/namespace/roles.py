"""What a file is for: the project's code, its tests, or a script to run.

Prose means the project's code, not a test's local helper; the knowledge map counts the architecture,
not the tests. The one definition of both: test directories by name, test files by the language
table's `tests` globs (`test_*.py`, `*_test.go`, `*.spec.ts`), scripts by its `script` flag.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from functools import cache, lru_cache

from tenure.structural.languages import LanguageSpec, language_for

TEST_DIRECTORIES = frozenset({"tests", "test", "testing", "__tests__", "spec", "specs"})


@lru_cache(maxsize=1 << 16)  # asked once per symbol by the phrase index: files are far fewer
def is_test(path: str) -> bool:
    """True for a file in a test directory (`tests/`, Maven's `src/test/`, `__tests__/`) or named as
    its language names test files."""
    *directories, name = path.split("/")
    if any(d in TEST_DIRECTORIES for d in directories):
        return True
    spec = language_for(path)
    return spec is not None and any(fnmatchcase(name, pattern) for pattern in _test_globs(spec))


def is_script(path: str) -> bool:
    """True for a file of a language whose files are run, not imported (a shell script)."""
    spec = language_for(path)
    return spec is not None and bool(spec.extra.get("script"))


def is_architecture(path: str) -> bool:
    """A file of the project's own code: neither a test nor a script."""
    return not is_test(path) and not is_script(path)


@cache
def _test_globs(spec: LanguageSpec) -> tuple[str, ...]:
    return tuple(spec.extra.get("tests", ()))  # type: ignore[arg-type]
