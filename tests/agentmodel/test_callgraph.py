"""The call graph (dids.agent.callgraph): PyCG-like resolution over parse facts.

Each test builds a few in-memory modules and asserts the edges resolution must produce (and the
ones it must not): a broken rule drops or misdirects an edge and the test fails.
"""

from __future__ import annotations

import pytest

from dids.agent.callgraph import MODULE

from .graphs import edge_lines, edges, graph_of


# ----------------------------------------------------------------------------- imports

def test_import_of_a_reexport_through_package_init_resolves_to_the_defining_class():
    g = graph_of({
        "src/pkg/__init__.py": "from .core.engine import Engine\n",
        "src/pkg/core/__init__.py": "",
        "src/pkg/core/engine.py": """
            class Engine:
                def start(self):
                    return 1
            """,
        "app.py": """
            from pkg import Engine

            def main():
                e = Engine()
                e.start()
            """,
    })
    assert ("src/pkg/core/engine.py::Engine", "ctor") in edges(g, "app.py::main")
    assert ("src/pkg/core/engine.py::Engine.start", "local") in edges(g, "app.py::main")
    # the dotted name a user would type resolves the same way
    assert g.resolve("pkg.Engine") == "src/pkg/core/engine.py::Engine"
    assert g.resolve("Engine", "app.py") == "src/pkg/core/engine.py::Engine"
    # src/ layout: the module is `pkg.core.engine`, and importing it runs its packages' __init__
    assert g.modules.module_of("src/pkg/core/engine.py") == "pkg.core.engine"
    assert ("src/pkg/core/__init__.py::<module>", "package") in \
        edges(g, f"src/pkg/core/engine.py::{MODULE}")


def test_star_import_chain_resolves_names_to_their_definition():
    g = graph_of({
        "pkg/__init__.py": "",
        "pkg/helpers.py": "def helper():\n    return 1\n",
        "pkg/everything.py": "from .helpers import *\n",
        "main.py": """
            from pkg.everything import helper
            from pkg.everything import *

            def one():
                return helper()
            """,
    })
    assert edges(g, "main.py::one") == {("pkg/helpers.py::helper", "call")}


def test_relative_imports_climb_one_package_per_extra_dot():
    g = graph_of({
        "pkg/__init__.py": "",
        "pkg/util.py": "def fmt():\n    return ''\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/deep.py": """
            from ..util import fmt
            from . import sibling

            def go():
                fmt()
                sibling.ping()
            """,
        "pkg/sub/sibling.py": "def ping():\n    return 1\n",
    })
    assert edges(g, "pkg/sub/deep.py::go") == {("pkg/util.py::fmt", "call"),
                                               ("pkg/sub/sibling.py::ping", "call")}
    assert g.modules.absolute("..util", "pkg/sub/deep.py") == "pkg.util"
    assert g.modules.absolute(".", "pkg/sub/__init__.py") == "pkg.sub"


def test_reexport_cycle_resolves_to_nothing_instead_of_looping():
    g = graph_of({
        "a.py": "from b import thing\n",
        "b.py": "from a import thing\n",
        "main.py": "from a import thing\n\ndef f():\n    thing()\n",
    })
    assert edges(g, "main.py::f") == set()
    assert ("main.py::f", "a.thing", 4) in g.unresolved  # callee as imported (cf. requests.get)


# ------------------------------------------------------------------ self / cls / super

HIERARCHY = {
    "agent.py": """
        class Base:
            def setup(self):
                return 0

            def helper(self):
                return 1


        class Child(Base):
            def setup(self):
                super().setup()
                return 2

            def go(self):
                self.setup()
                self.helper()

            @classmethod
            def make(cls):
                return cls.build()

            @classmethod
            def build(cls):
                return cls()


        class GrandChild(Child):
            def setup(self):
                return 3


        class Other(Base):
            def helper(self):
                return 4
        """,
}


