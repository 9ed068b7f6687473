"""The class-file reader, bytecode as a graph source, and DI wiring from beans files and Spring AOT."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.structural.graph import JVM_DETAIL, REFLECTION_DETAIL
from tenure.structural.jvm import classfile, model
from tenure.structural.jvm import source as jvm_source
from tests.conftest import FIXTURES

JVM = FIXTURES / "jvm"
pytestmark = pytest.mark.skipif(shutil.which("javac") is None, reason="javac missing: .ci/run installs openjdk-17")

LOCALS = "\n".join(f"        int v{i} = {i};" for i in range(300))
SHAPES = f"""package com.acme.shapes;

import java.util.function.Supplier;

public class Shapes {{
    private final Helper helper = new Helper();

    public int pick(int n, String s) {{
        switch (n) {{ case 1: return 10; case 2: return 20; case 3: return 30; default: break; }}
        switch (s.hashCode()) {{ case 100: return 1; case 100000: return 2; default: return 0; }}
    }}

    public int wide() {{
{LOCALS}
        v299++;
        return helper.count(v299);
    }}

    public String run() {{
        Supplier<String> lazy = () -> helper.name();
        Runnable stop = helper::stop;
        Runnable anon = new Runnable() {{ public void run() {{ helper.stop(); }} }};
        return lazy.get();
    }}
}}

