"""Capture an MCP server's `tools/list` output, as the corpus's MCP sources were captured.

    python tests/lint/realworld/capture_mcp.py OUT.json -- COMMAND [ARG ...]

runs COMMAND as an MCP server over stdio (with the `mcp` client the Agents SDK installs),
asks it for every page of `tools/list`, and writes `{"tools": [...]}` as the server sent
it. Not run by the tests: the corpus keeps the captured files, and README.md says which
package versions they came from.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def capture(command: list[str]) -> list[dict[str, object]]:
    server = StdioServerParameters(command=command[0], args=command[1:])
    tools: list[dict[str, object]] = []
    async with (
        stdio_client(server) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        cursor: str | None = None
        while True:
            asked = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=asked)
            tools.extend(
                t.model_dump(mode="json", exclude_none=True, by_alias=True)
                for t in page.tools
            )
            cursor = page.next_cursor
            if not cursor:
                return tools


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    tools = asyncio.run(capture(argv[2:]))
    text = json.dumps({"tools": tools}, indent=2, ensure_ascii=False)
    Path(argv[0]).write_text(text + "\n", encoding="utf-8")
    print(f"{argv[0]}: {len(tools)} tools", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
