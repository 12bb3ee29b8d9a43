"""config.default: where safety-relevant settings get their shipped value (context citations)."""

from __future__ import annotations

from dids.probes.config_defaults import topic

from .helpers import probe_findings

SRC = '''import os
from dataclasses import dataclass

import typer
from pydantic import BaseModel, Field

MAX_ITERATIONS = 30
UNSAFE_ALLOW_ALL = os.environ.get("TOOL_UNSAFE_ALLOW_ALL", "false")
GREETING = "hello"


class SecurityConfig(BaseModel):
    confirmation_mode: bool = Field(default=False)
    runtime: str = "docker"
    colour: str = "blue"


@dataclass
class ReplSession:
    trust_mode: bool = False


class Thing:
    confirmation_mode = True  # a plain class, not configuration


def main(interactive: bool = typer.Option(True, "--interactive/--no-interactive")):
    counter = 0
    counter += 1
    return interactive
'''


HELPERS = '''import os


def load_bool(key, default):
    return os.environ.get(key, str(default)).lower() in ("1", "true")


BASH_UNSAFE_ALLOW_ALL = load_bool("BASH_UNSAFE_ALLOW_ALL", False)
ENABLE_TOOL_APPROVAL = load_bool("ENABLE_TOOL_APPROVAL", True)
APPROVAL_COLOUR = load_bool("approval_colour", True)
SANDBOX_IMAGE = Path("SANDBOX_IMAGE")
MAX_STEPS = get_env_int("MAX_STEPS", 30)
'''


def test_a_repository_env_helper_is_read_as_an_environment_default(repo):
    """`load_bool("KEY", default)`, `get_env_int("KEY", n)`: the repository's own environment
    helpers give their key a shipped default, as os.environ.get does. A lowercase key or a
    call that is no environment helper (`Path("...")`) does not."""
    found = _by_setting(probe_findings(repo, {"agent/env_vars.py": HELPERS}, "config.default"))
    assert found["BASH_UNSAFE_ALLOW_ALL"].data["value"] == "False"
    assert found["ENABLE_TOOL_APPROVAL"].data["value"] == "True"
    assert found["ENABLE_TOOL_APPROVAL"].data["topic"] == "approval"
    assert found["MAX_STEPS"].data["value"] == "30"
    assert "approval_colour" not in found and "SANDBOX_IMAGE" not in found


def test_env_helper_keys_are_settings_bound_to_their_constant():
    from dids.index.pyfacts import extract
    from dids.index.settings import code_settings

    class _Index:
        def source_py(self):
            return [extract("agent/env_vars.py", HELPERS.encode())]

    got = {s.key: s for s in code_settings(_Index())}
    assert got["ENABLE_TOOL_APPROVAL"].value == "True"
    assert got["ENABLE_TOOL_APPROVAL"].var == "ENABLE_TOOL_APPROVAL"
    assert "SANDBOX_IMAGE" not in got


def _by_setting(found):
    return {f.data["setting"]: f for f in found}


def test_definitions_with_their_shipped_value_and_topic(repo):
    found = _by_setting(probe_findings(repo, {"agent/config.py": SRC}, "config.default"))
    lines = SRC.splitlines()
    assert found["confirmation_mode"].data["value"] == "False"
    assert found["confirmation_mode"].data["topic"] == "approval"
    assert "confirmation_mode: bool" in lines[found["confirmation_mode"].location.start_line - 1]
    assert found["runtime"].data["topic"] == "sandbox"
    assert found["trust_mode"].data["topic"] == "approval"
    assert found["MAX_ITERATIONS"].data["topic"] == "limits"
    assert found["TOOL_UNSAFE_ALLOW_ALL"].data["value"] == '"false"'
    assert found["--interactive"].data["value"] == "True"
    assert found["--interactive"].claim.startswith("Setting --interactive defaults to True")