@pytest.fixture(scope="module")
def hierarchy():
    return graph_of(HIERARCHY)


def test_self_calls_resolve_along_the_class_hierarchy(hierarchy):
    assert edges(hierarchy, "agent.py::Child.go") == {("agent.py::Child.setup", "self"),
                                                      ("agent.py::Base.helper", "self")}


def test_super_skips_the_own_class(hierarchy):
    assert edges(hierarchy, "agent.py::Child.setup") == {("agent.py::Base.setup", "super")}


def test_cls_calls_resolve_to_classmethods(hierarchy):
    assert ("agent.py::Child.build", "self") in edges(hierarchy, "agent.py::Child.make")


def test_overrides_are_the_same_name_in_every_subclass_depth(hierarchy):
    assert sorted(hierarchy.overrides("agent.py::Base.setup")) == [
        "agent.py::Child.setup", "agent.py::GrandChild.setup"]
    assert hierarchy.overrides("agent.py::Base.helper") == ["agent.py::Other.helper"]
    assert hierarchy.overrides("agent.py::GrandChild.setup") == []
    assert hierarchy.mro("agent.py::GrandChild") == ["agent.py::GrandChild", "agent.py::Child",
                                                     "agent.py::Base"]


def test_node_at_is_the_innermost_definition(hierarchy):
    src = HIERARCHY["agent.py"]
    from .graphs import dedent

    lines = dedent(src).lstrip("\n").splitlines()
    at = next(i for i, t in enumerate(lines, 1) if "super().setup()" in t)
    assert hierarchy.node_at("agent.py", at) == "agent.py::Child.setup"
    cls_line = next(i for i, t in enumerate(lines, 1) if t.startswith("class Child"))
    assert hierarchy.node_at("agent.py", cls_line) == "agent.py::Child"
    assert hierarchy.node_at("agent.py", 7) == f"agent.py::{MODULE}"  # blank line between classes


# ------------------------------------------------------------------ attribute types

ATTRS = {
    "svc/__init__.py": "",
    "svc/parts.py": """
        class Database:
            def query(self, q):
                return q


        class LLM:
            def completion(self, messages):
                return messages


        class Store:
            def get(self, key):
                return key


        class Executor:
            def __call__(self, code):
                return code


        class Client:
            def send(self, data):
                return data


        def make_llm() -> LLM:
            return LLM()
        """,
    "svc/agent.py": """
        from svc.parts import LLM, Client, Database, Executor, Store, make_llm


        class Agent:
            llm: LLM

            def __init__(self, store: Store, llm=None):
                self.db = Database()
                self.llm = llm
                self.store = store
                self.fast = llm or make_llm()
                self.executor = self.make_executor()

            def make_executor(self) -> Executor:
                return Executor()

            def step(self, code):
                self.db.query("select 1")
                self.llm.completion([])
                self.store.get("k")
                self.fast.completion([])
                return self.executor(code)


        def send_all(client: Client, items):
            for item in items:
                client.send(item)


        def local_ctor():
            db = Database()
            return db.query("q")
        """,
}


@pytest.fixture(scope="module")
def attrs():
    return graph_of(ATTRS)


def test_attribute_typed_by_constructor_assignment(attrs):
    assert ("svc/parts.py::Database.query", "attr") in edges(attrs, "svc/agent.py::Agent.step")


def test_attribute_typed_by_class_body_annotation(attrs):
    # `self.llm = llm` (an untyped parameter) leaves the class annotation `llm: LLM` to type it
    assert ("svc/parts.py::LLM.completion", "attr") in edges(attrs, "svc/agent.py::Agent.step")


def test_attribute_typed_by_the_annotation_of_the_parameter_it_is_bound_from(attrs):
    assert ("svc/parts.py::Store.get", "attr") in edges(attrs, "svc/agent.py::Agent.step")


