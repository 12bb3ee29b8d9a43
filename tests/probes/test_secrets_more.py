"""secrets.secret_type, secrets.masked_prompt, secrets.export_exclusion, secrets.replacement and
secrets.env_key: fire on live code, silent on the same words in prose, strings, tests, docs,
examples, dead code and off-path scripts."""

from __future__ import annotations

import pytest

from .family import line_of
from .modelled import at, modelled_fixtures, with_data

CONFIG = '''import os

from pydantic import BaseModel, SecretStr


class Settings(BaseModel):
    api_key: SecretStr
    model_name: str = "gpt-4o"
    base_url: str = "https://api.example.invalid"


def connect(token: SecretStr, user: str):
    return token, user


OPENAI_KEY = os.environ.get("OPENAI_API_KEY")
GITHUB = os.environ["GITHUB_TOKEN"]
LOG_LEVEL = os.getenv("LOG_LEVEL", "info")
MAX_TOKENS = os.getenv("LLM_MAX_TOKENS", "4096")
PASSWORD_RULE = os.getenv("AUTH_MIN_PASSWORD_LENGTH", "12")
TOKEN_LIFETIME = os.getenv("EXECUTOR_TOKEN_TTL_SECONDS", "300")
'''

PROMPTS = '''import getpass

import questionary
import typer


def ask_keys():
    key = getpass.getpass("API key: ")
    token = typer.prompt("Token", hide_input=True)
    pw = questionary.password("Password").ask()
    name = typer.prompt("Your name")
    return key, token, pw, name
'''

EXPORT = '''class Profile:
    def __init__(self, name, api_key, token):
        self.name, self.api_key, self.token = name, api_key, token

    def to_dict(self):
        data = dict(self.__dict__)
        data.pop("api_key", None)
        return data

    def model_dump(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("token", "api_key")}

    def as_dict(self):
        return dict(self.__dict__)

    def describe(self):
        data = dict(self.__dict__)
        data.pop("api_key", None)
        return data
'''

MASK = '''import re

_KEY = re.compile(r"sk-[A-Za-z0-9]{20,}")


def mask_secrets(text: str, secrets: list[str]) -> str:
    for s in secrets:
        text = text.replace(s, "***")
    return _KEY.sub("sk-***", text)


def redact_unused(text: str) -> str:
    return text.replace("x", "*")


def mask_label(label: str) -> str:
    return label.upper()
'''

MAIN = '''from agent.config import Settings, connect
from agent.export import Profile
from agent.mask import mask_label, mask_secrets
from agent.prompts import ask_keys


def main():
    key, token, pw, name = ask_keys()
    profile = Profile(name, key, token)
    print(mask_secrets(str(profile.to_dict()), [key]), mask_label(name))
    return Settings(api_key=key), connect(token, name), profile.model_dump(), profile.as_dict()


if __name__ == "__main__":
    main()
'''

LIVE = {"agent/__init__.py": "", "agent/__main__.py": MAIN, "agent/config.py": CONFIG,
        "agent/prompts.py": PROMPTS, "agent/export.py": EXPORT, "agent/mask.py": MASK}

PROSE = '''"""Secrets notes.

    api_key: SecretStr
    getpass.getpass("API key: ")
    os.environ.get("OPENAI_API_KEY")
    data.pop("api_key", None)
"""
import os

# api_key: SecretStr
# key = os.environ.get("OPENAI_API_KEY")
DOC = 'Read os.environ.get("OPENAI_API_KEY") and store it as api_key: SecretStr'


def _never_called():
    """Dead code: nothing references this function."""
    return os.environ.get("ANTHROPIC_API_KEY")
'''

DECOYS = {
    "agent/__init__.py": "", "agent/__main__.py": "from agent import notes  # noqa\n",
    "agent/notes.py": PROSE,
    "tests/test_config.py": CONFIG + PROMPTS, "examples/keys.py": CONFIG + PROMPTS + EXPORT + MASK,
    "docs/keys.md": "Set `OPENAI_API_KEY`; the key is read with `getpass.getpass()`.\n",
    "scripts/release.py": 'import os\n\nTOKEN = os.environ["PYPI_TOKEN"]\n',
}

