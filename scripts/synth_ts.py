"""A deterministic synthetic TypeScript agent repository for scripts/bench.py (`--ts-files N`).

The shape of the TypeScript agents dids audits: a VS Code extension with a CLI, tool executors
spawning commands (child_process, execa) with env/shell options, an agent loop calling an LLM SDK,
an MCP server, zod and DEFAULT_* settings, a React webview, tests, docs and build output. Every
.ts/.tsx file is valid TypeScript, so parse errors do not skew the baseline.
"""

from __future__ import annotations

import json
import random

TS_GENERATOR_VERSION = 1

_WORDS = ("search", "fetch", "shell", "browser", "memory", "planner", "vector", "ticket", "email",
          "github", "slack", "calendar", "sql", "files", "notebook", "docker", "jira", "weather",
          "translate", "summary", "crawler", "invoice", "report", "schedule", "deploy", "backup")
_KINDS = (  # (kind, weight per 100 files)
    ("tool", 20), ("core", 16), ("client", 10), ("settings", 5), ("mcp", 3), ("webview", 10),
    ("test", 22), ("docs", 8), ("example", 3), ("config", 3),
)


def _camel(rng: random.Random, i: int) -> str:
    return f"{rng.choice(_WORDS)}{rng.choice(_WORDS).title()}{i}"


def _pad(rng: random.Random, n: int) -> str:
    """Plain helpers with JSDoc and comments, the bulk of a real module."""
    out = []
    for k in range(n):
        w = rng.choice(_WORDS)
        out.append(f'''

/**
 * Normalise {w} records; keeps at most `limit` of them.
 */
export function {w}Helper{k}(items: Array<Record<string, unknown>>, limit = {rng.randint(5, 500)}): string[] {{
  // drop empty records before sorting
  const seen = new Set<string>();
  const result: string[] = [];
  for (const item of items.slice(0, limit)) {{
    const key = String(item["{w}Id"] ?? "").trim().toLowerCase();
    if (!key || seen.has(key)) {{
      continue;
    }}
    seen.add(key);
    result.push(`${{key}}:${{item.value ?? {k}}}`);
  }}
  return result.sort((a, b) => a.length - b.length || a.localeCompare(b));
}}
''')
    return "".join(out)


def _tool(rng: random.Random, i: int) -> str:
    name = _camel(rng, i)
    cls = name[0].upper() + name[1:] + "Tool"
    env = rng.choice(["process.env", "{ PATH: \"/usr/bin\" }", "buildEnv()", None,
                      "{ ...process.env, TERM: \"dumb\" }"])
    shell = rng.random() < 0.2
    opts = ", ".join(x for x in (f"env: {env}" if env else "", "shell: true" if shell else "",
                                 f"timeout: {rng.choice([30000, 60000])}", "cwd") if x)
    program, argv = ("command", "[]") if shell else ('"/usr/bin/env"', "[command]")
    return f'''import {{ spawn }} from "node:child_process";
import * as fs from "fs/promises";
import {{ execa }} from "execa";
import * as vscode from "vscode";
import {{ buildEnv }} from "../../util/env";
import type {{ ToolResult }} from "../../common/types";

const MAX_OUTPUT_BYTES = {rng.randint(1, 64) * 1024};

/** Tool: {name} for the agent. */
export class {cls} {{
  private readonly name = "{name}";
  requiresApproval = {rng.choice(["true", "false"])};

  constructor(private readonly cwd: string, private terminal?: vscode.Terminal) {{}}

  async run(command: string, cwd: string = this.cwd): Promise<ToolResult> {{
    const child = spawn({program}, {argv}, {{ {opts} }});
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {{
      out += chunk.toString("utf8").slice(0, MAX_OUTPUT_BYTES);
    }});
    return await new Promise((resolve, reject) => {{
      child.on("close", (code) => (code === 0 ? resolve({{ ok: true, out }}) : reject(new Error(out))));
    }});
  }}

  async runInTerminal(command: string): Promise<void> {{
    const answer = await vscode.window.showWarningMessage(`Run ${{command}}?`, {{ modal: true }}, "Run");
    if (answer !== "Run") {{
      return;
    }}
    this.terminal ??= vscode.window.createTerminal({{ name: this.name }});
    this.terminal.sendText(command);
  }}

  async stream(argv: string[]): Promise<string> {{
    const {{ stdout }} = await execa(argv[0], argv.slice(1), {{ timeout: {rng.randint(5, 120)} * 1000 }});
    return stdout;
  }}

  async save(path: string, text: string): Promise<void> {{
    await fs.writeFile(path, text, {{ mode: 0o600 }});
  }}
}}
''' + _pad(rng, rng.randint(2, 8))


