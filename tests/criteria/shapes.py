"""Synthetic agent repositories: one weak agent and, per criterion, the same agent with the
mechanism that criterion rewards (or the specific weakness it caps)."""

from __future__ import annotations

REGISTRY = '''def tool(fn=None, **options):
    """Register a function as a model-callable tool."""
    if fn is None:
        return lambda f: f
    return fn
'''

WEAK_TOOLS = '''import os
import subprocess

import boto3
import requests

from agent.registry import tool


@tool
def run_shell(command: str) -> str:
    proc = subprocess.run(command, shell=True, env=os.environ.copy(), capture_output=True, text=True)
    return proc.stdout


@tool
def http_get(url: str) -> str:
    return requests.get(url).text


@tool
def list_buckets() -> list:
    return boto3.client("s3").list_buckets()["Buckets"]
'''

WEAK_LOOP = '''from agent.tools import http_get, list_buckets, run_shell

TOOLS = {"run_shell": run_shell, "http_get": http_get, "list_buckets": list_buckets}


def run(model, task: str) -> str:
    messages = [{"role": "user", "content": task}]
    while True:
        reply = model.complete(messages)
        if not reply.tool_calls:
            return reply.text
        for call in reply.tool_calls:
            result = TOOLS[call.name](**call.arguments)
            messages.append({"role": "tool", "content": str(result)})
'''

MAIN = '''import sys

from agent.loop import run

if __name__ == "__main__":
    print(run(None, sys.argv[1]))
'''

WEAK = {"agent/__init__.py": "", "agent/registry.py": REGISTRY, "agent/tools.py": WEAK_TOOLS,
        "agent/loop.py": WEAK_LOOP, "agent/main.py": MAIN}


def weak(**extra: str) -> dict[str, str]:
    """The weak agent with files added or replaced (keyword names use __ for /)."""
    return {**WEAK, **{k.replace("__", "/") + ".py" if "." not in k else k: v
                       for k, v in extra.items()}}


# ------------------------------------------------------------------------------ C1

C1_AUTH = '''import time

import jwt


def mint_agent_token(agent_id: str, actions: list[str], key: str) -> str:
    claims = {"sub": agent_id, "allowed_actions": actions, "exp": int(time.time()) + 300}
    return jwt.encode(claims, key, algorithm="HS256")


def authorize(claims, action: str) -> None:
    if action not in claims.allowed_actions:
        raise PermissionError(action)


def memories(session, Memory, workspace_id: str):
    return session.query(Memory).where(Memory.workspace_id == workspace_id).all()
'''

C1_DISPATCH = '''from agent.auth import authorize, memories, mint_agent_token
from agent.tools import http_get, list_buckets, run_shell

TOOLS = {"run_shell": run_shell, "http_get": http_get, "list_buckets": list_buckets}


def dispatch(claims, call):
    if call.name not in claims.allowed_tools:
        raise PermissionError(call.name)
    authorize(claims, call.name)
    return TOOLS[call.name](**call.arguments)


def start(agent_id, session, Memory, workspace_id, key):
    return mint_agent_token(agent_id, [], key), memories(session, Memory, workspace_id)
'''

AGENT_CONFIG = '''from pydantic import BaseModel, Field


class AgentConfig(BaseModel):
    name: str
    allowed_tools: list[str] = Field(default_factory=list)
'''

C1_LOOP = '''from agent.dispatch import dispatch, start


def run(model, task: str, claims=None) -> str:
    start("agent-1", None, None, "ws", "key")
    messages = [{"role": "user", "content": task}]
    while True:
        reply = model.complete(messages)
        if not reply.tool_calls:
            return reply.text
        for call in reply.tool_calls:
            messages.append({"role": "tool", "content": str(dispatch(claims, call))})
'''

C1_STRONG = weak(agent__auth=C1_AUTH, agent__dispatch=C1_DISPATCH, agent__config=AGENT_CONFIG,
                 agent__loop=C1_LOOP)

