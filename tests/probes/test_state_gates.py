"""State-machine approval gates: the place that holds an action in an awaiting-approval state,
written as an assignment (Python) or as a status-setter call (`state.updateStatus(id,
Status.AwaitingApproval, ...)`, TypeScript idiom), is a gate; a transition made only once the
action already is held (inside `if (x.status === AwaitingApproval)`) and a comparison are not."""

from __future__ import annotations

from .modelled import modelled_fixtures

PY_FILES = {
    "pyproject.toml": '[project]\nname = "held"\n[project.scripts]\nheld = "held.main:main"\n',
    "held/__init__.py": "",
    "held/main.py": "from held.loop import Loop\n\n\ndef main():\n    Loop().run()\n",
    "held/loop.py": '''import enum

import litellm


class State(enum.Enum):
    RUNNING = "running"
    AWAITING_USER_CONFIRMATION = "awaiting_user_confirmation"


class Loop:
    def __init__(self):
        self.state = State.RUNNING

    def run(self):
        while True:
            reply = litellm.completion(model="m", messages=[])
            for call in reply.tool_calls:
                self.step(call)

    def step(self, call):
        if call.risky:
            self.set_state_to(State.AWAITING_USER_CONFIRMATION)  # held
            return
        if call.status == State.AWAITING_USER_CONFIRMATION:
            self.set_state_to(State.AWAITING_USER_CONFIRMATION)
        call.run()

    def set_state_to(self, state):
        self.state = state
''',
}

TS_FILES = {
    "package.json": '{"name": "held", "version": "1.0.0", "bin": {"held": "dist/main.js"}}\n',
    "README.md": "# held\n\n```\nnpm install -g held\nheld\n```\n",
    "src/main.ts": 'import { runLoop } from "./loop.js";\n\nrunLoop();\n',
    "src/loop.ts": '''import Anthropic from "@anthropic-ai/sdk";
import { Scheduler } from "./scheduler.js";

export async function runLoop(): Promise<void> {
  const client = new Anthropic();
  const scheduler = new Scheduler();
  for (let i = 0; i < 10; i++) {
    const reply = await client.messages.create({ model: "m", max_tokens: 1, messages: [] });
    for (const block of reply.content as any[]) {
      await scheduler.schedule(block.id, block.input);
    }
  }
}
''',
    "src/scheduler.ts": '''export enum Status {
  Running = "running",
  AwaitingApproval = "awaiting_approval",
}

class StateManager {
  updateStatus(id: string, status: Status, details?: unknown): void {}
}

export class Scheduler {
  private state = new StateManager();
  private status = Status.Running;

  async schedule(id: string, args: unknown): Promise<void> {
    if (this.needsConfirmation(args)) {
      this.state.updateStatus(id, Status.AwaitingApproval, { args });
      return;
    }
    if (this.status === Status.AwaitingApproval) {
      this.state.updateStatus(id, Status.AwaitingApproval);
    }
  }

  private needsConfirmation(args: unknown): boolean {
    return args !== null;
  }
}
''',
}


py, ts = modelled_fixtures(PY_FILES, TS_FILES)


def _states(m):
    return [(f.location.path, f.location.start_line) for f in m.findings()["approval.gate"]
            if f.data.get("how") == "state"]


def test_python_setter_holds_the_action_and_a_transition_inside_a_state_test_does_not(py):
    assert _states(py) == [("held/loop.py", py.line("held/loop.py", "# held"))]


def test_typescript_status_setter_call_holds_the_action(ts):
    assert _states(ts) == [("src/scheduler.ts", ts.line("src/scheduler.ts", "{ args });"))]