class Helper {{
    int count(int x) {{ return x; }}
    String name() {{ return ""; }}
    void stop() {{}}
}}
"""


def javac(src_root: Path, out: Path) -> None:
    subprocess.run(["javac", "-d", str(out), *map(str, sorted(src_root.rglob("*.java")))], check=True,
                   capture_output=True)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[Path], None], Path], Path]:
    """Build each compiled repository once per module (javac is slow); every test gets its own copy
    (copytree keeps modification times, so class files stay newer than their sources)."""
    built: dict[str, Path] = {}

    def copy(key: str, make: Callable[[Path], None], dest: Path) -> Path:
        if key not in built:
            built[key] = tmp_path_factory.mktemp("javac") / key
            make(built[key])
        shutil.copytree(built[key], dest)
        return dest

    return copy


@pytest.fixture
def shapes(compiled, tmp_path: Path) -> Path:
    def make(repo: Path) -> None:
        (repo / "src/com/acme/shapes").mkdir(parents=True)
        (repo / "src/com/acme/shapes/Shapes.java").write_text(SHAPES)
        javac(repo / "src", repo / "target" / "classes")

    return compiled("shapes", make, tmp_path / "repo")


def class_bytes(repo: Path, name: str) -> bytes:
    return (repo / "target/classes/com/acme/shapes" / f"{name}.class").read_bytes()


def test_reader_decodes_switches_and_wide_and_finds_every_invoke_javap_finds(shapes: Path) -> None:
    cf = classfile.parse(class_bytes(shapes, "Shapes"))
    opcodes = [i.opcode for m in cf.methods if m.code for i in m.code.instructions()]
    assert classfile.TABLESWITCH in opcodes and classfile.LOOKUPSWITCH in opcodes and classfile.WIDE in opcodes
    javap = subprocess.run(["javap", "-c", "-p", str(shapes / "target/classes/com/acme/shapes/Shapes.class")],
                           capture_output=True, text=True, check=True).stdout
    assert len(re.findall(r"\binvoke(?:virtual|special|static|interface|dynamic)\b", javap)) == sum(
        op in classfile.INVOKE_OPCODES for op in opcodes)


def test_reader_reads_java_8_class_files_and_module_descriptors(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "com/acme/api").mkdir(parents=True)
    (src / "module-info.java").write_text("module com.acme.api { exports com.acme.api; }\n")
    (src / "com/acme/api/Api.java").write_text("package com.acme.api;\npublic class Api {}\n")
    subprocess.run(["javac", "-d", str(tmp_path / "out"), *map(str, src.rglob("*.java"))], check=True)
    subprocess.run(["javac", "--release", "8", "-d", str(tmp_path / "out8"), str(src / "com/acme/api/Api.java")],
                   check=True)
    module = classfile.parse((tmp_path / "out/module-info.class").read_bytes())
    assert module.name == "module-info" and module.access & classfile.ACC_MODULE
    assert {"Module", "Package"} <= module.pool.kinds()
    assert classfile.parse((tmp_path / "out8/com/acme/api/Api.class").read_bytes()).major == 52


def test_lambdas_and_method_references_belong_to_their_enclosing_method_an_anonymous_class_to_itself(
    shapes: Path,
) -> None:
    with Tenure.open(shapes, discover=False) as t:
        t.index()
        rows = t.db.query("SELECT src_fqn, dst_fqn, relation, tier, detail FROM source_edges WHERE source = 'bytecode'")
        ts = {(e["src"], e["dst"], e["relation"], ",".join(e["sources"])) for e in t.export_edges()}
    calls = {(r["src_fqn"], r["dst_fqn"]) for r in rows if r["relation"] == "calls"}
    run = "com.acme.shapes.Shapes.run"
    assert {(run, "com.acme.shapes.Helper.name"), (run, "com.acme.shapes.Helper.stop")} <= calls
    assert not [c for c in calls if "lambda$" in c[0]]
    # an anonymous class is named as javac names it, from source too: the class file confirms its edges
    anonymous = "com.acme.shapes.Shapes$1"
    assert {(f"{anonymous}.run", "com.acme.shapes.Helper.stop", "calls", "bytecode,tree-sitter"),
            (run, anonymous, "instantiates", "bytecode,tree-sitter")} <= ts
    # a field initialiser runs in <init> but belongs to the class, as tree-sitter has it
    assert ("com.acme.shapes.Shapes", "com.acme.shapes.Helper", "instantiates") in {
        (r["src_fqn"], r["dst_fqn"], r["relation"]) for r in rows}


@pytest.mark.parametrize("damage, reason", [
    (lambda b: b[: len(b) // 2], "truncated"),
    (lambda b: b"\x00\x00\x00\x00" + b[4:], "bad magic"),
    (lambda b: b[:10] + b"\x02" + b[11:], "unknown constant-pool tag 2"),
    (lambda b: b[:6] + b"\x00\x50" + b[8:], "version 80"),
])
def test_a_damaged_class_file_is_reported_and_skipped_never_fatal(shapes: Path, damage, reason: str) -> None:
    (shapes / "target/classes/com/acme/shapes/Broken.class").write_bytes(damage(class_bytes(shapes, "Helper")))
    with pytest.raises(classfile.ClassFileError, match=reason):
        classfile.parse(damage(class_bytes(shapes, "Helper")))
    with Tenure.open(shapes, discover=False) as t:
        report = t.index()
        assert "Broken.class" in report.sources["jvm"]["skipped"]
        assert report.sources["jvm"]["classes"] == 3  # Shapes, its anonymous class, Helper
        assert t.db.query("SELECT COUNT(*) AS n FROM source_edges WHERE source = 'bytecode'")[0]["n"] > 0


def test_random_corruption_only_ever_raises_class_file_error(shapes: Path) -> None:
    """Flipped bytes and cut-off files anywhere (pool, members, code, attributes): one error type, always."""
    original = class_bytes(shapes, "Shapes")
    rng = random.Random(6)
    failures = 0
    for _ in range(1500):
        data = bytearray(original)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.2:
            data = data[: rng.randrange(len(data))]
        try:
            model.build(classfile.parse(bytes(data)), "Shapes.class")
        except classfile.ClassFileError:
            failures += 1
    assert failures > 100  # the corruption was real


def test_a_broken_jar_is_reported_and_the_rest_is_indexed(shapes: Path) -> None:
    (shapes / "lib").mkdir()
    (shapes / "lib/broken.jar").write_bytes(b"PK\x03\x04 not really a zip")
    with Tenure.open(shapes, discover=False) as t:
        report = t.index()
    assert "lib/broken.jar: not a readable jar" in report.sources["jvm"]["skipped"]
    assert report.sources["jvm"]["classes"] == 3


def test_an_unchanged_origin_is_not_read_again_and_a_changed_one_is(shapes: Path) -> None:
    with Tenure.open(shapes, discover=False) as t:
        t.index()
        assert t.index().sources["jvm"]["unchanged"] == "yes"
        (shapes / "target/classes/com/acme/shapes/Helper.class").unlink()
        report = t.index()
    assert report.sources["jvm"]["classes"] == 2


def test_a_repository_without_class_files_or_beans_reports_nothing(make_repo) -> None:
    repo = make_repo({"app.py": "def f():\n    return 1\n"})
    with Tenure.open(repo, discover=False) as t:
        assert "jvm" not in t.index().sources


def test_only_a_project_with_jvm_code_is_walked_for_class_files(make_repo, monkeypatch: pytest.MonkeyPatch) -> None:
    walked: list[Path] = []
    real = jvm_source.find_inputs
    monkeypatch.setattr(jvm_source, "find_inputs", lambda root, extra=(): walked.append(root) or real(root, extra))
    repo = make_repo({"app.py": "def f():\n    return 1\n", "lib/vendored.jar": "not read"})
    with Tenure.open(repo, discover=False) as t:
        t.index()
        assert walked == []  # Python alone: no class directory or jar to look for
        (repo / "Main.java").write_text("class Main {}\n")
        t.index()
        assert walked == [repo]


def test_class_files_that_appear_under_watch_are_read_though_edits_to_source_alone_skip_the_walk(
    shapes: Path, tmp_path: Path
) -> None:
    classes = shapes / "target"
    shutil.move(classes, tmp_path / "target")  # the project starts without compiled code
    (shapes / "app.py").write_text("def f():\n    return 1\n")
    with Tenure.open(shapes, discover=False) as t:
        t.index()
        (shapes / "app.py").write_text("def f():\n    return 2\n")
        assert "jvm" not in t.index(changed_paths={"app.py"}).sources
        shutil.move(tmp_path / "target", classes)  # a build writes class files: the watcher names them
        written = {p.relative_to(shapes).as_posix() for p in classes.rglob("*.class")}
        assert t.index(changed_paths=written).sources["jvm"]["classes"] == 3


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    repo = tmp_path / "shop"
    shutil.copytree(JVM / "shop", repo)
    (repo / "actuator-beans.json").unlink()
    (repo / "tenure.toml").unlink()
    return repo


def test_spring_aot_bean_definitions_become_injects_edges_and_decide_the_interface_call(shop: Path) -> None:
    sources = [str(p) for root in (shop / "src", JVM / "aot_src") for p in sorted(root.rglob("*.java"))]
    subprocess.run(["javac", "-d", str(shop / "target/classes"), *sources], check=True, capture_output=True)
    with Tenure.open(shop, discover=False) as t:
        t.index()
        injects = t.db.query("SELECT src_fqn, dst_fqn, context, tier FROM source_edges WHERE relation = 'injects'")
        stripe = t.what_breaks("StripeGateway.charge")
    assert sorted((r["src_fqn"], r["dst_fqn"], r["context"], r["tier"]) for r in injects) == [
        ("com.acme.pay.CheckoutService", "com.acme.pay.StripeGateway", "aot", "resolved"),  # @Autowired field
        ("com.acme.pay.InvoiceService", "com.acme.pay.StripeGateway", "aot", "resolved"),  # constructor parameter
    ]
    wired = [(d["symbol"], d["tier"], d["contexts"]) for d in stripe["dependants"] if "di" in d["sources"]]
    assert sorted(wired) == [("com.acme.pay.CheckoutService.checkout", "resolved", ["aot"]),
                             ("com.acme.pay.InvoiceService.invoice", "resolved", ["aot"])]


def test_di_ingest_adds_a_boot1_beans_file_by_hand_under_its_profile(shop: Path, tmp_path: Path) -> None:
    javac(shop / "src", shop / "target/classes")
    beans = tmp_path / "beans-from-staging.json"
    beans.write_text(json.dumps([{"context": "application", "parent": None, "beans": [
        {"bean": "checkoutService", "type": "com.acme.pay.CheckoutService", "dependencies": ["adyenGateway"]},
        {"bean": "adyenGateway", "type": "com.acme.pay.AdyenGateway", "dependencies": []},
    ]}]))
    runner = CliRunner()
    assert runner.invoke(app, ["index", str(shop)]).exit_code == 0
    result = runner.invoke(app, ["di", "ingest", str(beans), "--profile", "staging", "--repo", str(shop), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["contexts"] == 1
    with Tenure.open(shop, discover=False) as t:
        t.index()  # a hand-ingested file stays after the next index
        adyen = t.what_breaks("AdyenGateway.charge")
    checkout = [d for d in adyen["dependants"] if d["symbol"] == "com.acme.pay.CheckoutService.checkout"]
    assert [(d["tier"], d["contexts"], "di" in d["sources"]) for d in checkout] == [("resolved", ["staging"], True)]


@pytest.mark.parametrize(("content", "says"), [
    ('{"hello": 1}', "not Spring Boot actuator beans JSON"),
    ("[" * 100_000 + "]" * 100_000, "not actuator beans JSON: nested too deep"),
], ids=["another shape", "arrays nested 100,000 deep"])
def test_di_ingest_rejects_a_file_that_is_not_actuator_json(
    shop: Path, tmp_path: Path, content: str, says: str
) -> None:
    bogus = tmp_path / "bogus.json"
    bogus.write_text(content)
    result = CliRunner().invoke(app, ["di", "ingest", str(bogus), "--repo", str(shop)])
    assert result.exit_code == 2
    assert says in " ".join(result.output.split())


def compiled_graph_fixture(compiled, case: str, tmp_path: Path) -> Path:
    def make(repo: Path) -> None:
        shutil.copytree(FIXTURES / "graph" / case, repo)
        javac(repo, repo / "target" / "classes")

    return compiled(case, make, tmp_path / case)


JAVA_CASES = sorted(p.name for p in (FIXTURES / "graph").iterdir() if p.name.startswith("java_"))
# What no class file holds: calls the JVM makes at run time, and reflection's targets (javac compiled
# a call of Method.invoke, not of what it invokes).
RUN_TIME = (JVM_DETAIL + "%", REFLECTION_DETAIL + "%")


@pytest.mark.parametrize("case", JAVA_CASES)
def test_bytecode_confirms_every_tree_sitter_edge_under_the_same_names(compiled, case: str, tmp_path: Path) -> None:
    repo = compiled_graph_fixture(compiled, case, tmp_path)
    with Tenure.open(repo, discover=False) as t:
        t.index()
        ts = t.db.query("SELECT src_fqn, dst_fqn, relation, line FROM edges WHERE dst_fqn IS NOT NULL"
                        " AND relation != 'imports'"  # bytecode has no imports
                        " AND detail NOT LIKE ? AND detail NOT LIKE ?", RUN_TIME)
        bc = t.db.query("SELECT src_fqn, dst_fqn, relation, line, verdict FROM source_edges WHERE source = 'bytecode'")
        names = {r["fqn"] for r in t.db.query("SELECT fqn FROM symbols")}
    confirmed = {(r["src_fqn"], r["dst_fqn"], r["relation"], r["line"]) for r in bc if r["verdict"] == "confirms"}
    assert ts
    for e in ts:
        key = (e["src_fqn"], e["dst_fqn"], e["relation"])
        assert (*key, e["line"]) in confirmed or (*key, 0) in confirmed, e
    assert {n for r in bc for n in (r["src_fqn"], r["dst_fqn"]) if n} <= names


SPLITERATOR = """package com.acme.pay;