# ------------------------------------------------------------------------------ C2

C2_MODE = '''import enum


class AutoLevel(enum.Enum):
    LOW = "low"
    HIGH = "high"


DEFAULT_AUTO_LEVEL = AutoLevel.HIGH
'''

C2_MODE_LOOP = '''from agent.config import DEFAULT_AUTO_LEVEL, AutoLevel
from agent.tools import http_get, list_buckets, run_shell

TOOLS = {"run_shell": run_shell, "http_get": http_get, "list_buckets": list_buckets}


def confirm(call) -> bool:
    return input(f"Run this command? {call.name} {call.arguments} [y/N] ") == "y"


def run(model, task: str) -> str:
    messages = [{"role": "user", "content": task}]
    while True:
        reply = model.complete(messages)
        if not reply.tool_calls:
            return reply.text
        for call in reply.tool_calls:
            if DEFAULT_AUTO_LEVEL is AutoLevel.LOW and not confirm(call):
                continue
            result = TOOLS[call.name](**call.arguments)
            messages.append({"role": "tool", "content": str(result)})
'''

C2_MODE_OFF = weak(agent__config=C2_MODE, agent__loop=C2_MODE_LOOP)

C2_GATED_TOOLS = WEAK_TOOLS.replace("@tool\n", "@tool(requires_approval=True)\n")

C2_APPROVALS = '''from pydantic import BaseModel, Field


class ToolSpec(BaseModel):
    name: str
    requires_approval: bool = Field(default=True)


class ToolApproval(BaseModel):
    tool_name: str
    arguments: dict
    approved_by: str


class ApprovalRequired(Exception):
    pass
'''

C2_GATED_LOOP = '''from agent.approvals import ApprovalRequired
from agent.tools import http_get, list_buckets, run_shell

TOOLS = {"run_shell": run_shell, "http_get": http_get, "list_buckets": list_buckets}


class Runner:
    def create_checkpoint(self):
        return dict(self.state)

    def execute(self, call, approved: bool):
        if not approved:
            raise ApprovalRequired(call.name)
        self.create_checkpoint()
        return TOOLS[call.name](**call.arguments)


def run(call, approved: bool):
    return Runner().execute(call, approved)
'''

C2_STRONG = weak(agent__tools=C2_GATED_TOOLS, agent__approvals=C2_APPROVALS,
                 agent__loop=C2_GATED_LOOP)

# ------------------------------------------------------------------------------ C3

C3_TOOLS = '''import ipaddress
import socket
from urllib.parse import urlparse

import requests

from agent.registry import tool


def validate_url(url: str) -> str:
    host = urlparse(url).hostname or ""
    if ipaddress.ip_address(socket.gethostbyname(host)).is_private:
        raise ValueError(url)
    return url


@tool
def http_get(url: str) -> str:
    return requests.get(validate_url(url)).text


@tool
def word_count(text: str) -> int:
    return len(text.split())
'''

C3_LOOP = WEAK_LOOP.replace("from agent.tools import http_get, list_buckets, run_shell",
                            "from agent.tools import http_get, word_count").replace(
    'TOOLS = {"run_shell": run_shell, "http_get": http_get, "list_buckets": list_buckets}',
    'TOOLS = {"http_get": http_get, "word_count": word_count}')

C3_STRONG = weak(agent__tools=C3_TOOLS, agent__loop=C3_LOOP, agent__config=AGENT_CONFIG)

# ------------------------------------------------------------------------------ C4

C4_SANDBOX = '''import subprocess

NSJAIL = ["nsjail", "--clone_newnet", "--seccomp_string", "ALLOW", "--user", "65534",
          "--ro_bind", "/usr", "--"]


def run_jailed(command: str) -> str:
    argv = NSJAIL + ["/bin/sh", "-c", command]
    return subprocess.run(argv, env={}, capture_output=True, text=True).stdout
'''

