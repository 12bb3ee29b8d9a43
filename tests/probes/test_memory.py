"""memory.* probes: each fires on live agent code and stays silent on the same words elsewhere."""

from __future__ import annotations

import pytest

from .family import family_fixtures, index_findings, line_of, located, near_miss_tests

TOOLS = '''from agent.registry import tool
from agent.store import memory_store


@tool
def memory_remember(fact: str) -> str:
    memory_store.add(fact)
    return "saved"


@tool
def recall_weather(city: str) -> str:
    return city


def remember(fact: str) -> None:
    memory_store.add(fact)
'''

PROMPTS = '''from agent.store import memory_store


def build_system_prompt(user_id: str) -> str:
    facts = memory_store.get_all(user_id)
    return "You are helpful. Known facts:\\n" + "\\n".join(facts)


def assemble(user_id: str, question: str) -> list[dict]:
    notes = memory_store.search(question)
    return [{"role": "system", "content": "\\n".join(notes)}, {"role": "user", "content": question}]


def user_turn(user_id: str, question: str) -> dict:
    notes = memory_store.search(question)
    return {"role": "user", "content": question + "\\n".join(notes)}
'''

SESSION = '''from pathlib import Path

from claude_agent_sdk import ClaudeAgentOptions

from agent.prompts import assemble, build_system_prompt, user_turn
from agent.tools import remember


def extract_memories(transcript: str) -> list[str]:
    return [line for line in transcript.splitlines() if line.startswith("FACT")]


def end_session(user_id: str, transcript: str) -> None:
    for fact in extract_memories(transcript):
        remember(fact)


def start(user_id: str, workspace: Path, question: str):
    servers = (workspace / ".mcp.json").read_text()
    project = ClaudeAgentOptions(setting_sources=["project"])
    operator = ClaudeAgentOptions(setting_sources=["user"])
    return (build_system_prompt(user_id), assemble(user_id, question), user_turn(user_id, question),
            servers, project, operator)
'''

SETTINGS = '''import os

ENABLE_RLS = os.getenv("ENABLE_RLS", "false")
'''

COMPOSE = """services:
  db:
    environment:
      DB_ROW_LEVEL_SECURITY: ${DB_ROW_LEVEL_SECURITY:-on}
"""

MAIN = '''from pathlib import Path

from agent.session import end_session, start


def chat(user_id: str, question: str) -> None:
    start(user_id, Path("."), question)
    end_session(user_id, question)
'''

LIVE = {"agent/tools.py": TOOLS, "agent/prompts.py": PROMPTS, "agent/session.py": SESSION,
        "agent/settings.py": SETTINGS, "docker-compose.yml": COMPOSE, "agent/main.py": MAIN}

PROSE = '''"""Memory notes.

    @tool
    def memory_remember(fact): ...
    facts = memory_store.get_all(user_id)  # into the system prompt
    for fact in extract_memories(transcript): ...
    servers = (workspace / ".mcp.json").read_text()
    ClaudeAgentOptions(setting_sources=["project"])
    ClaudeAgentOptions(setting_sources=["user"])
"""

# @tool
# def memory_remember(fact: str): ...
# servers = (workspace / ".mcp.json").read_text()
# options = ClaudeAgentOptions(setting_sources=["project"])
# options = ClaudeAgentOptions(setting_sources=["user"])
# ENABLE_RLS = os.getenv("ENABLE_RLS", "false")


def extract_memories(transcript):
    return transcript.split()


def _never_called(workspace, transcript, memory_store, ClaudeAgentOptions):
    """Dead code: nothing references this function."""
    extract_memories(transcript)
    servers = (workspace / ".mcp.json").read_text()
    system_prompt = "\\n".join(memory_store.get_all())
    return servers, system_prompt, ClaudeAgentOptions(setting_sources=["project"])
'''

DECOYS = {
    "agent/notes.py": PROSE,
    "tests/test_memory.py": TOOLS + PROMPTS + SESSION + SETTINGS,
    "tests/docker-compose.yml": COMPOSE,
    "examples/memory_demo.py": TOOLS + PROMPTS + SESSION,
    "docs/memory.md": 'Project servers live in ".mcp.json"; use `setting_sources=["project"]`.\n',
    "docs/.env.example": "ENABLE_RLS=false\n",
}

