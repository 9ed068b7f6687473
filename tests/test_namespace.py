"""The namespace: what other stores read of the code through tenure.namespace, never through SQL of
their own; and elements, which name what they attach their knowledge to."""

from pathlib import Path

import pytest

from tenure import Tenure
from tenure.namespace import symbols
from tenure.namespace.elements import ElementError, resolve, services

ORDERS = """class OrderProcessor:
    def checkout(self, basket):
        self.charge(basket)

    def charge(self, basket):
        return basket.total


def refund(amount):
    return amount
"""


@pytest.fixture
def shop(make_indexed_repo) -> Tenure:
    root = make_indexed_repo({"shop/__init__.py": "", "shop/orders.py": ORDERS, "shop/pyproject.toml": "",
                              "billing/__init__.py": "",
                              "billing/invoice.py": "def charge(invoice):\n    return invoice\n"})
    with Tenure.open(root, discover=False) as t:
        yield t


def test_a_files_symbols_come_outermost_first_with_their_spans(shop: Tenure) -> None:
    found = [(s.fqn, s.kind, s.start, s.end) for s in symbols.symbols_in(shop.db, ["shop/orders.py"])["shop/orders.py"]]
    assert found[:3] == [("shop.orders", "module", 1, 10), ("shop.orders.OrderProcessor", "class", 1, 6),
                         ("shop.orders.OrderProcessor.checkout", "function", 2, 3)]
    assert symbols.symbols_in(shop.db, ["shop/missing.py"]) == {}


def test_symbols_read_once_within_reads_shared_are_the_callers_own_and_follow_the_index(shop: Tenure) -> None:
    with symbols.reads_shared():
        first = symbols.symbols_in(shop.db, ["shop/orders.py", "billing/invoice.py"])
        first["shop/orders.py"].clear()  # (a caller's lists are its own: the next caller reads them whole)
        again = symbols.symbols_in(shop.db, ["billing/invoice.py", "shop/orders.py"])
        assert [s.fqn for s in again["shop/orders.py"]][:2] == ["shop.orders", "shop.orders.OrderProcessor"]
        (shop.root / "billing/invoice.py").write_text("def charge(invoice):\n    return invoice\n\n\ndef void():\n"
                                                      "    pass\n")
        shop.index()  # (another index state: read again)
        assert "billing.invoice.void" in {s.fqn for s in symbols.symbols_in(
            shop.db, ["shop/orders.py", "billing/invoice.py"])["billing/invoice.py"]}


def test_every_symbol_and_definitions_within_reads_shared_come_from_a_read_of_every_files_symbols(
        shop: Tenure, monkeypatch) -> None:
    from tenure.namespace.symbols import StructuralStore

    stored, classes = symbols.every_symbol(shop.db), symbols.definitions(shop.db, ["module", "class"])
    assert [s.fqn for s in classes][:3] == ["billing", "billing.invoice", "shop"]  # (by path, then line)
    with symbols.reads_shared():
        symbols.symbols_in(shop.db, ["shop/orders.py"])  # (not every file's: the store is read)
        assert symbols.every_symbol(shop.db) == stored
        symbols.symbols_in(shop.db, symbols.indexed_files(shop.db))
        monkeypatch.setattr(StructuralStore, "every_symbol", lambda self: pytest.fail("read again"))
        monkeypatch.setattr(StructuralStore, "definitions", lambda self, kinds: pytest.fail("read again"))
        assert symbols.every_symbol(shop.db) == stored
        assert symbols.definitions(shop.db, ["module", "class"]) == classes


def test_the_symbols_a_change_of_some_lines_touched_include_those_around_it(shop: Tenure) -> None:
    touched = symbols.symbols_at(shop.db, "shop/orders.py", [(6, 6), (10, 11)])
    assert [s.fqn for s in touched] == ["shop.orders", "shop.orders.OrderProcessor",
                                        "shop.orders.OrderProcessor.charge", "shop.orders.refund"]
    assert [s.fqn for s in symbols.symbols_at(shop.db, "shop/orders.py", [(4, 4)])] == \
        ["shop.orders", "shop.orders.OrderProcessor"]  # a blank line inside the class
    assert symbols.symbols_at(shop.db, "shop/orders.py", []) == []


