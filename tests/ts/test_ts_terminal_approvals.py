"""A terminal TypeScript agent whose tool dispatcher awaits an approval callback: the readers
that find the gate (the dispatcher's ask, the terminal prompt behind the callback, the list of
tools exempt from it, the switch that answers "approved" by default), owner-only credential
files, credential redaction, process-group kills and workspace configuration paths, each with
a near miss that must not fire."""

from __future__ import annotations

import pytest

from tests.agentmodel.repos import modelled

PKG = """{
  "name": "acme-agent",
  "version": "1.0.0",
  "type": "module",
  "bin": {"acme": "dist/cli.js"},
  "dependencies": {"@anthropic-ai/sdk": "^0.30.0"}
}
"""
README = "# acme\n\n```\nnpm install -g acme-agent\nacme\n```\n"
CLI = """import { runSession } from "./session.js";

const defaultAutoApprove = true;

export async function main(argv: string[]): Promise<void> {
  const autoApprove = argv.includes("--no-auto-approve") ? false : defaultAutoApprove;
  await runSession({ autoApprove });
}

main(process.argv);
"""
SESSION = """import { Agent } from "./agent.js";
import { createApprovalController } from "./approvals.js";
import { onApprovalRequested } from "./events.js";

export async function runSession(opts: { autoApprove: boolean }): Promise<void> {
  const controller = createApprovalController(opts.autoApprove);
  const agent = new Agent({ requestToolApproval: controller.requestToolApproval, onApprovalRequested });
  await agent.run("hello");
}
"""
APPROVALS = """import { createInterface } from "node:readline";

export const SAFE_AUTO_APPROVE_TOOLS = ["read_file", "fetch_url", "search_code"];
export const KNOWN_TOOL_NAMES = ["read_file", "run_shell"];

const c = { reset: "\\x1b[0m", yellow: "\\x1b[33m" };

async function askInTerminal(name: string): Promise<{ approved: boolean }> {
  const answer = await new Promise<string>((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    rl.question(`${c.yellow}Approve tool ${name}?${c.reset} [y/N] `, (v) => {
      rl.close();
      resolve(v);
    });
  });
  return { approved: answer.trim() === "y" };
}

export function createApprovalController(autoApprove: boolean) {
  const autoApproveAllRef = { current: autoApprove };
  const requestToolApproval = async (name: string): Promise<{ approved: boolean }> => {
    if (autoApproveAllRef.current) {
      return { approved: true };
    }
    return askInTerminal(name);
  };
  return { requestToolApproval };
}
"""
EVENTS = """import { createInterface } from "node:readline";

export function onApprovalRequested(name: string): void {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  rl.question(`approval requested for ${name}, press enter to continue`, () => rl.close());
}
"""
AGENT = """import Anthropic from "@anthropic-ai/sdk";
import { runShell } from "./shell.js";

export interface AgentConfig {
  requestToolApproval?: (name: string) => Promise<{ approved: boolean }>;
  onApprovalRequested?: (name: string) => void;
  autoApprove?: boolean;
}

export class Agent {
  private client = new Anthropic();
  constructor(private config: AgentConfig) {}

  async run(task: string): Promise<void> {
    const messages: any[] = [{ role: "user", content: task }];
    for (let i = 0; i < 20; i++) {
      const reply = await this.client.messages.create({ model: "m", max_tokens: 100, messages });
      for (const block of reply.content as any[]) {
        if (block.type === "tool_use") {
          await this.executeTool(block.name, block.input);
        }
      }
    }
  }

  private async executeTool(name: string, input: any): Promise<string> {
    this.config.onApprovalRequested?.(name);
    if (this.config.autoApprove === false) {
      const approval = await this.requestToolApproval(name);
      if (!approval.approved) {
        return "skipped";
      }
    }
    return runShell(input.command);
  }

  private async requestToolApproval(name: string): Promise<{ approved: boolean }> {
    const ask = this.config.requestToolApproval;
    if (!ask) {
      return { approved: false };
    }
    return ask(name);
  }
}
"""
SHELL = """import { spawn } from "node:child_process";

export function runShell(command: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { env: { ...process.env }, detached: true });
    const timer = setTimeout(() => {
      process.kill(-child.pid!, "SIGKILL");
    }, 30_000);
    child.on("exit", () => {
      clearTimeout(timer);
      child.kill("SIGTERM");
      process.kill(child.pid!, 0);
      resolve("done");
    });
  });
}
"""
STORE = """import { chmodSync, writeFileSync } from "node:fs";

export function saveCredentials(file: string, apiKey: string): void {
  writeFileSync(file, JSON.stringify({ apiKey }), { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function saveScript(file: string, body: string): void {
  writeFileSync(file, body, { mode: 0o755 });
  chmodSync(file, 0o755);
  // chmodSync(file, 0o600) in a comment is not a call
}
"""
TELEMETRY = """export const ERROR_TELEMETRY_EVENT = process.env.ACME_TELEMETRY_EVENT ?? "sdk.error";
export const TELEMETRY_ENABLED = process.env.ACME_TELEMETRY ?? "true";

export function sanitizeErrorMessage(message: string): string {
  return message
    .replace(/(api[_-]?key|access[_-]?token|password)=([^&\\s]+)/gi, "$1=[redacted]")
    .replace(/(Bearer\\s+)[A-Za-z0-9._-]+/g, "$1[redacted]");
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\\s+/g, " ").replace(/token/g, "word");
}
"""
PATHS = """import { join } from "node:path";
import { homedir } from "node:os";

export function hookSearchPaths(workspacePath: string): string[] {
  return [join(homedir(), ".acme", "hooks"), join(workspacePath, ".acme", "hooks")];
}

export function cacheFile(workspacePath: string): string {
  return join(workspacePath, "node_modules", "cache.json");
}
"""