CONSTANTS = '''MCP_FILE = ".mcp.json"
SOURCES_DOC = 'Never pass setting_sources=["project"] to the SDK.'
'''

MEMORY_PROBES = ["memory.model_write", "memory.extraction", "memory.inject", "memory.repo_config",
                 "memory.config_scope", "memory.rls"]


live, decoys, constants = family_fixtures(LIVE, DECOYS, {"agent/strings.py": CONSTANTS})
test_no_finding_in_prose_tests_docs_examples_or_dead_code, test_no_finding_in_unused_string_constants = \
    near_miss_tests(MEMORY_PROBES, constants=True)


def test_model_write_fires_on_memory_tool_only(live):
    found = live["memory.model_write"]
    assert [(f.location.path, f.location.start_line, f.data["tool"]) for f in found] == [
        ("agent/tools.py", line_of(TOOLS, "def memory_remember"), "memory_remember")]
    # recall_weather is no memory tool; remember() is a plain function, not a tool


def test_extraction_fires_on_called_extractor(live):
    assert located(live["memory.extraction"]) == [
        ("agent/session.py", line_of(SESSION, "in extract_memories(transcript)"))]


def test_inject_fires_on_prompt_builders_reading_memory(live):
    found = live["memory.inject"]
    assert [(f.location.path, f.location.start_line, f.data["fn"]) for f in found] == [
        ("agent/prompts.py", line_of(PROMPTS, "def build_system_prompt"), "build_system_prompt"),
        ("agent/prompts.py", line_of(PROMPTS, "def assemble"), "assemble"),
    ]  # user_turn reads memory into a user message, not the system context


def test_repo_config_fires_on_project_files_and_project_setting_sources(live):
    assert located(live["memory.repo_config"]) == [
        ("agent/session.py", line_of(SESSION, '".mcp.json"')),
        ("agent/session.py", line_of(SESSION, 'setting_sources=["project"]')),
    ]
    # each claim says what its line names (the file, or the project's settings), true of it
    assert [f.claim for f in live["memory.repo_config"]] == [
        "Agent configuration is loaded from the project file .mcp.json, named here.",
        "Agent configuration is loaded from the project's own settings (setting_sources), named here."]


def test_config_scope_fires_on_user_only_setting_sources(live):
    assert located(live["memory.config_scope"]) == [
        ("agent/session.py", line_of(SESSION, 'setting_sources=["user"]'))]


def test_rls_fires_with_shipped_defaults(live):
    found = live["memory.rls"]
    assert sorted((f.location.path, f.location.start_line, f.data["on"]) for f in found) == [
        ("agent/settings.py", line_of(SETTINGS, "ENABLE_RLS ="), False),
        ("docker-compose.yml", 4, True),
    ]


RESETS = '''from openai import OpenAI


class Agent:
    def __init__(self):
        self.client = OpenAI()
        self.memory = []
        self.cache = {}

    def run(self, task: str, reset: bool = True):
        if reset:
            self.memory.clear()
        self.cache.clear()  # a cache, not what the model remembers
        while True:
            reply = self.client.chat.completions.create(model="m", messages=self.memory + [task])
            self.memory.append(reply)
            if not reply.choices[0].message.tool_calls:
                return reply


def main():
    Agent().run("hello")


def unused_reset(agent):
    agent.memory.clear()  # nothing the agent loop reaches calls this
'''


def test_memory_cleared_where_the_run_starts(tmp_path_factory):
    from .modelled import modelled

    m = modelled(tmp_path_factory, {"bot/__init__.py": "", "bot/agent.py": RESETS,
                                    "bot/__main__.py": "from bot.agent import main\n\nmain()\n"})
    found = m.findings()["memory.reset"]
    assert [(f.location.start_line, f.claim) for f in found] == [
        (line_of(RESETS, "            self.memory.clear()"),
         "self.memory.clear() clears the agent's memory when `reset`.")]
