"""What the stores contribute to the server: tools (with lean schemas, made on first use) and resources."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver.resources import FunctionResource, Resource
from mcp.server.mcpserver.tools import Tool, ToolManager
from mcp_types import ToolAnnotations

from tenure.mcp.schema import lean

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


@dataclass(frozen=True)
class ToolDefinition:
    fn: Callable[..., Any]
    description: str
    annotations: ToolAnnotations
    name: str | None = None  # (the function's own name when None)


@dataclass
class Registry:
    tools: list[ToolDefinition] = field(default_factory=list)
    resources: list[Resource] = field(default_factory=list)

    def tool(self, fn: Callable[..., Any], description: str, annotations: ToolAnnotations,
             name: str | None = None) -> None:
        self.tools.append(ToolDefinition(fn, description, annotations, name))

    def resource(self, uri: str, fn: Callable[[], str], description: str) -> None:
        self.resources.append(FunctionResource.from_function(fn, uri=uri, description=description,
                                                             mime_type="text/markdown"))


class ToolsMadeOnFirstUse(ToolManager):
    """The server's tools, each made by the SDK (`ToolManager.add_tool`: its argument model and JSON
    schema, which is then leaned) the first time any tool is listed or looked up rather than when the
    server is built: a starting server answers `initialize` without them (16 schemas, a twentieth of a
    second of its start), and the client's first request after it makes them all."""

    def __init__(self, definitions: Iterable[ToolDefinition]) -> None:
        super().__init__()
        self._pending = list(definitions)
        self._lock = threading.Lock()

    def get_tool(self, name: str) -> Tool | None:
        self._make_pending()
        return super().get_tool(name)

    def list_tools(self) -> list[Tool]:
        self._make_pending()
        return super().list_tools()

    def _make_pending(self) -> None:
        with self._lock:
            for definition in self._pending:
                tool = self.add_tool(definition.fn, name=definition.name, description=definition.description,
                                     annotations=definition.annotations)
                tool.parameters = lean(tool.parameters)
            self._pending.clear()