MCP = """import { spawn } from "node:child_process";

export class StdioMcpClient {
  start(command: string, args: string[]) {
    return spawn(command, args, { env: { ...process.env }, stdio: ["pipe", "pipe", "pipe"] });
  }

  startQuiet(command: string) {
    return spawn(command, [], { env: { PATH: "/usr/bin" } });
  }
}
"""

HISTORY = """import { writeFileSync } from "node:fs";

export function persistMessages(id: string, messages: unknown[]): void {
  writeFileSync(`/tmp/${id}.messages.json`, JSON.stringify(messages));
}

export function onAgentEvent(id: string, event: { type: string }, messages: unknown[]): void {
  if (event.type === "error") {
    persistMessages(id, messages);
  } else if (event.type === "iteration_end") {
    persistMessages(id, messages);
  }
}
"""

FILES = {"src/history.ts": HISTORY, "src/mcp/client.ts": MCP, "package.json": PKG, "README.md": README, "src/cli.ts": CLI, "src/session.ts": SESSION,
         "src/approvals.ts": APPROVALS, "src/events.ts": EVENTS, "src/agent.ts": AGENT,
         "src/shell.ts": SHELL, "src/store.ts": STORE, "src/telemetry.ts": TELEMETRY,
         "src/paths.ts": PATHS}


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def _at(m, probe, how=None):
    return {(f.location.path, f.location.start_line) for f in m.findings()[probe]
            if how is None or f.data.get("how") == how}


def test_the_dispatcher_awaiting_the_approval_callback_is_a_gate(m):
    got = _at(m, "approval.gate", "callback")
    assert ("src/agent.ts", m.line("src/agent.ts", "await this.requestToolApproval(name)")) in got
    # an event notification named for approval is not an ask
    assert not any(p == "src/agent.ts" and ln == m.line("src/agent.ts", "onApprovalRequested?.(")
                   for p, ln in got)


def test_the_prompt_behind_the_callback_is_reached_with_the_calls_reach(m):
    prompts = [f for f in m.findings()["approval.gate"] if f.data.get("how") == "prompt"]
    at = {(f.location.path, f.location.start_line) for f in prompts}
    # the `${c.reset}` interpolation is code, not a "reset" chore
    assert ("src/approvals.ts", m.line("src/approvals.ts", "rl.question(")) in at
    assert not any(p == "src/events.ts" for p, _ in at)
    call = m.line("src/agent.ts", "await this.requestToolApproval(name)")
    (p,) = [f for f in prompts if f.location.path == "src/approvals.ts"]
    assert p.data["reach_at"] == f"src/agent.ts:{call}"


def test_exempt_tools_and_the_auto_approve_short_circuit(m):
    exempt = [f for f in m.findings()["approval.gate"] if f.data.get("how") == "exempt"]
    assert [(f.location.path, f.location.start_line) for f in exempt] == [
        ("src/approvals.ts", m.line("src/approvals.ts", "SAFE_AUTO_APPROVE_TOOLS ="))]
    assert exempt[0].data["tools"] == "read_file,fetch_url,search_code"
    short = _at(m, "approval.gate", "autoapprove")
    assert short == {("src/approvals.ts", m.line("src/approvals.ts", "if (autoApproveAllRef.current)"))}


def test_owner_only_files(m):
    got = _at(m, "secrets.file_mode")
    assert got == {("src/store.ts", m.line("src/store.ts", "0o600 });")),
                   ("src/store.ts", m.line("src/store.ts", "  chmodSync(file, 0o600);"))}


def test_credential_redaction_one_per_function(m):
    got = [f for f in m.findings()["secrets.masking"] if f.location.path == "src/telemetry.ts"]
    assert [f.data["caller"] for f in got] == ["sanitizeErrorMessage"]


def test_process_group_kill(m):
    got = _at(m, "limits.cancel", "killpg")
    assert got == {("src/shell.ts", m.line("src/shell.ts", "process.kill(-child.pid!"))}


def test_workspace_configuration_paths(m):
    got = {(p, ln) for p, ln in _at(m, "memory.repo_config") if p == "src/paths.ts"}
    assert got == {("src/paths.ts", m.line("src/paths.ts", "join(workspacePath, \".acme\", \"hooks\")"))}
    (f,) = [f for f in m.findings()["memory.repo_config"] if f.location.path == "src/paths.ts"]
    assert f.data["executable"] is True  # a hooks folder holds code


