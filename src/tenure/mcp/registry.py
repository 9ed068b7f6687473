"""What the stores contribute to the server: tools (with lean schemas) and resources."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver.resources import FunctionResource, Resource
from mcp.server.mcpserver.tools import Tool
from mcp_types import ToolAnnotations

from tenure.mcp.schema import lean

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


@dataclass
class Registry:
    tools: list[Tool] = field(default_factory=list)
    resources: list[Resource] = field(default_factory=list)

    def tool(self, fn: Callable[..., Any], description: str, annotations: ToolAnnotations,
             name: str | None = None) -> None:
        tool = Tool.from_function(fn, name=name, description=description, annotations=annotations)
        tool.parameters = lean(tool.parameters)
        self.tools.append(tool)

    def resource(self, uri: str, fn: Callable[[], str], description: str) -> None:
        self.resources.append(FunctionResource.from_function(fn, uri=uri, description=description,
                                                             mime_type="text/markdown"))
