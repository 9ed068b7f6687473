"""Shared helpers for the benchmark scripts in ``bench/`` (not a benchmark itself).

Everything here is standard library, except that :func:`to_builtins` uses ``msgspec`` when it is
importable (tenure depends on it) to turn API results into plain dicts.
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

# `tenure index` schedules language-server enrichment in the background (structural/lsp): a benchmark
# measures what it names, so no server competes for the cores unless a script starts one itself.
os.environ.setdefault("TENURE_ENRICH", "off")
# ... nor the offline knowledge build (the structural figures compare with peers that build none;
# bench/knowledge_build.py times that build itself)
os.environ.setdefault("TENURE_KNOWLEDGE", "off")
os.environ.setdefault("TENURE_EMBED_BACKGROUND", "off")  # (nor a detached backfill of embeddings)

#: This repository (benchmarks that compare a build of another revision with this tree).
REPO = Path(__file__).resolve().parent.parent

#: Where fetched inputs (sdists, the extracted PyCG suite, the PyCG venv) are cached.
CACHE_DIR = Path(os.environ.get("TENURE_BENCH_CACHE", "/tmp/tenure-bench"))

#: Tiers from most to least trustworthy (SPEC §2.1); "unknown" marks an edge whose tier we could not find.
TIERS: tuple[str, ...] = ("resolved", "observed", "inferred", "ambiguous", "dynamic", "unknown")
_TIER_RANK = {tier: rank for rank, tier in enumerate(TIERS)}


def best_tier(tiers: Iterable[str]) -> str:
    """The most trustworthy of several tiers (an edge seen at several call sites keeps its best)."""
    ranked = sorted(tiers, key=lambda tier: _TIER_RANK.get(tier, len(TIERS)))
    return ranked[0] if ranked else "unknown"


# --------------------------------------------------------------------------------------------------
# Running tenure
# --------------------------------------------------------------------------------------------------


def tenure_command(override: str | None = None) -> list[str]:
    """The argv prefix that runs the tenure CLI.

    Order: ``--tenure`` option, ``$TENURE_CMD``, ``tenure`` on PATH, else ``python -c`` on the console
    script's entry point (works when the package is importable but not installed as a script).
    """
    spec = override or os.environ.get("TENURE_CMD")
    if spec:
        return shlex.split(spec)
    found = shutil.which("tenure")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from tenure.cli import app; sys.argv[0] = 'tenure'; app()"]


def tenure_available(cmd: Sequence[str]) -> bool:
    """True when ``cmd --help`` runs successfully."""
    result = run([*cmd, "--help"], timeout=60)
    return result.ok


@dataclasses.dataclass
class RunResult:
    """Outcome of one subprocess run."""

    argv: list[str]
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def describe_failure(self) -> str:
        """A one-line reason, e.g. ``exit 1: ValueError: ...`` or ``timeout after 120 s``."""
        if self.timed_out:
            return f"timeout after {self.seconds:.0f} s"
        lines = [line for line in self.stderr.strip().splitlines() if line.strip()]
        last = lines[-1].strip() if lines else "(no stderr)"
        return f"exit {self.returncode}: {last[:200]}"


def run(argv: Sequence[str], *, timeout: float = 600, cwd: Path | None = None) -> RunResult:
    """Run a command, capturing its output; never raises for a failing or missing command."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            list(argv), capture_output=True, text=True, timeout=timeout, cwd=cwd, check=False
        )
    except subprocess.TimeoutExpired as exc:
        return RunResult(list(argv), None, _text(exc.stdout), _text(exc.stderr), timeout, timed_out=True)
    except OSError as exc:
        return RunResult(list(argv), 127, "", str(exc), time.perf_counter() - start)
    return RunResult(list(argv), proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - start)


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def parse_jsonl(text: str) -> list[dict[str, Any]]:
    """Parse JSON lines, skipping blank or malformed lines."""
    rows: list[dict[str, Any]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            rows.append(value)
    return rows


def to_builtins(value: Any) -> Any:
    """Turn an API result (msgspec Struct, dataclass, object, dict) into plain dicts and lists."""
    if isinstance(value, dict | list | str | int | float | bool) or value is None:
        return value
    try:
        import msgspec

        return msgspec.to_builtins(value)
    except (ImportError, TypeError):
        pass
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    for method in ("to_dict", "as_dict", "model_dump", "dict"):
        if callable(getattr(value, method, None)):
            return getattr(value, method)()
    if hasattr(value, "__dict__"):
        return {key: to_builtins(val) for key, val in vars(value).items() if not key.startswith("_")}
    return value


# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------


def fetch_sdist(name: str, version: str, cache: Path = CACHE_DIR) -> Path:
    """Download ``name==version`` as an sdist with pip (once) and return the unpacked source root."""
    target = cache / "src" / f"{name}-{version}"
    if target.is_dir() and any(target.iterdir()):
        return _single_child(target)
    download = cache / "dl"
    download.mkdir(parents=True, exist_ok=True)
    archive = _find_archive(download, name, version)
    if archive is None:
        argv = [sys.executable, "-m", "pip", "download", f"{name}=={version}", "--no-binary", ":all:",
                "--no-deps", "-d", str(download)]
        result = run(argv, timeout=900)
        archive = _find_archive(download, name, version)
        if archive is None:
            raise SystemExit(f"could not download {name}=={version}: {result.describe_failure()}")
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="data")
    return _single_child(target)