def _core(rng: random.Random, i: int) -> str:
    name = _camel(rng, i)
    cls = name[0].upper() + name[1:] + "Loop"
    return f'''import Anthropic from "@anthropic-ai/sdk";
import {{ EventEmitter }} from "events";

export const DEFAULT_MAX_ITERATIONS = {rng.randint(5, 100)};
const MAX_STEPS = Number(process.env.AGENTX_{name.upper()}_MAX_STEPS ?? "{rng.randint(5, 60)}");

export interface {cls}State {{
  steps: number;
  history: string[];
}}

/** The {name} agent loop. */
export class {cls} extends EventEmitter {{
  private client = new Anthropic({{ apiKey: process.env.ANTHROPIC_API_KEY }});
  private state: {cls}State = {{ steps: 0, history: [] }};

  constructor(private readonly tools: Map<string, (args: unknown) => Promise<string>>) {{
    super();
  }}

  async run(prompt: string): Promise<string> {{
    while (this.state.steps < Math.min(MAX_STEPS, DEFAULT_MAX_ITERATIONS)) {{
      this.state.steps += 1;
      const reply = await this.client.messages.create({{
        model: "claude-sonnet-4-5",
        max_tokens: {rng.choice([1024, 4096, 8192])},
        messages: [{{ role: "user", content: prompt }}],
      }});
      for (const block of reply.content) {{
        if (block.type === "tool_use") {{
          const tool = this.tools.get(block.name);
          const result = await tool?.(block.input);
          this.state.history.push(String(result).slice(0, 2000));
        }}
      }}
      if (reply.stop_reason === "end_turn") {{
        return maskSecrets(JSON.stringify(reply.content));
      }}
    }}
    this.emit("capped", this.state.steps);
    return "";
  }}

  cancel = (): void => {{
    // stop the whole process group of in-flight commands
    process.kill(-process.pid, "SIGTERM");
  }};
}}

export function maskSecrets(text: string): string {{
  for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]) {{
    const value = process.env[key];
    if (value) {{
      text = text.split(value).join("***");
    }}
  }}
  return text;
}}
''' + _pad(rng, rng.randint(3, 10))


def _client(rng: random.Random, i: int) -> str:
    name = _camel(rng, i)
    cls = name[0].upper() + name[1:] + "Client"
    return f'''import axios, {{ type AxiosInstance }} from "axios";

const API_URL = "https://api.example.invalid/{name}";
const TIMEOUT_MS = {rng.randint(5, 60)} * 1000;

export function validateUrl(url: string): string {{
  const host = new URL(url).hostname;
  if (host === "localhost" || host.startsWith("127.") || host.startsWith("10.")) {{
    throw new Error("private destination");
  }}
  return url;
}}

export class {cls} {{
  private http: AxiosInstance;

  constructor(token: string, baseURL: string = API_URL) {{
    this.http = axios.create({{ baseURL, timeout: TIMEOUT_MS, headers: {{ Authorization: `Bearer ${{token}}` }} }});
  }}

  async get<T>(path: string, params: Record<string, string> = {{}}): Promise<T> {{
    const resp = await this.http.get<T>(path, {{ params }});
    return resp.data;
  }}

  async post(path: string, payload: unknown): Promise<unknown> {{
    const url = validateUrl(`${{API_URL}}/${{path}}`);
    const resp = await fetch(url, {{ method: "POST", body: JSON.stringify(payload) }});
    return resp.json();
  }}
}}
''' + _pad(rng, rng.randint(1, 6))