C4_TOOLS = WEAK_TOOLS.replace(
    "    proc = subprocess.run(command, shell=True, env=os.environ.copy(), capture_output=True, "
    "text=True)\n    return proc.stdout\n",
    "    return run_jailed(command)\n").replace(
    "from agent.registry import tool\n", "from agent.registry import tool\nfrom agent.sandbox "
    "import run_jailed\n")

C4_STRONG = weak(agent__sandbox=C4_SANDBOX, agent__tools=C4_TOOLS)

# ------------------------------------------------------------------------------ C5

C5_INGEST = '''def wrap_tool_output(text: str) -> str:
    return "<tool_output>\\n" + text + "\\n</tool_output>"
'''

C5_PAGES = '''def wrap_page(page: str) -> str:
    return "<untrusted_content>\\n" + page + "\\n</untrusted_content>"
'''

C5_GATE = '''from pydantic import BaseModel, Field

DANGEROUS = {"run_shell", "http_get"}


class ToolSpec(BaseModel):
    name: str
    requires_approval: bool = Field(default=True)


class Session:
    def __init__(self):
        self.tainted = False

    def allow(self, tool_name: str) -> bool:
        if self.tainted and tool_name in DANGEROUS:
            return False
        return True
'''

C5_LOOP = '''from agent.gate import Session
from agent.ingest import wrap_tool_output
from agent.pages import wrap_page
from agent.tools import http_get, list_buckets, run_shell

TOOLS = {"run_shell": run_shell, "http_get": http_get, "list_buckets": list_buckets}


def run(model, task: str) -> str:
    session = Session()
    messages = [{"role": "user", "content": wrap_page(task)}]
    while True:
        reply = model.complete(messages)
        if not reply.tool_calls:
            return reply.text
        for call in reply.tool_calls:
            if not session.allow(call.name):
                continue
            result = TOOLS[call.name](**call.arguments)
            session.tainted = True
            messages.append({"role": "tool", "content": wrap_tool_output(str(result))})
'''

C5_STRONG = weak(agent__ingest=C5_INGEST, agent__pages=C5_PAGES, agent__gate=C5_GATE,
                 agent__loop=C5_LOOP)

# ------------------------------------------------------------------------------ C6

C6_MEMORY = '''from pathlib import Path

from agent.registry import tool
from agent.store import memory_store


@tool
def memory_remember(fact: str) -> str:
    memory_store.add(fact)
    return "saved"


def build_system_prompt(user_id: str) -> str:
    return "You are helpful. Facts:\\n" + "\\n".join(memory_store.get_all(user_id))


def project_servers(workspace: Path) -> str:
    return (workspace / ".mcp.json").read_text()
'''

C6_WEAK_LOOP = '''from pathlib import Path

from agent.memory import build_system_prompt, memory_remember, project_servers
from agent.tools import http_get, list_buckets, run_shell

TOOLS = {"run_shell": run_shell, "http_get": http_get, "list_buckets": list_buckets,
         "memory_remember": memory_remember}


def run(model, user_id: str, task: str) -> str:
    servers = project_servers(Path("."))
    messages = [{"role": "system", "content": build_system_prompt(user_id) + servers},
                {"role": "user", "content": task}]
    reply = model.complete(messages)
    for call in reply.tool_calls:
        TOOLS[call.name](**call.arguments)
    return reply.text
'''

C6_WEAK = weak(agent__memory=C6_MEMORY, agent__loop=C6_WEAK_LOOP)

C6_CONFIG_ONLY_LOOP = '''from pathlib import Path

from agent.tools import http_get, list_buckets, run_shell

TOOLS = {"run_shell": run_shell, "http_get": http_get, "list_buckets": list_buckets}


def run(model, task: str) -> str:
    servers = (Path(".") / ".mcp.json").read_text()
    reply = model.complete([{"role": "system", "content": servers}, {"role": "user", "content": task}])
    for call in reply.tool_calls:
        TOOLS[call.name](**call.arguments)
    return reply.text
'''

