"""An MCP server on the low-level Python SDK: the tools `@server.list_tools()` returns
(`Tool(name=..., inputSchema=...)`, named by a literal or an Enum member) are its tools, each
with the capabilities of its branch in the `@server.call_tool()` dispatcher. A `Tool(...)`
outside a lister, or in a test, is none."""

from __future__ import annotations

from .family import line_of
from .modelled import modelled_fixtures, with_data

SERVER = '''import subprocess
from enum import Enum

from mcp.server import Server
from mcp.types import TextContent, Tool
from pydantic import BaseModel


class RunCommand(BaseModel):
    command: str
    cwd: str = "."


class ReadNote(BaseModel):
    path: str


class Tools(str, Enum):
    RUN = "run_command"
    READ = "read_note"


EXAMPLE = Tool(name="example", description="not listed", inputSchema={})


def read_note(path: str) -> str:
    with open(path) as f:
        return f.read()


async def serve() -> None:
    server = Server("notes")

    @server.list_tools()
    async def list_tools() -> list[Tool]:
        return [
            Tool(name=Tools.RUN, description="Run a command", inputSchema=RunCommand.model_json_schema()),
            Tool(name="read_note", description="Read a note", inputSchema=ReadNote.model_json_schema()),
        ]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict) -> list[TextContent]:
        match name:
            case Tools.RUN:
                out = subprocess.run(arguments["command"], shell=True, capture_output=True, text=True)
                return [TextContent(type="text", text=out.stdout)]
            case "read_note":
                return [TextContent(type="text", text=read_note(arguments["path"]))]
        raise ValueError(name)
'''

MAIN = '''import asyncio

from notes.server import serve


def main():
    asyncio.run(serve())
'''

PYPROJECT = '[project]\\nname = "notes"\\n\\n[project.scripts]\\nnotes = "notes.main:main"\\n'
LIVE = {"pyproject.toml": PYPROJECT, "notes/__init__.py": "", "notes/server.py": SERVER,
        "notes/main.py": MAIN}
DECOYS = {"pyproject.toml": PYPROJECT, "notes/__init__.py": "", "notes/main.py": "def main():\\n    pass\\n",
          "tests/test_server.py": SERVER}

live, decoys = modelled_fixtures(LIVE, DECOYS)


def _listed(m):
    return [f for f in m.findings()["tools.inventory"] if f.data.get("registration") == "mcp-list"]


def test_listed_tools_with_their_branch_capabilities_and_schema_fields(live):
    assert with_data(_listed(live), "name", "capabilities", "params") == [
        ("notes/server.py", line_of(SERVER, "Tool(name=Tools.RUN"), "run_command", "exec,shell",
         "command:?,cwd:?"),
        ("notes/server.py", line_of(SERVER, 'Tool(name="read_note"'), "read_note", "read_only",
         "path:?"),
    ]  # EXAMPLE is built outside the lister: not a listed tool


def test_the_command_tool_makes_tool_scoping_assessable(live):
    from dids.criteria.c3_scoping import default_tools
    from dids.criteria.base import Context
    from dids.rubric import load_rubric

    ctx = Context(index=live.index, findings=live.findings(), rubric=load_rubric())
    assert {t.data["name"] for t in default_tools(ctx)} >= {"run_command", "read_note"}


def test_no_listed_tool_in_a_test(decoys):
    assert _listed(decoys) == []
