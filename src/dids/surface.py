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
    tools: list[Tool] = []
    caps: set[str] = set()
    for f in findings["tools.inventory"]:
        tool_caps = tuple(str(f.data["capabilities"]).split(","))
        caps.update(tool_caps)
        approval = f.data.get("approval")
        tools.append(Tool(name=str(f.data["name"]), path=f.location.path if f.location else "",
                          line=f.location.start_line if f.location else 0,
                          registration=str(f.data["registration"]), capabilities=tool_caps,
                          requires_approval=None if approval is None else approval == "True"))
    out["code_execution"] = "yes" if findings["exec.spawn"] or "exec" in caps else "no"
    if tools:
        # only claim what the tool bodies show; absence stays "not assessed", never "no"
        for key, cap in (("filesystem_write", "fs_write"), ("network_egress", "network"),
                         ("external_communication", "external_comm")):
            if cap in caps:
                out[key] = "yes"
    if "credentials" in caps or findings["secrets.deploy_env"] or findings["identity.ambient"]:
        out["external_credentials"] = "yes"
    out["persistent_memory"] = "yes" if (findings["memory.model_write"] or
                                         findings["memory.extraction"]) else "no"
    if findings["untrusted.source"] or "network" in caps:
        out["untrusted_input"] = "yes"
    if findings["ext.remote_code"]:
        out["third_party_extensions"] = "yes"
    elif findings["ext.mcp_stdio"] or findings["ext.loader"]:
        out["third_party_extensions"] = "opt-in"
    else:
        out["third_party_extensions"] = "no"
    out["sub_agents"] = "yes" if findings["agents.sub"] else "no"
    if tools and out["external_communication"] == "not assessed":
        out["external_communication"] = "no"  # no recognised tool sends messages out
    return out, tools
