"""memory.model_write on class-based tools (`class MemorySave(Tool)`, loaded by name from a
tools folder): a concrete tool class named for a memory write fires, under the snake-case name
the model calls it by; a tool base class others extend, a memory class that is no tool, and a
tool whose name only reads memory do not."""

from __future__ import annotations

from dids.probes.memory import _snake

from .family import line_of
from .modelled import at, modelled

TOOLS = '''from agent.store import Memory


class Tool:
    def __init__(self, agent, args):
        self.agent, self.args = agent, args

    async def execute(self, **kwargs):
        raise NotImplementedError


class MemoryTool(Tool):
    """A base of the memory tools."""


class MemorySave(MemoryTool):
    async def execute(self, text="", **kwargs):
        await Memory.get(self.agent).insert_text(text)
        return "saved"


class MemoryLoad(MemoryTool):
    async def execute(self, query="", **kwargs):
        return await Memory.get(self.agent).search(query)


class SaveMemory:
    """Not a tool: a store helper that shares the name."""

    def run(self, text):
        return text
'''

STORE = '''class Memory:
    @staticmethod
    def get(agent):
        return Memory()

    async def insert_text(self, text):
        return text

    async def search(self, query):
        return [query]
'''

MAIN = '''import sys

from agent.tools import MemoryLoad, MemorySave


def main():
    for cls in (MemorySave, MemoryLoad):
        print(cls(None, sys.argv))


main()
'''


def test_a_concrete_memory_tool_class_writes_memory(tmp_path_factory):
    m = modelled(tmp_path_factory, {"agent/__init__.py": "", "agent/__main__.py": MAIN,
                                    "agent/tools.py": TOOLS, "agent/store.py": STORE})
    found = m.findings()["memory.model_write"]
    assert at(found) == [("agent/tools.py", line_of(TOOLS, "class MemorySave(MemoryTool)"))]
    assert found[0].claim == "Tool class MemorySave lets the model write memory."


def test_snake_case_names_of_tool_classes():
    assert [_snake(n) for n in ("MemorySave", "SaveMemory", "HTTPFetch", "Memory2Save")] == [
        "memory_save", "save_memory", "httpfetch", "memory2_save"]