def test_attribute_typed_by_return_annotations_and_or_fallbacks(attrs):
    step = edges(attrs, "svc/agent.py::Agent.step")
    # self.executor = self.make_executor() -> Executor; calling it runs Executor.__call__
    assert ("svc/parts.py::Executor.__call__", "attr") in step
    # `llm or make_llm()`: the side that names a class-returning function types it
    lines = edge_lines(attrs, "svc/agent.py::Agent.step", "svc/parts.py::LLM.completion")
    assert len(lines) == 2  # self.llm.completion and self.fast.completion


def test_locals_typed_by_constructor_or_parameter_annotation(attrs):
    assert edges(attrs, "svc/agent.py::send_all") == {("svc/parts.py::Client.send", "local")}
    assert ("svc/parts.py::Database.query", "local") in edges(attrs, "svc/agent.py::local_ctor")


def test_module_singletons_resolve_in_their_module_and_where_imported():
    # `agent = Agent()` at module level, used by a route handler, is PyCG's assignment-based
    # case; a function binding the same name itself (a parameter) is not the singleton
    g = graph_of({
        "svc/__init__.py": "",
        "svc/core.py": """
            class Agent:
                def run(self, task):
                    return task


            class Store:
                def save(self, x):
                    return x


            agent = Agent()
            store: Store


            def handle(task):
                store.save(task)
                return agent.run(task)


            def shadowed(agent):
                return agent.run("x")
            """,
        "svc/api.py": """
            from svc.core import agent


            def route(task):
                return agent.run(task)
            """,
    })
    assert edges(g, "svc/core.py::handle") == {("svc/core.py::Store.save", "local"),
                                               ("svc/core.py::Agent.run", "local")}
    assert edges(g, "svc/api.py::route") == {("svc/core.py::Agent.run", "local")}
    assert edges(g, "svc/core.py::shadowed") == set()


def test_calls_on_receivers_of_unknown_class_are_kept_unresolved_not_guessed():
    g = graph_of({
        "m.py": """
            import requests


            class Tool:
                def forward(self):
                    return 1


            def run(tools, name):
                tools[name].forward()
                return requests.get("https://example.invalid")
            """,
    })
    assert edges(g, "m.py::run") == set()
    unresolved = {(caller, callee) for caller, callee, _ in g.unresolved}
    assert ("m.py::run", "requests.get") in unresolved
    assert "forward" in g.called_names["m.py::run"]  # a live Tool's forward is reachable by name


# ------------------------------------------------------------------ references

REFS = {
    "app/__init__.py": "",
    "app/handlers.py": """
        import threading

        import typer

        cli = typer.Typer()


        def on_start(x):
            return x


        def on_stop(x):
            return x


        def worker():
            return 0


        HANDLERS = {"start": on_start, "stop": on_stop}
        PIPELINE = [on_start, on_stop]


        def dispatch(name, payload):
            return HANDLERS[name](payload)


        def spawn():
            threading.Thread(target=worker).start()


        @cli.command()
        def serve():
            return 1


        @property
        def not_registered():
            return 2


        class NewName:
            pass


        OldName = NewName
        PLUGIN = "app.handlers.NewName"


        def make_old():
            return OldName()
        """,
    "app/other.py": """
        from app.handlers import HANDLERS


        def route(kind, payload):
            return HANDLERS[kind](payload)
        """,
}


@pytest.fixture(scope="module")
def refs():
    return graph_of(REFS)


def test_dict_registry_dispatch_reaches_every_entry_with_its_key(refs):
    want = {("app/handlers.py::on_start", "registry:HANDLERS:start"),
            ("app/handlers.py::on_stop", "registry:HANDLERS:stop")}
    assert edges(refs, "app/handlers.py::dispatch") == want
    assert edges(refs, "app/other.py::route") == want  # a registry imported from another module
    assert refs.registries[("app/handlers.py", "HANDLERS")] == [
        ("start", "app/handlers.py::on_start"), ("stop", "app/handlers.py::on_stop")]


