"""The MCP client: servers from ``[mcp_servers.NAME]``, their tools offered as
``mcp__NAME__TOOL``.

Named so it never shadows the SDK's top-level ``mcp`` package. Nothing here
imports the SDK at module level: ``connection`` does so when a server starts,
so a run with no servers configured never loads it (start-up is a feature).
"""