def test_near_misses_do_not_fire(repo):
    all_found = probe_findings(repo, {"agent/config.py": SRC}, "config.default")
    found = _by_setting(all_found)
    # a name about nothing the criteria judge, a plain class, an augmented assignment
    assert "colour" not in found and "GREETING" not in found and "counter" not in found
    lines = SRC.splitlines()
    confirm = [f.location.start_line for f in all_found if f.data["setting"] == "confirmation_mode"]
    assert confirm == [lines.index("    confirmation_mode: bool = Field(default=False)") + 1]


def test_settings_in_tests_docs_and_comments_are_not_definitions(repo):
    found = probe_findings(repo, {
        "tests/test_cfg.py": "MAX_STEPS = 3\n",
        "docs/conf.py": "MAX_STEPS = 3\n",
        "agent/core.py": "# MAX_STEPS = 3\nVALUE = 1\n",
    }, "config.default")
    assert found == []


def test_topic_order_puts_limits_before_tools():
    assert topic("max_tool_calls") == "limits"
    assert topic("enable_browsing") == "network"
    assert topic("enable_cmd") == "tools"
    assert topic("sandbox_timeout") == "limits"
    assert topic("colour") is None
    assert topic("EXCLUDED_AGENT_ACTIONS") == "tools"  # a word between the verb and the noun
    assert topic("excluded_words") is None


def test_the_state_of_one_object_is_not_a_setting():
    """`is_interactive` on a DOM node, `has_approval` on a request: state, whatever the word."""
    assert topic("interactive") == "approval"
    assert topic("non_interactive") == "approval"
    assert topic("is_interactive") is None
    assert topic("has_approval") is None
    assert topic("isInteractive") is None
    assert topic("node.is_interactive") is None


BROWSER = '''from selenium import webdriver


def start(headless: bool):
    options = webdriver.ChromeOptions()
    options.add_argument("--disable-gpu")  # a flag for Chrome, not the agent's command line
    return webdriver.Chrome(options=options)
'''

PARSER = '''def add_args(parser):
    parser.add_argument("--max-steps", default=20)  # the parser comes from another module
'''


def test_cli_switches_only_on_the_programs_own_command_line(repo):
    found = _by_setting(probe_findings(repo, {"agent/browser.py": BROWSER, "agent/args.py": PARSER},
                                       "config.default"))
    assert set(found) == {"--max-steps"}
    assert found["--max-steps"].data["value"] == "20"


CTOR = '''class Llm:
    def __init__(self, model: str):
        self.model = model
        self.max_budget = None
        self.colour = "blue"

    def reset(self):
        self.max_budget = 10  # set later, not where the object is built
'''


def test_constructor_attributes_with_literal_starting_values(repo):
    found = probe_findings(repo, {"agent/llm.py": CTOR}, "config.default")
    assert [(f.data["setting"], f.data["value"], f.location.start_line) for f in found] == [
        ("max_budget", "None", CTOR.splitlines().index("        self.max_budget = None") + 1)]
    assert found[0].claim == "Attribute max_budget of Llm starts as None when the object is built."


SWITCHES = '''from pydantic import BaseModel


class StrictConfigModel(BaseModel):
    pass


class MaskingPolicy(StrictConfigModel):
    enabled: bool = False


class Colours(StrictConfigModel):
    enabled: bool = True  # the class name is about nothing the criteria judge
'''


def test_a_bare_switch_takes_its_topic_from_its_class(repo):
    found = probe_findings(repo, {"agent/policy.py": SWITCHES}, "config.default")
    assert [(f.data["setting"], f.data["topic"], f.data["value"]) for f in found] == [
        ("enabled", "secrets", "False")]
    assert found[0].claim.startswith("Setting MaskingPolicy.enabled defaults to False")


PRIVATE = '''from dataclasses import dataclass


@dataclass
class RunSettings:
    _sandbox_mode: str = "local"  # the object's own bookkeeping, not a user setting
    sandbox_timeout: int = 30
'''


def test_a_private_field_of_a_settings_class_is_not_a_setting(repo):
    found = probe_findings(repo, {"agent/settings.py": PRIVATE}, "config.default")
    assert [(f.data["setting"], f.data["value"]) for f in found] == [("sandbox_timeout", "30")]
