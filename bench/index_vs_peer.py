"""A full index against codebase-memory-mcp on the same files, alternating: CPU and peak PSS of each
process tree, and their ratios (issue 32, point 1).

Usage::

    python bench/index_vs_peer.py --path DIR [--runs 3] [--peer BIN] [--baseline REV] [--json-out FILE]

DIR is copied once (its ``.py`` and ``.js`` files only, the languages the peer's build here parses;
see /work/shared/peers/README.md) into a git work tree of one commit under ``$TENURE_BENCH_CACHE``; both
tools index that copy, from scratch each run (``.tenure/`` and the peer's cache removed first), in the
order tenure, peer[, baseline], then [baseline, ]peer, tenure, and so on (a pair's first run was seen to
be the slower one). Without ``--path`` the copy is made from Django 5.1.4's
sdist.

- tenure: ``python -m tenure.cli index COPY`` with this tree's ``src/`` (``--baseline REV``: also the
  tree at git revision REV, a third arm). As common.py sets it, no knowledge build, no language server,
  no detached embedding backfill: the structural index and the git history read.
- the peer: ``cli index_repository --repo-path COPY``. Its CLI hands the work to a detached daemon
  (a session of its own) that forks an index worker; the daemon and its children are found by their
  executable and counted, and the daemon, started by this run, is stopped after it.

CPU: user + sys of every process of the tree: the CLI's side from ``getrusage(RUSAGE_CHILDREN)`` in a
wrapper process, a detached side from ``/proc/PID/stat`` (own + waited-for children's time), sampled.
Peak PSS: the sum over the tree's processes of ``/proc/PID/smaps_rollup`` Pss, sampled every
``--interval`` seconds (pages shared between processes split between them). Ratios are tenure / peer,
per alternating pair; the median pair is printed. The edge digest is an md5 of every stored edge row
(sorted): speed work must leave it unchanged. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from common import (
    CACHE_DIR,
    baseline_src,
    compiled,
    fetch_sdist,
    fmt_bytes,
    fmt_seconds,
    print_table,
    pss_bytes,
    write_json,
)

REPO = Path(__file__).resolve().parent.parent
PEER_ARCHIVE = Path("/work/shared/peers/codebase-memory-mcp.xz")
LANGUAGES = (".py", ".js")
CLOCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")

_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("@@RUSAGE@@" + json.dumps({"rc": code, "wall": time.perf_counter() - start,
      "cpu": u.ru_utime + u.ru_stime}), file=sys.stderr)
"""


@dataclass
class Run:
    tool: str
    ok: bool
    wall: float
    cpu: float  # seconds, whole tree (detached side included)
    detached_cpu: float  # of which the detached side
    peak_pss: int  # bytes
    edges_md5: str = ""


# --------------------------------------------------------------------------------------------------
# /proc
# --------------------------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of the process and of the children it waited for)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), sum(int(f) for f in fields[11:15]) / CLOCK


