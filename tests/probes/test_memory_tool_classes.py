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


# the loop stores each turn (the reply's thoughts and the tool's output) in a vector memory as it
# runs; a store the loop never reaches (an import script) and a non-store `add_texts` are not it
HANDLER = '''import json


class OutputHandler:
    def __init__(self, memory, splitter):
        self.memory = memory
        self.splitter = splitter

    def add_to_memory(self, reply: str, tool_result: str) -> None:
        text = json.loads(reply)["thoughts"] + tool_result
        self.memory.add_texts(self.splitter.split(text), [{}])

    def handle(self, reply: str, tool_result: str) -> str:
        self.add_to_memory(reply, tool_result)
        return tool_result
'''

LOOP_STORE = '''from openai import OpenAI

from agent.handler import OutputHandler


def run(task, memory, splitter, docs, labels):
    handler = OutputHandler(memory, splitter)
    client = OpenAI()
    while True:
        reply = client.chat.completions.create(model="m", messages=[task])
        handler.handle(reply.choices[0].message.content, "")
        labels.add_texts(["not a store"])
        answer(task, splitter, memory)


def import_docs(store, docs):
    store.add_documents(docs)


def answer(report, splitter, vector_store):
    chunks = splitter.split(report)
    vector_store.add_texts(chunks)
    return vector_store
'''

MAIN_STORE = "import sys\\n\\nfrom agent.loop import run\\n\\nrun(sys.argv[1], None, None, [], None)\\n"


def test_the_loop_storing_each_turn_in_a_vector_memory_is_automatic_extraction(tmp_path_factory):
    m = modelled(tmp_path_factory, {"agent/__init__.py": "", "agent/__main__.py": MAIN_STORE,
                                    "agent/handler.py": HANDLER, "agent/loop.py": LOOP_STORE})
    found = [x for x in m.findings()["memory.extraction"] if x.data.get("how") == "store"]
    assert at(found) == [("agent/handler.py", line_of(HANDLER, "self.memory.add_texts("))]