def test_module_level_lists_and_callbacks_are_references(refs):
    mod = edges(refs, f"app/handlers.py::{MODULE}")
    assert ("app/handlers.py::on_start", "ref") in mod and ("app/handlers.py::on_stop", "ref") in mod
    assert ("app/handlers.py::worker", "ref") in edges(refs, "app/handlers.py::spawn")


def test_registering_decorators_are_edges_and_trivial_ones_are_not(refs):
    mod = edges(refs, f"app/handlers.py::{MODULE}")
    assert ("app/handlers.py::serve", "decorator") in mod
    assert ("app/handlers.py::not_registered", "decorator") not in mod


def test_dotted_strings_reach_their_target(refs):
    assert ("app/handlers.py::NewName", "ref") in edges(refs, f"app/handlers.py::{MODULE}")


def test_alias_defined_in_an_earlier_module_reaches_its_target():
    g = graph_of({"a.py": "class NewName:\n    pass\n\n\nOldName = NewName\n",
                  "use.py": "from a import OldName\n\n\ndef f():\n    return OldName()\n"})
    assert edges(g, "use.py::f") == {("a.py::NewName", "ctor")}


def test_alias_used_in_its_own_module_reaches_its_target(refs):
    assert ("app/handlers.py::NewName", "ctor") in edges(refs, "app/handlers.py::make_old")


def test_alias_reaches_its_target_whatever_the_order_modules_are_walked_in():
    g = graph_of({"use.py": "from a import OldName\n\n\ndef f():\n    return OldName()\n",
                  "a.py": "class NewName:\n    pass\n\n\nOldName = NewName\n"})
    assert edges(g, "use.py::f") == {("a.py::NewName", "ctor")}


def test_an_attribute_typed_in_a_base_class_file_walked_later_types_the_subclass_call():
    # the subclass's file is walked first (dict order); the base's `self.llm = LLM()` must be
    # known when its call is resolved, as it is when the files come the other way round
    files = {
        "agent/a_coder.py": """
            from agent.z_base import Base


            class Coder(Base):
                def step(self):
                    return self.llm.chat("hi")
            """,
        "agent/z_base.py": """
            from agent.llm import LLM


            class Base:
                def __init__(self):
                    self.llm = LLM()
            """,
        "agent/llm.py": "class LLM:\n    def chat(self, text):\n        return text\n",
    }
    for order in (files, dict(reversed(list(files.items())))):
        g = graph_of(order)
        assert ("agent/llm.py::LLM.chat", "attr") in edges(g, "agent/a_coder.py::Coder.step")


def test_dynamic_plugin_scan_imports_every_module_of_the_package():
    g = graph_of({
        "host/__init__.py": "",
        "host/loader.py": """
            import importlib

            from host import plugins


            def load(name):
                return importlib.import_module(f"{plugins.__name__}.{name}")
            """,
        "host/plugins/__init__.py": "",
        "host/plugins/alpha.py": "def run():\n    return 1\n",
        "host/plugins/beta.py": "def run():\n    return 2\n",
        "host/other.py": "def unrelated():\n    return 3\n",
    })
    got = {d for d, how in edges(g, "host/loader.py::load") if how == "import"}
    assert got == {"host/plugins/alpha.py::<module>", "host/plugins/beta.py::<module>"}


def test_nested_function_lives_with_its_parent_and_is_called_by_plain_name():
    g = graph_of({"m.py": """
        def outer():
            def inner():
                return 1
            return inner()
        """})
    assert edges(g, "m.py::outer") >= {("m.py::outer.inner", "nested"), ("m.py::outer.inner", "call")}


# ------------------------------------------------------------------ reach()

