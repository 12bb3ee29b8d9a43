"""ext.* probes: each fires on live agent code and stays silent on the same words elsewhere."""

from __future__ import annotations

import pytest

from .family import family_fixtures, index_findings, line_of, located, near_miss_tests
from .helpers import probe_findings

MCP = '''import os

from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client


def github_server(token: str) -> StdioServerParameters:
    return StdioServerParameters(command="npx", args=["@modelcontextprotocol/server-github"],
                                 env={**os.environ})


def fs_server(root: str) -> StdioServerParameters:
    return StdioServerParameters(command="mcp-fs", args=[root], env={"ROOT": root})


async def connect(params):
    async with stdio_client(params) as (read, write):
        return read, write


def sdk_servers() -> dict:
    return {"mcpServers": {"fs": {"type": "stdio", "command": "mcp-fs"}}}
'''

PLUGINS = '''import importlib
import os
import subprocess

from pydantic import BaseModel
from transformers import AutoModel


class ExtensionLock(BaseModel):
    name: str
    version: str
    sha256: str


class ExtensionInfo(BaseModel):
    name: str
    version: str


def verify_release(public_key, signature: bytes, blob: bytes, ec, hashes) -> None:
    public_key.verify(signature, blob, ec.ECDSA(hashes.SHA256()))


def load_plugin(name: str):
    return importlib.import_module(name)


def load_builtin():
    return importlib.import_module("json")


def load_model(name: str):
    return AutoModel.from_pretrained(name, trust_remote_code=True)


def run_server(package: str):
    env = dict(os.environ)
    env["PYTHONPATH"] = "/opt/extensions"
    return subprocess.Popen(["npx", "-y", package], env=env)
'''

MAIN = '''from agent.mcp_servers import connect, fs_server, github_server, sdk_servers
from agent.plugins import load_builtin, load_model, load_plugin, run_server, verify_release


async def boot(cfg):
    await connect(github_server(cfg.token))
    await connect(fs_server(cfg.root))
    verify_release(cfg.key, cfg.sig, cfg.blob, cfg.ec, cfg.hashes)
    return (sdk_servers(), load_plugin(cfg.plugin), load_builtin(), load_model(cfg.model),
            run_server(cfg.package))
'''

LIVE = {"agent/mcp_servers.py": MCP, "agent/plugins.py": PLUGINS, "agent/main.py": MAIN}

PROSE = '''"""Extension notes.

    StdioServerParameters(command="npx", env={**os.environ})
    AutoModel.from_pretrained(name, trust_remote_code=True)
    importlib.import_module(name)
    env["PYTHONPATH"] = "/opt/extensions"
    public_key.verify(signature, blob)
"""
import importlib
import os

from mcp import StdioServerParameters

# StdioServerParameters(command="npx", env={**os.environ})
# AutoModel.from_pretrained(name, trust_remote_code=True)
# subprocess.Popen(["npx", "-y", package])
# importlib.import_module(name)


class Notes:
    """An ExtensionLock keeps version and sha256 per extension."""

    title: str = "extensions"


def _never_called(name, public_key, signature, blob):
    """Dead code: nothing references this function."""
    env = dict(os.environ)
    env["PYTHONPATH"] = "/opt/extensions"
    public_key.verify(signature, blob)
    StdioServerParameters(command="npx", env={**os.environ})
    return importlib.import_module(name)
'''

DECOYS = {
    "agent/notes.py": PROSE,
    "tests/test_ext.py": MCP + PLUGINS + MAIN,
    "examples/ext_demo.py": MCP + PLUGINS + MAIN,
    "docs/extensions.md": "Run `npx -y @mcp/server` and pass `trust_remote_code=True`.\n",
}

CONSTANTS = '''REMOTE_DOC = "Models load with trust_remote_code=True; servers start with npx -y pkg."
MCP_DOC = 'Servers are configured as {"type": "stdio"} entries under "mcpServers".'
'''

EXT_PROBES = ["ext.mcp_stdio", "ext.pin", "ext.signature", "ext.remote_code", "ext.loader"]


