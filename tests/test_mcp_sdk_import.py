"""`tenure serve` imports the MCP SDK with its protocol models built on first use (pydantic's public
`defer_build`, set only while the SDK is imported): each model, once built, is the model an ordinary
import builds — the same schema to validate, for every model and every union's validator the SDK
defines. The `mcp` package's `__init__` (its re-exports: the client) runs when a name is first asked
of it, and every name it exports is then there. The messages themselves are exchanged with a real
server in test_mcp_server.py (which runs `tenure serve`)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tenure.mcp.sdk import initialised_on_first_name

PROBE = """
import json, sys, pydantic
if sys.argv[1].startswith("deferred"):
    from tenure.mcp import sdk
    if sys.argv[1] == "deferred, another pydantic":  # (its adapter and rebuild take other arguments)
        sdk._frames_counted_as_known = lambda: False
    sdk.import_sdk()
else:
    import mcp.server.mcpserver
client_imported = "mcp.client" in sys.modules
import mcp
exported = sorted(name for name in mcp.__all__ if hasattr(mcp, name))  # (the first name runs its __init__)

def every(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from every(sub)

models = {f"{m.__module__}.{m.__qualname__}": m for m in every(pydantic.BaseModel)
          if m.__module__.split(".")[0] in ("mcp", "mcp_types")}
unbuilt = sorted(name for name, m in models.items() if not m.__pydantic_complete__)
schemas = {}
for name, model in sorted(models.items()):
    try:
        schemas[name] = model.model_json_schema()  # (what it validates: the core schema rendered)
    except Exception as exc:  # (a generic model left unparametrised has none: the same either way)
        schemas[name] = type(exc).__name__
adapters = {f"{name}.{attr}": value for name, module in sorted(sys.modules.items())
            if name.split(".")[0] in ("mcp", "mcp_types") for attr, value in vars(module).items()
            if isinstance(value, pydantic.TypeAdapter)}
unbuilt += sorted(name for name, adapter in adapters.items() if not adapter.pydantic_complete)
schemas.update((name, adapter.json_schema()) for name, adapter in adapters.items())
base = {**pydantic.BaseModel.model_config, "adapter": pydantic.TypeAdapter.__init__.__qualname__,
        "rebuild": vars(pydantic.BaseModel)["model_rebuild"].__func__.__qualname__}
print(json.dumps({"unbuilt": unbuilt, "schemas": schemas, "base": base,
                  "client_imported": client_imported, "exported": exported, "all": sorted(mcp.__all__)}))
"""


def sdk_models(how: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, how], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_the_sdks_models_built_on_first_use_are_the_models_an_ordinary_import_builds() -> None:
    deferred, ordinary = sdk_models("deferred"), sdk_models("ordinary")
    assert len(deferred["unbuilt"]) > 300 > len(ordinary["unbuilt"])  # (most were left to their first use)
    left = set(deferred["unbuilt"]) - set(ordinary["unbuilt"])
    assert {"mcp_types.client_request_adapter", "mcp_types._types.GetPromptRequestParams"} <= left
    assert len(deferred["schemas"]) > 500
    assert deferred["schemas"] == ordinary["schemas"]
    # the base model's configuration is as it was, and so are the adapters' constructor and models' rebuild
    assert deferred["base"] == ordinary["base"] == {"adapter": "TypeAdapter.__init__",
                                                    "rebuild": "BaseModel.model_rebuild"}


def test_a_pydantic_whose_adapters_take_other_arguments_gets_the_ordinary_models_with_no_wrapper() -> None:
    deferred, ordinary = sdk_models("deferred, another pydantic"), sdk_models("ordinary")
    assert len(deferred["unbuilt"]) > 300  # (the models themselves are still left to their first use)
    assert deferred["schemas"] == ordinary["schemas"] and deferred["base"] == ordinary["base"]


def test_the_sdks_package_exports_every_name_once_one_is_asked_and_the_server_alone_imports_no_client() -> None:
    deferred, ordinary = sdk_models("deferred"), sdk_models("ordinary")
    assert not deferred["client_imported"] and ordinary["client_imported"]
    assert deferred["exported"] == ordinary["exported"] == deferred["all"] and len(deferred["all"]) > 50


def test_importing_the_sdk_again_leaves_a_loaded_sdk_as_it_is() -> None:
    """In a process that imported the SDK already (its models built), import_sdk does nothing."""
    probe = ("import mcp.server.mcpserver, pydantic\nfrom tenure.mcp.sdk import import_sdk\n"
             "import_sdk()\nprint(pydantic.BaseModel.model_config)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "{}"


def test_a_package_put_in_place_uninitialised_runs_its_init_once_at_the_first_name_asked_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package_dir = tmp_path / "lazily_initialised"
    package_dir.mkdir()
    (package_dir / "__init__.py").write_text("from lazily_initialised.sub import VALUE as VALUE\nRUNS.append(1)\n"
                                             "import builtins\n", encoding="utf-8")
    (package_dir / "sub.py").write_text("VALUE = 3\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    package = initialised_on_first_name("lazily_initialised")
    assert package is not None
    package.RUNS = []  # (what its __init__ appends to, once it runs)
    monkeypatch.setitem(sys.modules, "lazily_initialised", package)
    try:
        sub = importlib.import_module("lazily_initialised.sub")  # a submodule imports; the __init__ waits
        assert sub.VALUE == 3 and package.RUNS == []
        from lazily_initialised import VALUE  # the first name asked of the package itself
        assert VALUE == 3 and package.RUNS == [1]
        assert package.builtins is not None and package.RUNS == [1]  # once
        with pytest.raises(AttributeError, match="has no attribute 'missing'"):
            package.missing  # noqa: B018
    finally:
        sys.modules.pop("lazily_initialised.sub", None)
    assert initialised_on_first_name("no_package_by_this_name") is None
