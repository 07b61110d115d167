"""A real MCP server for hookshot's tests, written with the `mcp` package
from PyPI (the reference SDK), spoken to over stdio.

Its tools answer the way a Claude Code mcp_tool hook's tool does: the text
they return is read like a command hook's stdout.
"""

import json
import os

try:
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x called it FastMCP
    from mcp.server.fastmcp import FastMCP as MCPServer
    from mcp.server.fastmcp.exceptions import ToolError

server = MCPServer("guard")


def note(**fields):
    """Appends one JSON line to $GUARD_LOG, so a test sees each call."""
    log = os.environ.get("GUARD_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(dict(fields, pid=os.getpid())) + "\n")


@server.tool()
def security_scan(file_path: str, depth: int = 0) -> str:
    """Denies a write to a file whose path mentions secrets."""
    note(tool="security_scan", file_path=file_path, depth=depth)
    if "secret" in file_path:
        return json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": f"{file_path} holds secrets (scanned by MCP)",
                }
            }
        )
    return ""


@server.tool()
def broken(file_path: str) -> str:
    """Always fails: the result carries isError and says why."""
    raise ToolError("the scanner database is missing")


if __name__ == "__main__":
    server.run()
