"""History reading on hostile commits (issue 30, item 9): its cost must grow linearly and its memory
stay bounded, whatever one commit holds.

- one commit adding a generated Python file of N one-line functions (N = 25k, 50k, 100k by default);
- one commit whose message is 5 MB of symbol names repeated (and, as the peer, 5 MB of random words).

Each case is a fresh repository indexed by `tenure index` in its own process (structural index,
history, episodes, rules; no language server, no knowledge build, no embeddings): wall time and the
process's peak RSS. A second figure reads only the history (`GitHistory.update()` on the indexed
repository's fresh history store), the part this bench is about.

    python bench/history_hostile.py [--sizes 25000,50000,100000] [--message-mb 5] [--timeout 600]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import fmt_bytes, print_table  # noqa: E402

STEP = """
import json, resource, sys, time
from tenure import Tenure
from tenure.history import GitHistory
with Tenure.open(sys.argv[1], discover=False) as t:
    start = time.perf_counter()
    t.index()
    whole = time.perf_counter() - start
    t.db.execute("DELETE FROM history_symbols"); t.db.execute("DELETE FROM history_changes")
    t.db.execute("DELETE FROM history_commits"); t.db.execute("DELETE FROM history_tips")
    t.db.execute("DELETE FROM history_meta"); t.db.execute("DELETE FROM history_mapped")
    start = time.perf_counter()
    GitHistory(t.db, t.root).update()
    history = time.perf_counter() - start
print(json.dumps({"index": whole, "history": history,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def _git(root: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def _repo(root: Path, files: dict[str, str], message: str) -> Path:
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    (root / "seed.py").write_text("def seed():\n    return 1\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "seed")
    for rel, text in files.items():
        (root / rel).write_text(text)
    (root / "msg.txt").write_text(message)
    _git(root, "add", "-A", "--", ":!msg.txt")
    _git(root, "commit", "-q", "-F", str(root / "msg.txt"))
    (root / "msg.txt").unlink()
    return root


def _measure(root: Path, timeout: float) -> dict:
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", STEP, str(root)], capture_output=True, text=True,
                              timeout=timeout, env={"TENURE_ENRICH": "off", "TENURE_KNOWLEDGE": "off",
                                                    "TENURE_EMBED_BACKGROUND": "off", "PATH": "/usr/bin:/bin",
                                                    "PYTHONPATH": ":".join(sys.path)})
    except subprocess.TimeoutExpired:
        return {"error": f"still running at {timeout:.0f} s", "wall": time.perf_counter() - started}
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1], "wall": time.perf_counter() - started}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "wall": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="25000,50000,100000")
    parser.add_argument("--message-mb", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="history-hostile-"))
    rows = []
    try:
        for n in [int(s) for s in args.sizes.split(",") if s]:
            text = "".join(f"def generated_{i}(): return {i}\n" for i in range(n))
            root = _repo(scratch / f"functions-{n}", {"generated.py": text}, "add a generated module")
            label = f"one commit, {n:,} one-line functions ({fmt_bytes(len(text))})"
            rows.append((label, _measure(root, args.timeout)))
        size = int(args.message_mb * 1e6)
        names = " ".join(["seed", "generated_1", "Settlement.retry", "audit"])
        rng = random.Random(9)
        words = " ".join("".join(rng.choice("abcdefghij") for _ in range(8)) for _ in range(size // 9))
        for label, body in (("symbol names", (names + "\n") * (size // (len(names) + 1))), ("random words", words)):
            root = _repo(scratch / label.replace(" ", "-"), {"seed.py": "def seed():\n    return 2\n"},
                         f"a {args.message_mb:g} MB message\n\n{body}")
            rows.append((f"a {args.message_mb:g} MB commit message of {label}", _measure(root, args.timeout)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    import tenure

    print(f"tenure measured: {Path(tenure.__file__).parent} (PYTHONPATH chooses it)")
    print_table("history on hostile commits", ["case", "index s", "history s", "peak RSS", "note"],
                [(label, f"{r['index']:.1f}" if "index" in r else "-", f"{r['history']:.1f}" if "history" in r else "-",
                  fmt_bytes(r["rss"]) if "rss" in r else "-", r.get("error", "")) for label, r in rows])


if __name__ == "__main__":
    main()
