"""Precision of the `resolved` tier per source (bytecode, di, lsp): a `resolved` edge is one a compiler
(or the running container's wiring) confirmed, and this checks that claim edge by edge.

    python bench/resolved_precision.py [--only fixtures|suite|jars] [--suite DIR] [--jar JAR ...]
                                       [--sample 20] [--seed 7] [--verbose] [--json-out FILE]

Inputs, each indexed by tenure with its class files:
- fixtures: every `tests/fixtures/graph/java_*` case compiled with javac, and the Spring shop of
  `tests/fixtures/jvm/shop` (compiled with its generated sources; its beans file from the prod profile);
- the CATS suite of JVM call-graph cases (SWARM-CG's `benchmarks/java/cats_jar`: a jar and the sources
  per case), by default from the machine's SWARM-CG mirror;
- real code: Debian's commons-cli and commons-io jars (`/usr/share/java`), or `--jar`.

The truth, per source:
- bytecode: `javap -c -l -p -v` (the JDK's own class-file decoder, not tenure's) on the same classes.
  A `resolved` call edge is right when the caller's class (or a class nested in it: a lambda body, an
  anonymous or local class is its enclosing method's code) has, on the edge's line or up to 5 lines
  below it (tenure keeps tree-sitter's line for a chained call), an invoke instruction or a method
  handle of a lambda/method reference whose owner is the edge's target class or a subclass of it, by
  the same method name, the target class declaring that method (JVM method resolution: javac's owner
  method, or the super type it inherits it from). An override in a subclass of the owner — a call
  the JVM may dispatch to it — is no `resolved` edge: counted wrong. `instantiates`: a `new` of the
  class (or a constructor reference) on those lines; `inherits` / `implements`: javap's class header.
- di: the wired edges of the shop, judged by hand from its actuator-beans.json (prod): the one bean
  of each injected type (stripeGateway for PaymentGateway, the rest by their own class); listed in
  DI_TRUTH with the reason.
- lsp: no Java language server runs on this machine, so there are no `lsp` rows here; the lsp tier is
  measured on Python by `bench/lsp_pycg.py` (basedpyright, PyCG micro-benchmark).

A hand check of the automatic judge: `--sample N` prints N seeded `resolved` bytecode edges of the
real jars with the javap instruction that justifies each. The 20 of the default run (seed 7) were
read by hand against `javap -c -p` and the commons sources' documented API: each names the method
javac's invoke names (or the super class that declares it), none an override.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from common import REPO, fmt_ratio, print_table, ratio, write_json

sys.path.insert(0, str(REPO))
from tenure import Tenure  # noqa: E402
from tenure.structural.graph import DISPATCH_DETAIL  # noqa: E402

# (older trees had no decided overrides: their details then match nothing)
ALLOCATION_DETAIL = "decided by the allocation: "
INSTANTIATED_DETAIL = "decided by instantiation: "

FIXTURES = REPO / "tests" / "fixtures"
SUITE_MIRROR = Path("/work/.mirror/secure-software-engineering+SWARM-CG/repo")
DEBIAN_JARS = [Path("/usr/share/java/commons-cli.jar"), Path("/usr/share/java/commons-io.jar")]
WINDOW = 5  # javac's line of a call may be this far below tree-sitter's (a chained call)
SOURCES = ("bytecode", "di", "lsp")
GROUPS = ("fixtures", "suite", "jars")  # the fixtures, the CATS suite, real jars
OVERRIDE_KINDS = {"candidate": DISPATCH_DETAIL, "decided by the allocation": ALLOCATION_DETAIL,
                  "decided by instantiation": INSTANTIATED_DETAIL}
# The shop's wiring, judged by hand from tests/fixtures/jvm/shop/actuator-beans.json (profile prod):
# (src, dst) of each di edge expected `resolved`, and why.
DI_TRUTH = {
    ("com.acme.pay.CheckoutService.checkout", "com.acme.pay.StripeGateway.charge"):
        "field gateway: PaymentGateway; the one PaymentGateway bean is stripeGateway",
    ("com.acme.pay.InvoiceService.invoice", "com.acme.pay.StripeGateway.charge"):
        "constructor parameter PaymentGateway: stripeGateway",
    ("com.acme.pay.CheckoutService.checkout", "com.acme.pay.PaymentGateway.charge"):
        "the call javac names, wired to stripeGateway",
    ("com.acme.pay.InvoiceService.invoice", "com.acme.pay.PaymentGateway.charge"):
        "the call javac names, wired to stripeGateway",
    ("com.acme.pay.CheckoutService", "com.acme.pay.StripeGateway"): "injects: field gateway <- stripeGateway",
    ("com.acme.pay.InvoiceService", "com.acme.pay.StripeGateway"): "injects: constructor <- stripeGateway",
    ("com.acme.pay.StripeGateway", "com.acme.pay.PaymentGateway"): "the bean's class implements the wired type",
}


# javap as the judge --------------------------------------------------------------------------------
@dataclass
class ClassFacts:
    supers: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)  # method names ("<init>" for constructors)
    calls: list[tuple[int, str, str, str]] = field(default_factory=list)  # (line, owner, name, javap text)
    news: list[tuple[int, str]] = field(default_factory=list)
    accessors: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # access$NNN -> what it calls


_HEADER = re.compile(r"^(?:[\w ]*?\s)?(class|interface|enum)\s+([\w.$]+)(.*?)\s*$")
_INSTRUCTION = re.compile(r"^\s+(\d+): (invoke\w+|new)\s+#\d+(?:,\s*\d+)?\s+// (\w+) (.+)$")
_LINE = re.compile(r"^\s+line (\d+): (\d+)$")
_HANDLE = re.compile(r"REF_(\w+) ([\w/$]+)\.(\"?[\w$<>]+\"?):")


def _strip_generics(text: str) -> str:
    out, depth = [], 0
    for ch in text:
        depth += ch == "<"
        if depth == 0:
            out.append(ch)
        depth -= ch == ">"
    return "".join(out)


def javap_facts(classpath: list[Path]) -> dict[str, ClassFacts]:
    names = []
    for entry in classpath:
        if entry.is_dir():
            names += [str(p.relative_to(entry))[:-6].replace("/", ".") for p in entry.rglob("*.class")]
        else:
            with zipfile.ZipFile(entry) as z:
                names += [n[:-6].replace("/", ".") for n in z.namelist()
                          if n.endswith(".class") and not n.startswith("META-INF/") and "-info" not in n]
    facts: dict[str, ClassFacts] = {}
    cp = ":".join(map(str, classpath))
    for i in range(0, len(names), 150):
        out = subprocess.run(["javap", "-c", "-l", "-p", "-v", "-classpath", cp, *names[i:i + 150]],
                             capture_output=True, text=True, check=False).stdout
        _parse(out, facts)
    return facts


def _parse(text: str, facts: dict[str, ClassFacts]) -> None:
    cls: ClassFacts | None = None
    name = ""
    pending: list[tuple[int, str, str, str, str]] = []  # (pc, kind, owner, member, text) of one method
    lines: list[tuple[int, int]] = []
    bootstrap: dict[int, list[tuple[str, str, str]]] = {}
    indy: list[tuple[int, int]] = []  # (line, bootstrap index)
    current_bsm = -1
    method = ""

    def flush() -> None:
        nonlocal pending, lines
        table = sorted((pc, ln) for ln, pc in lines)
        if method.startswith("access$"):  # javac's accessor for a nested class's private member
            cls.accessors[method] = [(owner, member) for _, kind, owner, member, _ in pending
                                     if kind.startswith("invoke")]
        for pc, kind, owner, member, text in pending:
            line = max(((start, ln) for start, ln in table if start <= pc), default=(0, 0))[1]  # (the last entry)
            if kind == "new":
                cls.news.append((line, owner))
            elif kind == "invokedynamic":
                indy.append((line, int(member)))
            else:
                cls.calls.append((line, owner, member, text))
        pending, lines = [], []

    for raw in text.splitlines():
        if raw.startswith("Classfile "):
            if cls is not None:
                flush()
                _add_indy(cls, indy, bootstrap)
            cls, name, bootstrap, indy, current_bsm = None, "", {}, [], -1
            continue
        if cls is None and (m := _HEADER.match(_strip_generics(raw))) and not raw.startswith(" "):
            name = m.group(2)
            cls = facts.setdefault(name, ClassFacts())
            rest = m.group(3)
            for word in ("extends", "implements"):
                if f" {word} " in f" {rest} ":
                    part = f" {rest} ".split(f" {word} ", 1)[1].split(" implements ")[0].strip(" {")
                    cls.supers |= {s.strip() for s in part.split(",") if s.strip()}
            continue
        if cls is None:
            continue
        if re.match(r"^\s+(\d+): #\d+ REF_", raw):  # a bootstrap method (BootstrapMethods, after the code)
            current_bsm = int(raw.split(":")[0])
            bootstrap[current_bsm] = []
        elif raw.startswith("  ") and not raw.startswith("   ") and raw.rstrip().endswith(";") and "(" in raw:
            flush()
            member = raw.split("(")[0].split()[-1]
            method = member = "<init>" if member == name else member.rpartition(".")[2]
            cls.declared.add(member)
        elif raw.strip() == "static {};":
            flush()
            method = "<clinit>"
            cls.declared.add(method)
        elif m := _INSTRUCTION.match(raw):
            pc, op, what, target = int(m.group(1)), m.group(2), m.group(3), m.group(4)
            if op == "new":
                pending.append((pc, "new", target.replace("/", "."), "", raw.strip()))
            elif what == "InvokeDynamic":
                pending.append((pc, "invokedynamic", "", target.split(":")[0].lstrip("#"), raw.strip()))
            else:
                ref = target.split(":")[0]
                owner, _, member = ref.rpartition(".") if "." in ref.split("(")[0] else (name, "", ref)
                owner = owner.replace("/", ".") if owner != name else name
                pending.append((pc, op, owner, member.strip('"'), raw.strip()))
        elif m := _LINE.match(raw):
            lines.append((int(m.group(1)), int(m.group(2))))
        elif current_bsm >= 0 and (h := _HANDLE.search(raw)):
            bootstrap[current_bsm].append((h.group(1), h.group(2).replace("/", "."), h.group(3).strip('"')))
    if cls is not None:
        flush()
        _add_indy(cls, indy, bootstrap)


def _add_indy(cls: ClassFacts, indy: list[tuple[int, int]], bootstrap: dict[int, list[tuple[str, str, str]]]) -> None:
    """A lambda or method reference: the method handles among its bootstrap arguments."""
    for line, index in indy:
        for kind, owner, member in bootstrap.get(index, []):
            if kind == "newInvokeSpecial":
                cls.news.append((line, owner))
            cls.calls.append((line, owner, member, f"invokedynamic REF_{kind} {owner}.{member}"))


class Judge:
    def __init__(self, facts: dict[str, ClassFacts]) -> None:
        self.facts = facts

    def lineage(self, cls: str) -> set[str]:
        seen, stack = set(), [cls]
        while stack:
            c = stack.pop()
            if c not in seen:
                seen.add(c)
                stack += self.facts[c].supers if c in self.facts else []
        return seen

    def code_of(self, src: str) -> list[str]:
        """The classes whose code is `src`'s: its class and the classes nested in it."""
        owner = src
        while owner and owner not in self.facts:
            owner = owner.rpartition(".")[0]
        return [c for c in self.facts if c == owner or c.startswith(owner + "$")] if owner else []

    def calls(self, cls: str) -> list[tuple[int, str, str, str]]:
        """A class's calls, a call of a synthetic accessor (`access$700`) as the call it makes."""
        out = []
        for ln, owner, name, text in self.facts[cls].calls:
            inner = self.facts[owner].accessors.get(name) if owner in self.facts else None
            out += [(ln, o, n, f"{text} -> {o}.{n}") for o, n in inner] if inner else [(ln, owner, name, text)]
        return out

    def check(self, row: dict) -> tuple[bool, str]:
        """(right, the javap evidence or why not)."""
        src, dst, relation, line = row["src_fqn"], row["dst_fqn"], row["relation"], row["line"]
        if relation in ("inherits", "implements"):
            ok = dst in self.facts.get(src, ClassFacts()).supers
            return ok, f"class header of {src}" if ok else f"{src} does not extend {dst}"
        near = (lambda ln: True) if not line else (lambda ln: line <= ln <= line + WINDOW)
        if relation == "instantiates":
            for c in self.code_of(src):
                hit = next((n for n in self.facts[c].news if n[1] == dst and near(n[0])), None)
                if hit:
                    return True, f"{c}: new {dst} at line {hit[0]}"
            return False, f"no new {dst} near line {line}"
        cls, _, member = dst.rpartition(".")
        simple = cls.rpartition(".")[2].rpartition("$")[2].lstrip("0123456789")  # (a local class: Outer$1Local)
        names = {member} | ({"<init>"} if member == simple else set())
        seen_override = ""
        for c in self.code_of(src):
            for ln, owner, name, text in self.calls(c):
                if name not in names or not near(ln):
                    continue
                if cls in self.lineage(owner) and name in self.facts.get(cls, ClassFacts()).declared | {"<init>"}:
                    return True, f"{c} line {ln}: {text}"
                if owner in self.lineage(cls):
                    seen_override = f"{c} line {ln}: {text} (the target overrides it)"
        return False, seen_override or f"no invoke of {member} near line {line}"


