"""A terminal TypeScript agent whose tools come in two classes: the declared tool (a `...Tool`
base, its schema handed to the base constructor, its name a constant re-exported from another
module) builds an invocation object whose `execute` is the handler. Each tool is found with the
name it gives the model and what its handler reaches; the abstract bases, a tool-named class
that builds no invocation, and a class outside the tool hierarchy that builds one are not."""

from __future__ import annotations

import pytest

from tests.agentmodel.repos import modelled

PKG = """{
  "name": "acme-cli",
  "version": "1.0.0",
  "type": "module",
  "bin": {"acme": "dist/index.js"},
  "dependencies": {"@google/genai": "^1.0.0"}
}
"""
README = "# acme\n\n```\nnpm install -g acme-cli\nacme\n```\n"
INDEX = """import { ToolRegistry } from "./registry.js";
import { ShellTool } from "./tools/shell.js";
import { ReadTool } from "./tools/read.js";
import { runLoop } from "./loop.js";

const registry = new ToolRegistry();
registry.registerTool(new ShellTool());
registry.registerTool(new ReadTool());
runLoop(registry);
"""
LOOP = """import { GoogleGenAI } from "@google/genai";
import { ToolRegistry } from "./registry.js";

export async function runLoop(registry: ToolRegistry): Promise<void> {
  const ai = new GoogleGenAI({});
  for (let turn = 0; turn < 20; turn++) {
    const reply = await ai.models.generateContent({ model: "gemini", contents: [] });
    for (const call of reply.functionCalls ?? []) {
      const tool = registry.getTool(call.name);
      await tool.build(call.args).execute();
    }
  }
}
"""
REGISTRY = """import { DeclarativeTool } from "./tools/base.js";

export class ToolRegistry {
  private tools = new Map<string, DeclarativeTool>();

  registerTool(tool: DeclarativeTool): void {
    this.tools.set(tool.name, tool);
  }

  getTool(name: string): DeclarativeTool {
    return this.tools.get(name)!;
  }
}
"""
BASE = """export abstract class BaseToolInvocation {
  constructor(protected readonly params: Record<string, unknown>) {}
  abstract execute(): Promise<string>;
}

export abstract class DeclarativeTool {
  constructor(readonly name: string, readonly parametersJsonSchema: unknown) {}
  abstract build(params: Record<string, unknown>): BaseToolInvocation;
}

export abstract class BaseDeclarativeTool extends DeclarativeTool {
  build(params: Record<string, unknown>): BaseToolInvocation {
    return this.createInvocation(params);
  }
  protected abstract createInvocation(params: Record<string, unknown>): BaseToolInvocation;
}
"""
NAMES = """export const SHELL_TOOL_NAME = "run_shell_command";
export const READ_TOOL_NAME = "read_file";
"""
TOOL_NAMES = """export { SHELL_TOOL_NAME, READ_TOOL_NAME } from "./definitions/names.js";
"""
SHELL = """import { spawn } from "node:child_process";
import { BaseDeclarativeTool, BaseToolInvocation } from "./base.js";
import { SHELL_TOOL_NAME } from "./tool-names.js";

const SHELL_SCHEMA = { type: "object", properties: { command: { type: "string" } } };

class ShellToolInvocation extends BaseToolInvocation {
  async execute(): Promise<string> {
    spawn(String(this.params.command), { shell: true });
    return "started";
  }
}

export class ShellTool extends BaseDeclarativeTool {
  static readonly Name = SHELL_TOOL_NAME;

  constructor() {
    super(ShellTool.Name, SHELL_SCHEMA);
  }

  protected createInvocation(params: Record<string, unknown>): BaseToolInvocation {
    return new ShellToolInvocation(params);
  }
}
"""
READ = """import { readFileSync } from "node:fs";
import { BaseDeclarativeTool, BaseToolInvocation } from "./base.js";
import { READ_TOOL_NAME } from "./tool-names.js";

class ReadToolInvocation extends BaseToolInvocation {
  async execute(): Promise<string> {
    return readFileSync(String(this.params.path), "utf8");
  }
}

export class ReadTool extends BaseDeclarativeTool {
  static readonly Name = READ_TOOL_NAME;

  constructor() {
    super(ReadTool.Name, { type: "object", parametersJsonSchema: true });
  }

  protected createInvocation(params: Record<string, unknown>): BaseToolInvocation {
    return new ReadToolInvocation(params);
  }
}

// near misses: a tool-named class that builds no invocation, and a class outside the tool
// hierarchy that builds one
export class CacheTool extends BaseDeclarativeTool {
  protected createInvocation(params: Record<string, unknown>): BaseToolInvocation {
    return new Map() as unknown as BaseToolInvocation;
  }
}

export class InvocationFactory {
  make(params: Record<string, unknown>): BaseToolInvocation {
    return new ReadToolInvocation(params);
  }
}
"""
FILES = {"package.json": PKG, "README.md": README, "src/index.ts": INDEX, "src/loop.ts": LOOP,
         "src/registry.ts": REGISTRY, "src/tools/base.ts": BASE, "src/tools/shell.ts": SHELL,
         "src/tools/read.ts": READ, "src/tools/tool-names.ts": TOOL_NAMES,
         "src/tools/definitions/names.ts": NAMES}


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def _tools(m):
    return {f.data["name"]: f for f in m.findings()["tools.inventory"]}


def test_each_two_class_tool_is_found_with_its_constant_name(m):
    tools = _tools(m)
    assert set(tools) == {"run_shell_command", "read_file"}
    shell = tools["run_shell_command"]
    assert (shell.location.path, shell.location.start_line) == (
        "src/tools/shell.ts", m.line("src/tools/shell.ts", "export class ShellTool"))
    assert shell.data["registration"] == "subclass" and shell.data["typed"]


def test_capabilities_are_what_the_invocation_reaches(m):
    tools = _tools(m)
    assert {"exec", "shell"} <= set(tools["run_shell_command"].data["capabilities"].split(","))
    assert "exec" not in tools["read_file"].data["capabilities"].split(",")


SPAWN = READ.replace("ReadToolInvocation", "SpawnToolInvocation").replace("ReadTool", "SpawnAgentTool") \
    .replace("READ_TOOL_NAME", "SPAWN_TOOL_NAME").split("// near misses")[0]


def _sub_agents(mm) -> str:
    from dids.criteria.base import Context
    from dids.rubric import load_rubric
    from dids.surface import surface

    ctx = Context(index=mm.index, findings=mm.findings(), rubric=load_rubric())
    return surface(ctx)[0]["sub_agents"]


@pytest.mark.parametrize("name,want", [("spawn_agent", "yes"), ("read_agents_md", "no")])
def test_a_default_tool_that_starts_an_agent_puts_sub_agents_on_the_surface(tmp_path_factory,
                                                                              name, want):
    files = {**FILES, "src/tools/spawn.ts": SPAWN,
             "src/tools/definitions/names.ts": NAMES + f'export const SPAWN_TOOL_NAME = "{name}";\n',
             "src/tools/tool-names.ts": TOOL_NAMES.replace("READ_TOOL_NAME }", "READ_TOOL_NAME, SPAWN_TOOL_NAME }"),
             "src/index.ts": INDEX.replace('registry.registerTool(new ReadTool());',
                                           'registry.registerTool(new ReadTool());\n'
                                           'registry.registerTool(new SpawnAgentTool());')
             .replace('import { runLoop }', 'import { SpawnAgentTool } from "./tools/spawn.js";\n'
                                            'import { runLoop }')}
    mm = modelled(tmp_path_factory, files)
    assert name in _tools(mm)
    assert _sub_agents(mm) == want