def test_symbols_are_found_by_short_name_in_the_project_or_in_one_file(shop: Tenure) -> None:
    assert {s.fqn for s in symbols.symbols_called(shop.db, "charge")} == \
        {"shop.orders.OrderProcessor.charge", "billing.invoice.charge"}
    assert [s.fqn for s in symbols.symbols_called(shop.db, "charge", "billing/invoice.py")] == \
        ["billing.invoice.charge"]


def test_a_symbols_fingerprint_follows_its_code(shop: Tenure) -> None:
    before = symbols.fingerprints(shop.db, ["shop.orders.refund", "shop.orders.OrderProcessor", "nowhere.x"])
    assert set(before) == {"shop.orders.refund", "shop.orders.OrderProcessor"}
    (shop.root / "shop/orders.py").write_text(ORDERS.replace("return amount", "return -amount"))
    shop.index()
    after = symbols.fingerprints(shop.db, before)
    assert after["shop.orders.refund"] != before["shop.orders.refund"]
    assert after["shop.orders.OrderProcessor"] == before["shop.orders.OrderProcessor"]


def test_modules_are_found_by_name_and_by_file(shop: Tenure) -> None:
    assert symbols.module_of(shop.db, "shop/orders.py") == "shop.orders"
    assert symbols.module_of(shop.db, "shop/missing.py") is None
    assert symbols.module_files(shop.db, ["shop.orders", "shop.missing"]) == {"shop.orders": ["shop/orders.py"]}
    assert symbols.modules_like(shop.db, "invo") == ["billing.invoice"]
    assert symbols.indexed_files(shop.db)["billing/invoice.py"].module == "billing.invoice"


def test_an_element_is_named_by_kind_and_a_name_that_names_nothing_is_refused(shop: Tenure) -> None:
    assert resolve(shop.db, shop.root, "OrderProcessor") == "shop.orders.OrderProcessor"
    assert resolve(shop.db, shop.root, "shop.orders") == "module:shop.orders"  # a module is one element
    assert resolve(shop.db, shop.root, "adr-3") == "doc:ADR-3"
    with pytest.raises(ElementError, match="names 2 symbols"):
        resolve(shop.db, shop.root, "charge")
    with pytest.raises(ElementError, match="Did you mean: module:shop.orders"):
        resolve(shop.db, shop.root, "module:orders")


def test_a_path_element_is_a_directory_inside_the_project_however_it_is_typed(shop: Tenure) -> None:
    root = Path(shop.root)
    (root / "shop" / "alias").symlink_to(root / "billing", target_is_directory=True)
    assert resolve(shop.db, root, "path:./shop//") == "path:shop/"
    assert resolve(shop.db, root, "path:shop/../billing") == "path:billing/"
    assert resolve(shop.db, root, f"path:{root / 'shop'}") == "path:shop/"
    assert resolve(shop.db, root, "path:shop/alias") == "path:billing/"  # a link is named by what it leads to
    assert resolve(shop.db, root, "path:.") == "path:./"
    deep = "../" * len(root.resolve().parts)
    for outside in (f"path:{deep}etc", "path:/etc", "path:..", f"path:{root.parent}"):
        with pytest.raises(ElementError, match="lies outside the project"):
            resolve(shop.db, root, outside)
    (root / "shop" / "out").symlink_to("/etc", target_is_directory=True)
    with pytest.raises(ElementError, match="lies outside the project"):
        resolve(shop.db, root, "path:shop/out")
    with pytest.raises(ElementError, match="is not a directory"):
        resolve(shop.db, root, "path:shop/orders.py")


def test_a_directory_with_a_build_manifest_is_a_service(shop: Tenure) -> None:
    assert {e: sorted(p.paths) for e, p in services(Path(shop.root)).items()} == {"service:shop": ["shop/"]}


