"""A call through a parameter with an inline function type (`predicate: (value: T) => unknown`)
is whatever the caller passes: it is not resolved to the functions that return the generic `T`,
so a UI helper that loops over a predicate is never an agent loop."""

from __future__ import annotations

import pytest

from tests.agentmodel.repos import modelled

PKG = '{"name": "ui-agent", "version": "1.0.0", "bin": {"ui-agent": "dist/cli.js"}}\n'
README = "# ui-agent\n\n```\nnpm install -g ui-agent\n```\n"
CLI = """import { findLastIndex } from "./list.js";
import { Agent } from "./agent.js";

const rows = ["a", "b"];
findLastIndex(rows, (row) => row === "b");
new Agent().run("task");
"""
LIST = """export function findLastIndex<T>(array: T[], predicate: (value: T, index: number) => unknown): number {
  for (let i = array.length - 1; i >= 0; i--) {
    if (predicate(array[i], i)) {
      return i;
    }
  }
  return -1;
}
"""
AGENT = """import Anthropic from "@anthropic-ai/sdk";

export async function ask<T>(prompt: string): Promise<T> {
  const client = new Anthropic();
  return (await client.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: prompt }] })) as T;
}

export class Agent {
  async run(task: string): Promise<void> {
    for (let step = 0; step < 10; step++) {
      await ask<string>(task);
    }
  }
}
"""


@pytest.fixture(scope="module")
def ui(tmp_path_factory):
    return modelled(tmp_path_factory, {"package.json": PKG, "README.md": README, "src/cli.ts": CLI,
                                       "src/list.ts": LIST, "src/agent.ts": AGENT})


def test_a_predicate_loop_is_not_the_agent_loop(ui):
    nodes = [lp.node for lp in ui.model.session.loops]
    assert "src/agent.ts::Agent.run" in nodes
    assert not any(n.startswith("src/list.ts") for n in nodes)
    assert not any(how == "typed" for _dst, _ln, how in ui.model.graph.edges.get("src/list.ts::findLastIndex", ()))
