"""Typed resolution reads other files (a base class's fields, a callee's result type, a module's
re-exports): after each edit to one of them, the incremental graph equals a clean re-index."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenure import Tenure
from tests.incremental_support import replay

JAVA = {
    "com/acme/core/Ledger.java": "package com.acme.core;\npublic class Ledger { public void post() {} }\n",
    "com/acme/core/Journal.java": "package com.acme.core;\npublic class Journal { public void post() {} }\n",
    "com/acme/core/Base.java": "package com.acme.core;\npublic class Base { protected Ledger store; }\n",
    "com/acme/pay/Sub.java": (
        "package com.acme.pay;\nimport com.acme.core.Base;\n"
        "public class Sub extends Base { void run() { store.post(); this.store.post(); } }\n"
    ),
}
JAVA_EDITS = [
    # the inherited field's type changes in the base class's file: Sub's calls move
    ("com/acme/core/Base.java", "package com.acme.core;\npublic class Base { protected Journal store; }\n"),
    # the method the calls reach is renamed
    ("com/acme/core/Journal.java", "package com.acme.core;\npublic class Journal { public void write() {} }\n"),
    # the base class goes away
    ("com/acme/core/Base.java", None),
]

TS = {
    "src/util/date.ts": "export function formatDate(d: Date): string { return ''; }\n",
    "src/util/index.ts": 'export { formatDate } from "./date";\nexport * from "./money";\n',
    "src/util/money.ts": (
        "export class Money { add(): void {} }\nexport function money(): Money { return new Money(); }\n"
    ),
    "src/app.ts": (
        'import { formatDate, money } from "./util";\n'
        "export function run(): void { formatDate(new Date()); const m = money(); m.add(); }\n"
    ),
}
TS_EDITS = [
    # the callee's declared result type changes: `m.add()` must follow
    ("src/util/money.ts", "export class Money { add(): void {} }\nexport class Cents { add(): void {} }\n"
                          "export function money(): Cents { return new Cents(); }\n"),
    # the re-export goes away
    ("src/util/index.ts", 'export * from "./money";\n'),
    # a file `src/util.ts` appears: `./util` now means it, not the directory's index
    ("src/util.ts", "export function formatDate(d: Date): string { return 'x'; }\n"),
]

JS = {
    "lib/retry.js": "export function withRetry(task) {\n  return task();\n}\n",
    "lib/shapes.js": "export class Shape {\n  area() {}\n}\nexport const make = () => new Shape();\n",
    "lib/index.js": 'export * from "./shapes.js";\nexport { withRetry } from "./retry.js";\n',
    "lib/db.js": "class Db {\n  query() {}\n}\nmodule.exports = Db;\n",
    "app.js": (
        'import { make, withRetry } from "./lib/index.js";\nconst Db = require("./lib/db.js");\n'
        "function save() {}\nexport function run() {\n  make().area();\n  withRetry(save);\n  new Db().query();\n}\n"
    ),
}
JS_EDITS = [
    # what another module's function returns changes: the call on its result follows
    ("lib/shapes.js", "export class Shape {\n  area() {}\n}\nexport class Box {\n  area() {}\n}\n"
                      "export const make = () => new Box();\n"),
    # the function given a callback no longer calls it: the edge through its argument goes
    ("lib/retry.js", "export function withRetry(task) {\n  return task;\n}\n"),
    # a CommonJS module exports another class
    ("lib/db.js", "class Db {\n  query() {}\n}\nclass Pool {\n  query() {}\n}\nmodule.exports = Pool;\n"),
    # the re-export goes away
    ("lib/index.js", 'export * from "./shapes.js";\n'),
]

GO = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "store/repo.go": (
        "package store\n\ntype Repo struct{}\n\nfunc (r *Repo) Save() {}\n\n"
        "type Cache struct{}\n\nfunc (c *Cache) Save() {}\n\nfunc New() *Repo { return &Repo{} }\n"
    ),
    "cmd/main.go": (
        'package main\n\nimport "example.com/shop/store"\n\n'
        "func main() {\n\tx := store.New()\n\tx.Save()\n\thelper()\n}\n"
    ),
}
GO_EDITS = [
    # New returns another type: the call on its result moves
    ("store/repo.go", "package store\n\ntype Repo struct{}\n\nfunc (r *Repo) Save() {}\n\n"
                      "type Cache struct{}\n\nfunc (c *Cache) Save() {}\n\nfunc New() *Cache { return &Cache{} }\n"),
    # a function of the same package appears in another file
    ("cmd/helper.go", "package main\n\nfunc helper() {}\n"),
    # a call of a method Cache does not have yet; Cache embeds a type that does not exist yet
    ("cmd/main.go", 'package main\n\nimport "example.com/shop/store"\n\n'
                    "func main() {\n\tx := store.New()\n\tx.Save()\n\tx.Close()\n\thelper()\n}\n"),
    ("store/repo.go", "package store\n\ntype Repo struct{}\n\nfunc (r *Repo) Save() {}\n\n"
                      "type Cache struct {\n\tBase\n}\n\nfunc (c *Cache) Save() {}\n\n"
                      "func New() *Cache { return &Cache{} }\n"),
    # the embedded type appears in another file: its method is promoted to the call above
    ("store/base.go", "package store\n\ntype Base struct{}\n\nfunc (b *Base) Close() {}\n"),
]


@pytest.mark.parametrize(
    ("files", "edits"), [(JAVA, JAVA_EDITS), (TS, TS_EDITS), (JS, JS_EDITS), (GO, GO_EDITS)],
    ids=["java", "typescript", "javascript", "go"]
)
def test_incremental_typed_resolution_equals_clean_reindex(make_repo, tmp_path: Path, files, edits) -> None:
    root = make_repo(files)
    cleans = tmp_path / "cleans"
    cleans.mkdir()
    with Tenure.open(root, discover=False) as t:
        replay(t, root, edits, cleans, must_change_edges=True)
