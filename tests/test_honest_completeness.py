"""An answer claims no more than its evidence: files the resolver did not fully resolve make the
answers that count calls of a name they use lower bounds (said in the summary and in `status`), a
dynamic site that may reach a symbol is named with its file and line, and "complete" says what it
rests on (never "verified" beside "not enriched")."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tenure.structural.resolve.javascript import analysis
from tests.gaps_support import unresolved_behind

# A utility, called from a file long enough that a spent evaluation budget leaves its last statements
# unevaluated (the budget is lowered below, as a pathological file would spend it).
FILLER = 1100
PARTLY = {
    "util.js": "export function replaceEqualDeep(a, b) {\n  return a\n}\n\nexport function unused() {}\n",
    "long.js": ("import { replaceEqualDeep } from './util.js'\n"
                + "let x = 1\n" * FILLER
                + "replaceEqualDeep(x, 2)\n"),
}


def test_a_file_resolved_partly_keeps_its_edges_and_makes_the_answer_a_lower_bound(make_repo, monkeypatch) -> None:
    monkeypatch.setattr(analysis, "EVALUATIONS_PER_STATEMENT", 0)  # budget: 1,000 evaluations a file
    with Tenure.open(make_repo(PARTLY), discover=False) as t:
        report = t.index()
        assert [path for path, _ in report.resolved_partly] == ["long.js"]
        assert "evaluation budget spent" in report.resolved_partly[0][1]
        assert any(e["path"] == "long.js" and e["relation"] == "imports" for e in t.export_edges())  # (kept)
        summary = t.what_breaks("replaceEqualDeep")["summary"]
        assert summary["lower_bound"]
        assert [(g["path"], g["status"]) for g in summary["unresolved_files"]] == [("long.js", "partial")]
        assert "1 file that names .replaceEqualDeep was not fully resolved (1 resolved partly: long.js)" in (
            " ".join(summary["reasons"]))
        assert "1 file naming it not fully resolved" in summary["text"]
        assert "complete" not in summary["text"] and "verified" not in summary["text"].replace("not enriched", "")
        assert [g["path"] for g in t.status()["unresolved_files"]] == ["long.js"]
        assert t.what_breaks("unused")["summary"]["unresolved_files"] == []  # (long.js never names it)
    status = CliRunner().invoke(app, ["status", "--repo", str(t.root)])
    assert "1 file not fully resolved (1 resolved partly)" in status.output
    assert "long.js: partial: evaluation budget spent" in status.output


def test_a_file_resolved_whole_again_leaves_status(make_repo, monkeypatch) -> None:
    monkeypatch.setattr(analysis, "EVALUATIONS_PER_STATEMENT", 0)
    root = make_repo(PARTLY)
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert t.status()["unresolved_files"]
    (root / "long.js").write_text("import { replaceEqualDeep } from './util.js'\nreplaceEqualDeep(1, 2)\n")
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert t.status()["unresolved_files"] == []
        summary = t.what_breaks("replaceEqualDeep")["summary"]
        assert summary["unresolved_files"] == []


def test_an_answer_with_no_dependants_says_what_its_completeness_rests_on(make_repo) -> None:
    with Tenure.open(make_repo({"a.py": "def lonely():\n    return 1\n"}), discover=False) as t:
        t.index()
        text = t.what_breaks("lonely")["summary"]["text"]
    assert "not enriched (no language server ran)" in text
    assert "verified" not in text.replace("not enriched", "")  # (no edge was verified by anything)
    assert text.endswith("— complete as far as the resolver sees (every file that names it resolved, no call "
                         "site of its name left unlinked)")


DYNAMIC = {
    "app.py": (
        "class App:\n"
        "    def wsgi_app(self):\n"
        "        return 1\n"
        "\n"
        "    def dispatch(self, name):\n"
        "        return getattr(self, name)()\n"
    ),
}


def test_dynamic_sites_that_may_reach_a_symbol_are_named_with_file_and_line(make_repo) -> None:
    root = make_repo(DYNAMIC)
    with Tenure.open(root, discover=False) as t:
        t.index()
        summary = t.what_breaks("App.wsgi_app")["summary"]
    assert summary["unresolved_dynamic"] == 1
    assert [(s["path"], s["line"]) for s in summary["dynamic_sites"]] == [("app.py", 6)]
    assert any(reason.endswith("app.py:6") for reason in summary["reasons"])
    out = CliRunner().invoke(app, ["what-breaks", "App.wsgi_app", "--repo", str(root)]).output
    assert "1 dynamic call site that may reach it (by what it looks up):" in out
    assert "app.py:6  getattr(self, name)" in out
    data = json.loads(CliRunner().invoke(app, ["what-breaks", "App.wsgi_app", "--repo", str(root), "--json"]).output)
    assert data["summary"]["dynamic_sites"][0]["line"] == 6


ESCAPING = {
    "site/__init__.py": "",
    "site/app.py": (
        "from jinja2 import Environment\n"
        "\n"
        "\n"
        "class App:\n"
        "    def url_for(self, endpoint):\n"
        "        return endpoint\n"
        "\n"
        "    def create_env(self):\n"
        "        env = Environment()\n"
        "        env.globals.update(url_for=self.url_for)\n"  # line 10: a template global
        "        return env\n"
        "\n"
        "\n"
        "class Other:\n"
        "    def url_for(self):\n"
        "        return 2\n"
        "\n"
        "    def hooks(self):\n"
        "        return {'build': self.url_for}\n"  # line 19: Other's own method, not App's
    ),
    "site/views.py": (
        "import site\n"
        "\n"
        "\n"
        "def hooks(register):\n"
        "    register(site.url_for)\n"  # line 5: the package's function, not a method
    ),
    "site/helpers.py": (
        "def url_for(endpoint):\n"
        "    return endpoint\n"
        "\n"
        "\n"
        "def registry(handlers):\n"
        "    handlers['url'] = url_for\n"  # line 6: stored
        "    return url_for\n"  # line 7: returned
    ),
}


def test_a_function_taken_as_a_value_is_a_reason_named_with_its_site(make_repo) -> None:
    root = make_repo(ESCAPING)
    with Tenure.open(root, discover=False) as t:
        t.index()
        method = t.what_breaks("site.app.App.url_for")["summary"]
        function = t.what_breaks("site.helpers.url_for")["summary"]
    assert [(e["path"], e["line"], e["how"]) for e in method["escapes"]] == [("site/app.py", 10, "keyword")]
    assert method["escapes"][0]["detail"] == "url_for=self.url_for"
    assert method["lower_bound"]
    assert any(r.startswith("it escapes as a value at 1 site (url_for=self.url_for site/app.py:10)")
               for r in method["reasons"])
    assert "taken as a value at 1 site" in method["text"]
    # a member of `self` in another class is that class's, a member of a module is no method; a plain
    # name, or a module's member, may be the function
    assert [(e["path"], e["line"], e["how"]) for e in function["escapes"]] == [
        ("site/helpers.py", 6, "stored"), ("site/helpers.py", 7, "returned"), ("site/views.py", 5, "argument")]
    out = CliRunner().invoke(app, ["what-breaks", "App.url_for", "--repo", str(root)]).output
    assert "1 site taking it as a value (what calls it from there is not followed):" in out
    assert "site/app.py:10  url_for=self.url_for" in out


def test_a_javascript_method_handed_out_in_a_result_object_is_named(make_repo) -> None:
    root = make_repo({"observer.ts": (
        "export class Observer {\n"
        "  refetch(): number {\n"
        "    return 1\n"
        "  }\n"
        "\n"
        "  result() {\n"
        "    return { data: 1, refetch: this.refetch }\n"  # line 7
        "  }\n"
        "}\n"
    )})
    with Tenure.open(root, discover=False) as t:
        t.index()
        summary = t.what_breaks("Observer.refetch")["summary"]
    assert [(e["path"], e["line"], e["how"], e["detail"]) for e in summary["escapes"]] == [
        ("observer.ts", 7, "item", "refetch: this.refetch")]
    assert summary["lower_bound"]


def test_an_answer_never_says_not_enriched_beside_enrichment_running(make_repo) -> None:
    from tenure.structural.impact import Impact

    with Tenure.open(make_repo({"a.py": "def lonely():\n    return 1\n"}), discover=False) as t:
        t.index()
        lookup = t.find_symbol("lonely")
    run = {"running": True, "stopped": False, "started_at": "2026-12-06T21:00:00+00:00", "finished_at": None,
           "files_done": 0, "files_total": 3}
    text = Impact("a.lonely", lookup, enriched=False, enrichment=run).summary()["text"]
    assert "not enriched" not in text
    assert "no file verified by a language server yet; enrichment running since 2026-12-06T21:00:00+00:00" in text


def test_a_parameter_passed_on_is_not_the_function_of_its_name(make_repo) -> None:
    root = make_repo({"lib.py": (
        "def reverse(items):\n"
        "    return items[::-1]\n"
        "\n"
        "\n"
        "def order(items, reverse=False):\n"
        "    return sorted(items, reverse=reverse)\n"  # line 6: the parameter, not the function
        "\n"
        "\n"
        "def wrap(register):\n"
        "    def reverse():\n"
        "        return 0\n"
        "    register(reverse)\n"  # line 12: the local function escaping, not lib.reverse
        "\n"
        "\n"
        "def hooks(register):\n"
        "    register(reverse)\n"  # line 16: lib.reverse
    )})
    with Tenure.open(root, discover=False) as t:
        t.index()
        module_level = [e["line"] for e in t.what_breaks("lib.reverse")["summary"]["escapes"]]
        local = [e["line"] for e in t.what_breaks("lib.wrap.reverse")["summary"]["escapes"]]
    assert (module_level, local) == ([16], [12])


def test_a_javascript_name_taken_as_a_value_is_the_function_it_is_bound_to(make_repo) -> None:
    root = make_repo({
        "lib.js": (
            "export function helper() {}\n"
            "export function order(items, helper) {\n"
            "  items.forEach(helper);\n"  # line 3: the parameter (its caller's site took the function)
            "}\n"
            "export function hooks(register) {\n"
            "  register(helper);\n"  # line 6: lib.helper
            "}\n"
        ),
        "other.js": (
            "function helper() {}\n"
            "export function run(register) {\n"
            "  register(helper);\n"  # line 3: other.helper, the module's own, seen from run
            "}\n"
        ),
        "third.js": 'import { helper } from "./other.js";\nexport function go(register) { register(helper); }\n',
        "user.js": 'import { helper } from "./lib.js";\nexport function go(register) { register(helper); }\n',
    })
    with Tenure.open(root, discover=False) as t:
        t.index()
        lib, other = ([(e["path"], e["line"]) for e in t.what_breaks(fqn)["summary"]["escapes"]]
                      for fqn in ("lib.helper", "other.helper"))
    assert lib == [("lib.js", 6), ("user.js", 2)]
    assert other == [("other.js", 3), ("third.js", 2)]


def test_a_javascript_hook_only_subclasses_define_makes_their_callers_a_lower_bound(make_repo) -> None:
    # zod's ZodType._parseAsync calls `this._parse`, which ZodType lacks and each of its 36 subclasses
    # defines: the call may run any of them; it had no edge, and what-breaks of one said it was complete
    few = "".join(f"export class P{i} extends Base {{ _parse() {{}} }}\n" for i in range(2))
    many = "".join(f"export class Q{i} extends Wide {{ _check() {{}} }}\n" for i in range(12))
    root = make_repo({
        "base.js": ("export class Base {\n  parse() {\n    return this._parse();\n  }\n}\n" + few
                    + "export class Wide {\n  run() {\n    return this._check();\n  }\n}\n" + many),
    })
    with Tenure.open(root, discover=False) as t:
        t.index()
        few_answer, many_answer = (t.what_breaks(fqn)["summary"] for fqn in ("base.P0._parse", "base.Q0._check"))
    assert few_answer["lower_bound"] and "1 caller (1 ambiguous)" in few_answer["text"]
    # (more subclasses than a site's candidates: one site without a target, counted by its name)
    assert many_answer["lower_bound"] and "1 call site of its name linked to no target" in many_answer["text"]


def test_a_python_name_taken_in_a_function_finds_its_module_s_definition_first(make_repo) -> None:
    root = make_repo({
        "lib.py": "def reverse(items):\n    return items[::-1]\n",
        "app.py": (
            "def reverse(items):\n"
            "    return items\n"
            "\n"
            "\n"
            "def hooks(register):\n"
            "    register(reverse)\n"  # line 6: app.reverse, not lib.reverse
        ),
        "user.py": "from lib import reverse\n\n\ndef hooks(register):\n    register(reverse)\n",  # line 5: lib's
    })
    with Tenure.open(root, discover=False) as t:
        t.index()
        lib, app = ([(e["path"], e["line"]) for e in t.what_breaks(fqn)["summary"]["escapes"]]
                    for fqn in ("lib.reverse", "app.reverse"))
    assert (lib, app) == ([("user.py", 5)], [("app.py", 6)])


def test_a_name_taken_as_a_value_is_what_the_file_s_imports_bind_to_it(make_repo) -> None:
    # an import renamed binds its alias, not the name; a star import may bind the name
    root = make_repo({
        "pkg/__init__.py": "",
        "pkg/lib.py": "def helper(x):\n    return x\n",
        "pkg/other.py": "def helper(y):\n    return y\n",
        "renamed.py": (
            "from pkg.lib import helper as h\n"
            "from elsewhere import helper\n"
            "\n"
            "\n"
            "def run(register):\n"
            "    register(helper)\n"  # line 6: elsewhere's, neither of the project's
        ),
        "star.py": (
            "from pkg.lib import helper as h\n"
            "from pkg.other import *\n"
            "\n"
            "\n"
            "def run(register):\n"
            "    register(helper)\n"  # line 6: pkg.other's, through the star import
        ),
    })
    with Tenure.open(root, discover=False) as t:
        t.index()
        lib, other = ([(e["path"], e["line"]) for e in t.what_breaks(fqn)["summary"]["escapes"]]
                      for fqn in ("pkg.lib.helper", "pkg.other.helper"))
        assert t.what_breaks("pkg.other.helper")["summary"]["lower_bound"]
    assert ("renamed.py", 6) not in lib
    assert other == [("star.py", 6)]


def test_a_function_named_as_a_parameter_s_default_value_is_taken_as_a_value(make_repo) -> None:
    source = "export function helper() { return 1; }\nexport function run(cb = helper) { register(cb); }\n"
    root = make_repo({"lib.js": source, "typed.ts": source})
    with Tenure.open(root, discover=False) as t:
        t.index()
        lib, typed = ([(e["path"], e["line"], e["how"]) for e in t.what_breaks(fqn)["summary"]["escapes"]]
                      for fqn in ("lib.helper", "typed.helper"))
    assert (lib, typed) == ([("lib.js", 2, "default")], [("typed.ts", 2, "default")])


def test_a_closure_variable_passed_on_is_not_the_function_of_its_name(make_repo) -> None:
    root = make_repo({"lib.py": (
        "def reverse(items):\n"
        "    return items[::-1]\n"
        "\n"
        "\n"
        "def make_manager(reverse):\n"
        "    class Manager:\n"
        "        def __init__(self):\n"
        "            self.reverse = reverse\n"  # line 8: make_manager's parameter
        "    return Manager\n"
    )})
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert t.what_breaks("lib.reverse")["summary"]["escapes"] == []


def test_a_function_of_a_language_whose_values_taken_are_not_tracked_is_never_complete(make_repo) -> None:
    root = make_repo({"main.rs": "fn health() {}\n\nfn main() {\n    register(health);\n}\n"})
    with Tenure.open(root, discover=False) as t:
        t.index()
        summary = t.what_breaks("health")["summary"]
    assert summary["lower_bound"] and "complete" not in summary["text"]
    assert "functions taken as values are not tracked in rust" in " ".join(summary["reasons"])


def test_no_known_dependants_of_a_function_whose_values_are_not_tracked_says_why_in_its_line(make_repo) -> None:
    # (cobra's NoArgs, Go's before its values taken were tracked, `Args: NoArgs` on 52 lines: 'no known dependants;
    # not enriched (no language server ran) — a lower bound', the reason in the JSON alone)
    root = make_repo({"main.rs": "fn health() {}\n\nfn main() {\n    register(health);\n}\n"})
    with Tenure.open(root, discover=False) as t:
        t.index()
        text = t.what_breaks("health")["summary"]["text"]
    assert text.startswith("no known dependants, where it is taken as a value is not tracked in rust; ")


def test_a_javascript_import_the_extractor_cannot_read_makes_answers_naming_it_a_lower_bound(make_repo) -> None:
    # a reserved word as an imported name is a syntax error to tree-sitter-javascript: this shape (with
    # import attributes) is not read, so `helper()` below reaches nothing; what-breaks of lib.helper said
    # "no known dependants ... complete", with no gap recorded
    root = make_repo({
        "lib.js": "export function helper() {}\nexport { helper as function };\n",
        "use.js": ('import { function as f, helper } from "./lib.js" with { type: "js" };\n'
                   "export function run() {\n  return helper() + f();\n}\n"),
    })
    with Tenure.open(root, discover=False) as t:
        report = t.index()
        assert report.resolved_partly == [("use.js", "imports not read (syntax errors) at line 1")]
        assert unresolved_behind(t, "lib.helper") == [("use.js", "partial")]
