"""The official MCP SDK, imported with its protocol models built on first use, and without its
package's re-exports of the client until a name is asked of the package.

The SDK defines some 550 pydantic models (every message of two protocol versions, the client's
among them); building each one's validator as its class is made is most of the second `tenure serve`
spends before it answers `initialize`. pydantic's public `defer_build` setting, set on the base
model while the SDK is imported (and only then), leaves a model's build to its first validation,
serialisation or schema: a server builds those its messages use, the first time each is used. The
same for the SDK's validators of a union (the client's and the server's every request, result and
notification: a server validates a message as JSON-RPC, then by its method): each is made as if given
pydantic's public `defer_build` for an adapter. The validators are pydantic's own, the same as built
at import; only when they are built differs.

The `mcp` package's `__init__` only re-exports names: the client (its session, its four union
validators built at import, its transports) and the server's. A server never uses the client, a tenth
of a second of its start; so the package is put in place uninitialised (its submodules import as
usual: a package needs only its path for that) and its `__init__` runs the first time a name is asked
of the package itself (`from mcp import Client`, `mcp.Client`: PEP 562's module `__getattr__`). Every
name it exports is still there; only when the client is imported differs.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Annotated, Any, get_args, get_origin

import pydantic
from pydantic import ConfigDict, TypeAdapter

PACKAGE = "mcp"
SERVER_MODULE = "mcp.server.mcpserver"  # (its server module imports the transports, the types, the tools)


def import_sdk() -> None:
    """Import the SDK's server, its models built on first use, but for the results a session's first
    calls are answered with (the tool list, then a tool's result), which are built now: a client times
    its first call. Where the SDK is imported already (a test's process) this does nothing: its
    models were built when it was."""
    if SERVER_MODULE in sys.modules:
        return
    if PACKAGE not in sys.modules and (package := initialised_on_first_name(PACKAGE)) is not None:
        sys.modules[PACKAGE] = package
    with _models_built_on_first_use():
        importlib.import_module(SERVER_MODULE)
    from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool, ToolAnnotations

    for model in (ListToolsResult, Tool, ToolAnnotations, CallToolResult, TextContent):
        model.model_rebuild()


def initialised_on_first_name(name: str) -> ModuleType | None:
    """Package `name` as the import system makes it (its path, spec, loader), its `__init__` not run
    yet: run once, by the first name looked up on it that is not there (a submodule imported meanwhile
    is set on it as usual). Thread-safe; a lookup made by the `__init__` itself as it runs finds what
    it has defined so far, as in any package being imported. None where no such package is installed
    (the ordinary import then says so)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return None
    package = importlib.util.module_from_spec(spec)
    lock = threading.RLock()
    ran = False

    def __getattr__(attr: str) -> Any:
        nonlocal ran
        with lock:
            if not ran:
                ran = True
                spec.loader.exec_module(package)
                if package.__dict__.get("__getattr__") is __getattr__:
                    del package.__getattr__
        try:
            return package.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

    package.__getattr__ = __getattr__  # type: ignore[attr-defined]
    return package


@contextmanager
def _models_built_on_first_use() -> Iterator[None]:
    """Every model class made meanwhile takes `defer_build` from the base model's configuration (a
    class's configuration is read from its bases when it is made, and kept): the SDK's. The other
    threads of a starting server make no pydantic models (tenure's own records are msgspec and
    dataclasses); one made meanwhile would only be built later, as the SDK's are.

    Two more things the SDK does as it is imported are left to first use the same way. An adapter of a
    type that is not a class (a union; annotated or not) has no configuration to take `defer_build`
    from: it is given one with it (which alone changes nothing in what it validates). And a bare
    `Model.model_rebuild()` of a model not built yet (the SDK's, to resolve the names a model's fields
    use that are defined after it) is left to the build at the model's first use, which resolves them
    the same way (from the model's module); a rebuild asked with arguments is made as asked."""
    base = pydantic.BaseModel.model_config
    before = base.get("defer_build")
    base["defer_build"] = True
    make_adapter, rebuild = TypeAdapter.__init__, vars(pydantic.BaseModel)["model_rebuild"]

    def deferred_adapter(adapter: TypeAdapter[Any], type_: Any, *, config: ConfigDict | None = None,
                         _parent_depth: int = 2, module: str | None = None) -> None:
        if config is None and not isinstance(get_args(type_)[0] if get_origin(type_) is Annotated else type_, type):
            config = ConfigDict(defer_build=True)
        # (one frame deeper: the adapter finds the namespace it was made in by counting frames)
        make_adapter(adapter, type_, config=config, _parent_depth=_parent_depth + 1, module=module)

    def deferred_rebuild(model: type[pydantic.BaseModel], **asked: Any) -> bool | None:
        if not asked and model.model_config.get("defer_build") and not model.__pydantic_complete__:
            return None
        if "_types_namespace" not in asked:  # (one frame deeper, as above)
            asked["_parent_namespace_depth"] = asked.get("_parent_namespace_depth", 2) + 1
        return rebuild.__func__(model, **asked)

    wrapped = _frames_counted_as_known()  # (another pydantic: its import as it stands, only slower)
    if wrapped:
        TypeAdapter.__init__ = deferred_adapter  # type: ignore[method-assign]
        pydantic.BaseModel.model_rebuild = classmethod(deferred_rebuild)  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        if wrapped:
            TypeAdapter.__init__ = make_adapter  # type: ignore[method-assign]
            pydantic.BaseModel.model_rebuild = rebuild  # type: ignore[method-assign]
        if before is None:
            del base["defer_build"]
        else:
            base["defer_build"] = before


def _frames_counted_as_known() -> bool:
    """Whether this pydantic's adapter and rebuild take the frame-counting arguments the wrappers above
    pass on (pydantic 2.x's private `_parent_depth`, `_parent_namespace_depth`, `_types_namespace`): a
    version without them gets no wrapper, so a change there costs speed, never a server that starts."""
    adapter = inspect.signature(TypeAdapter.__init__).parameters
    rebuild = inspect.signature(pydantic.BaseModel.model_rebuild).parameters
    return {"_parent_depth", "module"} <= set(adapter) and {"_parent_namespace_depth",
                                                           "_types_namespace"} <= set(rebuild)
