"""An MCP server in TypeScript: the tools it registers (`server.tool(name, schema, handler)`)
with what their handlers reach, each handler its own scope; a tool registered only in a test
file is not one of them."""

from __future__ import annotations

import pytest

from tests.agentmodel.repos import modelled

PKG = """{
  "name": "acme-mcp",
  "version": "1.0.0",
  "type": "module",
  "bin": {"acme-mcp": "dist/index.js"},
  "dependencies": {"@modelcontextprotocol/sdk": "^1.0.0", "zod": "^3.0.0"}
}
"""
README = "# acme-mcp\n\n```\nnpm install -g acme-mcp\n```\n"
INDEX = """import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { runShell } from "./shell.js";
import { readFile } from "node:fs/promises";

const server = new McpServer({ name: "acme", version: "1.0.0" });

server.tool("run_command", { command: z.string() }, async ({ command }) => {
  return { content: [{ type: "text", text: await runShell(command) }] };
});

server.tool("read_note", { path: z.string() }, async ({ path }) => {
  return { content: [{ type: "text", text: await readFile(path, "utf8") }] };
});

async function main() {
  await server.connect(new StdioServerTransport());
}

main();
"""
SHELL = """import { exec } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(exec);

export async function runShell(command: string): Promise<string> {
  const { stdout } = await run(command, { timeout: 10_000 });
  return stdout;
}
"""
TEST = """import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const server = new McpServer({ name: "t", version: "0" });
server.tool("test_only_tool", {}, async () => ({ content: [] }));
"""

FILES = {"package.json": PKG, "README.md": README, "src/index.ts": INDEX, "src/shell.ts": SHELL,
         "src/index.test.ts": TEST}


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_registered_tools_and_their_reach(m):
    tools = {f.data["name"]: f for f in m.findings()["tools.inventory"]}
    assert {"run_command", "read_note"} <= set(tools)
    assert "test_only_tool" not in tools
    assert {"exec", "shell"} <= set(tools["run_command"].data["capabilities"].split(","))
    assert tools["run_command"].location.start_line == m.line("src/index.ts", 'server.tool("run_command"')


def test_the_shell_spawn_is_found_with_its_environment(m):
    spawns = [f for f in m.findings()["exec.spawn"] if f.location.path == "src/shell.ts"]
    assert [(f.data["shell"], f.data["env"]) for f in spawns] == [(True, "inherit")]


def test_sibling_tool_handlers_keep_their_own_capabilities(m):
    # two `server.tool(...)` callbacks at module scope are two scopes, named by what they register
    tools = {f.data["name"]: f for f in m.findings()["tools.inventory"]}
    assert "exec" not in tools["read_note"].data["capabilities"].split(",")
    quals = [d.qualname for d in m.index.ts["src/index.ts"].defs]
    assert "<server.tool:run_command>" in quals and "<server.tool:read_note>" in quals


# A collection of servers: the README's first command starts a TypeScript one by its scoped
# package name (`npx -y @acme/server-notes`); a Python server's install and run come later.
MIXED_README = """# servers

```sh
npx -y @acme/server-notes
```

Python servers run with pip:

```sh
pip install acme-server-git
python -m acme_server_git
```
"""
NOTES_PKG = PKG.replace('"acme-mcp"', '"@acme/server-notes"', 1).replace(
    '"bin": {"acme-mcp"', '"bin": {"acme-server-notes"')
PY_MAIN = "from .server import main\n\nmain()\n"
PY_SERVER = "import subprocess\n\n\ndef main():\n    subprocess.run(['git', 'status'])\n"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    return modelled(tmp_path_factory, {
        "README.md": MIXED_README, "src/notes/package.json": NOTES_PKG,
        "src/notes/src/index.ts": INDEX, "src/notes/src/shell.ts": SHELL,
        "src/git/pyproject.toml": '[project]\nname = "acme-server-git"\n\n[project.scripts]\n'
                                  'acme-server-git = "acme_server_git.server:main"\n',
        "src/git/src/acme_server_git/__init__.py": "",
        "src/git/src/acme_server_git/__main__.py": PY_MAIN,
        "src/git/src/acme_server_git/server.py": PY_SERVER})


def test_the_readme_first_command_picks_the_server_it_names(mixed):
    ep = mixed.index.agent.entries
    assert [(e.kind, e.target) for e in ep.main] == [("package-bin", "src/notes/src/index.ts")]
    assert any(e.kind == "readme-run" and "acme_server_git" in e.name for e in ep.others)
    tools = {f.data["name"] for f in mixed.findings()["tools.inventory"]}
    assert {"run_command", "read_note"} <= tools
