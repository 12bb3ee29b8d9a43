"""approval.gate held in a mode's branch: a dispatcher that parks the action in a
WAITING_FOR_PERMISSION state only when the agent's configured permission type is the
"RESTRICTED" one, and a workflow step of that kind that only some workflows contain. Neither is
on the default path: both are the alternative a user picks. The same state set unconditionally
is a default gate; a mode whose shipped value the code fixes is decided by the defaults."""

from __future__ import annotations

import pytest

from .modelled import modelled

LLM = '''import litellm


class LLM:
    def completion(self, messages):
        return litellm.completion(model="m", messages=messages)
'''

HANDLER = '''class Response:
    def __init__(self, status, permission_required=False):
        self.status = status
        self.permission_required = permission_required


class OutputHandler:
    def __init__(self, agent_config, tools):
        self.agent_config = agent_config
        self.tools = tools

    def check_permission(self, reply):
        if self.agent_config["permission_type"].upper() == "RESTRICTED" and reply:
            return Response(status="WAITING_FOR_PERMISSION", permission_required=True)
        return Response(status="PENDING")

    def handle(self, reply):
        response = self.check_permission(reply)
        if response.permission_required:
            return response
        return self.tools[reply["name"]](**reply["args"])


class StepHandler:
    def __init__(self, execution):
        self.execution = execution

    def _create_permission_request(self):
        self.execution.status = "WAITING_FOR_PERMISSION"

    def execute_step(self, step_tool):
        if step_tool.tool_name == "WAIT_FOR_PERMISSION":
            self._create_permission_request()
            return None
        return step_tool.run()
'''

ALWAYS = '''class Always:
    def __init__(self, execution):
        self.execution = execution

    def hold(self, reply):
        self.execution.status = "WAITING_FOR_PERMISSION"
        return reply
'''

LOOP = '''from agent.always import Always
from agent.handler import OutputHandler, StepHandler
from agent.llm import LLM


def run(task, agent_config, tools, execution, step_tool):
    llm = LLM()
    handler = OutputHandler(agent_config, tools)
    for _step in range(10):
        reply = llm.completion([task])
        handler.handle(reply)
        StepHandler(execution).execute_step(step_tool)
        Always(execution).hold(reply)
'''

FILES = {
    "pyproject.toml": '[project]\nname = "agent"\n[project.scripts]\nagent = "agent.loop:run"\n',
    "agent/__init__.py": "", "agent/llm.py": LLM, "agent/handler.py": HANDLER,
    "agent/always.py": ALWAYS, "agent/loop.py": LOOP,
}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def _gates(m):
    return {(f.location.path, f.location.start_line): str(f.data.get("reach"))
            for f in m.findings()["approval.gate"] if f.data.get("how") == "state"}


def test_a_gate_in_a_restricted_modes_branch_is_opt_in(live):
    line = live.line("agent/handler.py", 'status="WAITING_FOR_PERMISSION"')
    assert _gates(live)[("agent/handler.py", line)] == "opt-in:permission_type=RESTRICTED"


def test_a_gate_every_call_reaches_through_a_step_kind_branch_is_opt_in(live):
    line = live.line("agent/handler.py", 'self.execution.status = "WAITING_FOR_PERMISSION"')
    assert _gates(live)[("agent/handler.py", line)] == "opt-in:tool_name=WAIT_FOR_PERMISSION"


def test_the_same_state_set_unconditionally_is_a_default_gate(live):
    line = live.line("agent/always.py", "WAITING_FOR_PERMISSION")
    assert _gates(live)[("agent/always.py", line)] == "default"


def test_a_mode_the_shipped_defaults_fix_is_left_to_the_defaults(tmp_path_factory):
    handler = HANDLER.replace('self.agent_config["permission_type"].upper() == "RESTRICTED"',
                              'PERMISSION_TYPE == "RESTRICTED"').replace(
        "class Response:", 'PERMISSION_TYPE = "RESTRICTED"\n\n\nclass Response:')
    m = modelled(tmp_path_factory, {**FILES, "agent/handler.py": handler})
    line = m.line("agent/handler.py", 'status="WAITING_FOR_PERMISSION"')
    assert _gates(m)[("agent/handler.py", line)] == "default"
