"""The session briefing, element selection by meaning, and the knowledge map."""

from __future__ import annotations

import pytest

from tenure import Tenure
from tenure.memories import MemoriesError
from tenure.memories.api import Memories
from tenure.memories.briefing import EXCERPT_CHARS
from tenure.namespace import selection
from tenure.namespace.line_terms import LineTerms
from tenure.namespace.selection import INLINE_EMBED
from tests.memory_support import Clock, ConceptProvider, memories_of

pytestmark = pytest.mark.usefixtures("shared_stores")  # each test on SQLite and on PostgreSQL


def test_the_briefing_lists_pitfalls_first(memories: Memories) -> None:
    memories.remember("orders are saved by the repository", kind="note", elements=["OrderRepository"])
    memories.remember("saving orders twice double-charges", kind="pitfall", elements=["OrderRepository"])
    text = memories.brief("save orders")["text"]
    assert text.index("## Pitfalls") < text.index("## Notes")
    assert text.index("double-charges") < text.index("saved by the repository")


def test_the_briefing_shows_a_bounded_excerpt_of_a_long_memory(memories: Memories) -> None:
    long = " ".join(f"word{i}" for i in range(1_500))  # 11,889 characters: under the limit, far over a line
    written = memories.remember(long, kind="pitfall", title="A long one")["id"]
    [line] = [x for x in memories.brief()["text"].splitlines() if "A long one" in x]
    assert len(line) < EXCERPT_CHARS + 200 and "word0 word1" in line and "word1499" not in line
    assert f"more characters: `tenure history {written}`]" in line
    assert memories.get(written)["content"] == long  # kept whole: only the briefing is cut


def test_the_briefing_gives_freshness_in_days(memories: Memories, clock: Clock) -> None:
    memories.remember("orders are saved by the repository", elements=["OrderRepository"], author="agent/vincent")
    clock.advance(days=1)
    assert "(agent/vincent, 1 day ago)" in memories.brief()["text"]
    clock.advance(days=29)
    assert "(agent/vincent, 30 days ago)" in memories.brief()["text"]


def test_the_briefing_names_the_elements_of_the_task_and_why(memories: Memories) -> None:
    brief = memories.brief("change the checkout")
    assert brief["elements"][0] == {"element": "shop.orders.OrderProcessor", "score": 0.3,
                                    "why": ["code speaks of checkout"]}
    assert "- OrderProcessor (shop.orders.OrderProcessor): code speaks of checkout" in brief["text"]


def test_the_briefing_says_how_recall_ranked(memories: Memories) -> None:
    assert "Recall: lexical only" in memories.brief()["text"]


def test_a_briefing_with_nothing_written_says_what_to_do(memories: Memories) -> None:
    assert "`tenure remember` it" in memories.brief("anything")["text"]


def test_a_task_about_checkout_finds_the_order_processor_by_its_code(memories: Memories) -> None:
    selected = memories.select_elements("checkout")
    assert selected == [{"element": "shop.orders.OrderProcessor", "score": 0.6, "why": ["code speaks of checkout"]}]


def test_a_task_finds_an_element_through_a_memory_about_it(memories: Memories) -> None:
    memories.remember("invoices are part of the purchase flow", elements=["InvoiceWriter"])
    selected = memories.select_elements("purchase flow")
    assert selected[0]["element"] == "invoice.InvoiceWriter"
    assert selected[0]["why"] == ["memory #1 speaks of it"]


def test_a_task_finds_an_element_by_meaning_with_embeddings(semantic: Memories) -> None:
    # "purchase" appears nowhere in the code; the (fake) model knows it means checkout
    selected = semantic.select_elements("purchase")
    assert [s["element"] for s in selected] == ["shop.orders.OrderProcessor"]  # not also its module
    assert selected[0]["why"][0].startswith("meaning close to the task")