C6_REPOCONFIG_ONLY = weak(agent__loop=C6_CONFIG_ONLY_LOOP)

C6_STATE = '''import os

from claude_agent_sdk import ClaudeAgentOptions

ENABLE_RLS = os.getenv("ENABLE_RLS", "true")


def options() -> ClaudeAgentOptions:
    return ClaudeAgentOptions(setting_sources=["user"])


def history(session, Message, workspace_id: str):
    return session.query(Message).where(Message.workspace_id == workspace_id).all()
'''

C6_STRONG_LOOP = WEAK_LOOP + '''

def start(session, Message, workspace_id: str):
    return options(), history(session, Message, workspace_id)
'''
C6_STRONG_LOOP = "from agent.state import history, options\n" + C6_STRONG_LOOP

C6_STRONG = weak(agent__state=C6_STATE, agent__loop=C6_STRONG_LOOP)

# ------------------------------------------------------------------------------ C7

C7_WEAK_EXT = '''import os

from mcp import StdioServerParameters
from transformers import AutoModel


def github_server() -> StdioServerParameters:
    return StdioServerParameters(command="npx", args=["@modelcontextprotocol/server-github"],
                                 env={**os.environ})


def load_model(name: str):
    return AutoModel.from_pretrained(name, trust_remote_code=True)
'''

C7_STRONG_EXT = '''from mcp import StdioServerParameters
from pydantic import BaseModel


class ExtensionLock(BaseModel):
    name: str
    version: str
    sha256: str


def verify_release(public_key, signature: bytes, blob: bytes, ec, hashes) -> None:
    public_key.verify(signature, blob, ec.ECDSA(hashes.SHA256()))


def github_server(token: str) -> StdioServerParameters:
    return StdioServerParameters(command="mcp-github", args=[], env={"GITHUB_TOKEN": token})
'''

C7_WEAK_LOOP = "from agent.extensions import github_server, load_model\n" + WEAK_LOOP + '''

def boot(name: str):
    return github_server(), load_model(name)
'''

C7_STRONG_LOOP = "from agent.extensions import github_server, verify_release\n" + WEAK_LOOP + '''

def boot(cfg):
    verify_release(cfg.key, cfg.sig, cfg.blob, cfg.ec, cfg.hashes)
    return github_server(cfg.token)
'''

C7_WEAK = weak(agent__extensions=C7_WEAK_EXT, agent__loop=C7_WEAK_LOOP)

# nothing pinned; the only MCP servers are reached over the network (off-host)
C7_REMOTE_EXT = '''from mcp.client.streamable_http import streamable_http_client


def github_server(url: str):
    return streamable_http_client(url)
'''
C7_REMOTE_LOOP = "from agent.extensions import github_server\n" + WEAK_LOOP + '''

def boot(url: str):
    return github_server(url)
'''
C7_REMOTE = weak(agent__extensions=C7_REMOTE_EXT, agent__loop=C7_REMOTE_LOOP)
# the same, with the server started locally with the agent's whole environment
C7_LOCAL_FULL = weak(agent__extensions=C7_WEAK_EXT.replace(
    "\n\ndef load_model(name: str):\n    return AutoModel.from_pretrained(name, trust_remote_code=True)\n", "\n"),
    agent__loop=C7_REMOTE_LOOP.replace("github_server(url)", "github_server()"))
C7_STRONG = weak(agent__extensions=C7_STRONG_EXT, agent__loop=C7_STRONG_LOOP)

# ------------------------------------------------------------------------------ C8

C8_SECRETS = '''import re

from cryptography.fernet import Fernet


def redact_secrets(text: str) -> str:
    return re.sub(r"(sk|ghp)_[A-Za-z0-9]+", "[REDACTED]", text)


def store_key(key: bytes, value: str) -> bytes:
    return Fernet(key).encrypt(value.encode())
'''