live, decoys = modelled_fixtures(LIVE, DECOYS)


def _after(src: str, anchor: str, needle: str) -> int:
    """1-based line of the first line holding NEEDLE after the line holding ANCHOR."""
    lines = src.splitlines()
    start = line_of(src, anchor)
    return next(i for i, t in enumerate(lines, 1) if i > start and needle in t)

SECRETS = ["secrets.secret_type", "secrets.masked_prompt", "secrets.export_exclusion",
           "secrets.replacement", "secrets.env_key"]


def test_secret_type_fields_and_parameters(live):
    assert with_data(live.findings()["secrets.secret_type"], "field") == [
        ("agent/config.py", line_of(CONFIG, "api_key: SecretStr"), "api_key"),
        ("agent/config.py", line_of(CONFIG, "def connect"), "token"),
    ]


def test_masked_prompts(live):
    assert at(live.findings()["secrets.masked_prompt"]) == [
        ("agent/prompts.py", line_of(PROMPTS, "getpass.getpass(")),
        ("agent/prompts.py", line_of(PROMPTS, "hide_input=True")),
        ("agent/prompts.py", line_of(PROMPTS, "questionary.password(")),
    ]  # typer.prompt("Your name") echoes, and needs not hide


def test_export_exclusion_in_serializers_only(live):
    assert with_data(live.findings()["secrets.export_exclusion"], "func") == [
        ("agent/export.py", _after(EXPORT, "def to_dict", 'data.pop("api_key"'), "Profile.to_dict"),
        ("agent/export.py", line_of(EXPORT, 'not in ("token", "api_key")'), "Profile.model_dump"),
    ]  # as_dict exports everything; describe() pops the key but is no serializer


def test_replacement_functions_that_are_called(live):
    assert with_data(live.findings()["secrets.replacement"], "func") == [
        ("agent/mask.py", line_of(MASK, "def mask_secrets"), "mask_secrets")]
    # redact_unused is never called; mask_label replaces nothing


def test_env_keys_read_from_the_process_environment(live):
    assert with_data(live.findings()["secrets.env_key"], "key") == [
        ("agent/config.py", line_of(CONFIG, "OPENAI_API_KEY"), "OPENAI_API_KEY"),
        ("agent/config.py", line_of(CONFIG, "GITHUB_TOKEN"), "GITHUB_TOKEN"),
    ]  # LOG_LEVEL is no secret, nor a token budget, a password rule or a token's lifetime


@pytest.mark.parametrize("probe_id", SECRETS)
def test_no_finding_in_prose_tests_docs_examples_dead_code_or_scripts(decoys, probe_id):
    assert decoys.findings()[probe_id] == []


EXPOSED = '''from pydantic import BaseModel, SecretStr


class Settings(BaseModel):
    api_key: SecretStr


class FileSettingsStore:
    async def store(self, settings: Settings) -> None:
        json_str = settings.model_dump_json(context={"expose_secrets": True})
        open("settings.json", "w").write(json_str)

    def show(self, settings: Settings) -> dict:
        return settings.model_dump(context={"expose_secrets": False})  # masked: no finding


async def sandbox_env(handler):
    return await handler.get_env_vars(expose_secrets=True)


async def runtime_env(handler, env_vars: dict):
    env_vars.update(await handler.get_env_vars(expose_secrets=True))
    return env_vars


# settings.model_dump_json(context={"expose_secrets": True}) in a comment is no call
'''


def test_secret_values_asked_for_in_clear_text(repo):
    from .helpers import probe_findings

    found = probe_findings(repo, {"agent/store.py": EXPOSED}, "secrets.exposed")
    assert [(f.location.start_line, f.data["stored"], f.data["into_env"]) for f in found] == [
        (line_of(EXPOSED, "json_str = settings.model_dump_json"), True, False),
        (line_of(EXPOSED, "return await handler.get_env_vars(expose_secrets=True)"), False, False),
        (line_of(EXPOSED, "env_vars.update(await handler"), False, True)]
    assert found[2].claim.endswith("(expose_secrets) into an environment.")
    assert found[0].claim == ("settings.model_dump_json(...) asks for secret values in clear "
                              "text (expose_secrets) to store them.")