def _find_archive(directory: Path, name: str, version: str) -> Path | None:
    for path in sorted(directory.iterdir()):
        if path.name.lower().startswith(f"{name}-{version}".lower()) and path.name.endswith(".tar.gz"):
            return path
    return None


def _single_child(directory: Path) -> Path:
    children = [child for child in directory.iterdir() if child.is_dir()]
    return children[0] if len(children) == 1 else directory


# --------------------------------------------------------------------------------------------------
# Figures and tables
# --------------------------------------------------------------------------------------------------


def ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def fmt_ratio(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def fmt_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def fmt_bytes(size: float | None) -> str:
    if size is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit in ("B", "KB") else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100) of a non-empty sequence, else None."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def print_table(title: str, headers: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Print a plain-text table: first column left-aligned, the others right-aligned."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [len(header) for header in headers]
    for row in cells:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))

    def line(row: Sequence[str]) -> str:
        parts = [cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)]
        return "  ".join(parts).rstrip()

    print()
    print(title)
    print(line(list(headers)))
    print("  ".join("-" * width for width in widths))
    for row in cells:
        print(line(row))


def write_json(path: Path | None, payload: Any) -> None:
    """Write the figures as JSON when ``--json-out`` was given."""
    if path is None:
        return
    path.write_text(json.dumps(payload, indent=2, sort_keys=True, default=str) + "\n")
    print(f"\nfigures written to {path}")


# The yardstick for "this kind of machine": tree-sitter parse plus a full node walk of Django's
# .py files in one process took 2.5 s there. Shared cloud machines differ in speed from hour to hour.
REFERENCE_S = 2.5


def reference_walk(root: Path) -> float:
    """CPU seconds to parse every .py file under root with tree-sitter and visit every node, in this
    process: the issue's measure of the machine, taken in the same run as the figures it scales."""
    from tree_sitter_language_pack import get_parser

    parser = get_parser("python")
    sources = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(name for name in dirnames if name not in (".tenure", ".git"))
        sources += [(Path(dirpath) / name).read_bytes() for name in sorted(filenames) if name.endswith(".py")]
    start = time.process_time()
    for source in sources:
        cursor = parser.parse(source).walk()
        while True:
            if cursor.goto_first_child() or cursor.goto_next_sibling():
                continue
            while cursor.goto_parent() and not cursor.goto_next_sibling():
                pass
            if cursor.depth == 0:
                break
    return time.process_time() - start


def pss_bytes(pid: int) -> int:
    """A process's proportional set size (shared pages split between the processes sharing them), 0
    when it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def cpu_seconds() -> float:
    """CPU seconds of this process and of the children it has waited for (index workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def compiled(src: Path) -> Path:
    """`src` with its bytecode compiled, as an install leaves it: under PYTHONDONTWRITEBYTECODE a build
    without it compiles every module it imports in every run (0.2-0.25 s of a tenure index), which
    favours whichever build of a comparison was compiled."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True, stdout=subprocess.DEVNULL)
    return src


def baseline_src(revision: str, into: Path) -> Path:
    """This repository's `src/` at a git revision, unpacked under `into`: a build to run beside this tree."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "src"], check=True, capture_output=True)
    subprocess.run(["tar", "x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"