# indexing -------------------------------------------------------------------------------------------
def resolved_rows(repo: Path) -> tuple[list[dict], list[dict]]:
    """(the `resolved` rows, bytecode's rows of overrides a virtual call may run: candidates and decided)."""
    with Tenure.open(repo, discover=False) as t:
        t.index()
        resolved = [dict(r) for r in t.db.query(
            "SELECT source, src_fqn, dst_fqn, relation, line, detail FROM source_edges"
            " WHERE tier = 'resolved' AND verdict = 'confirms' AND dst_fqn IS NOT NULL")]
        overrides = [dict(r) for r in t.db.query(
            "SELECT src_fqn, dst_fqn, tier, detail FROM source_edges WHERE source = 'bytecode' AND dst_fqn IS NOT NULL"
            " AND (detail LIKE ? OR detail LIKE ? OR detail LIKE ?)",
            (DISPATCH_DETAIL + "%", ALLOCATION_DETAIL + "%", INSTANTIATED_DETAIL + "%"))]
    return resolved, overrides


def compiled(case: Path, work: Path, *extra_sources: Path) -> Path:
    repo = work / case.name
    shutil.copytree(case, repo)
    sources = sorted(str(p) for root in (repo, *extra_sources) for p in root.rglob("*.java"))
    subprocess.run(["javac", "-g", "-d", str(repo / "target" / "classes"), *sources], check=True, capture_output=True)
    return repo