REACH = {
    "r/__init__.py": "",
    "r/core.py": """
        from langchain.tools import BaseTool


        class Runner:
            def __init__(self):
                self.n = 0

            def run(self):
                return self.step()

            def step(self):
                return helper()

            def unused(self):
                return 0


        class ShellTool(BaseTool):
            def _run(self, cmd):
                return cmd


        def helper():
            return other()


        def other():
            return 1


        def setup_command():
            return other()


        def main():
            r = Runner()
            tools = [ShellTool()]
            return r, tools
        """,
}


@pytest.fixture(scope="module")
def reach_graph():
    return graph_of(REACH)


def test_reach_distances_follow_calls_and_dunder_methods(reach_graph):
    dist, parent = reach_graph.reach(["r/core.py::main"])
    assert dist["r/core.py::main"] == 0
    assert dist["r/core.py::Runner"] == 1
    assert dist["r/core.py::Runner.__init__"] == 2  # a dunder of a reached class
    assert "r/core.py::Runner.run" not in dist  # nobody calls run: an instance's method waits
    assert "r/core.py::setup_command" not in dist
    assert parent["r/core.py::Runner"] == ("r/core.py::main", parent["r/core.py::Runner"][1], "ctor")


def test_reach_with_names_called_from_outside_releases_waiting_methods(reach_graph):
    dist, parent = reach_graph.reach(["r/core.py::main"], calls={"run"})
    assert dist["r/core.py::Runner.run"] == 2
    assert parent["r/core.py::Runner.run"][2] == "member"  # named before the class was reached
    assert dist["r/core.py::Runner.step"] == 3 and dist["r/core.py::helper"] == 4
    assert "r/core.py::Runner.unused" not in dist


def test_reach_enters_every_method_of_a_class_extending_an_outside_framework(reach_graph):
    assert reach_graph.extends_external("r/core.py::ShellTool")
    assert not reach_graph.extends_external("r/core.py::Runner")
    dist, _ = reach_graph.reach(["r/core.py::main"])
    assert "r/core.py::ShellTool._run" in dist  # the framework calls _run, not the repository


def test_reach_excludes_and_follow_prune_edges(reach_graph):
    dist, _ = reach_graph.reach(["r/core.py::main", "r/core.py::setup_command"],
                                exclude={"r/core.py::setup_command"})
    assert "r/core.py::setup_command" not in dist and "r/core.py::other" not in dist
    dist, _ = reach_graph.reach(["r/core.py::main"], calls={"run"},
                                follow=lambda src, line, how: src != "r/core.py::helper")
    assert "r/core.py::helper" in dist and "r/core.py::other" not in dist


def test_reached_code_runs_its_module_top_level(reach_graph):
    dist, parent = reach_graph.reach(["r/core.py::helper"])
    assert dist[f"r/core.py::{MODULE}"] == 1
    assert parent[f"r/core.py::{MODULE}"][2] == "module"


GUARDED = {"m.py": """
    class Agent:
        def run(self, flag):
            if flag:
                self.extra()
            return 1

        def extra(self):
            return 2


    def main():
        a = Agent()
        a.run(False)
    """}


def _skip_guarded(src, line, how):
    return not (src == "m.py::Agent.run" and line == 4)


def test_follow_prunes_a_resolved_method_call_edge():
    g = graph_of(GUARDED)
    assert ("m.py::Agent.extra", "self") in edges(g, "m.py::Agent.run")
    dist, _ = g.reach(["m.py::main"])
    assert "m.py::Agent.extra" in dist


def test_a_method_called_only_behind_a_pruned_edge_is_not_reached():
    g = graph_of(GUARDED)
    dist, _ = g.reach(["m.py::main"], follow=_skip_guarded)
    assert "m.py::Agent.run" in dist
    assert "m.py::Agent.extra" not in dist


