"""Files of one folder that differ only by an extension an import may leave out (`x.js`, `x.cjs`,
`x.ts`) get names of their own (`naming.path_module`): every name shown can be typed back, and an
index updated as siblings come and go names them as a fresh index does."""

from __future__ import annotations

from pathlib import Path

from tenure import Tenure
from tenure.structural.naming import path_module, stem_siblings

JS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
CLASS = "export class Client {\n  fetch(key) {\n    return key;\n  }\n}\n"


def test_the_sibling_an_extensionless_import_reaches_keeps_the_stem() -> None:
    paths = {"b/q.js", "b/q.cjs", "b/q.d.ts", "b/q.d.cts", "b/q.js.map", "b/solo.mjs", "c.d/x", "src/q.ts"}
    named = {p: path_module(p, JS, paths) for p in sorted(paths)}
    assert named == {"b/q.js": "b/q", "b/q.cjs": "b/q.cjs", "b/q.d.ts": "b/q.d", "b/q.d.cts": "b/q.d.cts",
                     "b/q.js.map": "b/q.js", "b/solo.mjs": "b/solo", "c.d/x": "c.d/x", "src/q.ts": "src/q"}
    assert path_module("m.c", (), {"m.c", "m.h"}) == "m"  # no import extensions: a header shares the name
    assert stem_siblings(paths) == ["b/q.cjs", "b/q.d.cts", "b/q.d.ts", "b/q.js"]


def _where(t: Tenure, query: str) -> list[tuple[str, str]]:
    return sorted((m.fqn, m.path) for m in t.find_symbol(query).matches)


def test_a_sibling_that_comes_and_goes_renames_the_other_as_a_fresh_index_names_it(make_repo) -> None:
    root: Path = make_repo({"lib/client.js": CLASS, "app.mjs": 'import { Client } from "./lib/client.js";\n'
                            'new Client().fetch("a");\n'})
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert _where(t, "Client.fetch") == [("lib/client.Client.fetch", "lib/client.js")]
        (root / "lib/client.ts").write_text(CLASS)
        t.index()
        both = [("lib/client.Client.fetch", "lib/client.ts"), ("lib/client.js.Client.fetch", "lib/client.js")]
        assert _where(t, "Client.fetch") == both
        for fqn, path in both:  # each name shown finds its own symbol, and what-breaks answers for it
            assert _where(t, fqn) == [(fqn, path)]
            assert t.what_breaks(fqn)["symbol"] == fqn
        calls = {(e["src"], e["dst"]) for e in t.export_edges() if e["relation"] == "calls"}
        assert ("app", "lib/client.js.Client.fetch") in calls  # `./lib/client.js` is the file so named
        (root / "lib/client.ts").unlink()
        t.index()
        assert _where(t, "Client.fetch") == [("lib/client.Client.fetch", "lib/client.js")]