def classpath_of(repo: Path) -> list[Path]:
    return [p for p in [repo / "target" / "classes", *repo.rglob("*.jar")] if p.exists()]


@dataclass
class Tally:
    right: Counter = field(default_factory=Counter)
    wrong: Counter = field(default_factory=Counter)
    wrongs: list[str] = field(default_factory=list)
    judged: list[tuple[dict, str]] = field(default_factory=list)  # bytecode rows with their evidence
    overrides: Counter = field(default_factory=Counter)  # (what, tier) -> edges
    created: Counter = field(default_factory=Counter)  # (what, tier) -> edges whose class javap sees created

    def add(self, source: str, ok: bool, what: str) -> None:
        (self.right if ok else self.wrong)[source] += 1
        if not ok:
            self.wrongs.append(f"[{source}] {what}")


def judge_repo(repo: Path, tally: Tally, label: str) -> None:
    rows, overrides = resolved_rows(repo)
    judge = Judge(javap_facts(classpath_of(repo)))
    # the classes objects are created of, with their super classes (an inherited method runs on them)
    created = {c for facts in judge.facts.values() for _, cls in facts.news for c in judge.lineage(cls)}
    for row in overrides:
        what = next(k for k, prefix in OVERRIDE_KINDS.items() if row["detail"].startswith(prefix))
        tally.overrides[what, row["tier"]] += 1
        tally.created[what, row["tier"]] += row["dst_fqn"].rpartition(".")[0] in created
    for row in rows:
        what = f"{label}: {row['src_fqn']} -> {row['dst_fqn']} ({row['relation']}, line {row['line']})"
        if row["source"] == "bytecode":
            ok, evidence = judge.check(row)
            tally.add("bytecode", ok, f"{what}: {evidence}")
            tally.judged.append((row, evidence))
        elif row["source"] == "di":
            reason = DI_TRUTH.get((row["src_fqn"], row["dst_fqn"]))
            tally.add("di", reason is not None, f"{what}: not in DI_TRUTH")
        else:
            tally.add(row["source"], False, f"{what}: no judge for this source")