def test_imports_below_a_sys_path_edit_resolve_in_that_tree():
    # `backend/server/app.py` puts `backend/` on sys.path at import time, so `server.ws` and
    # `utils` there are backend's modules; a runtime edit inside a function opens nothing, a
    # file named after the library it wraps is not that library, and a dotted name in code
    # (`tool.name` on a local) is never taken for a module
    g = graph_of({
        "backend/__init__.py": "",
        "backend/utils.py": "def write_pdf(x):\n    return x\n",
        "backend/server/__init__.py": "",
        "backend/server/ws.py": "def run_agent(task):\n    return task\n",
        "backend/server/tool.py": "def name():\n    return 1\n",
        "backend/server/app.py": """
            import os
            import sys

            sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))

            from server.ws import run_agent
            from utils import write_pdf


            def route(task, tool):
                tool.name()
                return write_pdf(run_agent(task))
            """,
        "lib/pkg/__init__.py": "",
        "lib/pkg/redis/__init__.py": "",
        "lib/pkg/redis/client.py": """
            import sys

            from redis.asyncio import Redis


            def connect(path):
                sys.path.append(path)
                return Redis()
            """,
        "lib/pkg/redis/asyncio.py": "class Redis:\n    pass\n",
        "lib/pkg/slack/__init__.py": "",
        "lib/pkg/slack/slack_sdk.py": """
            import sys

            sys.path.insert(0, ".")

            from slack_sdk import WebClient


            def post():
                return WebClient()
            """,
    })
    assert edges(g, "backend/server/app.py::route") == {
        ("backend/server/ws.py::run_agent", "call"), ("backend/utils.py::write_pdf", "call")}
    assert edges(g, "lib/pkg/redis/client.py::connect") == set()  # the redis library
    assert edges(g, "lib/pkg/slack/slack_sdk.py::post") == set()  # the slack_sdk library


def test_a_factory_parameter_runs_its_default_class():
    # `handler=LiteLLMHandler` then `self.h = handler()`: the default is what is built and
    # called; a parameter defaulting to None or a string builds nothing known
    g = graph_of({
        "bot/handlers.py": """
            class LiteLLMHandler:
                def chat(self, prompt):
                    return prompt
            """,
        "bot/reviewer.py": """
            from bot.handlers import LiteLLMHandler


            class Reviewer:
                def __init__(self, handler=LiteLLMHandler, other=None, name="LiteLLMHandler"):
                    self.h = handler()
                    self.o = other()
                    self.n = name()

                def run(self):
                    self.h.chat("x")
                    self.o.chat("y")
            """,
    })
    init = edges(g, "bot/reviewer.py::Reviewer.__init__")
    assert init == {("bot/handlers.py::LiteLLMHandler", "ctor")}
    run_lines = edge_lines(g, "bot/reviewer.py::Reviewer.run", "bot/handlers.py::LiteLLMHandler.chat")
    assert len(run_lines) == 1  # self.h.chat only: self.o has no known class


def test_an_instance_dispatch_table_reaches_the_methods_and_functions_it_holds():
    g = graph_of({
        "agent.py": """
            from tools import read_file


            class Agent:
                def __init__(self):
                    self.handlers = {
                        "bash": self.run_bash,  # self.unlisted was the old handler
                        "read": read_file,
                        "name": "bash",
                    }

                def run_bash(self, command):
                    return command

                def unlisted(self):
                    return 0

                def step(self, call):
                    return self.handlers[call.name](call.arguments)

                def step_local(self, call):
                    handler = self.handlers.get(call.name)
                    return handler(call.arguments)


            class Careful(Agent):
                def run_bash(self, command):
                    return None

                def act(self, call):
                    return self.handlers[call.name](call.arguments)
            """,
        "tools.py": """
            def read_file(path):
                return path
            """,
    })
    table = {("agent.py::Agent.run_bash", "table"), ("tools.py::read_file", "table")}
    assert {e for e in edges(g, "agent.py::Agent.step") if e[1] == "table"} == table
    assert {e for e in edges(g, "agent.py::Agent.step_local") if e[1] == "table"} == table
    # looked up on the receiver's class: the subclass's override is the entry it runs
    assert {e for e in edges(g, "agent.py::Careful.act") if e[1] == "table"} == {
        ("agent.py::Careful.run_bash", "table"), ("tools.py::read_file", "table")}


