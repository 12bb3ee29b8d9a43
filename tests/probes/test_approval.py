"""approval.* probes: each fires on live agent code and stays silent on the same words elsewhere."""

from __future__ import annotations

import pytest

from .family import family_fixtures, index_findings, line_of, located, near_miss_tests

TOOLS = '''from rich.prompt import Confirm

from agent.registry import registry, tool


@tool(requires_approval=False)
def run_shell(command: str) -> str:
    return command


@tool(requires_approval=True)
def delete_branch(name: str) -> str:
    return name


def fetch_url(url: str) -> str:
    return url


registry.register_tool(fetch_url, requires_approval=True)


def confirm_command(command: str) -> bool:
    answer = input(f"Run this command? {command} [y/N] ")
    return answer.strip().lower() == "y"


def confirm_write(path: str) -> bool:
    return Confirm.ask(f"Allow writing {path}?")


def ask_name() -> str:
    return input("Your name: ")
'''

SETTINGS = '''from pydantic import BaseModel, Field


class ToolSpec(BaseModel):
    name: str
    requires_approval: bool = Field(default=True, description="ask first")
    auto_approve: bool = False


def execute(call, config: dict, needs_approval: bool = False):
    if config.get("auto_run", True):
        return call
    return needs_approval
'''

APPROVALS = '''from pydantic import BaseModel


class ToolApproval(BaseModel):
    tool_name: str
    arguments: dict
    approved_by: str
    decided_at: float


class ApprovalBanner(BaseModel):
    tool_name: str
    message: str
'''

HOOKS = '''import pydantic_ai
from claude_agent_sdk import ClaudeAgentOptions, HookMatcher


agent = pydantic_ai.Agent("openai:gpt-4o", output_type=[str, pydantic_ai.DeferredToolRequests])


async def pre_tool_use(input_data, tool_use_id, context):
    if input_data["tool_name"] == "Bash":
        return {"hookSpecificOutput": {"permissionDecision": "deny"}}
    return {}


OPTIONS = ClaudeAgentOptions(hooks={"PreToolUse": [HookMatcher(hooks=[pre_tool_use])]})
'''

CONFIG = '''import enum
import os


class AutoLevel(enum.Enum):
    LOW = "low"
    HIGH = "high"


DEFAULT_AUTO_LEVEL = AutoLevel.HIGH
APPROVAL_MODE = os.getenv("AGENT_APPROVAL_MODE", "manual")
'''

COMPOSE = """services:
  agent:
    environment:
      AUTONOMY_LEVEL: ${AUTONOMY_LEVEL:-full}
"""

LOOP = '''from agent.settings import execute
from agent.tools import ask_name, confirm_command, confirm_write


class Loop:
    def create_checkpoint(self):
        return dict(self.state)

    def undo(self):
        self.state = self.saved

    def step(self, call, cfg):
        self.create_checkpoint()
        if not confirm_command(call.command):
            return None
        confirm_write(call.path)
        ask_name()
        return execute(call, cfg)


def main(call):
    return Loop().step(call, {})
'''

LIVE = {"agent/tools.py": TOOLS, "agent/settings.py": SETTINGS, "agent/approvals.py": APPROVALS,
        "agent/hooks.py": HOOKS, "agent/config.py": CONFIG, "docker-compose.yml": COMPOSE,
        "agent/loop.py": LOOP}

PROSE = '''"""Approval notes.

    @tool(requires_approval=False)
    def run_shell(command): ...
    answer = input("Run this command? [y/N]")
    DEFAULT_AUTO_LEVEL = AutoLevel.HIGH
    return {"permissionDecision": "deny"}
    raise ApprovalRequired(call)
    self.create_checkpoint()
"""

# @tool(requires_approval=False)
# def execute(call, needs_approval: bool = False): ...
# answer = input("Run this command? [y/N]")
# return {"permissionDecision": "deny"}
# DEFAULT_AUTO_LEVEL = AutoLevel.HIGH
# self.create_checkpoint()


class Notes:
    """A ToolApproval stores tool_name, arguments and approved_by."""

    title: str = "approvals"


def _never_called(call, requires_approval: bool = False):
    """Dead code: nothing references this function."""
    if input("Proceed? [y/N] ") != "y":
        return {"permissionDecision": "deny"}
    create_checkpoint()
    return call


def create_checkpoint():
    return None
'''

