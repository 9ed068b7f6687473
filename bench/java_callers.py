"""Callers of 30 methods of a real Java project, tenure from source alone against javac's class files.

    python bench/java_callers.py [--git DIR] [--rev REV] [--module gson] [--classpath JAR:...]
                                 [--sample 30] [--seed 23] [--verbose] [--json-out FILE]

By default google/gson (its `gson` module, 86 source files) at a pinned commit, cloned from the
machine's mirror (`--git`, default /work/.mirror/google+gson/repo) into a temp dir; its one build
dependency, error-prone's annotations, is Debian's jar in /usr/share/java. Maven's templates
(`src/main/java-templates`) are copied in with `${...}` filled, as the build would.

Two indexes of the same sources: one source only (tree-sitter and the Java resolver), one with the
class files `javac -g` compiled into target/classes. The reference is the second index's `bytecode`
edges that are `resolved`: javac resolved every invoke it wrote, and tenure's class-file reader names
them under the source pass's names (a lambda body, an anonymous or local class is its enclosing
method). Left out of the reference: bytecode's dispatch candidates (every override of a virtual call,
a different claim from "this method calls that one"), also where the source guessed the same pair.
Left out of the source side's precision: the calls the JVM makes
(`jvm:`) and reflection (`reflection:`), which class files neither confirm nor refute; they are
counted apart.

The 30 methods are a seeded sample of the project's methods that javac's classes give a project caller
(where overloads share a name, one symbol). Scores are over (caller, method) pairs; the same figures
over every project method follow, so a sample is not a lucky one.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

from common import REPO, fmt_ratio, print_table, ratio, write_json

sys.path.insert(0, str(REPO))
from tenure import Tenure  # noqa: E402
from tenure.structural.graph import DISPATCH_DETAIL, JVM_DETAIL, REFLECTION_DETAIL  # noqa: E402

MIRROR = Path("/work/.mirror/google+gson/repo")
GSON_REV = "9835b6f90192f79cdf5300c528fc6212455fb6c1"  # 2026's main: "Fix typos and grammar issues (#3092)"
ERROR_PRONE = "/usr/share/java/error-prone-annotations.jar"
PLACEHOLDER = re.compile(r"\$\{[\w.]+\}")
METHOD_KINDS = ("method", "constructor")
Pair = tuple[str, str]  # (caller, callee)


def checkout(git: Path, rev: str, module: str, into: Path) -> Path:
    """The module's main sources (with Maven's templates filled) as a repository of their own."""
    clone = into / "clone"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(git), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", rev], check=True)
    main = clone / module / "src" / "main"
    repo = into / "repo"
    shutil.copytree(main / "java", repo / "src" / "main" / "java")
    templates = main / "java-templates"
    for f in sorted(templates.rglob("*.java")) if templates.is_dir() else []:
        target = repo / "src" / "main" / "java" / f.relative_to(templates)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(PLACEHOLDER.sub("bench", f.read_text("utf-8")), "utf-8")
    shutil.rmtree(clone)
    return repo


def project_name(git: Path) -> str:
    """owner/name for a mirror (/work/.mirror/owner+name/repo), else the clone's folder name."""
    folder = git.parent.name if git.name == "repo" else git.name
    return folder.replace("+", "/", 1)


def compile_classes(repo: Path, classpath: str) -> int:
    sources = sorted(str(p) for p in repo.rglob("*.java") if p.name != "module-info.java")
    out = repo / "target" / "classes"
    argv = ["javac", "-g", "-nowarn", "-encoding", "UTF-8", "-d", str(out), *(["-cp", classpath] if classpath else [])]
    subprocess.run([*argv, *sources], check=True, capture_output=True)
    return sum(1 for _ in out.rglob("*.class"))


def indexed(repo: Path) -> tuple[list[dict], set[str]]:
    """The call edges of a fresh index of `repo`, and the methods its sources define."""
    with Tenure.open(repo, discover=False) as t:
        t.index()
        edges = [e for e in t.export_edges() if e["relation"] == "calls" and e["dst"]]
        return edges, {s.fqn for s in t.structural.definitions(METHOD_KINDS)}


def reference_pairs(edges: list[dict], methods: set[str]) -> set[Pair]:
    """The invokes javac compiled: `resolved` bytecode edges (a dispatch candidate is `ambiguous`, or
    `inferred` for an interface's only implementation, also where the source guessed the same pair)."""
    return {(e["src"], e["dst"]) for e in edges if "bytecode" in e["sources"] and e["tier"] == "resolved"
            and e["dst"] in methods and not e["detail"].startswith(DISPATCH_DETAIL)}