C8_TOOLS = WEAK_TOOLS.replace("env=os.environ.copy()", 'env={"PATH": "/usr/bin"}').replace(
    "    return proc.stdout\n", "    return redact_secrets(proc.stdout)\n").replace(
    "from agent.registry import tool\n",
    "from agent.registry import tool\nfrom agent.secrets import redact_secrets\n")

C8_LOG = '''import logging

from agent.secrets import redact_secrets

logger = logging.getLogger(__name__)


def log_message(text: str) -> None:
    logger.info(redact_secrets(text))
'''

C8_LOOP = ("from agent.logs import log_message\nfrom agent.secrets import redact_secrets, "
           "store_key\n" + WEAK_LOOP.replace(
               'messages.append({"role": "tool", "content": str(result)})',
               'messages.append({"role": "tool", "content": redact_secrets(str(result))})\n'
               "            log_message(str(result))") + '''

def save(key: bytes, value: str) -> bytes:
    return store_key(key, value)
''')

C8_STRONG = weak(agent__secrets=C8_SECRETS, agent__tools=C8_TOOLS, agent__logs=C8_LOG,
                 agent__loop=C8_LOOP)

# ------------------------------------------------------------------------------ C9

C9_JOURNAL_SWALLOW = '''import json
import logging

logger = logging.getLogger(__name__)


class Journal:
    def __init__(self, path: str):
        self.fh = open(path, "a")

    def append_tool_intent(self, tool_name: str, arguments: dict, tool_call_id: str) -> None:
        try:
            self.fh.write(json.dumps({"tool": tool_name, "args": arguments, "id": tool_call_id}))
        except Exception:
            logger.debug("journal write failed", exc_info=True)
'''

C9_JOURNAL_STRONG = '''import hashlib
import json
import os

from pydantic import BaseModel


class ToolApproval(BaseModel):
    tool_name: str
    arguments: dict
    approved_by: str


class Journal:
    def __init__(self, path: str):
        self.fh = open(path, "a")
        self.last_hash = ""

    def append_tool_intent(self, tool_name: str, arguments: dict, tool_call_id: str) -> None:
        line = json.dumps({"tool": tool_name, "args": arguments, "id": tool_call_id})
        prev_hash = self.last_hash
        self.last_hash = hashlib.sha256((prev_hash + line).encode()).hexdigest()
        self.fh.write(line + "\\n")
        os.fsync(self.fh.fileno())
'''

C9_LOOP = "from agent.journal import Journal\n" + WEAK_LOOP.replace(
    "            result = TOOLS[call.name](**call.arguments)\n",
    "            JOURNAL.append_tool_intent(call.name, call.arguments, call.id)\n"
    "            result = TOOLS[call.name](**call.arguments)\n").replace(
    "\n\ndef run(", '\nJOURNAL = Journal("/var/log/agent.jsonl")\n\n\ndef run(')

C9_SWALLOW = weak(agent__journal=C9_JOURNAL_SWALLOW, agent__loop=C9_LOOP)
C9_STRONG = weak(agent__journal=C9_JOURNAL_STRONG, agent__loop=C9_LOOP)

# ----------------------------------------------------------------------------- C10

C10_DECLARED = '''MAX_STEPS = 25
'''

C10_LIMITS = '''MAX_STEPS = 25
MAX_COST_USD = 5.0
'''

C10_TOOLS = WEAK_TOOLS.replace("capture_output=True, text=True)",
                               "capture_output=True, text=True,\n"
                               "                          timeout=60)")

C10_LOOP = '''from agent.limits import MAX_COST_USD, MAX_STEPS
from agent.tools import http_get, list_buckets, run_shell

TOOLS = {"run_shell": run_shell, "http_get": http_get, "list_buckets": list_buckets}


class Run:
    def __init__(self):
        self.task = None
        self.spent = 0.0

    def run(self, model, task: str) -> str:
        messages = [{"role": "user", "content": task}]
        for _ in range(MAX_STEPS):
            reply = model.complete(messages)
            self.spent += reply.cost
            if self.spent > MAX_COST_USD or not reply.tool_calls:
                return reply.text
            for call in reply.tool_calls:
                result = TOOLS[call.name](**call.arguments)
                messages.append({"role": "tool", "content": str(result)})
        return "step limit reached"

    def cancel(self):
        self.task.cancel()
'''