RESPONDERS = {
    "bot/agent.py": """
        class Agent:
            def responders(self):
                return [("agent", self.agent_response), ("llm", self.llm_response)]

            def labels(self):
                return [("agent", "self.agent_response"), ("llm", self.llm_response())]

            def agent_response(self, msg):
                return msg

            def llm_response(self, msg):
                return msg


        class ChatAgent(Agent):
            def llm_response(self, msg):
                return msg.upper()
        """,
    "bot/task.py": """
        from bot.agent import Agent


        class Task:
            def __init__(self, agent: Agent):
                pairs = agent.responders()
                self.table = dict(pairs)
                self.names = dict(agent.labels())

            def step(self, entity, msg):
                fn = self.table[entity]
                return fn(msg)

            def label(self, entity, msg):
                return self.names[entity](msg)
        """,
}


def test_a_table_built_from_a_method_that_returns_bound_methods_reaches_them():
    # `self.table = dict(pairs)`, `pairs = agent.responders()`, and responders() returns
    # `self.llm_response`: the table holds the receiver class's methods, overrides included
    g = graph_of(RESPONDERS)
    assert {e for e in edges(g, "bot/task.py::Task.step") if e[1] == "table"} == {
        ("bot/agent.py::Agent.agent_response", "table"), ("bot/agent.py::Agent.llm_response", "table")}
    assert {"agent_response", "llm_response"} <= g.called_names["bot/task.py::Task.step"]


def test_a_returned_string_or_method_call_puts_no_method_in_the_table():
    # labels() returns a string naming a method and the result of calling one: neither is a
    # method the table holds
    g = graph_of(RESPONDERS)
    assert not {e for e in edges(g, "bot/task.py::Task.label") if e[1] == "table"}


def test_a_closure_sees_its_enclosing_functions_typed_parameters():
    """`def _call(): return provider.call_model(x)` inside `invoke(provider: Provider, x)`: the
    closure calls the annotated class's method; a closure that takes its own `provider`
    parameter (untyped) does not inherit the outer type."""
    g = graph_of({
        "pkg/base.py": """
            class Provider:
                def call_model(self, x):
                    raise NotImplementedError
            """,
        "pkg/run.py": """
            from pkg.base import Provider


            def invoke(provider: Provider, x):
                def _call():
                    return provider.call_model(x)

                def _shadow(provider):
                    return provider.call_model(x)

                return _call(), _shadow(None)
            """,
    })
    target = "pkg/base.py::Provider.call_model"
    assert target in {dst for dst, _how in edges(g, "pkg/run.py::invoke._call")}
    assert target not in {dst for dst, _how in edges(g, "pkg/run.py::invoke._shadow")}


def test_a_chain_of_typed_attributes_reaches_the_method_of_the_last_one():
    """`self.state.flag.step()`: the tracker's `state` is a State (a constructor in __init__),
    whose class declares `flag: IterationFlag`; the call reaches IterationFlag.step. A link
    whose type is unknown stops the chain (no guess)."""
    g = graph_of({
        "flags.py": """
            class IterationFlag:
                def step(self):
                    return 1


            class State:
                flag: IterationFlag
                notes: dict
            """,
        "tracker.py": """
            from flags import State


            class Tracker:
                def __init__(self):
                    self.state = State()

                def run_flags(self):
                    self.state.flag.step()
                    self.state.notes.step()
            """,
    })
    assert ("flags.py::IterationFlag.step", "attr") in edges(g, "tracker.py::Tracker.run_flags")
    assert {dst for dst, _how in edges(g, "tracker.py::Tracker.run_flags")} == {
        "flags.py::IterationFlag.step"}