DECOYS = {
    "agent/notes.py": PROSE,
    "tests/test_approval.py": TOOLS + SETTINGS + HOOKS + CONFIG + LOOP,
    "tests/approvals.py": APPROVALS,
    "tests/docker-compose.yml": COMPOSE,
    "examples/approval_demo.py": TOOLS + SETTINGS + HOOKS + LOOP,
    "examples/approvals.py": APPROVALS,
    "docs/approval.md": "Use `@tool(requires_approval=False)` and `DEFAULT_AUTO_LEVEL = AutoLevel.HIGH`.\n",
    "docs/.env.example": "APPROVAL_MODE=yolo\n",
    ".env.example": "# AUTONOMY_LEVEL=full\nLOG_LEVEL=info\n",
}

CONSTANTS = '''HELP = "Register tools with @tool(requires_approval=False) and ask input('Proceed? [y/N]')."
HOOK_DOC = "A gate returns DeferredToolRequests or raises ApprovalRequired(call)."
HOOK_JSON = '{"permissionDecision": "deny"}'
'''

APPROVAL_PROBES = ["approval.flag", "approval.registration", "approval.prompt", "approval.record",
                   "approval.hook", "approval.mode", "approval.reversibility"]


live, decoys, constants = family_fixtures(LIVE, DECOYS, {"agent/strings.py": CONSTANTS})
test_no_finding_in_prose_tests_docs_examples_or_dead_code, test_no_finding_in_unused_string_constants = \
    near_miss_tests(APPROVAL_PROBES, constants=True)


def test_flag_fires_on_params_fields_and_lookups(live):
    found = live["approval.flag"]
    assert [(f.location.path, f.location.start_line, f.data["name"], f.data["default"],
             f.data["asks"]) for f in found] == [
        ("agent/settings.py", line_of(SETTINGS, "requires_approval: bool"), "requires_approval",
         "True", True),
        ("agent/settings.py", line_of(SETTINGS, "auto_approve: bool"), "auto_approve", "False",
         True),  # an inverted flag: False means "ask"
        ("agent/settings.py", line_of(SETTINGS, "def execute"), "needs_approval", "False", False),
        ("agent/settings.py", line_of(SETTINGS, 'config.get("auto_run"'), "auto_run", "True",
         False),
    ]


def _registrations(live):
    return [(f.location.path, f.location.start_line, f.data["tool"], f.data["gated"])
            for f in live["approval.registration"]]


def test_registration_fires_on_decorator_and_register_call(live):
    found = _registrations(live)
    for want in [
        ("agent/tools.py", line_of(TOOLS, "def run_shell"), "run_shell", False),
        ("agent/tools.py", line_of(TOOLS, "def delete_branch"), "delete_branch", True),
        ("agent/tools.py", line_of(TOOLS, "registry.register_tool("), "registry.register_tool",
         True),
    ]:
        assert want in found


def test_registration_counts_each_registration_once(live):
    assert _registrations(live) == [
        ("agent/tools.py", line_of(TOOLS, "def run_shell"), "run_shell", False),
        ("agent/tools.py", line_of(TOOLS, "def delete_branch"), "delete_branch", True),
        ("agent/tools.py", line_of(TOOLS, "registry.register_tool("), "registry.register_tool",
         True),
    ]


def test_prompt_fires_on_confirmations_not_plain_input(live):
    found = live["approval.prompt"]
    assert [(f.location.path, f.location.start_line, f.data["func"]) for f in found] == [
        ("agent/tools.py", line_of(TOOLS, "Run this command?"), "confirm_command"),
        ("agent/tools.py", line_of(TOOLS, "Confirm.ask("), "confirm_write"),
    ]  # input("Your name: ") in ask_name asks for no approval


def test_record_fires_on_class_with_tool_args_and_approver(live):
    found = live["approval.record"]
    assert [(f.location.path, f.location.start_line, f.data["cls"]) for f in found] == [
        ("agent/approvals.py", line_of(APPROVALS, "class ToolApproval"), "ToolApproval")]
    # ApprovalBanner has a tool name but no arguments and no approver


