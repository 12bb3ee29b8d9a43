"""untrusted.spotlight's tag wrapping (an open/close tag pair around interpolated outside content),
ext.remote_code's pinned/acknowledged flags and ext.loader's plugin exec and own-package scans:
fire on live code, silent on near misses. test_untrusted.py and test_extensions.py hold the basic
fire cases; these are the shapes they do not cover."""

from __future__ import annotations

import pytest

from .family import line_of
from .modelled import modelled_fixtures, with_data

WRAP = '''def wrap_result(result: str) -> str:
    return f"<search_result>\\n{result}\\n</search_result>"


def wrap_file(path: str, content: str) -> str:
    return f"<file path='{path}'>{content}</file>"


def table_row(value: str) -> str:
    return f"<td>{value}</td>"


def label(name: str) -> str:
    return f"<tool>{name}</tool>"


def sandbox_note(output: str) -> str:
    return f"<tool_output>{output}</tool_output> ran in the sandbox"


def mismatched(page: str) -> str:
    return f"<page>{page}</div>"
'''

MODELS = '''from huggingface_hub import hf_hub_download
from transformers import AutoModel


def load_pinned(name: str):
    return AutoModel.from_pretrained(name, revision="4f2c1e0", trust_remote_code=True)


def load_acknowledged(name: str, trust_remote_code: bool = False):
    if not trust_remote_code:
        raise ValueError("pass trust_remote_code=True to run the model's code")
    return AutoModel.from_pretrained(name, trust_remote_code=trust_remote_code)


def load_latest(name: str):
    return AutoModel.from_pretrained(name, revision=None)


def fetch_weights(repo: str):
    return hf_hub_download(repo, "weights.bin")
'''

PLUGINS = '''import importlib

from host import builtin_tools


def load_builtin(name: str):
    return importlib.import_module(f"{builtin_tools.__name__}.{name}")


def load_user_plugin(spec: str):
    return importlib.import_module(spec)


def run_profile(profile_code: str):
    exec(profile_code, {})
'''

CALC = '''def evaluate(expression: str):
    return eval(expression)
'''

MAIN = '''from host import calc, models, plugins, wrap

print(wrap.wrap_result("r"), wrap.wrap_file("p", "c"), wrap.table_row("v"), wrap.label("n"),
      wrap.sandbox_note("o"), wrap.mismatched("x"), models.load_pinned("m"),
      models.load_acknowledged("m"), models.load_latest("m"), models.fetch_weights("r"),
      plugins.load_builtin("a"), plugins.load_user_plugin("b"), plugins.run_profile("c"),
      calc.evaluate("1"))
'''

LIVE = {"host/__init__.py": "", "host/__main__.py": MAIN, "host/wrap.py": WRAP,
        "host/models.py": MODELS, "host/plugins.py": PLUGINS, "host/calc.py": CALC,
        "host/builtin_tools/__init__.py": "", "host/builtin_tools/search.py": "def run():\n    return 1\n"}

PROSE = '''"""Notes.

    return f"<search_result>{result}</search_result>"
    AutoModel.from_pretrained(name, trust_remote_code=True)
    exec(profile_code, {})
"""
# return f"<search_result>{result}</search_result>"
# AutoModel.from_pretrained(name, trust_remote_code=True)
'''

DECOYS = {
    "host/__init__.py": "", "host/__main__.py": "from host import notes  # noqa\n",
    "host/notes.py": PROSE,
    "tests/test_wrap.py": WRAP + MODELS, "examples/plugins_demo.py": PLUGINS + MODELS,
    "docs/plugins.md": "Wrap results as `<search_result>{result}</search_result>`.\n",
}

live, decoys = modelled_fixtures(LIVE, DECOYS)


def test_spotlight_tag_pairs_around_outside_content(live):
    assert with_data(live.findings()["untrusted.spotlight"], "how") == [
        ("host/wrap.py", line_of(WRAP, "<search_result>"), "delimiter"),
        ("host/wrap.py", line_of(WRAP, "<file path="), "delimiter"),
    ]  # <td> is layout, <tool>{name} wraps the agent's own name, the sandbox note is sandbox
    # vocabulary, and <page>...</div> is no matching pair
    assert "<search_result>" in live.findings()["untrusted.spotlight"][0].claim


def test_remote_code_pinned_and_acknowledged(live):
    got = {x.location.start_line: (x.data["pinned"], x.data["acknowledged"])
           for x in live.findings()["ext.remote_code"]}
    assert got == {
        line_of(MODELS, 'revision="4f2c1e0"'): (True, False),
        line_of(MODELS, "trust_remote_code=trust_remote_code)"): (False, True),
        line_of(MODELS, "revision=None"): (False, False),  # revision=None pins nothing
        line_of(MODELS, "hf_hub_download(repo"): (False, False),
    }


def test_loader_plugin_code_and_user_modules_not_the_own_package(live):
    assert with_data(live.findings()["ext.loader"], "how") == [
        ("host/plugins.py", line_of(PLUGINS, "importlib.import_module(spec)"), "import"),
        ("host/plugins.py", line_of(PLUGINS, "exec(profile_code"), "exec"),
    ]  # the builtin_tools scan imports the package's own modules; calc's eval is no extension


@pytest.mark.parametrize("probe_id", ["untrusted.spotlight", "ext.remote_code", "ext.loader"])
def test_no_finding_in_prose_tests_docs_or_examples(decoys, probe_id):
    assert decoys.findings()[probe_id] == []
