"""An IDE-extension agent in the shape of the cline family: the extension package under `src/`
(its README links its Marketplace listing), a private CLI beside it, and model providers that
extend an abstract base implementing the `ApiHandler` interface the task loop calls through.

- The listing makes the extension the scored product, over the CLI's bin.
- `this.api.createMessage(...)` on a field typed by the interface reaches every provider that
  extends the implementing base (imported from another file), and no class that merely has a
  method of that name; so the task's `while` loop is the agent loop.
"""

from __future__ import annotations

import pytest

from tests.agentmodel.repos import modelled

EXT_PKG = """{
  "name": "acme-agent",
  "publisher": "acme",
  "version": "1.0.0",
  "engines": {"vscode": "^1.90.0"},
  "main": "./dist/extension.js",
  "activationEvents": ["onStartupFinished"],
  "contributes": {"commands": [{"command": "acme.newTask", "title": "New task"}]},
  "dependencies": {"@anthropic-ai/sdk": "^0.30.0", "openai": "^4.0.0"}
}
"""
CLI_PKG = """{
  "name": "@acme/cli",
  "version": "0.1.0",
  "private": true,
  "bin": {"acme": "dist/index.js"}
}
"""
README = """<p align="center">
  <a href="https://marketplace.visualstudio.com/items?itemName={listing}"><img src="badge.svg"></a>
</p>

# Acme Agent

## Local setup

```sh
git clone https://github.com/acme/acme-agent.git
pnpm install
```
"""
EXTENSION = """import * as vscode from "vscode";
import { Task } from "./core/task/Task";

export function activate(context: vscode.ExtensionContext) {
  context.subscriptions.push(vscode.commands.registerCommand("acme.newTask", async () => {
    const task = new Task({ provider: "anthropic" });
    await task.start("hello");
  }));
}
"""
API_INDEX = """import { AnthropicHandler } from "./providers/anthropic";
import { OpenAiHandler } from "./providers/openai";

export interface ApiHandler {
  createMessage(system: string, messages: any[]): AsyncGenerator<any>;
}

export function buildApiHandler(config: { provider: string }): ApiHandler {
  if (config.provider === "anthropic") {
    return new AnthropicHandler();
  }
  return new OpenAiHandler();
}
"""
BASE = """import { ApiHandler } from "../index";

export abstract class BaseProvider implements ApiHandler {
  abstract createMessage(system: string, messages: any[]): AsyncGenerator<any>;
}
"""
ANTHROPIC = """import Anthropic from "@anthropic-ai/sdk";
import { BaseProvider } from "./base-provider";

export class AnthropicHandler extends BaseProvider {
  private client = new Anthropic();

  async *createMessage(system: string, messages: any[]): AsyncGenerator<any> {
    const stream = await this.client.messages.create({ model: "m", system, messages, stream: true });
    for await (const chunk of stream) {
      yield chunk;
    }
  }
}
"""
OPENAI = """import OpenAI from "openai";
import { BaseProvider } from "./base-provider";

export class OpenAiHandler extends BaseProvider {
  private client = new OpenAI();

  async *createMessage(system: string, messages: any[]): AsyncGenerator<any> {
    const stream = await this.client.chat.completions.create({ model: "m", messages, stream: true });
    for await (const chunk of stream) {
      yield chunk;
    }
  }
}
"""
ECHO = """export class EchoHandler {
  async *createMessage(system: string, messages: any[]): AsyncGenerator<any> {
    yield system;
  }
}
"""
TASK = """import { ApiHandler, buildApiHandler } from "../../api";

export class Task {
  api: ApiHandler;
  abort = false;
  history: any[] = [];

  constructor(config: { provider: string }) {
    this.api = buildApiHandler(config);
  }

  async start(text: string) {
    this.history.push(text);
    while (!this.abort) {
      const stream = this.api.createMessage("system", this.history);
      for await (const chunk of stream) {
        this.history.push(chunk);
      }
    }
  }
}
"""
CLI = """#!/usr/bin/env node
console.log("acme cli");
"""


def _files(listing: str) -> dict[str, str]:
    return {
        "README.md": README.replace("{listing}", listing),
        "src/package.json": EXT_PKG,
        "src/extension.ts": EXTENSION,
        "src/api/index.ts": API_INDEX,
        "src/api/providers/base-provider.ts": BASE,
        "src/api/providers/anthropic.ts": ANTHROPIC,
        "src/api/providers/openai.ts": OPENAI,
        "src/core/echo/EchoHandler.ts": ECHO,
        "src/core/task/Task.ts": TASK,
        "apps/cli/package.json": CLI_PKG,
        "apps/cli/src/index.ts": CLI,
    }


@pytest.fixture(scope="module")
def listed(tmp_path_factory):
    return modelled(tmp_path_factory, _files("acme.acme-agent"))


def test_the_listed_extension_is_the_scored_product(listed):
    choice = listed.index.agent.ts.choice
    assert choice.pkg.dir == "src" and choice.how == "README marketplace listing"


def test_a_listing_of_another_extension_leaves_the_cli(tmp_path_factory):
    other = modelled(tmp_path_factory, _files("someone.other-agent"))
    choice = other.index.agent.ts.choice
    assert choice.pkg.dir == "apps/cli" and choice.how == "package bin"


# a Python app a testing sandbox's Dockerfile runs: found only because nothing else names a
# Python path, it does not outrank the extension the README lists
SANDBOX_DOCKERFILE = "FROM python:3.12\nCOPY app.py .\nCMD [\"python\", \"app.py\"]\n"
SANDBOX_APP = "import requests\n\nprint(requests.get('https://example.invalid').text)\n"


def test_a_dockerfile_python_app_does_not_outrank_the_listed_extension(tmp_path_factory):
    files = {**_files("acme.acme-agent"), "manual-testing-sandbox/Dockerfile": SANDBOX_DOCKERFILE,
             "manual-testing-sandbox/app.py": SANDBOX_APP}
    m = modelled(tmp_path_factory, files)
    assert m.index.agent.ts is not None
    assert m.index.agent.ts.choice.how == "README marketplace listing"


def test_a_readme_python_run_keeps_the_python_path_over_a_listing(tmp_path_factory):
    files = {**_files("acme.acme-agent"), "app.py": SANDBOX_APP}
    files["README.md"] += "\n```bash\npip install acme\npython app.py\n```\n"
    m = modelled(tmp_path_factory, files)
    assert m.index.agent.ts is None
    assert m.index.agent.entries.how == "README leading path"


def _line(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def test_an_interface_call_reaches_the_providers_extending_its_implementing_base(listed):
    graph = listed.index.agent.graph
    line = _line(TASK, "this.api.createMessage")
    nid = graph.node_at("src/core/task/Task.ts", line)
    targets = {dst for dst, ln, _how in graph.edges.get(nid, ()) if ln == line}
    assert "src/api/providers/anthropic.ts::AnthropicHandler.createMessage" in targets
    assert "src/api/providers/openai.ts::OpenAiHandler.createMessage" in targets
    # a class with a method of that name that neither implements nor extends is not reached
    assert not any(t.startswith("src/core/echo/") for t in targets)


def test_an_imported_base_is_the_class_base(listed):
    graph = listed.index.agent.graph
    base = "src/api/providers/base-provider.ts::BaseProvider"
    assert graph.bases["src/api/providers/anthropic.ts::AnthropicHandler"] == [base]


def test_the_task_loop_is_the_agent_loop(listed):
    loops = listed.index.agent.session.loops
    first = loops[0]
    assert (first.path, first.line) == ("src/core/task/Task.ts", _line(TASK, "while (!this.abort)"))
