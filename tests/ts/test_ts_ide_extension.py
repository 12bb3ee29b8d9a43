"""A VS Code extension agent: `activate` registers the command that runs the agent loop, and
the shell tool asks in a modal dialog before it runs a command. The modal confirm is a gate on
the default path; a non-modal notification with the same words is not; the same dialog in a
test file is not read."""

from __future__ import annotations

import pytest

from tests.agentmodel.repos import modelled

PKG = """{
  "name": "acme-vscode",
  "version": "1.0.0",
  "main": "./dist/extension.js",
  "engines": {"vscode": "^1.90.0"},
  "activationEvents": ["onStartupFinished"],
  "contributes": {"commands": [{"command": "acme.run", "title": "Acme: Run"}]},
  "dependencies": {"openai": "^4.0.0"}
}
"""
EXTENSION = """import * as vscode from "vscode";
import { runAgent } from "./agent";

export function activate(context: vscode.ExtensionContext) {
  context.subscriptions.push(
    vscode.commands.registerCommand("acme.run", async () => {
      const task = await vscode.window.showInputBox({ prompt: "Task" });
      await runAgent(task ?? "");
    }),
  );
}
"""
AGENT = """import OpenAI from "openai";
import { runCommand } from "./tools";

const client = new OpenAI();

export async function runAgent(task: string): Promise<void> {
  const messages: any[] = [{ role: "user", content: task }];
  for (let step = 0; step < 10; step++) {
    const reply = await client.chat.completions.create({ model: "gpt-4.1", messages });
    const call = reply.choices[0].message.tool_calls?.[0];
    if (!call) {
      return;
    }
    messages.push({ role: "tool", content: await runCommand(JSON.parse(call.function.arguments).command) });
  }
}
"""
TOOLS = """import * as vscode from "vscode";
import { execSync } from "node:child_process";

export async function runCommand(command: string): Promise<string> {
  const choice = await vscode.window.showWarningMessage(
    `Allow the agent to run this command? ${command}`, { modal: true }, "Run");
  if (choice !== "Run") {
    vscode.window.showInformationMessage(`Allow list updated: skipped ${command}`);
    return "denied";
  }
  return execSync(command).toString();
}
"""
TEST = """import * as vscode from "vscode";

export async function fakeConfirm() {
  return vscode.window.showWarningMessage("Allow the agent to run this command?", { modal: true }, "Run");
}
"""

FILES = {"package.json": PKG, "src/extension.ts": EXTENSION, "src/agent.ts": AGENT,
         "src/tools.ts": TOOLS, "src/tools.test.ts": TEST}


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_the_modal_confirm_is_a_gate_and_the_notification_is_not(m):
    gates = [f for f in m.findings()["approval.gate"] if f.data.get("how") == "prompt"]
    at = {(f.location.path, f.location.start_line) for f in gates}
    assert ("src/tools.ts", m.line("src/tools.ts", "showWarningMessage(")) in at
    assert not any(p == "src/tools.ts" and ln == m.line("src/tools.ts", "showInformationMessage")
                   for p, ln in at)
    assert not any(p.endswith(".test.ts") for p, _ in at)


def test_c2_the_modal_confirm_asks_by_default(m):
    from dids.engine import score_index

    c2 = {c.id: c for c in score_index(m.index).criteria}["C2"]
    assert c2.assessed and c2.levels.S == 2 and c2.levels.D >= 1