def _settings(rng: random.Random, i: int) -> str:
    name = _camel(rng, i)
    return f'''import {{ z }} from "zod";

export const {name}Schema = z.object({{
  apiKey: z.string().default(""),
  maxTurns: z.number().int().default({rng.randint(5, 50)}),
  commandTimeout: z.number().default({rng.randint(5, 300)}),
  executorBackend: z.enum(["subprocess", "docker", "sandbox-exec"]).default("{rng.choice(["subprocess", "docker"])}"),
  allowedTools: z.array(z.string()).default([]),
}});

export const DEFAULT_{name.upper()}_SETTINGS = {{
  autoApprove: {rng.choice(["true", "false"])},
  maxRequests: {rng.randint(5, 50)},
  telemetry: {{ enabled: {rng.choice(["true", "false"])} }},
}};

export const SANDBOX = process.env.AGENTX_SANDBOX ?? "{rng.choice(["none", "docker", "seatbelt"])}";
export const TELEMETRY_ENABLED = process.env.AGENTX_TELEMETRY || "{rng.choice(["1", "0"])}";
''' + _pad(rng, rng.randint(0, 3))


def _mcp(rng: random.Random, i: int) -> str:
    name = _camel(rng, i)
    return f'''import {{ McpServer }} from "@modelcontextprotocol/sdk/server/mcp.js";
import {{ StdioServerTransport }} from "@modelcontextprotocol/sdk/server/stdio.js";
import {{ exec }} from "child_process";
import {{ z }} from "zod";

const server = new McpServer({{ name: "{name}", version: "1.0.{i}" }});

server.tool("run_{name}", {{ command: z.string() }}, async ({{ command }}) => {{
  const out = await new Promise<string>((resolve) => exec(command, {{ timeout: 30000 }}, (_e, stdout) => resolve(stdout)));
  return {{ content: [{{ type: "text", text: out }}] }};
}});

export async function main(): Promise<void> {{
  const transport = new StdioServerTransport();
  await server.connect(transport);
}}
''' + _pad(rng, rng.randint(1, 4))


def _webview(rng: random.Random, i: int) -> str:
    name = _camel(rng, i)
    comp = name[0].upper() + name[1:] + "View"
    return f'''import React, {{ useState, useCallback }} from "react";
import {{ vscode }} from "../utils/vscode";

interface {comp}Props {{
  title: string;
  items: string[];
}}

export const {comp}: React.FC<{comp}Props> = ({{ title, items }}) => {{
  const [selected, setSelected] = useState<string | null>(null);
  const onPick = useCallback((item: string) => {{
    setSelected(item);
    vscode.postMessage({{ type: "pick", item }});
  }}, []);
  return (
    <div className="{name}">
      <h2>{{title}}</h2>
      <ul>
        {{items.map((item) => (
          <li key={{item}} onClick={{() => onPick(item)}} className={{item === selected ? "on" : ""}}>
            {{item}}
          </li>
        ))}}
      </ul>
    </div>
  );
}};
'''


def _test(rng: random.Random, i: int) -> str:
    name = _camel(rng, i)
    return f'''import {{ describe, it, expect }} from "vitest";
import {{ spawnSync }} from "child_process";

describe("{name}", () => {{
  it("runs", () => {{
    const out = spawnSync("echo", ["hello"], {{ encoding: "utf8" }});
    expect(out.stdout.trim()).toBe("hello");
  }});

  it.each([1, 2, {rng.randint(3, 99)}])("limits %i", (n) => {{
    expect(n).toBeGreaterThan(0);
  }});
}});
''' + _pad(rng, rng.randint(1, 5))


def _docs(rng: random.Random, i: int) -> str:
    name = _camel(rng, i)
    return f"""# {name}

Configure the `{name}` tool with `AGENTX_{name.upper()}_MAX_STEPS` (default {rng.randint(5, 60)}).

```ts
spawn("{rng.choice(_WORDS)}", [], {{ env: process.env, shell: true }});
```
""" + "\nMore text about the tool and its options.\n" * rng.randint(5, 40)