C10_WEAK = weak(agent__limits=C10_DECLARED)
C10_STRONG = weak(agent__limits=C10_LIMITS, agent__tools=C10_TOOLS, agent__loop=C10_LOOP)

# ------------------------------------------------------------------------- decoys

DECOY_NOTES = '''"""Hardening notes.

Commands run under nsjail with seccomp; tools are registered with requires_approval=True;
outputs pass through redact(); claims carry allowed_actions; runs are bounded by UsageLimits
and every call is written to the audit trail.

    argv = ["nsjail", "--clone_newnet", "--seccomp_string", "ALLOW", "--", cmd]
    @tool(requires_approval=True)
    if action not in claims.allowed_actions:
        raise PermissionError(action)
    limits = UsageLimits(request_limit=5)
"""
import subprocess

from pydantic_ai.usage import UsageLimits

# argv = ["nsjail", "--clone_newnet", "--seccomp_string", "ALLOW", "--", cmd]
# @tool(requires_approval=True)
# if action not in claims.allowed_actions: raise PermissionError(action)
# limits = UsageLimits(request_limit=5)
# self.audit.append_tool_call(name, arguments)

SECURITY_SUMMARY = ("nsjail with seccomp, requires_approval=True, redact() on outputs, "
                    "allowed_actions claims, UsageLimits(request_limit=5) and an audit log")


def redact(text: str) -> str:
    return text.replace("sk_", "[REDACTED]")


def append_tool_call(tool_name: str, arguments: dict) -> None:
    return None


def _hardened_run_unused(command, claims, action, secret_text, requires_approval: bool = True):
    """Never called and never referenced."""
    if action not in claims.allowed_actions:
        raise PermissionError(action)
    argv = ["nsjail", "--clone_newnet", "--seccomp_string", "ALLOW", "--user", "65534", "--",
            "/bin/sh", "-c", command]
    limits = UsageLimits(request_limit=5)
    append_tool_call(command, {"argv": argv})
    output = subprocess.run(argv, env={}, timeout=30, capture_output=True, text=True).stdout
    return redact(output + secret_text), limits
'''

DECOY_TOOLS = WEAK_TOOLS.replace(
    "@tool\ndef run_shell(command: str) -> str:\n",
    "# TODO: run under nsjail with seccomp and register with requires_approval=True\n"
    "@tool\ndef run_shell(command: str) -> str:\n"
    '    """Run COMMAND. Planned: nsjail + seccomp, redact() the output, check allowed_actions,\n'
    '    bound the run with UsageLimits and write an audit record."""\n').replace(
    "    return requests.get(url).text\n",
    "    return requests.get(url).text  # if url not in claims.allowed_actions: raise\n")

DECOY_FILES = {
    "agent/tools.py": DECOY_TOOLS,
    "agent/hardening_notes.py": DECOY_NOTES,
    "examples/hardened_agent.py": C1_AUTH + C4_SANDBOX + C5_GATE + C8_SECRETS + C9_JOURNAL_STRONG,
    "examples/gated_tools.py": C2_GATED_TOOLS,
    "tests/test_hardening.py": C1_AUTH + C2_APPROVALS + C4_SANDBOX + C8_SECRETS + C10_LOOP,
    "tests/test_gated_tools.py": C2_GATED_TOOLS,
    "docs/security.md": "We run every command in nsjail with seccomp, require approval "
                        "(`requires_approval=True`), redact secrets, check `allowed_actions`, cap "
                        "runs with `UsageLimits` and keep an audit log.\n",
    "docs/sandbox.py": C4_SANDBOX,
}

WEAK_DECOYED = {**WEAK, **DECOY_FILES}
