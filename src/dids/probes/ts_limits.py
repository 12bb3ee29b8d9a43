"""Limits in TypeScript/JavaScript idiom: a kill of the whole process group (limits.cancel):
`process.kill(-pid, signal)` (a negative pid is the group) or a tree kill (`tree-kill`,
`treeKill(pid)`), so cancel or a timeout stops what the command started, not only its shell.
"""

from __future__ import annotations

import re

from .base import finding
from .ts_probes import ts_probe

_NEG_PID = re.compile(r"^-\s*\(?[\w$.]+!?\)?$")
_TREE_KILL = re.compile(r"^(tree-kill|treeKill|terminate|pidtree|fkill)(\.|$)|\.treeKill$|^treeKill$")


@ts_probe("limits.cancel")
def group_kills(index):
    """Process-group and process-tree kills."""
    for path in sorted(index.py):
        facts = index.py[path]
        for c in facts.calls:
            if c.callee == "process.kill" and c.args and _NEG_PID.match(c.args[0].strip()):
                yield finding("limits.cancel", f"process.kill({c.args[0].strip()}, ...) in "
                              f"{c.func or 'module scope'} kills the whole process group.",
                              path, c.line, how="killpg")
            elif _TREE_KILL.search(c.callee) and c.short in ("treeKill", "kill", "default", "") \
                    or c.callee in ("tree-kill", "tree-kill.default"):
                yield finding("limits.cancel", f"{c.raw}(...) in {c.func or 'module scope'} kills "
                              "the process tree.", path, c.line, how="killpg")
