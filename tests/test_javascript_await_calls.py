"""`await (f)(x)` in JavaScript awaits the call of f: tree-sitter's grammar reads it as a call of a
function named `await`, whose result is called."""

from __future__ import annotations

from tenure import Tenure


def test_an_awaited_call_through_parentheses_is_a_call_of_the_function_not_a_value_handed_to_await(
        make_repo) -> None:
    # esbuild's and tsc's CommonJS output call an import as `(0, import_m.f)(...)`, so every awaited
    # call is `await (0, import_m.f)(...)`: hono 4.6.3's dist/cjs has 22 of them, each read as
    # compose "taken as a value", its caller missing
    root = make_repo({
        "m.js": "function compose(a) { return a }\nmodule.exports = { compose }\n",
        "a.js": (
            'const import_m = require("./m");\n'
            "async function run(x) {\n"
            "  const r = await (0, import_m.compose)(x);\n"  # line 3
            "  return await (import_m.compose)(r)\n"  # line 4
            "}\n"
            "async function later() { await (async () => 1)() }\n"
            "module.exports = { run, later }\n"
        ),
    })
    with Tenure.open(root, discover=False) as t:
        t.index()
        answer = t.what_breaks("m.compose")
    assert [(d["symbol"], d["line"]) for d in answer["dependants"] if d["relation"] == "calls"] == [
        ("a.run", 3), ("a.run", 4)]
    assert [e["line"] for e in answer["summary"]["escapes"] if e["path"] == "a.js"] == []
