"""Library models (src/dids/data/models/python/*.yaml, dids.agent.semantics): every row fires on a
tiny live module that uses it, and the same names in comments, docstrings, strings, tests, docs,
examples or an off-path build script produce nothing on the scored path and move no level."""

from __future__ import annotations

import pytest

from dids.agent.semantics import load, matches

from .repos import modelled

ROWS = load().rows


def _uses(row, style: str = "import") -> tuple[str, str]:
    """(import lines, call expression) of a module that uses ROW the way a library user would."""
    # a row that reads a mode (`open(path, "a")`) fires on a write mode in its place
    args = {None: "payload", 0: '"a"', 1: 'payload, "a"'}[row.get("mode_arg")]
    if row.call:
        if "." not in row.call:  # a builtin: exec, eval, input, __import__, open
            return "", f"{row.call}({args})"
        if style == "from":
            mod, name = row.call.rsplit(".", 1)
            return f"from {mod} import {name}\n", f"{name}({args})"
        return f"import {row.call.split('.')[0]}\n", f"{row.call}({args})"
    # a method on an object whose type a static reader cannot know, in a file importing the lib
    return f"import {row.imports[0]}\n" if row.imports else "", \
        f"handle.{'.'.join(row.suffix)}({args})"


def _module(row, style: str = "import") -> str:
    imports, call = _uses(row, style)
    return f"{imports}\n\ndef use(handle, payload):\n    return {call}\n"


def _rows_with(style):
    return [r for r in ROWS if style == "import" or (r.call and "." in r.call)]


LIVE: dict[str, str] = {"pyproject.toml": '[project]\nname = "rows"\n', "rows/__init__.py": ""}
WHERE: dict[tuple[str, str], str] = {}
for _style in ("import", "from"):
    for _i, _row in enumerate(_rows_with(_style)):
        _path = f"rows/{_style}_{_i:03d}.py"
        LIVE[_path] = _module(_row, _style)
        WHERE[(_style, ROWS.index(_row))] = _path
LIVE["main.py"] = "".join(f"import {p[:-3].replace('/', '.')}  # noqa\n" for p in LIVE
                          if p.startswith("rows/") and not p.endswith("__init__.py")) + \
    "\nif __name__ == '__main__':\n    print('rows')\n"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    return modelled(tmp_path_factory, LIVE)


def test_every_row_is_distinct_and_explained():
    keys = [(r.kind, r.call, r.suffix, r.imports) for r in ROWS]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    assert {r.kind for r in ROWS} == {"agent_loop", "credential", "exec", "hook", "llm", "loader", "mcp",
                                      "network", "persist", "prompt", "telemetry"}
    assert all(r.why for r in ROWS)


@pytest.mark.parametrize("style,row", [(s, r) for s in ("import", "from") for r in _rows_with(s)],
                         ids=lambda x: x if isinstance(x, str) else
                         f"{x.id}[{'|'.join(x.imports)}]" if x.imports else x.id)
def test_row_fires_on_a_live_use(live, style, row):
    """The row is the one recorded for the call (matches() keeps the first row a call matches,
    so a row shadowed by an earlier one would never fire)."""
    path = WHERE[(style, ROWS.index(row))]
    text = _module(row, style)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "return " in t)
    got = [(f.path, c.line, r) for f, c, r in matches(live.index).get(row.kind, ())
           if f.path == path]
    assert got == [(path, line, row)], text


# ------------------------------------------------------------------ near misses

def _decoy_module() -> str:
    """Every row's call in a comment, a docstring, a string constant nothing reads, and a
    dead function's literal-only use (exec("...") runs nothing the model wrote)."""
    lines = ['"""Library notes.', ""]
    lines += [f"    {_uses(r)[1]}" for r in ROWS]
    lines += ['"""', ""]
    lines += [f"# {_uses(r)[1]}" for r in ROWS]
    lines += ["", "NOTES = ["] + [f"    {_uses(r)[1]!r}," for r in ROWS] + ["]", ""]
    lines += ["", "def literal_code():", '    exec("print(1)")', '    return eval("1 + 1")', ""]
    return "\n".join(lines) + "\n"


ALL_USES = "".join(sorted({_uses(r)[0] for r in ROWS})) + "\n\ndef use(handle, payload):\n" + \
    "".join(f"    {_uses(r)[1]}\n" for r in ROWS)

DECOY_FILES = {
    "agent/notes.py": _decoy_module(),
    "tests/test_rows.py": ALL_USES,
    "examples/rows_demo.py": ALL_USES,
    "docs/rows.md": "```python\n" + ALL_USES + "```\n",
    "scripts/build_release.py": ALL_USES + "\n\nif __name__ == '__main__':\n    use(None, 'x')\n",
}


def _weak(name: str = "WEAK"):
    from criteria import shapes  # tests/criteria/shapes.py: synthetic agents, weak and strong

    return dict(getattr(shapes, name))


BASES = ["WEAK", "C4_STRONG", "C8_STRONG"]


@pytest.fixture(scope="module")
def decoys(tmp_path_factory):
    return modelled(tmp_path_factory, {**_weak(), **DECOY_FILES,
                                       "agent/main.py": _weak()["agent/main.py"] + "import agent.notes  # noqa\n"})


def test_no_row_matches_prose_strings_tests_docs_or_examples(decoys):
    got = {(f.path, r.id) for rows in matches(decoys.index).values() for f, _c, r in rows}
    assert not [x for x in got if x[0].startswith(("agent/notes", "tests/", "docs/", "examples/"))]