import java.util.Spliterator;

class Ledger {
    void record(int amount) {
    }
}

class AuditLog {
    void record(int amount) {
    }
}

class Batch {
    // Spliterator is a JDK type the resolver does not model: `item`'s type is not known from source
    void drain(Spliterator<Ledger> items) {
        items.tryAdvance(item -> item.record(1));
    }
}
"""


def test_javac_rules_out_tree_sitters_guess_for_a_lambda_parameter_of_unknown_type(make_repo) -> None:
    repo = make_repo({"src/com/acme/pay/Batch.java": SPLITERATOR})
    javac(repo / "src", repo / "target/classes")
    with Tenure.open(repo, discover=False) as t:
        t.index()
        impact = t.what_breaks("AuditLog.record")
        ledger = t.what_breaks("Ledger.record")
    assert [(d["symbol"], d["line"], d["refuted_by"]) for d in impact["refuted"]] == [
        ("com.acme.pay.Batch.drain", 18, ["bytecode"])]  # `item -> item.record(1)`: javac says a Ledger
    assert [(d["symbol"], d["tier"]) for d in ledger["dependants"]] == [("com.acme.pay.Batch.drain", "resolved")]


def test_class_files_older_than_their_source_confirm_but_never_refute(compiled, tmp_path: Path) -> None:
    repo = compiled_graph_fixture(compiled, "java_receivers", tmp_path)
    source = repo / "com/acme/pay/PaymentProcessor.java"
    later = max(c.stat().st_mtime for c in (repo / "target/classes").rglob("*.class")) + 60
    os.utime(source, (later, later))  # edited after the last build (whenever the fixture was checked out)
    with Tenure.open(repo, discover=False) as t:
        report = t.index()
        impact = t.what_breaks("AuditLog.record")
    assert "older than their source" in report.sources["jvm"]["stale classes"]
    assert not impact["refuted"]


CUSTOMER = """package com.acme.crm;