def _example(rng: random.Random, i: int) -> str:
    return f'''import {{ exec }} from "child_process";

exec("echo example {i}");
'''


def _config(rng: random.Random, i: int) -> str:
    return json.dumps({"name": _camel(rng, i), "steps": rng.randint(1, 9),
                       "tools": rng.sample(_WORDS, 3)}, indent=2) + "\n"


_GEN = {"tool": _tool, "core": _core, "client": _client, "settings": _settings, "mcp": _mcp,
        "webview": _webview, "test": _test, "docs": _docs, "example": _example,
        "config": _config}
_DIRS = {"tool": "src/core/tools", "core": "src/core/loop", "client": "src/services",
         "settings": "src/shared/settings", "mcp": "src/mcp", "webview": "webview-ui/src/components",
         "test": "src/__tests__", "docs": "docs", "example": "examples", "config": "config"}
_EXT = {"docs": ".md", "config": ".json", "webview": ".tsx", "test": ".test.ts"}

_PACKAGE = {
    "name": "agentx", "displayName": "AgentX", "description": "Synthetic TypeScript agent for the "
    "dids benchmark", "version": "0.0.0", "main": "./dist/extension.js",
    "bin": {"agentx": "./dist/cli.js"},
    "engines": {"vscode": "^1.84.0", "node": ">=20"},
    "activationEvents": ["onStartupFinished"],
    "contributes": {
        "commands": [{"command": "agentx.run", "title": "AgentX: Run"}],
        "configuration": {"title": "AgentX", "properties": {
            "agentx.autoApprove": {"type": "boolean", "default": False},
            "agentx.maxRequests": {"type": "number", "default": 20},
            "agentx.shell": {"type": "string", "default": "/bin/bash"}}},
    },
    "scripts": {"build": "tsc -p .", "test": "vitest"},
    "workspaces": ["webview-ui"],
    "dependencies": {"@anthropic-ai/sdk": "^0.60.0", "@modelcontextprotocol/sdk": "^1.17.0",
                     "execa": "^9.0.0", "zod": "^3.25.0", "axios": "^1.11.0"},
}

FIXED = {
    "README.md": "# agentx\n\nA synthetic TypeScript agent generated by scripts/bench.py.\n",
    "package.json": json.dumps(_PACKAGE, indent=2) + "\n",
    "tsconfig.json": '{\n  "compilerOptions": {"strict": true, "jsx": "react-jsx"}\n}\n',
    ".env.example": "AGENTX_SANDBOX=none\nANTHROPIC_API_KEY=\n",
    "src/extension.ts": 'import * as vscode from "vscode";\n\nexport function activate(context: '
                        'vscode.ExtensionContext): void {\n  context.subscriptions.push(vscode.'
                        'commands.registerCommand("agentx.run", () => undefined));\n}\n',
    "src/util/env.ts": 'export function buildEnv(): NodeJS.ProcessEnv {\n  const env = { ...process'
                       '.env };\n  delete env.ANTHROPIC_API_KEY;\n  return env;\n}\n',
    "src/common/types.ts": "export interface ToolResult {\n  ok: boolean;\n  out: string;\n}\n",
    "dist/extension.js": '"use strict";var e=require("child_process");e.spawn("x");\n',
}


def synth_ts_files(n: int, seed: int = 0):
    """(path, text) of a deterministic synthetic TypeScript agent repository of about n files."""
    yield from FIXED.items()
    kinds = [k for k, w in _KINDS for _ in range(w)]
    random.Random(f"ts{seed}:kinds").shuffle(kinds)
    for i in range(max(0, n - len(FIXED))):
        rng = random.Random(f"ts{seed}:{i}")
        kind = kinds[i % len(kinds)]
        group = f"g{i // 250:03d}"
        path = f"{_DIRS[kind]}/{group}/{kind}{i:06d}{_EXT.get(kind, '.ts')}"
        yield path, _GEN[kind](rng, i)
