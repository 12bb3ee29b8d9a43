"""TypeScript agent loops: a step cap that binds only once its bound is set is no default
ceiling (C10), a constant cap is; retry bounds inside a step are not step caps; `_MS` timeouts
are said in milliseconds."""

from __future__ import annotations

import pytest

from tests.agentmodel.repos import modelled

PKG = '{"name": "loopy", "version": "1.0.0", "bin": {"loopy": "dist/cli.js"}}\n'
README = "# loopy\n\n```\nnpm install -g loopy\n```\n"
CLI = """import { Agent } from "./agent.js";

new Agent({}).run("task");
"""


def agent(header: str) -> str:
    return f"""import Anthropic from "@anthropic-ai/sdk";

const MAX_ITERATIONS = 25;
const SQLITE_RETRY_LIMIT = 5;
export const TOOL_COMMAND_TIMEOUT_MS = 30000;

export class Agent {{
  private client = new Anthropic();
  private state = {{ iteration: 0 }};
  constructor(private config: {{ maxIterations?: number }}) {{}}

  async run(task: string): Promise<void> {{
    const messages: any[] = [{{ role: "user", content: task }}];
    {header} {{
      this.state.iteration += 1;
      await this.step(messages);
    }}
  }}

  private async step(messages: any[]): Promise<void> {{
    let attempt = 0;
    while (true) {{
      attempt += 1;
      if (attempt >= SQLITE_RETRY_LIMIT) {{
        throw new Error("retries");
      }}
      await this.client.messages.create({{ model: "m", max_tokens: 10, messages }});
      break;
    }}
  }}
}}
"""


OPTIONAL = ("while (this.config.maxIterations === undefined || "
            "this.state.iteration < this.config.maxIterations)")
FIXED = "while (this.state.iteration < MAX_ITERATIONS)"


def _repo(tmp_path_factory, header):
    return modelled(tmp_path_factory, {"package.json": PKG, "README.md": README,
                                       "src/cli.ts": CLI, "src/agent.ts": agent(header)})


@pytest.fixture(scope="module")
def optional(tmp_path_factory):
    return _repo(tmp_path_factory, OPTIONAL)


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    return _repo(tmp_path_factory, FIXED)


def test_an_unset_bound_is_an_optional_cap(optional):
    caps = optional.findings()["limits.loop_cap"]
    assert [(f.location.start_line, f.data.get("optional")) for f in caps] == [
        (optional.line("src/agent.ts", "while (this.config.maxIterations"), True)]
    assert "only when this.config.maxIterations is set" in caps[0].claim


def test_a_constant_bound_is_a_cap_and_retries_are_not(fixed):
    caps = fixed.findings()["limits.loop_cap"]
    assert [(f.location.start_line, f.data.get("optional")) for f in caps] == [
        (fixed.line("src/agent.ts", FIXED), None)]


def test_c10_counts_no_default_ceiling_for_the_optional_cap(optional, fixed):
    from dids.engine import score_index

    c_opt = {c.id: c for c in score_index(optional.index).criteria}["C10"]
    c_fix = {c.id: c for c in score_index(fixed.index).criteria}["C10"]
    assert c_opt.levels.B == 1
    assert c_fix.levels.S >= c_opt.levels.S
    b = c_opt.assessment.configurations[0].dims["B"].evidence
    assert (b[0].path, b[0].start_line) == ("src/agent.ts",
                                            optional.line("src/agent.ts", "while (this.config"))


def test_ms_timeouts_are_milliseconds(fixed):
    got = [f.claim for f in fixed.findings()["limits.timeout"] if "TOOL_COMMAND_TIMEOUT_MS" in f.claim]
    assert got == ["TOOL_COMMAND_TIMEOUT_MS defaults to 30000 milliseconds."]
