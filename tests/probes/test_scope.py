"""scope.* probes: destination checks on egress, and per-agent tool allowlists empty by default."""

from __future__ import annotations

import pytest

from .helpers import probe_findings


def _line(src: str, needle: str) -> int:
    """1-based line of the only line of src containing needle."""
    hits = [i for i, t in enumerate(src.splitlines(), 1) if needle in t]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


# ---------------------------------------------------------- scope.destination

EGRESS = '''import ipaddress
import socket
from urllib.parse import urlparse

import httpx

from .app import agent, security


def _is_blocked(host: str) -> bool:
    ip = ipaddress.ip_address(socket.gethostbyname(host))
    blocked = ip.is_private or ip.is_loopback
    return blocked


@agent.tool_plain
def fetch(url: str) -> str:
    security.validate_url(url)
    if _is_blocked(urlparse(url).hostname):
        raise ValueError("blocked")
    return httpx.get(url).text


def post_webhook(url: str, body: dict) -> None:
    ensure_egress_allowed(urlparse(url).hostname)
    httpx.post(url, json=body)


def signup(email: str) -> None:
    validate_email(email)
    check_health()
'''


def test_destination_fires_on_checks_and_private_address_tests(repo):
    found = probe_findings(repo, {"agent/egress.py": EGRESS}, "scope.destination")
    assert [(f.location.path, f.location.start_line) for f in found] == [
        ("agent/egress.py", _line(EGRESS, "blocked = ip.is_private")),
        ("agent/egress.py", _line(EGRESS, "security.validate_url(url)")),
        ("agent/egress.py", _line(EGRESS, "ensure_egress_allowed(")),
    ]
    assert "in fetch" in found[1].claim and "in post_webhook" in found[2].claim
    # validate_email() and check_health() are not destination checks


def test_destination_fires_on_inline_if_check(repo):
    src = '''import ipaddress
import socket
from urllib.parse import urlparse

import httpx


def fetch(url: str) -> str:
    ip = ipaddress.ip_address(socket.gethostbyname(urlparse(url).hostname))
    if ip.is_private or ip.is_loopback:
        raise PermissionError("private address")
    return httpx.get(url).text
'''
    found = probe_findings(repo, {"agent/fetch.py": src}, "scope.destination")
    assert [(f.location.path, f.location.start_line) for f in found] == [("agent/fetch.py", 10)]


def test_destination_near_misses_do_not_fire(repo):
    files = {
        "tests/test_egress.py": EGRESS,
        "examples/egress.py": EGRESS,
        "docs/egress.md": "Every fetch calls validate_url(url) and rejects ip.is_private.\n",
        "agent/notes.py": '"""Fetch tools call validate_url(url) first."""\n'
                          "def note():\n    # validate_url(url)\n    return None\n",
    }
    assert probe_findings(repo, files, "scope.destination") == []


def test_destination_ignores_string_constant(repo):
    src = 'HINT = "reject hosts where addr.is_private is true"\n'
    assert probe_findings(repo, {"agent/hints.py": src}, "scope.destination") == []


# ------------------------------------------------------------ scope.allowlist

CONFIG = '''from typing import List, Optional, Sequence

from pydantic import BaseModel, Field

tools: list[str] = []


class AgentConfig(BaseModel):
    name: str
    allowed_tools: list[str] | None = None
    tools: List[str] = Field(default_factory=list)
    allowed_actions: Optional[Sequence[str]] = Field(default=None, description="actions")
    enabled_tools: set[str] = {"search", "shell"}
    tool_allowlist: str | None = None
    actions = []
    tools_doc: list[str] = []


class WorkerConfig(BaseModel):
    actions: tuple[str, ...] = Field(None)
'''


def test_allowlist_fires_on_empty_by_default_list_fields(repo):
    found = probe_findings(repo, {"agent/config.py": CONFIG}, "scope.allowlist")
    assert [(f.location.path, f.location.start_line, f.data["field"]) for f in found] == [
        ("agent/config.py", _line(CONFIG, "allowed_tools:"), "allowed_tools"),
        ("agent/config.py", _line(CONFIG, "tools: List[str]"), "tools"),
        ("agent/config.py", _line(CONFIG, "allowed_actions:"), "allowed_actions"),
    ]
    assert found[0].claim == "AgentConfig.allowed_tools defaults to an empty tool list."
    # module-level tools, a non-empty default, a str annotation, an unannotated field, an
    # unrelated name (tools_doc) and a bare "actions" list on a non-agent class (WorkerConfig)
    # do not count


def test_allowlist_fires_on_dataclass_default_factory(repo):
    src = '''from dataclasses import dataclass, field


@dataclass
class AgentSpec:
    name: str
    allowed_tools: list[str] = field(default_factory=list)
'''
    found = probe_findings(repo, {"agent/spec.py": src}, "scope.allowlist")
    assert [(f.location.start_line, f.data["field"]) for f in found] == [(7, "allowed_tools")]


def test_allowlist_near_misses_do_not_fire(repo):
    files = {
        "tests/test_config.py": CONFIG,
        "examples/config.py": CONFIG,
        "docs/config.md": "class AgentConfig:\n    allowed_tools: list[str] | None = None\n",
        "agent/notes.py": '"""Declare:\n\nclass AgentConfig(BaseModel):\n'
                          '    allowed_tools: list[str] | None = None\n"""\n'
                          "# allowed_tools: list[str] | None = None\n"
                          "SNIPPET = 'allowed_tools: list[str] | None = None'\n",
    }
    assert probe_findings(repo, files, "scope.allowlist") == []