def suite_dir(given: Path | None, work: Path) -> Path | None:
    if given is not None:
        return given
    if not SUITE_MIRROR.is_dir():
        return None
    archive = subprocess.run(["git", "-C", str(SUITE_MIRROR), "archive", "HEAD", "benchmarks/java/cats_jar"],
                             capture_output=True, check=True).stdout
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "x", "-C", str(work)], input=archive, check=True)
    return work / "benchmarks" / "java" / "cats_jar"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", type=Path, help="a directory of cases with jars (default: the SWARM-CG mirror's)")
    parser.add_argument("--jar", type=Path, action="append", help="real jars (default: Debian's commons-cli, -io)")
    parser.add_argument("--sample", type=int, default=20, help="bytecode edges of the jars printed for a hand check")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--only", choices=list(GROUPS), action="append", help="only these inputs (repeatable)")
    parser.add_argument("--verbose", action="store_true", help="list every wrong edge")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    if shutil.which("javac") is None or shutil.which("javap") is None:
        sys.exit("needs javac and javap on PATH")
    only = set(args.only or GROUPS)
    groups = {name: Tally() for name in GROUPS}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for case in sorted((FIXTURES / "graph").glob("java_*")) if "fixtures" in only else []:
            judge_repo(compiled(case, work / "fixtures"), groups["fixtures"], case.name)
        if "fixtures" in only:
            shop = compiled(FIXTURES / "jvm" / "shop", work / "fixtures", FIXTURES / "jvm" / "generated_src")
            judge_repo(shop, groups["fixtures"], "shop")
        suite = suite_dir(args.suite, work / "suite") if "suite" in only else None
        for case in sorted(p.parent for p in suite.rglob("callgraph.json")) if suite else []:
            repo = work / "cases" / case.relative_to(suite)
            shutil.copytree(case, repo)
            subprocess.run(["git", "init", "-q", str(repo)], check=True)  # (its jar is found as a repository's)
            judge_repo(repo, groups["suite"], str(case.relative_to(suite)))
        for jar in (args.jar or [j for j in DEBIAN_JARS if j.exists()]) if "jars" in only else []:
            repo = work / "jars" / jar.stem
            (repo / "lib").mkdir(parents=True)
            shutil.copy(jar.resolve(), repo / "lib" / jar.name)
            # (a repository without JVM sources reads only the class files tenure.toml names)
            (repo / "tenure.toml").write_text(f'[jvm]\nclasspath = ["lib/{jar.name}"]\n')
            judge_repo(repo, groups["jars"], jar.name)
    rows, report = [], {}
    for group, tally in groups.items():
        if group not in only:
            continue
        for source in SOURCES:
            right, wrong = tally.right[source], tally.wrong[source]
            if right or wrong:
                rows.append([group, source, right + wrong, right, wrong, fmt_ratio(ratio(right, right + wrong))])
                report[f"{group}/{source}"] = {"edges": right + wrong, "right": right, "wrong": wrong,
                                               "precision": ratio(right, right + wrong)}
            elif source == "lsp":
                rows.append([group, source, 0, 0, 0, "- (no Java language server)"])
        if args.verbose:
            for w in tally.wrongs:
                print("  wrong", w)
    print_table("resolved edges by source (target: precision >= 0.99)",
                ["input", "source", "resolved", "right", "wrong", "precision"], rows)
    overridden = [[group, what, tier, n, groups[group].created[what, tier]]
                  for group in GROUPS if group in only for (what, tier), n in sorted(groups[group].overrides.items())]
    print_table("overrides a virtual call may run (bytecode): never resolved; candidates unless decided",
                ["input", "what", "tier", "edges", "on objects javap sees created"], overridden)
    real = groups["jars"].judged
    for row, evidence in random.Random(args.seed).sample(real, min(args.sample, len(real))):
        print(f"  {row['src_fqn']} -> {row['dst_fqn']} (line {row['line']}): {evidence}")
    write_json(args.json_out, report)


if __name__ == "__main__":
    main()