class CountingProvider(ConceptProvider):
    """The concept model, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]):
        self.texts += texts
        return super().embed(texts)


def test_a_briefing_never_waits_for_the_projects_elements_to_be_embedded(make_indexed_repo, clock: Clock,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    classes = "".join(f"class Ledger{i}:\n    def post_entry(self, amount):\n        return amount * {i}\n\n\n"
                      for i in range(INLINE_EMBED * 3))
    classes += "class Ledger0:  # defined again: one element still\n    pass\n"
    root = make_indexed_repo({"ledger.py": classes})
    with Tenure.open(root, discover=False) as t:
        model = CountingProvider()
        t.memories = memories_of(t, clock=clock, provider=model)
        first = t.memories.brief(task := "post an entry to the ledger")
        assert len([x for x in model.texts if x != task]) == INLINE_EMBED  # a few elements, never the whole project
        assert model.texts.count(task) == 1  # selection, meaning and recall share one run of the model
        waiting = INLINE_EMBED * 3 + 1 - INLINE_EMBED  # the classes and the module, but those just embedded
        assert first["elementsUnembedded"] == waiting
        assert f"the meaning of {waiting} of {INLINE_EMBED * 3 + 1} code elements is not read yet" in first["text"]
        assert first["elements"]  # chosen by name and code meanwhile

        assert t.memories.prepare_elements()["left"] == 0  # what `tenure index` starts in the background
        model.texts.clear()

        def unread(*_: object) -> None:
            raise AssertionError("the briefing read the project's code again")

        monkeypatch.setattr(LineTerms, "file", unread)  # its terms are kept too
        monkeypatch.setattr(selection, "source", unread)  # ... and its vectors
        after = t.memories.brief(task)
        assert model.texts == []  # nothing: not the code again, nor the task just asked about
        assert after["elementsUnembedded"] == 0 and "not read yet" not in after["text"]
        assert t.schedule_embedding() == {}  # nothing left to start


def test_a_server_loads_the_model_before_its_first_call_without_the_database() -> None:
    from tenure.memories.vectors import Vectors

    model = CountingProvider()

    def no_cipher() -> None:
        raise AssertionError("warming read a key")

    Vectors(None, no_cipher, provider=model).warm()  # type: ignore[arg-type]  (no database: a thread may run it)
    assert model.texts == ["warm up"]


def test_an_index_starts_the_embedding_of_new_code_elements(make_indexed_repo) -> None:
    root = make_indexed_repo({"a.py": "class Ledger:\n    def post(self):\n        return 1\n"})
    with Tenure.open(root, discover=False) as t:
        t.index()
        kept = {r["element"] for r in t.db.query("SELECT element FROM element_terms")}
        assert kept == {"a.Ledger", "module:a"}  # the terms of their code: the first briefing reads no code for them
        assert t.embedding_report == {"status": "2 elements to embed, not scheduled (TENURE_EMBED_BACKGROUND=off): "
                                                "`tenure backfill` embeds them"}


def test_the_map_has_one_cell_per_module_and_a_headline(memories: Memories) -> None:
    memories.remember("charge before booking", kind="pitfall", elements=["OrderProcessor.checkout"])
    result = memories.knowledge_map("module")
    assert [c["element"] for c in result["cells"]] == ["module:invoice", "module:shop", "module:shop.gateway",
                                                       "module:shop.orders"]
    assert result["headline"] == "1 of 4 elements documented"


def test_the_map_counts_the_architecture_not_tests_or_scripts(shop: Tenure, memories: Memories) -> None:
    (shop.root / "tests").mkdir()
    (shop.root / "tests" / "test_orders.py").write_text("def test_checkout():\n    assert True\n")
    (shop.root / "shop" / "orders_test.py").write_text("def test_total():\n    assert True\n")
    (shop.root / "deploy.sh").write_text("#!/bin/sh\necho deploy\n")
    shop.index()
    result = memories.knowledge_map("module")
    assert [c["element"] for c in result["cells"]] == ["module:invoice", "module:shop", "module:shop.gateway",
                                                       "module:shop.orders"]
    assert result["headline"] == ("0 of 4 elements documented; 3 modules of tests or scripts, with nothing "
                                  "written, not counted")
    memories.remember("the fixture books twice", kind="pitfall", elements=["module:test_orders"])
    cells = {c["element"]: c for c in memories.knowledge_map("module")["cells"]}
    assert cells["module:test_orders"]["memories"] == 1  # a test module with something written is shown
    assert memories.knowledge_map("package")["leftOut"] == 1  # tests/ holds only tests


def test_a_map_cell_counts_memories_pitfalls_and_freshness(memories: Memories, clock: Clock) -> None:
    memories.remember("charge before booking", kind="pitfall", elements=["OrderProcessor.checkout"])
    clock.advance(days=10)
    memories.remember("orders are idempotent", title="Idempotent orders", elements=["module:shop.orders"])
    cell = {c["element"]: c for c in memories.knowledge_map("module")["cells"]}["module:shop.orders"]
    assert (cell["memories"], cell["pitfalls"], cell["freshestDays"], cell["stalestDays"]) == (2, 1, 0, 10)
    assert cell["kinds"] == {"pitfall": 1, "note": 1}
    assert "Idempotent orders" in cell["known"]


def test_a_map_shows_gaps_where_nothing_is_written(memories: Memories) -> None:
    gaps = [c["element"] for c in memories.knowledge_map("module")["cells"] if c["gap"]]
    assert gaps == ["module:invoice", "module:shop", "module:shop.gateway", "module:shop.orders"]


def test_the_package_level_has_one_cell_per_directory(memories: Memories) -> None:
    memories.remember("the gateway is stateless", elements=["ApiGateway"])
    result = memories.knowledge_map("package")
    assert [c["element"] for c in result["cells"]] == ["path:billing/", "path:shop/"]
    assert result["headline"] == "1 of 2 elements documented"


def test_the_service_level_finds_directories_with_a_build_manifest(shop: Tenure, memories: Memories) -> None:
    (shop.root / "billing" / "pyproject.toml").write_text("[project]\nname = 'billing'\n")
    (shop.root / "shop" / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    memories.remember("invoices are written nightly", elements=["InvoiceWriter"])
    result = memories.knowledge_map("service")
    assert {c["element"]: c["gap"] for c in result["cells"]} == {"service:billing": False, "service:shop": True}


def test_the_map_counts_drifted_memories_to_verify(memories: Memories, edit) -> None:
    memories.remember("the gateway returns headers", elements=["ApiGateway"])
    edit({"shop/gateway.py": "class ApiGateway:\n    pass\n"})
    cell = {c["element"]: c for c in memories.knowledge_map("module")["cells"]}["module:shop.gateway"]
    assert cell["verify"] == 1


def test_an_unknown_map_level_is_refused(memories: Memories) -> None:
    with pytest.raises(MemoriesError, match="not one of module, package, service"):
        memories.knowledge_map("galaxy")