def source_pairs(edges: list[dict], methods: set[str]) -> tuple[dict[Pair, str], Counter[str]]:
    """The source pass's pairs with their best tier, and the run-time calls left unscored."""
    pairs: dict[Pair, set[str]] = defaultdict(set)
    unscored: Counter[str] = Counter()
    for e in edges:
        if e["dst"] not in methods:
            continue
        if e["detail"].startswith((JVM_DETAIL, REFLECTION_DETAIL)):
            unscored[e["detail"].split(":", 1)[0]] += 1
            continue
        pairs[e["src"], e["dst"]].add(e["tier"])
    order = ("resolved", "observed", "inferred", "ambiguous", "dynamic")
    return {p: min(ts, key=lambda t: order.index(t) if t in order else len(order)) for p, ts in pairs.items()}, unscored


def score(found: dict[Pair, str], truth: set[Pair], targets: set[str]) -> dict:
    got = {p: t for p, t in found.items() if p[1] in targets}
    want = {p for p in truth if p[1] in targets}
    right = want & got.keys()
    tiers = Counter((t, p in want) for p, t in got.items())
    return {"reference": len(want), "found": len(got), "right": len(right),
            "recall": ratio(len(right), len(want)), "precision": ratio(len(right), len(got)),
            "tiers": {t: {"right": tiers[t, True], "wrong": tiers[t, False]} for t in sorted({t for t, _ in tiers})},
            "missed": sorted(want - got.keys()), "wrong": sorted(got.keys() - want)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--git", type=Path, default=MIRROR, help="a clone of the project (default gson's mirror)")
    parser.add_argument("--rev", default=GSON_REV)
    parser.add_argument("--module", default="gson", help="the Maven module whose src/main is compiled")
    parser.add_argument("--classpath", default=ERROR_PRONE, help="jars the sources need to compile")
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--verbose", action="store_true", help="list every missed and every wrong caller")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    if shutil.which("javac") is None:
        sys.exit("javac is needed on PATH (Debian: openjdk-17-jdk-headless)")
    if not args.git.exists():
        sys.exit(f"no clone at {args.git}: pass --git DIR")
    with tempfile.TemporaryDirectory() as tmp:
        source_repo = checkout(args.git, args.rev, args.module, Path(tmp) / "source")
        class_repo = Path(tmp) / "classes"
        shutil.copytree(source_repo, class_repo)
        classes = compile_classes(class_repo, args.classpath)
        source_edges, methods = indexed(source_repo)
        found, unscored = source_pairs(source_edges, methods)
        truth = reference_pairs(indexed(class_repo)[0], methods)
    called = sorted({callee for _, callee in truth})
    sample = set(random.Random(args.seed).sample(called, min(args.sample, len(called))))
    sampled, every = score(found, truth, sample), score(found, truth, set(methods))
    print(f"{project_name(args.git)} {args.rev[:10]} module {args.module or '.'}: "
          f"{len(methods)} methods, {classes} class files; {len(called)} methods with a caller in javac's classes")
    rows = [[name, s["reference"], s["found"], s["right"], fmt_ratio(s["recall"]), fmt_ratio(s["precision"])]
            for name, s in ((f"{len(sample)} sampled methods", sampled), ("every project method", every))]
    print_table("callers from source alone against javac's class files",
                ["methods", "reference", "found", "right", "recall", "precision"], rows)
    print_table("found (caller, method) pairs by tier, every project method", ["tier", "right", "wrong", "precision"],
                [[t, c["right"], c["wrong"], fmt_ratio(ratio(c["right"], c["right"] + c["wrong"]))]
                 for t, c in every["tiers"].items()])
    print(f"run-time calls from source, unscored (class files neither confirm nor refute): {dict(unscored)}")
    per_method = [[m, len([p for p in truth if p[1] == m]), len([p for p in found if p[1] == m]),
                   len([p for p in truth if p[1] == m and p in found])] for m in sorted(sample)]
    print_table("the sampled methods", ["method", "reference", "found", "right"], per_method)
    if args.verbose:
        for label, s in (("sampled", sampled), ("every", every)):
            for p in s["missed"]:
                print(f"  {label} missed {p[0]} -> {p[1]}")
            for p in s["wrong"]:
                print(f"  {label} wrong  {p[0]} -> {p[1]} [{found[p]}]")
    write_json(args.json_out, {"rev": args.rev, "module": args.module, "methods": len(methods), "classes": classes,
                               "sample": sorted(sample), "sampled": sampled, "every": every,
                               "unscored": dict(unscored)})


if __name__ == "__main__":
    main()