TWICE = """class Box:
    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = value
        self.changed = True


def pick():
    return 1


def pick():
    return 2
"""


def test_two_definitions_of_one_name_in_a_file_keep_their_own_spans_and_fingerprints(make_indexed_repo) -> None:
    root = make_indexed_repo({"box.py": TWICE})
    with Tenure.open(root, discover=False) as t:
        found = [(s.fqn, s.start, s.end) for s in symbols.symbols_in(t.db, ["box.py"])["box.py"] if s.kind != "module"]
        prints = {s.start: s.fingerprint for s in symbols.symbols_in(t.db, ["box.py"])["box.py"]}
    assert sorted(found, key=lambda f: f[1]) == [("box.Box", 1, 9), ("box.Box.size", 3, 4), ("box.Box.size", 7, 9),
                                                 ("box.pick", 12, 13), ("box.pick", 16, 17)]
    assert prints[12] != prints[16] and prints[3] != prints[7]


def test_a_name_in_code_and_in_a_stub_or_declaration_file_is_found_in_the_code_first(make_indexed_repo) -> None:
    root = make_indexed_repo({
        "pkg/__init__.pyi": "def fields(cls) -> tuple: ...\nclass Frozen(Exception): ...\n",  # a stub, stored first
        "pkg/__init__.py": "from pkg.make import fields\n\n\nclass Frozen(Exception):\n    pass\n",
        "pkg/make.py": "def fields(cls):\n    return cls.__attrs__\n",
        "use.py": "import pkg\n\n\ndef names(c):\n    return pkg.fields(c)\n",
        "web/ky.d.ts": "export declare function create(input: string): void;\n",
        "web/ky.ts": "export function create(input: string): void {}\n",
    })
    with Tenure.open(root) as t:
        assert [m.path for m in t.find_symbol("fields").matches] == ["pkg/make.py", "pkg/__init__.pyi"]
        assert t.find_symbol("pkg.Frozen").unique.path == "pkg/__init__.py"  # (the same name in both)
        assert t.find_symbol("create").matches[0].path == "web/ky.ts"
        assert t.what_breaks("fields")["matches"][0]["fqn"] == "pkg.make.fields"  # the example the CLI gives
        assert [(m.symbol, m.path) for m in t.resolve("the Frozen exception").matches][:1] == [
            ("pkg.Frozen", "pkg/__init__.py")]


def test_a_name_defined_twice_is_counted_once_among_the_symbols_a_short_name_names(make_indexed_repo) -> None:
    # (`'compose' names 3 symbols: a.compose, b.compose` on a module defining compose per Python
    # version, and on esbuild's CommonJS output, whose `__export(m, { compose: () => compose })` is one)
    root = make_indexed_repo({
        "a.py": "import sys\nif sys.version_info >= (3, 12):\n    def compose(x):\n        return x\n"
                "else:\n    def compose(x):\n        return [x]\n",
        "b.py": "def compose(y):\n    return y\n",
    })
    with Tenure.open(root, discover=False) as t:
        lookup = t.find_symbol("compose")
    assert (lookup.total, lookup.message()) == (2, "'compose' names 2 symbols: a.compose, b.compose")


def test_a_name_one_letter_off_is_answered_with_the_symbols_named_almost_so(shop: Tenure) -> None:
    # (`tenure what-breaks AddComand` on cobra said only "no symbol matches 'AddComand'")
    assert shop.find_symbol("OrderProcessor.chekout").message() == (
        "no symbol matches 'OrderProcessor.chekout' (did you mean shop.orders.OrderProcessor.checkout?)")
    assert shop.find_symbol("invoice.charg").near == ["billing.invoice.charge"]  # (of the class or module written)
    assert set(shop.find_symbol("charg").near) == {"billing.invoice.charge", "shop.orders.OrderProcessor.charge"}
    assert shop.find_symbol("nothing_like_it").message() == "no symbol matches 'nothing_like_it'"