def _exe(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


class TreeSampler:
    """Peak PSS of `root`'s descendants plus any new process running `detached_exe` (and its
    descendants), and the peak CPU of that detached side."""

    def __init__(self, root: int, detached_exe: str | None, before: set[int], interval: float) -> None:
        self.root, self.detached_exe, self.before, self.interval = root, detached_exe, before, interval
        self.peak_pss = 0
        self.detached_cpu = 0.0
        self.detached_roots: set[int] = set()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()
        self.sample()  # the detached side's last waited-for children

    def _loop(self) -> None:
        while not self._done.is_set():
            self.sample()
            self._done.wait(self.interval)

    def sample(self) -> None:
        parents: dict[int, int] = {}
        cpu: dict[int, float] = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit() and (found := _stat(int(entry.name))) is not None:
                parents[int(entry.name)], cpu[int(entry.name)] = found
        children: dict[int, list[int]] = {}
        for pid, parent in parents.items():
            children.setdefault(parent, []).append(pid)

        def tree(top: int, include_top: bool) -> list[int]:
            stack, seen = [top], []
            while stack:
                pid = stack.pop()
                if pid != top or include_top:
                    seen.append(pid)
                stack.extend(children.get(pid, []))
            return seen

        own = set(tree(self.root, include_top=False))  # (the wrapper itself is left out)
        if self.detached_exe:  # a new process of the binary outside the tree, not the child of another
            ours = {pid for pid in parents if pid not in self.before and pid not in own
                    and _exe(pid) == self.detached_exe}
            self.detached_roots |= {pid for pid in ours if parents[pid] not in ours}
        detached = [pid for top in self.detached_roots if top in parents for pid in tree(top, True)]
        self.peak_pss = max(self.peak_pss, sum(pss_bytes(pid) for pid in {*own, *detached}))
        self.detached_cpu = max(self.detached_cpu, sum(cpu[pid] for pid in detached))


def measure(tool: str, argv: list[str], env: dict[str, str], detached_exe: str | None,
            interval: float) -> Run:
    before = {int(name) for name in os.listdir("/proc") if name.isdigit()}
    proc = subprocess.Popen([sys.executable, "-c", _WRAPPER, *argv], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    with TreeSampler(proc.pid, detached_exe, before, interval) as sampler:
        _out, stderr = proc.communicate()
    for pid in sampler.detached_roots:  # the peer's temporary daemon, started by this run
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    _wait_gone(sampler.detached_roots)
    marker = [line for line in stderr.splitlines() if line.startswith("@@RUSAGE@@")]
    if not marker:
        print(stderr[-2000:], file=sys.stderr)
        return Run(tool, False, 0.0, 0.0, 0.0, sampler.peak_pss)
    report = json.loads(marker[-1][len("@@RUSAGE@@"):])
    if report["rc"] != 0:
        print(f"{tool} exited {report['rc']}:\n{stderr[-2000:]}", file=sys.stderr)
    return Run(tool, report["rc"] == 0, report["wall"], report["cpu"] + sampler.detached_cpu,
               sampler.detached_cpu, sampler.peak_pss)


def _wait_gone(pids: set[int], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{pid}") for pid in pids):
        time.sleep(0.1)


# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------


def same_files_copy(source: Path, into: Path) -> Path:
    """The .py and .js files of `source` (its git files where it is a work tree), committed once in a
    fresh git work tree: what both tools index."""
    if into.is_dir():
        return into
    listed = subprocess.run(["git", "-C", str(source), "ls-files", "-z"], capture_output=True)
    if listed.returncode == 0 and listed.stdout:
        paths = [p for p in listed.stdout.decode().split("\0") if p.endswith(LANGUAGES)]
    else:
        paths = [str(p.relative_to(source)) for p in sorted(source.rglob("*")) if p.suffix in LANGUAGES
                 and p.is_file() and ".tenure" not in p.parts and ".git" not in p.parts]
    staging = Path(tempfile.mkdtemp(prefix="same-files-", dir=into.parent))
    for rel in paths:
        (staging / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / rel, staging / rel)
    quiet = {"check": True, "capture_output": True}
    subprocess.run(["git", "init", "-q", str(staging)], **quiet)
    subprocess.run(["git", "-C", str(staging), "add", "-A"], **quiet)
    subprocess.run(["git", "-C", str(staging), "-c", "user.name=bench", "-c", "user.email=bench@localhost",
                    "commit", "-q", "-m", "tree"], **quiet)
    staging.rename(into)
    return into


def the_copy(path: Path | None) -> tuple[Path, Path]:
    """The tree (`path`, default Django 5.1.4's sdist) and the one-commit copy of its files both tools index."""
    source = (path or fetch_sdist("Django", "5.1.4")).resolve()
    scratch = CACHE_DIR / "index_vs_peer"
    scratch.mkdir(parents=True, exist_ok=True)
    key = hashlib.blake2b(str(source).encode(), digest_size=6).hexdigest()
    return source, same_files_copy(source, scratch / f"{source.name}-{key}-py-js")


def peer_binary(given: str | None, scratch: Path) -> Path:
    if given:
        return Path(given).resolve()
    target = scratch / "codebase-memory-mcp"
    if not target.exists():
        with target.open("wb") as out:
            subprocess.run(["xz", "-dc", str(PEER_ARCHIVE)], stdout=out, check=True)
        target.chmod(0o755)
    return target


def edges_md5(root: Path) -> str:
    """md5 of every edge row the index stored, sorted (ids and file ids left out)."""
    db = sqlite3.connect(f"file:{root / '.tenure' / 'tenure.db'}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT src_fqn, dst_fqn, dst_name, relation, tier, path, line, detail FROM edges").fetchall()
    finally:
        db.close()
    digest = hashlib.md5()
    for row in sorted(rows, key=repr):
        digest.update(repr(row).encode())
    return f"{digest.hexdigest()[:8]} ({len(rows)} edges)"


# --------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------


def tenure_arm(name: str, src: Path, copy: Path, interval: float) -> Run:
    shutil.rmtree(copy / ".tenure", ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(src)}
    run = measure(name, [sys.executable, "-m", "tenure.cli", "index", str(copy)], env, None, interval)
    if run.ok:
        run.edges_md5 = edges_md5(copy)
    return run


def peer_arm(binary: Path, copy: Path, cache: Path, interval: float) -> Run:
    shutil.rmtree(cache, ignore_errors=True)
    env = {**os.environ, "CBM_CACHE_DIR": str(cache)}
    return measure("peer", [str(binary), "cli", "index_repository", "--repo-path", str(copy)], env,
                   str(binary), interval)


def median_of(runs: list[Run], field: str) -> float:
    return statistics.median(getattr(r, field) for r in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", type=Path, help="the tree (default: Django 5.1.4's sdist)")
    parser.add_argument("--runs", type=int, default=3, help="alternating pairs")
    parser.add_argument("--peer", help="the codebase-memory-mcp binary (default: unpacked from the shared archive)")
    parser.add_argument("--baseline", help="git revision of tenure to run as a third arm")
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between memory samples")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]

    source, copy = the_copy(args.path)
    scratch = copy.parent
    binary = peer_binary(args.peer, scratch)
    arms = {"tenure": REPO / "src"}
    if args.baseline:
        arms[f"tenure@{args.baseline}"] = baseline_src(args.baseline, scratch / f"baseline-{args.baseline}")
    for src in arms.values():  # (the baseline's fresh copy has no bytecode at all)
        compiled(src)
    files = sum(1 for p in copy.rglob("*") if p.suffix in LANGUAGES and ".git" not in p.parts)
    print(f"{files} files ({', '.join(LANGUAGES)}) of {source}, copied to {copy}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")

    runs: dict[str, list[Run]] = {name: [] for name in [*arms, "peer"]}
    order = ["tenure", "peer", *list(arms)[1:]]
    for i in range(args.runs):
        # (each pair in the other order: a pair's first run was seen to be the slower one)
        for name in order[:: 1 if i % 2 == 0 else -1]:
            if name == "peer":
                runs[name].append(peer_arm(binary, copy, scratch / "peer-cache", args.interval))
            else:
                runs[name].append(tenure_arm(name, arms[name], copy, args.interval))
            _progress(i, runs[name][-1])
    shutil.rmtree(scratch / "peer-cache", ignore_errors=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    rows = []
    for name, measured in runs.items():
        good = [r for r in measured if r.ok]
        if not good:
            rows.append([name, "failed", "", "", "", ""])
            continue
        digests = sorted({r.edges_md5 for r in good if r.edges_md5})
        rows.append([name, fmt_seconds(median_of(good, "wall")), fmt_seconds(median_of(good, "cpu")),
                     fmt_seconds(median_of(good, "detached_cpu")), fmt_bytes(median_of(good, "peak_pss")),
                     " / ".join(digests) or "-"])
    print_table(f"Full index of {copy} ({files} files), medians of {args.runs} runs",
                ["tool", "wall", "CPU (tree)", "of it detached", "peak PSS (tree)", "edge md5"], rows)

    ratios = []
    for name in arms:
        pairs = [(t, p) for t, p in zip(runs[name], runs["peer"], strict=True) if t.ok and p.ok]
        if not pairs:
            continue
        cpu = statistics.median(t.cpu / p.cpu for t, p in pairs)
        pss = statistics.median(t.peak_pss / p.peak_pss for t, p in pairs)
        per_pair = ", ".join(f"{t.cpu / p.cpu:.2f}" for t, p in pairs)
        ratios.append([name, f"{cpu:.2f}x ({per_pair})", "<= 0.40x", f"{pss:.3f}x", "<= 0.15x"])
    print_table("tenure / peer, median over the alternating pairs",
                ["tool", "CPU ratio (per pair)", "target", "peak PSS ratio", "target"], ratios)
    write_json(args.json_out, {name: [vars(r) for r in measured] for name, measured in runs.items()})
    return 0


def _progress(i: int, run: Run) -> None:
    print(f"  run {i + 1} {run.tool}: {'ok' if run.ok else 'FAILED'}, wall {run.wall:.1f} s, CPU {run.cpu:.1f} s "
          f"(detached {run.detached_cpu:.1f} s), peak PSS {fmt_bytes(run.peak_pss)} {run.edges_md5}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
