"""Agent configuration read from the workspace, in TypeScript/JavaScript (memory.repo_config):
a path joined onto the workspace or working directory (`join(workspacePath, ".cline", "hooks")`,
`path.resolve(cwd, RULES_DIR)`) whose other parts name agent configuration (hooks, plugins,
rules, skills, agents, workflows, MCP servers, a dotted config folder). (The approval readers
themselves live in probes/approval.py, which reads both languages.)
"""

from __future__ import annotations

import re

from .base import finding
from .ts_probes import ts_probe

_WORKSPACE = re.compile(r"^(this\.)?(\w+\.)?(workspace\w*|cwd|projectRoot|projectDir|repoRoot|"
                        r"rootPath|workspaceRoot|workingDirectory|process\.cwd\(\))$", re.I)
_EXECUTABLE = re.compile(r"hook|plugin|script", re.I)
_CONFIG_PART = re.compile(r"hook|plugin|rule|skill|agents?\b|AGENTS|workflow|mcp|"
                          r"""^["'`]\.[\w-]+["'`]$|CONFIG_DIR""", re.I)


@ts_probe("memory.repo_config")
def workspace_config_paths(index):
    """Configuration paths built inside the workspace."""
    for path in sorted(index.py):
        facts = index.py[path]
        for c in facts.calls:
            if c.short not in ("join", "resolve") or len(c.args) < 2:
                continue
            if not (c.callee.startswith(("path.", "node:path.")) or c.callee in ("join", "resolve")):
                continue
            if not _WORKSPACE.match(c.args[0].strip()):
                continue
            parts = [a.strip() for a in c.args[1:]]
            if not any(_CONFIG_PART.search(p) for p in parts):
                continue
            executable = any(_EXECUTABLE.search(p) for p in parts)
            what = "a hook or plugin folder (code)" if executable else "an agent configuration path"
            yield finding("memory.repo_config", f"{c.raw}({', '.join(a.strip() for a in c.args)[:80]}) "
                          f"in {c.func or 'module scope'} puts {what} inside the workspace on the "
                          "agent's search path.", path, c.line, c.end_line, executable=executable)