def test_hook_fires_on_deferred_requests_and_permission_decision(live):
    assert located(live["approval.hook"]) == [
        ("agent/hooks.py", line_of(HOOKS, "output_type=")),
        ("agent/hooks.py", line_of(HOOKS, '"permissionDecision": "deny"')),
    ]


def test_mode_fires_with_shipped_defaults(live):
    found = live["approval.mode"]
    assert sorted((f.location.path, f.location.start_line, f.data["key"], f.data["value"],
                   f.data["allow_all"]) for f in found) == [
        ("agent/config.py", line_of(CONFIG, "DEFAULT_AUTO_LEVEL ="), "DEFAULT_AUTO_LEVEL",
         "AutoLevel.HIGH", True),
        ("agent/config.py", line_of(CONFIG, "APPROVAL_MODE ="), "AGENT_APPROVAL_MODE", "manual",
         False),
        ("docker-compose.yml", 4, "AUTONOMY_LEVEL", "full", True),
    ]


def test_reversibility_fires_on_called_checkpoint_only(live):
    found = live["approval.reversibility"]
    assert [(f.location.path, f.location.start_line, f.data["fn"]) for f in found] == [
        ("agent/loop.py", line_of(LOOP, "self.create_checkpoint()"), "create_checkpoint")]
    # undo() is defined but never called


def test_mode_confirm_value_is_not_allow_all(repo):
    """A cautious mode value must not be read as "runs everything without asking"."""
    from .helpers import probe_findings

    src = 'import os\n\nAPPROVAL_MODE = os.getenv("AGENT_APPROVAL_MODE", "confirm")\n'
    found = probe_findings(repo, {"agent/config.py": src}, "approval.mode")
    assert [(f.location.start_line, f.data["value"], f.data["allow_all"]) for f in found] == [
        (3, "confirm", False)]


def test_names_that_only_mention_a_mode_are_not_modes(repo):
    """The mode word must end the name: an event name, a rule priority or private state that
    mentions YOLO or approval mode is not the setting."""
    from .helpers import probe_findings

    src = ("import os\n\n"
           'EVENT = os.getenv("EVENT_APPROVAL_MODE_SWITCH", "cli.plan.approval_mode_switch")\n'
           'PRIORITY = os.getenv("PRIORITY_YOLO_ALLOW_ALL", "998")\n'
           'PRIVATE = os.getenv("_APPROVAL_MODE", "yolo")\n'
           'YOLO = os.getenv("AGENT_YOLO_MODE", "off")\n')
    found = probe_findings(repo, {"agent/config.py": src}, "approval.mode")
    assert [(f.location.start_line, f.data["key"]) for f in found] == [(6, "AGENT_YOLO_MODE")]


def test_a_flag_set_from_a_long_expression_is_shown_on_one_short_line():
    from dids.probes.approval import _flag

    f = _flag("agent/models.py", 3, "tool_approvals",
              'mapped_column(\n        JSONB,\n        nullable=True,\n        doc="Tool approval rules for this preset",\n    )',
              "AgentPreset field")
    assert "\n" not in f.claim and 'defaults to mapped_column( JSONB, nullable=True, doc="Tool' in f.claim
    assert f.claim.endswith("so approval is undetermined by default.")


SWITCHES = '''class Session:
    def __init__(self):
        self.trust_mode = False  # where the object is built: a default, not a switch


def cmd_trust(session: Session, args: list[str]) -> None:
    if args and args[0] == "off":
        session.trust_mode = False
    else:
        session.trust_mode = True


def on_event(result) -> None:
    result.approval_requested = True  # the state of one decision, not the switch
'''


def test_approval_switched_while_the_agent_runs(repo):
    from .helpers import probe_findings

    found = probe_findings(repo, {"agent/repl.py": SWITCHES}, "approval.runtime_switch")
    assert [(f.location.start_line, f.data["setting"]) for f in found] == [
        (line_of(SWITCHES, "session.trust_mode = False"), "trust_mode"),
        (line_of(SWITCHES, "session.trust_mode = True"), "trust_mode")]
    assert found[1].claim == ("session.trust_mode is set to True here, in cmd_trust: approval is "
                              "switched while the agent runs.")
