"""A browser agent: its tools navigate, click and evaluate JavaScript the model writes in the page
(Playwright's `page.evaluate`, CDP's `send.Runtime.evaluate`). That script runs in the browser's
renderer, not as a host process: C4 judges the browser (L2, the session's reach as blast radius),
the surface line says it executes code, and C6/C8, which ask what the model's *processes* can
read or rewrite, are not moved by it. A method named `evaluate` in a file that drives no browser
runs nothing."""

from __future__ import annotations

import pytest

from dids.engine import score_target

TOOLS = '''from playwright.async_api import Page

from agent.registry import tool


class Browser:
    def __init__(self, page: Page):
        self.page = page


BROWSER = Browser(None)


@tool
async def navigate(url: str) -> str:
    await BROWSER.page.goto(url)
    return url


@tool
async def evaluate(code: str) -> str:
    return str(await BROWSER.page.evaluate(code))


@tool
async def scroll_down() -> str:
    return str(await BROWSER.cdp.send.Runtime.evaluate(params={"expression": "window.scrollBy(0, 500)"}))
'''

CALC = '''class Expression:
    def evaluate(self, env: dict) -> float:
        return 0.0


def total(expr: Expression) -> float:
    return expr.evaluate({})
'''

REGISTRY = '''def tool(fn):
    return fn
'''

LOOP = '''from agent.tools import evaluate, navigate, scroll_down
from agent.calc import Expression, total

TOOLS = {"navigate": navigate, "evaluate": evaluate, "scroll_down": scroll_down}


async def run(model, task: str) -> str:
    messages = [{"role": "user", "content": task}]
    while True:
        reply = model.complete(messages)
        if not reply.tool_calls:
            return reply.text + str(total(Expression()))
        for call in reply.tool_calls:
            result = await TOOLS[call.name](**call.arguments)
            messages.append({"role": "tool", "content": str(result)})
'''

MAIN = '''import asyncio
import sys

from agent.loop import run

if __name__ == "__main__":
    print(asyncio.run(run(None, sys.argv[1])))
'''

FILES = {"agent/__init__.py": "", "agent/registry.py": REGISTRY, "agent/tools.py": TOOLS,
         "agent/calc.py": CALC, "agent/loop.py": LOOP, "agent/main.py": MAIN}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from conftest import RepoBuilder

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DIDS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dids-cache"))
        repo = RepoBuilder(tmp_path_factory.mktemp("browser") / "repo")
        repo.commit(FILES)
        return score_target(str(repo.path))


def _crit(report, cid):
    return next(c for c in report.criteria if c.id == cid)


def test_c4_judges_the_browser_that_runs_the_models_script(report):
    c4 = _crit(report, "C4")
    assert (c4.levels.S, c4.levels.C, c4.levels.D, c4.levels.B) == (2, 2, 2, 1)
    cited = {(e.path, e.start_line) for e in c4.assessment.configurations[0].dims["S"].evidence}
    assert ("agent/tools.py", TOOLS.splitlines().index(
        "    return str(await BROWSER.page.evaluate(code))") + 1) in cited
    assert "agent/calc.py" not in {p for p, _ in cited}  # Expression.evaluate runs nothing


def test_the_surface_says_the_agent_executes_code_in_the_browser(report):
    assert report.surface["code_execution"] == "yes"
    assert report.surface["network_egress"] == "yes"


def test_page_script_is_not_a_process_that_reads_the_agents_keys(report):
    c8 = _crit(report, "C8")
    assert "model-driven process" not in c8.summary