@Getter
public class Customer {
    private String name;
%s}
"""
LOMBOK_GETTER = """
    public String getName() {
        return name;
    }
"""


def test_a_caller_only_the_class_file_has_is_a_generated_dependant(make_repo, tmp_path) -> None:
    """The generated getter calls the source's Names.clean: its edge says the caller is generated code."""
    repo = make_repo({
        "src/com/acme/crm/Getter.java": "package com.acme.crm;\npublic @interface Getter {}\n",
        "src/com/acme/crm/Names.java": "package com.acme.crm;\n\npublic class Names {\n"
                                       "    static String clean(String s) {\n        return s.trim();\n    }\n}\n",
        "src/com/acme/crm/Customer.java": CUSTOMER % "",
    })
    processed = tmp_path / "processed" / "com/acme/crm/Customer.java"
    processed.parent.mkdir(parents=True)
    processed.write_text(CUSTOMER % LOMBOK_GETTER.replace("return name;", "return Names.clean(name);"))
    subprocess.run(["javac", "-d", str(repo / "target/classes"), str(repo / "src/com/acme/crm/Getter.java"),
                    str(repo / "src/com/acme/crm/Names.java"), str(processed)], check=True, capture_output=True)
    with Tenure.open(repo, discover=False) as t:
        t.index()
        impact = t.what_breaks("com.acme.crm.Names.clean")
    assert [(d["symbol"], d["generated"]) for d in impact["dependants"]] == [("com.acme.crm.Customer.getName", True)]
    assert impact["summary"]["generated"] == 1


