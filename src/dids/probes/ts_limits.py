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


_PER_STEP = re.compile(r"""["'`](iteration|step|turn|round)[_-]?(end|ended|complete|completed|done|finished)["'`]""", re.I)
_PERSIST = re.compile(r"persist|save|write|store|flush|record", re.I)
_MESSAGES = re.compile(r"messages|history|transcript|conversation", re.I)


@ts_probe("records.transcript")
def per_step_persistence(index):
    """The message history persisted in a handler of a per-step event (`if (event.type ===
    "iteration_end") persistMessages(id, agent.getMessages())`): the record is flushed after
    every agent iteration, not only when the run ends."""
    for path in sorted(index.py):
        facts = index.py[path]
        for b in facts.blocks:
            if b.kind not in ("if", "elif"):
                continue
            m = _PER_STEP.search(b.head)
            if not m:
                continue
            for c in facts.calls:
                if not (b.line <= c.line <= b.end_line) or not _PERSIST.search(c.short):
                    continue
                if not _MESSAGES.search(c.short + " " + " ".join(c.args)):
                    continue
                yield finding("records.transcript", f"{c.raw}(...) in {c.func or 'module scope'} "
                              f"persists the message history after every agent iteration (on "
                              f"{m.group(0)}).", path, b.line, c.end_line, func=c.func or "",
                              per_step=True)
                break