def test_c2_and_c5_score_the_opt_in_prompt_as_the_alternative(m):
    from dids.engine import score_index

    report = score_index(m.index)
    by = {c.id: c for c in report.criteria}
    c2 = {cfg.name: cfg for cfg in by["C2"].configurations}
    assert (c2["default"].levels.S, c2["default"].levels.D) == (0, 0)
    assert (c2["ask"].levels.S, c2["ask"].levels.C, c2["ask"].levels.D) == (2, 2, 0)
    assert "turned off" in c2["ask"].label
    d = [e for e in by["C2"].assessment.configurations[0].dims["D"].evidence]
    assert (d[0].path, d[0].start_line) == (
        "src/cli.ts", m.line("src/cli.ts", "const defaultAutoApprove"))
    # the prompt leaves an egress tool exempt: no injection control in the alternative either
    c5 = {cfg.name: cfg for cfg in by["C5"].configurations}
    assert (c5["ask"].levels.S, c5["ask"].levels.B) == (0, 1)


def test_c6_workspace_hooks_are_code_execution(m):
    from dids.engine import score_index

    c6 = {c.id: c for c in score_index(m.index).criteria}["C6"]
    assert (c6.levels.S, c6.levels.C, c6.levels.D, c6.levels.B) == (0, 0, 0, 0)
    assert c6.cap == "C6-REPOCONFIG"


def test_mcp_server_processes_and_their_environment(m):
    got = {(f.location.start_line, f.data["env"]) for f in m.findings()["ext.mcp_stdio"]
           if f.location.path == "src/mcp/client.ts"}
    assert got == {(m.line("src/mcp/client.ts", "{ ...process.env }"), "full"),
                   (m.line("src/mcp/client.ts", "PATH:"), "constructed")}
    # a spawn outside an MCP client is a process spawn, not an MCP server
    assert not [f for f in m.findings()["ext.mcp_stdio"] if f.location.path == "src/shell.ts"]


def test_c7_workspace_plugins_load_without_install(m):
    from dids.engine import score_index

    c7 = {c.id: c for c in score_index(m.index).criteria}["C7"]
    assert c7.levels.D == 0 and c7.levels.B == 1


def test_history_persisted_per_iteration(m):
    got = [f for f in m.findings()["records.transcript"] if f.data.get("per_step")]
    assert [(f.location.path, f.location.start_line) for f in got] == [
        ("src/history.ts", m.line("src/history.ts", '"iteration_end"'))]


def test_a_telemetry_event_name_is_no_switch(m):
    keys = {f.data["key"] for f in m.findings()["secrets.telemetry"]
            if f.probe == "secrets.telemetry_default"}
    assert "ACME_TELEMETRY" in keys and "ACME_TELEMETRY_EVENT" not in keys


def test_c2_alternative_cites_the_shipped_switch_first_for_d(m):
    from dids.engine import score_index

    c2 = {c.id: c for c in score_index(m.index).criteria}["C2"]
    alt = [cfg for cfg in c2.assessment.configurations if cfg.opt_in][0]
    d = alt.dims["D"].evidence[0]
    assert (d.path, d.start_line) == ("src/cli.ts", m.line("src/cli.ts", "const defaultAutoApprove"))


MODE_ONLY = AGENT.replace('''    this.config.onApprovalRequested?.(name);
    if (this.config.autoApprove === false) {
      const approval = await this.requestToolApproval(name);
      if (!approval.approved) {
        return "skipped";
      }
    }
    return runShell(input.command);''', '''    if (this.config.getApprovalMode() === "plan" || this.config.isConfirmationRequired) {
      return "skipped";
    }
    return runShell(input.command);''')


def test_reading_an_approval_setting_is_not_asking(tmp_path_factory):
    """`getApprovalMode()` or `isConfirmationRequired` before the tool runs reads a setting; a
    branch that returns on it is not a person's decision."""
    assert MODE_ONLY != AGENT
    m = modelled(tmp_path_factory, {**FILES, "src/agent.ts": MODE_ONLY})
    assert not [f for f in m.findings()["approval.gate"] if f.data.get("how") == "callback"]


def test_workspace_hooks_make_third_party_extensions_on_by_default(m, tmp_path_factory):
    """The surface line says third-party extensions are on ("yes") when the opened workspace's
    own hooks load with no install step; without that search path they are not."""
    from dids.criteria.base import Context
    from dids.rubric import load_rubric
    from dids.surface import surface

    def tpe(mm):
        ctx = Context(index=mm.index, findings=mm.findings(), rubric=load_rubric())
        return surface(ctx)[0]["third_party_extensions"]

    assert tpe(m) == "yes"
    home_only = PATHS.replace('join(workspacePath, ".acme", "hooks")', 'join(homedir(), ".acme", "more")')
    assert home_only != PATHS
    assert tpe(modelled(tmp_path_factory, {**FILES, "src/paths.ts": home_only})) != "yes"