def test_methods_an_annotation_processor_added_to_a_source_class_are_generated_symbols(make_repo, tmp_path) -> None:
    """Lombok writes getName() into Customer's class file; the source only says @Getter."""
    repo = make_repo({
        "src/com/acme/crm/Getter.java": "package com.acme.crm;\npublic @interface Getter {}\n",
        "src/com/acme/crm/Customer.java": CUSTOMER % "",
        "src/com/acme/crm/Greeter.java": "package com.acme.crm;\n\npublic class Greeter {\n"
                                         "    String greet(Customer c) {\n        return \"hi \" + c.getName();\n"
                                         "    }\n}\n",
    })
    processed = tmp_path / "processed" / "com/acme/crm/Customer.java"
    processed.parent.mkdir(parents=True)
    processed.write_text(CUSTOMER % LOMBOK_GETTER)
    subprocess.run(["javac", "-d", str(repo / "target/classes"), str(repo / "src/com/acme/crm/Getter.java"),
                    str(repo / "src/com/acme/crm/Greeter.java"), str(processed)], check=True, capture_output=True)
    with Tenure.open(repo, discover=False) as t:
        t.index()
        getter = t.find_symbol("Customer.getName")
        impact = t.what_breaks("Customer.getName")
    assert [(m.fqn, m.generated) for m in getter.matches] == [("com.acme.crm.Customer.getName", True)]
    assert [(d["symbol"], d["tier"], d["sources"]) for d in impact["dependants"]] == [
        ("com.acme.crm.Greeter.greet", "resolved", ["bytecode"])]


