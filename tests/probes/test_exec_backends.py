"""exec.inprocess, exec.restricted, exec.selector from a constructor parameter default, and
exec.wrapper's opt_in flag when the wrapper is reached only through the selector."""

from __future__ import annotations

import pytest

from .family import family_fixtures, index_findings, line_of, located, near_miss_tests

EXECUTORS = '''import subprocess

from jupyter_client import KernelManager


class LocalExecutor:
    def run(self, code: str):
        namespace = {}
        exec(code, namespace)
        return namespace


class DockerExecutor:
    def run(self, code: str):
        return subprocess.run(["docker", "run", "--rm", "python:3.12", "python", "-c", code], env={})


class KernelExecutor:
    def run(self, code: str):
        km = KernelManager()
        km.start_kernel()
        return km


class CodeAgent:
    def __init__(self, tools, executor_type: str = "local"):
        self.tools = tools
        self.executor_type = executor_type
        self.executor = self.make_executor()

    def make_executor(self):
        if self.executor_type == "docker":
            return DockerExecutor()
        if self.executor_type == "kernel":
            return KernelExecutor()
        return LocalExecutor()

    def step(self, code: str):
        return self.executor.run(code), calculate()


def calculate():
    return eval("1 + 1")
'''

JAIL = '''import subprocess


def run_in_container(cmd: str):
    return subprocess.run(["docker", "run", "--rm", "alpine", "sh", "-c", cmd], env={})


def shell_tool(cmd: str):
    return run_in_container(cmd)
'''

INTERPRETER = '''import ast


class Interpreter:
    def __init__(self, authorized_imports: list[str]):
        self.authorized_imports = authorized_imports

    def evaluate(self, code: str):
        tree = ast.parse(code)
        for node in tree.body:
            self.visit(node)

    def visit(self, node):
        if isinstance(node, ast.Assign):
            return self.assign(node)
        if isinstance(node, ast.For):
            return self.loop(node)
        if isinstance(node, ast.If):
            return self.branch(node)
        if isinstance(node, ast.Import):
            return self.do_import(node)
        if isinstance(node, ast.Return):
            return self.ret(node)
        raise NotImplementedError(type(node).__name__)
'''

CALCULATOR = '''import ast

allowed_modules = ["math"]


def calc(expr: str):
    node = ast.parse(expr, mode="eval").body
    if isinstance(node, ast.BinOp):
        return node
    if isinstance(node, ast.Constant):
        return node.value
    raise ValueError(expr)
'''

MAIN = '''from agent.calculator import calc
from agent.executors import CodeAgent
from agent.interpreter import Interpreter
from agent.jail import shell_tool


def main(task: str):
    agent = CodeAgent(tools=[])
    return agent.step(task), Interpreter(["math"]).evaluate(task), shell_tool(task), calc(task)
'''

LIVE = {"agent/executors.py": EXECUTORS, "agent/jail.py": JAIL, "agent/interpreter.py": INTERPRETER,
        "agent/calculator.py": CALCULATOR, "agent/main.py": MAIN}

PROSE = '''"""Executor notes.

    exec(code, namespace)
    km = KernelManager()
    def __init__(self, tools, executor_type: str = "local"):
"""
from jupyter_client import KernelManager

# exec(code, namespace)
# km = KernelManager()
# def __init__(self, tools, executor_type: str = "local"):


def _never_called(code, executor_type: str = "local"):
    """Dead code: nothing references this function."""
    namespace = {}
    exec(code, namespace)
    return KernelManager(), namespace
'''

DECOYS = {
    "agent/notes.py": PROSE,
    "tests/test_executors.py": EXECUTORS + INTERPRETER,
    "examples/executors_demo.py": EXECUTORS + INTERPRETER + MAIN,
    "docs/executors.md": '`CodeAgent(executor_type="local")` runs `exec(code)` in-process.\n',
}

EXEC_PROBES = ["exec.inprocess", "exec.restricted", "exec.selector", "exec.wrapper"]


