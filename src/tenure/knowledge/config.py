"""The knowledge store's settings: the `[knowledge]` table of the project's tenure.toml.

```toml
[knowledge]
documents = ["docs/**", "*.md"]   # globs of documents to read (default: every .md/.rst/.txt git lists)
exclude = ["docs/_build/**"]      # globs to leave out (added to vendored and build directories)
threads = [".tenure/threads", "prs"]   # folders of `gh pr view --json` / `gh issue view --json` exports
history = true                    # read the git history (commit messages and the symbols they touched)
on_index = true                   # `tenure index` brings the store up to date offline (incremental, no model)
chunk_size = 1200                 # tokens per chunk, cut at headings first (graphrag: 1200)
chunk_overlap = 100               # tokens repeated between chunks of one section (graphrag: 100)
gleanings = 1                     # extra extraction passes asking for what the first one missed
glean_min_tokens = 600            # ... only for batches at least this long (a short text has little to miss)
batch_tokens = 1200               # small chunks (commits, short sections) share one extraction call up to this
max_cluster_size = 30             # Leiden splits larger communities again (graphrag: 10)
min_report_size = 3               # smaller communities get an extractive report, never a model call
max_calls = 1500                  # a model build's budget: it stops before the call past it (resumed by the next)
max_tokens = 3000000              # ... or before passing this many tokens (`knowledge check` shows both)

[knowledge.model]                 # or TENURE_LLM, TENURE_LLM_URL, TENURE_LLM_MODEL, TENURE_LLM_API_KEY
provider = "openai"               # openai (any OpenAI-compatible server) | ollama | none
url = "http://127.0.0.1:8080/v1"
model = "qwen2.5-7b-instruct"
price_in = 0.15                   # optional: price per million input / output tokens, for `knowledge check`
price_out = 0.60
```
A config key wins over its environment variable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tenure.config import CONFIG_FILE, ConfigError, number_error, project_table, string_list

DEFAULT_THREADS = (".tenure/threads", "prs")


class KnowledgeConfigError(ConfigError):
    """A [knowledge] setting is wrong; the message names the file and the setting."""


@dataclass(frozen=True)
class KnowledgeConfig:
    documents: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    threads: tuple[str, ...] = DEFAULT_THREADS
    history: bool = True
    on_index: bool = True
    chunk_size: int = 1200
    chunk_overlap: int = 100
    gleanings: int = 1
    glean_min_tokens: int = 600
    batch_tokens: int = 1200
    max_cluster_size: int = 30
    min_report_size: int = 3
    max_calls: int = 1500
    max_tokens: int = 3_000_000
    model: dict[str, Any] = field(default_factory=dict)


_INTS = ("chunk_size", "chunk_overlap", "gleanings", "glean_min_tokens", "batch_tokens", "max_cluster_size",
         "min_report_size", "max_calls", "max_tokens")
_LISTS = ("documents", "exclude", "threads")
_BOOLS = ("history", "on_index")


def load(root: Path) -> KnowledgeConfig:
    """The project's settings (the defaults without a tenure.toml); a broken file is an error naming it."""
    return parse(project_table(root, "knowledge"), str(root / CONFIG_FILE))


def parse(table: dict[str, Any], where: str = CONFIG_FILE) -> KnowledgeConfig:
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key in _INTS:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise KnowledgeConfigError(f"{where}: [knowledge] {key} must be a whole number >= 0, not {value!r}")
            values[key] = value
        elif key in _LISTS:
            values[key] = tuple(string_list(table, key, f"{where}: [knowledge]", error=KnowledgeConfigError))
        elif key in _BOOLS:
            if not isinstance(value, bool):
                raise KnowledgeConfigError(f"{where}: [knowledge] {key} must be true or false")
            values[key] = value
        elif key == "model":
            if not isinstance(value, dict):
                raise KnowledgeConfigError(f"{where}: [knowledge.model] must be a table")
            _check_prices(value, where)
            values[key] = value
        else:
            raise KnowledgeConfigError(f"{where}: [knowledge] has no setting {key!r}")
    config = KnowledgeConfig(**values)
    if config.chunk_size < 50 or config.chunk_overlap >= config.chunk_size:
        raise KnowledgeConfigError(f"{where}: [knowledge] chunk_size must be >= 50 and above chunk_overlap")
    return config


def _check_prices(model: dict[str, Any], where: str) -> None:
    """price_in and price_out (per million tokens, for `knowledge check`): both or neither, each a number
    (0 for a free model)."""
    prices = [key for key in ("price_in", "price_out") if key in model]
    if len(prices) == 1:
        other = "price_out" if prices == ["price_in"] else "price_in"
        raise KnowledgeConfigError(f"{where}: [knowledge.model] {prices[0]} needs {other} beside it")
    for key in prices:
        value = model[key]
        if (value != 0 or isinstance(value, bool)) and (wrong := number_error(value)):
            raise KnowledgeConfigError(f"{where}: [knowledge.model] {key} must be 0 or {wrong}, not {value!r}")
