"""Index a real compiled Java code base (Debian's commons-lang3 jar by default) through tenure's
bytecode source, and compare the class-file reader with `javap -c` on the same jar.

    python bench/jvm_bytecode.py [--jar PATH] [--json-out FILE]

Prints classes/s (reading alone, and the whole JVM source), methods, edges by tier, the share of
call edges that are `resolved`, peak RSS, and javap's invoke count and time on the same classes.
Without --jar it uses /usr/share/java/commons-lang3.jar, else `apt-get download libcommons-lang3-java`
into $TENURE_BENCH_CACHE (default /tmp/tenure-bench); nothing goes into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path

from tenure import Tenure
from tenure.structural.jvm import classfile

CACHE = Path(os.environ.get("TENURE_BENCH_CACHE", "/tmp/tenure-bench"))
SYSTEM_JAR = Path("/usr/share/java/commons-lang3.jar")
INVOKES = set(classfile.INVOKE_OPCODES)


def find_jar() -> Path:
    if SYSTEM_JAR.is_file():
        return SYSTEM_JAR
    target = CACHE / "commons-lang3"
    jars = sorted(target.rglob("commons-lang3*.jar")) if target.exists() else []
    if not jars:
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["apt-get", "download", "libcommons-lang3-java"], cwd=target, check=True)
        deb = next(target.glob("*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(target / "root")], check=True)
        jars = sorted(target.rglob("commons-lang3*.jar"))
    return next(j for j in jars if not j.is_symlink())


def class_entries(jar: Path) -> list[str]:
    with zipfile.ZipFile(jar) as z:
        return [n for n in z.namelist() if n.endswith(".class") and not n.startswith("META-INF/")
                and not n.endswith(("module-info.class", "package-info.class"))]


def reader_invokes(jar: Path) -> tuple[int, int, float]:
    """(classes, invoke instructions, seconds) reading every class with tenure's reader."""
    start = time.perf_counter()
    count = classes = 0
    with zipfile.ZipFile(jar) as z:
        for name in class_entries(jar):
            cf = classfile.parse(z.read(name))
            classes += 1
            count += sum(1 for m in cf.methods if m.code for i in m.code.instructions() if i.opcode in INVOKES)
    return classes, count, time.perf_counter() - start


def javap_invokes(jar: Path) -> tuple[int, float] | None:
    if shutil.which("javap") is None:
        return None
    names = [n[:-6].replace("/", ".") for n in class_entries(jar)]
    start = time.perf_counter()
    count = 0
    for i in range(0, len(names), 200):  # one JVM per 200 classes keeps the command line short
        out = subprocess.run(["javap", "-c", "-p", "-classpath", str(jar), *names[i:i + 200]],
                             capture_output=True, text=True, check=True).stdout
        count += sum(1 for line in out.splitlines()
                     if line.split(":", 1)[-1].split() and line.split(":", 1)[-1].split()[0] in {
                         "invokevirtual", "invokespecial", "invokestatic", "invokeinterface", "invokedynamic"})
    return count, time.perf_counter() - start


def index_jar(jar: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        (repo / "lib").mkdir(parents=True)
        shutil.copy(jar, repo / "lib" / jar.name)
        with Tenure.open(repo, discover=False) as t:
            start = time.perf_counter()
            report = t.index()
            seconds = time.perf_counter() - start
            rows = t.db.query("SELECT relation, tier, COUNT(*) AS n FROM source_edges WHERE source = 'bytecode'"
                              " GROUP BY relation, tier")
            again = time.perf_counter()
            t.index()
            unchanged = time.perf_counter() - again
            symbols = t.db.query("SELECT COUNT(*) AS n FROM symbols WHERE origin != ''")[0]["n"]
    return {"report": report.sources.get("jvm", {}), "seconds": seconds, "unchanged_seconds": unchanged,
            "rows": [dict(r) for r in rows], "symbols": symbols}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jar", type=Path)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    jar = args.jar or find_jar()
    print(f"jar: {jar} ({jar.stat().st_size / 1e6:.2f} MB)")

    classes, invokes, read_s = reader_invokes(jar)
    indexed = index_jar(jar)
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peer = javap_invokes(jar)

    by_tier: Counter = Counter()
    calls: Counter = Counter()
    for r in indexed["rows"]:
        by_tier[r["tier"]] += r["n"]
        if r["relation"] == "calls":
            calls[r["tier"]] += r["n"]
    total_calls = sum(calls.values())
    jvm = indexed["report"]
    figures = {
        "classes": classes, "methods": jvm.get("methods"), "invoke_instructions": invokes,
        "reader_seconds": round(read_s, 3), "reader_classes_per_s": round(classes / read_s),
        "index_seconds": round(indexed["seconds"], 3), "index_classes_per_s": round(classes / indexed["seconds"]),
        "unchanged_reindex_seconds": round(indexed["unchanged_seconds"], 3),
        "bytecode_edges": sum(by_tier.values()), "edges_by_tier": dict(by_tier), "call_edges_by_tier": dict(calls),
        "call_edges_resolved_share": round(calls["resolved"] / total_calls, 3) if total_calls else None,
        "library_symbols": indexed["symbols"], "peak_rss_mb": round(peak_rss_mb),
        "javap_invoke_instructions": peer[0] if peer else None, "javap_seconds": round(peer[1], 2) if peer else None,
    }
    print(f"classes {classes}, methods {figures['methods']}, invoke instructions {invokes}")
    print(f"reader: {read_s:.2f}s = {figures['reader_classes_per_s']} classes/s")
    print(f"tenure index (tree-sitter finds nothing; the JVM source reads, merges, stores): {indexed['seconds']:.2f}s "
          f"= {figures['index_classes_per_s']} classes/s; unchanged re-index {indexed['unchanged_seconds']:.3f}s")
    print(f"bytecode edges {figures['bytecode_edges']}: " + ", ".join(f"{t} {n}" for t, n in by_tier.most_common()))
    print(f"call edges {total_calls}: " + ", ".join(f"{t} {n}" for t, n in calls.most_common())
          + f"; resolved share {figures['call_edges_resolved_share']}")
    print(f"symbols from the jar {indexed['symbols']}; peak RSS {figures['peak_rss_mb']} MB")
    if peer:
        agree = "agree" if peer[0] == invokes else f"DIFFER by {invokes - peer[0]}"
        print(f"peer javap -c -p: {peer[0]} invoke instructions in {peer[1]:.2f}s ({agree}; "
              f"tenure's reader {peer[1] / read_s:.1f}x the speed)")
    if args.json_out:
        args.json_out.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