def test_off_path_build_script_matches_stay_off_the_scored_path(decoys):
    got = [(f.path, c.line) for rows in matches(decoys.index).values() for f, c, _r in rows
           if f.path == "scripts/build_release.py"]
    assert len(got) >= len([r for r in ROWS if r.kind in ("exec", "network")])  # it is parsed
    assert {decoys.model.reach.of(p, ln) for p, ln in got} == {"off-path"}
    assert not [s for s in decoys.model.session.sinks if s.path == "scripts/build_release.py"]
    f = decoys.findings()
    assert not [x for v in f.by_probe.values() for x in v
                if x.location and x.location.path.startswith(("scripts/", "agent/notes"))]


@pytest.fixture(scope="module", params=BASES)
def scored(request, tmp_path_factory):
    """Criterion levels of an agent alone and with every decoy beside it."""
    from conftest import RepoBuilder

    from dids.engine import score_target

    out = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DIDS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dids-cache"))
        base = _weak(request.param)
        for name, files in (("weak", base), ("decoys", {**base, **DECOY_FILES})):
            repo = RepoBuilder(tmp_path_factory.mktemp(name) / "repo")
            repo.commit(files)
            report = score_target(str(repo.path))
            out[name] = {c.id: (c.levels.S, c.levels.C, c.levels.D, c.levels.B, c.score)
                         for c in report.criteria}
    return out


def test_decoys_move_no_level(scored):
    assert scored["decoys"] == scored["weak"]


@pytest.mark.parametrize("receiver,is_model", [
    ("llm", True), ("llm_with_tools", True), ("self.chain", True),
    ("tool", False), ("search_tool", False), ("self.tools[name]", False), ("tool_by_name[n]", False),
])
def test_a_langchain_invoke_on_a_tool_is_not_a_model_step(tmp_path_factory, receiver, is_model):
    # every LangChain runnable has invoke/ainvoke: one the code names as a tool runs the tool
    src = ("from langchain_core.messages import HumanMessage\n\n\n"
           f"async def step(self, llm, tool, search_tool, tool_by_name, name, n, msgs):\n"
           f"    return await {receiver}.ainvoke(msgs)\n")
    m = modelled(tmp_path_factory, {"pyproject.toml": '[project]\nname = "lc"\n', "lc/__init__.py": "",
                                    "lc/step.py": src})
    hits = [c.line for _f, c, _r in matches(m.index).get("llm", []) if _f.path == "lc/step.py"]
    assert bool(hits) is is_model


@pytest.mark.parametrize("call,persists", [
    ('open(path, "a")', True), ("open(path, mode='w', encoding='utf-8')", True),
    ('path.open("w")', True), ('open(path, "rb+")', True),
    ("open(path)", False), ('open(path, "r")', False), ("path.open()", False),
    ('path.open(encoding="utf-8")', False), ("open(path, mode)", False),
])
def test_a_file_opened_to_write_persists_and_one_opened_to_read_does_not(tmp_path_factory, call,
                                                                         persists):
    src = f"def save(path, mode, text):\n    with {call} as f:\n        f.write(text)\n"
    m = modelled(tmp_path_factory, {"pyproject.toml": '[project]\nname = "io"\n', "io_/__init__.py": "",
                                    "io_/save.py": src})
    hits = [c.line for _f, c, _r in matches(m.index).get("persist", []) if _f.path == "io_/save.py"]
    assert hits == ([2] if persists else [])


BOUND = '''import litellm
from openai import OpenAI


class Client:
    def __init__(self):
        self.client = OpenAI()

    def ask(self, messages, use_litellm):
        if use_litellm:
            completion_call = litellm.completion
        else:
            completion_call = self.client.chat.completions.create
        return completion_call(model="m", messages=messages)

    def tally(self, messages):
        count = len
        return count(messages)
'''


def test_a_callable_bound_to_a_local_and_then_called_is_that_call(tmp_path_factory):
    # each binding the function makes may be the one called; a builtin bound the same way
    # (`count = len`) matches no row
    m = modelled(tmp_path_factory, {"pyproject.toml": '[project]\nname = "bc"\n', "bc/__init__.py": "",
                                    "bc/client.py": BOUND})
    got = [(c.line, c.callee) for f, c, _r in matches(m.index).get("llm", []) if f.path == "bc/client.py"]
    line = BOUND.splitlines().index("        return completion_call(model=\"m\", messages=messages)") + 1
    assert got == [(line, "litellm.completion")]
    assert not any(f.path == "bc/client.py" and c.raw == "len"
                   for kind in matches(m.index).values() for f, c, _r in kind)


_RUNNER = ("import pydantic_ai\nfrom anyio.to_thread import run_sync\n\n\n"
           "def go(agent, prompt, work):\n"
           "    run_sync(work)\n"
           "    return agent.run_sync(prompt)\n")


def _loop_lines(m, path):
    return [c.raw for f, c, _r in matches(m.index).get("agent_loop", []) if f.path == path]


def test_a_bare_function_imported_from_another_library_is_not_the_rows_method(tmp_path_factory):
    m = modelled(tmp_path_factory, {"pyproject.toml": '[project]\nname = "app"\n',
                                    "app/__init__.py": "", "app/go.py": _RUNNER})
    assert _loop_lines(m, "app/go.py") == ["agent.run_sync"]


def test_the_models_of_a_library_do_not_read_its_own_repository(tmp_path_factory):
    # scanning pydantic-ai itself: its own `run_sync` is code the call graph reads, and a
    # model row of it would call every `.run_sync` in the tree an agent loop
    m = modelled(tmp_path_factory, {"pyproject.toml": '[project]\nname = "pydantic-ai"\n',
                                    "pydantic_ai/__init__.py": "", "pydantic_ai/go.py": _RUNNER})
    assert _loop_lines(m, "pydantic_ai/go.py") == []
