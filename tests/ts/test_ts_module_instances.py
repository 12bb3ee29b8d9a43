"""A TypeScript MCP server whose tool handlers call a store held in a module variable
(`let store: NoteStore;`, assigned in main, as the reference memory server does): a handler's
`store.save()` is the class's method, so the tool writes; a handler that binds the same name
itself (a parameter) is not resolved to the module's store."""

from __future__ import annotations

import pytest

from tests.agentmodel.repos import modelled

PKG = """{
  "name": "notes-mcp",
  "version": "1.0.0",
  "type": "module",
  "bin": {"notes-mcp": "dist/index.js"},
  "dependencies": {"@modelcontextprotocol/sdk": "^1.0.0", "zod": "^3.0.0"}
}
"""
README = "# notes-mcp\n\n```\nnpm install -g notes-mcp\n```\n"
INDEX = """import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { promises as fs } from "fs";

export class NoteStore {
  constructor(private file: string) {}
  async load(): Promise<string> {
    return fs.readFile(this.file, "utf8");
  }
  async save(text: string): Promise<void> {
    await fs.writeFile(this.file, text);
  }
}

let store: NoteStore;
const server = new McpServer({ name: "notes", version: "1.0.0" });

server.registerTool("save_note", { description: "Save", inputSchema: { text: z.string() } },
  async ({ text }) => {
    await store.save(text);
    return { content: [] };
  });

server.registerTool("read_notes", { description: "Read", inputSchema: {} },
  async () => ({ content: [{ type: "text", text: await store.load() }] }));

server.registerTool("echo_store", { description: "Echo", inputSchema: { store: z.any() } },
  async ({ store }) => {
    await store.save("x");
    return { content: [] };
  });

async function main() {
  store = new NoteStore("notes.txt");
  await server.connect(new StdioServerTransport());
}

main();
"""

FILES = {"package.json": PKG, "README.md": README, "src/index.ts": INDEX}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    m = modelled(tmp_path_factory, FILES)
    return {f.data["name"]: f.data["capabilities"] for f in m.findings()["tools.inventory"]}


def test_a_handler_calling_the_module_store_writes(tools):
    assert tools["save_note"] == "fs_write"


def test_a_handler_reading_through_the_store_only_reads(tools):
    assert tools["read_notes"] == "read_only"


def test_a_handler_binding_the_name_itself_is_not_the_module_store(tools):
    assert tools["echo_store"] == "read_only"