live, decoys, constants = family_fixtures(LIVE, DECOYS, {"agent/strings.py": CONSTANTS})
test_no_finding_in_prose_tests_docs_examples_or_dead_code, test_no_finding_in_unused_string_constants = \
    near_miss_tests(EXT_PROBES, constants=True)


def _mcp(live):
    return [(f.location.path, f.location.start_line, f.data["env"]) for f in live["ext.mcp_stdio"]]


def test_mcp_stdio_fires_with_env_kinds(live):
    found = _mcp(live)
    for want in [
        ("agent/mcp_servers.py", line_of(MCP, 'command="npx"'), "full"),
        ("agent/mcp_servers.py", line_of(MCP, 'command="mcp-fs"'), "constructed"),
        ("agent/mcp_servers.py", line_of(MCP, '"mcpServers"'), "unknown"),
    ]:
        assert want in found


def test_mcp_stdio_does_not_report_stdio_client_of_built_params_as_inherit(live):
    assert _mcp(live) == [
        ("agent/mcp_servers.py", line_of(MCP, 'command="npx"'), "full"),
        ("agent/mcp_servers.py", line_of(MCP, 'command="mcp-fs"'), "constructed"),
        ("agent/mcp_servers.py", line_of(MCP, '"mcpServers"'), "unknown"),
    ]


def test_pin_fires_on_lock_with_fingerprint(live):
    found = live["ext.pin"]
    assert [(f.location.path, f.location.start_line, f.data["cls"]) for f in found] == [
        ("agent/plugins.py", line_of(PLUGINS, "class ExtensionLock"), "ExtensionLock")]
    # ExtensionInfo has a version but no fingerprint


def test_signature_fires_on_public_key_verify(live):
    assert located(live["ext.signature"]) == [
        ("agent/plugins.py", line_of(PLUGINS, "public_key.verify("))]


def test_remote_code_fires_on_trust_remote_code_and_npx(live):
    assert located(live["ext.remote_code"]) == [
        ("agent/plugins.py", line_of(PLUGINS, "trust_remote_code=True")),
        ("agent/plugins.py", line_of(PLUGINS, '["npx", "-y"')),
    ]


def test_loader_fires_on_dynamic_import_and_pythonpath(live):
    found = live["ext.loader"]
    assert [(f.location.path, f.location.start_line, f.data["how"]) for f in found] == [
        ("agent/plugins.py", line_of(PLUGINS, "importlib.import_module(name)"), "import"),
        ("agent/plugins.py", line_of(PLUGINS, 'env["PYTHONPATH"]'), "pythonpath"),
    ]  # importlib.import_module("json") names a fixed module


LOADERS = '''import json
import os

import yaml


def load_toolsets_from_file(path: str):
    with open(path) as f:
        return yaml.safe_load(f)["toolsets"]


def _load_toolsets_from_paths(paths: list[str]):
    return [t for p in paths for t in load_toolsets_from_file(p)]


def import_skills(skills_dir: str):
    return [name for _, _, names in os.walk(skills_dir) for name in names]


def load_tools():
    return {"shell": "run_shell"}  # built in code: no file is read


def get_profile(name: str, profiles: dict):
    return profiles[name]  # a lookup, not a file


def load_settings(path: str):
    return json.load(open(path))  # settings, not tool or profile definitions


def setup(paths: list[str]):
    return _load_toolsets_from_paths(paths), import_skills("skills"), load_tools(), load_settings("s")
'''


def test_definition_loaders_read_what_the_agent_runs_with(repo):
    found = probe_findings(repo, {"agent/loaders.py": LOADERS}, "ext.definition_loader")
    assert [(f.data["func"], f.data["what"]) for f in found] == [
        ("load_toolsets_from_file", "toolsets"), ("_load_toolsets_from_paths", "toolsets"),
        ("import_skills", "skills")]
    assert f"(open(...) at line {line_of(LOADERS, 'with open(path)')})" in found[0].claim
    assert "through load_toolsets_from_file(...)" in found[1].claim


def test_definition_loaders_in_tests_docs_and_examples_do_not_fire(repo):
    found = probe_findings(repo, {"tests/test_loaders.py": LOADERS, "examples/loaders.py": LOADERS,
                                  "docs/loaders.md": LOADERS}, "ext.definition_loader")
    assert found == []