live, decoys, constants = family_fixtures(LIVE, DECOYS)
test_no_finding_in_prose_tests_docs_examples_or_dead_code, test_no_finding_in_unused_string_constants = \
    near_miss_tests(EXEC_PROBES, constants=False)


def test_inprocess_fires_on_exec_of_runtime_code_and_kernels(live):
    found = live["exec.inprocess"]
    assert [(f.location.path, f.location.start_line, f.data["how"]) for f in found] == [
        ("agent/executors.py", line_of(EXECUTORS, "exec(code, namespace)"), "exec"),
        ("agent/executors.py", line_of(EXECUTORS, "KernelManager()"), "kernel"),
    ]  # eval("1 + 1") evaluates a literal


def test_restricted_fires_on_statement_interpreter_with_allowlist(live):
    found = live["exec.restricted"]
    assert [(f.location.path, f.location.start_line, f.data["allow"]) for f in found] == [
        ("agent/interpreter.py", line_of(INTERPRETER, "ast.parse("), "authorized_imports")]
    # the expression calculator has an allowlist but dispatches on no statements


def test_selector_fires_on_constructor_parameter_default(live):
    found = live["exec.selector"]
    assert [(f.location.path, f.location.start_line, f.data["key"], f.data["value"],
             f.data["sandbox_on"], f.data["source"], f.data["names"]) for f in found] == [
        ("agent/executors.py", line_of(EXECUTORS, "def __init__(self, tools, executor_type"),
         "executor_type", "local", False, "param", "executor_type")]
    assert "leaves the sandbox off" in found[0].claim


def test_wrapper_reached_only_through_selector_is_opt_in(live):
    found = live["exec.wrapper"]
    assert [(f.location.path, f.location.start_line, f.data["wrapper"], f.data["strength"],
             f.data["func"], f.data["opt_in"]) for f in found] == [
        ("agent/executors.py", line_of(EXECUTORS, '["docker", "run"'), "docker", 2,
         "DockerExecutor.run", True),
        ("agent/jail.py", line_of(JAIL, '["docker", "run"'), "docker", 2, "run_in_container",
         False),  # called from a function that never reads the selector
    ]


def test_selector_ignores_non_selector_parameters(repo):
    from .helpers import probe_findings

    src = ('class Agent:\n    def __init__(self, model: str = "local", executor_path: str = "local"):\n'
           "        self.model = model\n")
    assert probe_findings(repo, {"agent/agent.py": src}, "exec.selector") == []


def test_selector_ignores_private_state(repo):
    """`_sandbox_session = None` on a dataclass is the object's state, not a backend setting."""
    from .helpers import probe_findings

    src = ("from dataclasses import dataclass, field\n\n\n@dataclass\nclass RunConfig:\n"
           "    _sandbox_mode: str = 'local'\n    sandbox_mode: str = 'local'\n")
    found = probe_findings(repo, {"agent/config.py": src}, "exec.selector")
    assert [f.data["key"] for f in found] == ["sandbox_mode"]


SAFE_LAMBDA = '''import ast

SAFE = {"len": len, "min": min}


def build(expr: str):
    tree = ast.parse(expr, mode="eval")
    restricted = {"__builtins__": SAFE}
    return eval(compile(tree, "<s>", "eval"), restricted, {})


def literal_globals(expr: str):
    return eval(expr, {"__builtins__": {}, "x": 1})


def full_builtins(expr: str):
    import builtins
    return eval(expr, {"__builtins__": builtins})


def plain(expr: str, scope: dict):
    return eval(expr, scope)
'''


def test_restricted_fires_on_eval_with_replaced_builtins_only(repo):
    from .helpers import probe_findings

    found = probe_findings(repo, {"agent/safe.py": SAFE_LAMBDA}, "exec.restricted")
    assert [(f.location.start_line, f.data["func"]) for f in found] == [
        (line_of(SAFE_LAMBDA, "return eval(compile("), "build"),
        (line_of(SAFE_LAMBDA, '"__builtins__": {}, "x": 1'), "literal_globals")]
    # builtins handed on whole, or globals dids cannot see, are not restricted
