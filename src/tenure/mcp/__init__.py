"""The MCP server: the tenure API as tools and resources for coding agents (stdio, streamable HTTP).

Nothing is imported here: the SDK takes seconds to import, and the CLI loads it only for `serve`.
"""