def test_bytecode_ingest_adds_a_library_jar_from_outside_the_repository(make_repo, tmp_path: Path) -> None:
    lib = tmp_path / "lib-src" / "com/acme/lib/Clock.java"
    lib.parent.mkdir(parents=True)
    lib.write_text("package com.acme.lib;\n\npublic class Clock {\n    public static long now() {\n"
                   "        return System.nanoTime();\n    }\n}\n")
    subprocess.run(["javac", "-d", str(tmp_path / "lib-classes"), str(lib)], check=True, capture_output=True)
    jar = tmp_path / "elsewhere" / "clock.jar"
    jar.parent.mkdir()
    with zipfile.ZipFile(jar, "w") as z:
        z.write(tmp_path / "lib-classes/com/acme/lib/Clock.class", "com/acme/lib/Clock.class")
    repo = make_repo({"src/com/acme/app/Timer.java": "package com.acme.app;\n\nimport com.acme.lib.Clock;\n\n"
                      "public class Timer {\n    long start() {\n        return Clock.now();\n    }\n}\n"})
    subprocess.run(["javac", "-cp", str(jar), "-d", str(repo / "target/classes"),
                    str(repo / "src/com/acme/app/Timer.java")], check=True, capture_output=True)
    runner = CliRunner()
    assert runner.invoke(app, ["index", str(repo)]).exit_code == 0
    result = runner.invoke(app, ["bytecode", "ingest", str(jar), "--repo", str(repo), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["origins"] == 2
    with Tenure.open(repo, discover=False) as t:
        t.index()  # the ingested jar is read again on every index
        clock = t.find_symbol("Clock.now")
        impact = t.what_breaks("Clock.now")
    assert [(m.fqn, m.generated) for m in clock.matches] == [("com.acme.lib.Clock.now", False)]  # a library
    assert [(d["symbol"], d["tier"]) for d in impact["dependants"]] == [("com.acme.app.Timer.start", "resolved")]
    missing = runner.invoke(app, ["bytecode", "ingest", str(tmp_path / "nope.jar"), "--repo", str(repo)])
    assert missing.exit_code == 2 and "no such jar" in missing.output


def test_a_beans_file_or_jar_that_breaks_later_keeps_its_last_good_edges(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    shutil.copytree(JVM / "shop", repo)
    javac(repo / "src", tmp_path / "classes")
    with zipfile.ZipFile(repo / "app.jar", "w") as jar:  # the shop's classes as a jar this time
        for f in (tmp_path / "classes").rglob("*.class"):
            jar.write(f, f.relative_to(tmp_path / "classes").as_posix())

    def counts(t: Tenure) -> dict[str, int]:
        rows = t.db.query("SELECT source, COUNT(*) AS n FROM source_edges GROUP BY source")
        return {r["source"]: r["n"] for r in rows}

    with Tenure.open(repo, discover=False) as t:
        t.index()
        before = counts(t)
        (repo / "actuator-beans.json").write_text("{ truncated")
        (repo / "app.jar").write_bytes(b"PK\x03\x04 damaged")
        report = t.index()
        assert counts(t) == before and before["di"] > 0 and before["bytecode"] > 0
    assert "actuator-beans.json" in report.sources["jvm"]["skipped"]
    assert "app.jar: not a readable jar" in report.sources["jvm"]["skipped"]


def test_javac_rules_out_a_name_guess_it_compiled_to_a_jdk_method(make_repo) -> None:
    repo = make_repo({"src/com/acme/cart/Cart.java": """package com.acme.cart;

import java.util.List;

public class Cart {
    public void add(int n) {
    }
}

class Filler {
    void fill(java.util.Spliterator<List<Integer>> rows) {
        rows.tryAdvance(row -> row.add(1));
    }
}
"""})
    javac(repo / "src", repo / "target/classes")
    with Tenure.open(repo, discover=False) as t:
        t.index()
        impact = t.what_breaks("Cart.add")
    assert [(d["symbol"], d["tier"], d["refuted_by"]) for d in impact["refuted"]] == [
        ("com.acme.cart.Filler.fill", "inferred", ["bytecode"])]  # `row` is a List: javac called List.add
    assert not impact["dependants"]


def test_tenure_toml_names_a_class_directory_in_an_unusual_place(make_repo) -> None:
    repo = make_repo({
        "src/com/acme/shapes/Shapes.java": SHAPES,
        "tenure.toml": '[jvm]\nclasspath = ["out/production/app"]\n',
    })
    javac(repo / "src", repo / "out/production/app")  # IntelliJ's output directory
    with Tenure.open(repo, discover=False) as t:
        report = t.index()
        origins = {r["origin"] for r in t.db.query("SELECT DISTINCT origin FROM source_edges")}
    assert report.sources["jvm"]["classes"] == 3
    assert origins == {"out/production/app"}


def test_an_interfaces_only_implementation_is_an_inferred_dispatch_target(make_repo) -> None:
    # (public, with a public constructor: code outside the project may create one, so the program
    # creating none decides nothing)
    repo = make_repo({"src/com/acme/mail/SmtpMailer.java": """package com.acme.mail;

public class SmtpMailer implements Mailer {
    public void send(String to) {
    }
}
""", "src/com/acme/mail/Mailer.java": """package com.acme.mail;

public interface Mailer {
    void send(String to);
}

class Signup {
    void welcome(Mailer mailer) {
        mailer.send("new@acme.com");
    }
}
"""})
    javac(repo / "src", repo / "target/classes")
    with Tenure.open(repo, discover=False) as t:
        t.index()
        smtp = t.what_breaks("SmtpMailer.send")
    assert [(d["symbol"], d["tier"], d["sources"]) for d in smtp["dependants"]] == [
        ("com.acme.mail.Signup.welcome", "inferred", ["bytecode"])]
    assert smtp["summary"]["unresolved_dispatch"] == 1


def test_class_models_an_older_reader_cached_are_read_again(shapes: Path) -> None:
    # (a model without what this reader adds, lambdas' functional interfaces, would decide dispatches wrongly)
    classes = model.OriginClasses([model.build(classfile.parse(class_bytes(shapes, "Shapes")), "Shapes.class")], [])
    assert model.decode(model.encode(classes)) == classes
    with pytest.raises(ValueError, match="format"):
        model.decode(msgspec.msgpack.encode((model.MODEL_FORMAT - 1, classes)))
    with pytest.raises(ValueError):
        model.decode(msgspec.msgpack.encode(classes))  # as the first format wrote it


def test_bytecode_ingest_refuses_what_is_neither_a_jar_nor_a_class_directory_and_keeps_nothing(
        make_repo, tmp_path: Path) -> None:
    repo = make_repo({"A.java": "class A {\n    void m() {\n    }\n}\n"})
    notes = tmp_path / "x[" / "evil].json"  # (a path holding "[/evil]", which looks like markup, is printed as it is)
    notes.parent.mkdir()
    notes.write_text("{}")
    runner = CliRunner()
    assert runner.invoke(app, ["index", str(repo)]).exit_code == 0
    result = runner.invoke(app, ["bytecode", "ingest", str(notes), "--repo", str(repo)])
    assert result.exit_code == 2 and "neither a jar nor a directory of class files" in result.output
    assert "x[/evil].json" in result.output
    with Tenure.open(repo, discover=False) as t:
        assert "skipped" not in t.index().sources.get("jvm", {})  # not kept, failing every index
