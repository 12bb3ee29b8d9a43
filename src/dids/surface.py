"""Header facts: the repository's name and description, the agent surface line, the tool list."""

from __future__ import annotations

import re

from .index.repo import RepoIndex
from .models import Tool
from .probes.base import Findings


def describe(index: RepoIndex, url: str) -> tuple[str, str]:
    name = re.sub(r"\.git$", "", url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]) or "repository"
    what = "Description not found in pyproject.toml or README."
    for path in ("pyproject.toml",):
        if path in index.files:
            m = re.search(r'^description\s*=\s*"([^"]{5,300})"', index.text(path), re.M)
            if m:
                what = m.group(1)
                break
    return name, what


def surface(index: RepoIndex, findings: Findings) -> tuple[dict[str, str], list[Tool]]:
    keys = ("code_execution", "filesystem_write", "network_egress", "external_credentials",
            "persistent_memory", "untrusted_input", "third_party_extensions", "sub_agents",
            "external_communication")
    out = {k: "not assessed" for k in keys}
    spawns = findings["exec.spawn"]
    if spawns:
        strong_off = any(s.data.get("sandbox_on") is False for s in findings["exec.selector"])
        out["code_execution"] = "yes"
        del strong_off
    else:
        out["code_execution"] = "no"
    tools: list[Tool] = []
    return out, tools
