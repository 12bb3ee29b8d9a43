"""Probes over TypeScript/JavaScript, when a Node package is the scored path.

Two kinds, merged into the findings of the probe ids the assessors already read:

- the language-neutral probes (VIEW_PROBES: library-model findings, records appended per step,
  checkpoints, wrapper and hardening strings, loop caps, ...) run unchanged over the TypeScript
  view of the index (agent/ts_view: `py` holds the TypeScript facts, Python-file searches
  search TypeScript files, the Node library models apply);
- TypeScript readers (`@ts_probe(id)`) for what the Python probes read through Python syntax:
  process spawns and their options (ts_exec), tool definitions and dispatchers (ts_tools),
  approval switches and asks (ts_approval), owner-only files and secret replacement
  (ts_secrets), limits and records written in TypeScript idiom (ts_limits).

Each finding is tagged with its reach like any other (runner._with_reach).
"""

from __future__ import annotations

from typing import Callable

from ..agent.ts_view import ts_view
from ..models import Finding

# probes whose logic reads facts, not Python syntax: they run over the TypeScript view as they are
VIEW_PROBES = (
    "sem.exec", "sem.llm", "sem.agent_loop", "sem.network", "sem.prompt", "sem.persist",
    "sem.telemetry", "sem.credential", "sem.mcp", "sem.loader",
    "exec.wrapper", "exec.hardening", "exec.inprocess",
    "approval.gate", "approval.reversibility", "approval.hook", "approval.record",
    "records.step", "records.console", "records.transcript", "records.trace",
    "limits.loop_cap", "limits.cancel",
    "memory.repo_config",
    "secrets.masked_prompt",
)

TS_PROBES: dict[str, list[Callable]] = {}


def ts_probe(target: str):
    """Register a TypeScript reader whose findings join probe TARGET's."""

    def wrap(func):
        TS_PROBES.setdefault(target, []).append(func)
        return func

    return wrap


def ts_units(index, tag: Callable[[object, Finding], Finding]
             ) -> list[tuple[str, Callable[[], list[Finding]]]]:
    """The TypeScript side's work as (probe id, thunk) units, in a fixed order; each thunk
    returns its findings tagged by TAG(index, finding). The runner spreads units over its
    processes, so the units share one TypeScript view per process, built by the first to run."""
    from . import ts_approval, ts_exec, ts_limits, ts_secrets, ts_tools  # noqa: F401  (register)
    from .base import PROBES

    def unit(func: Callable) -> Callable[[], list[Finding]]:
        return lambda: [tag(index, f) for f in func(ts_view(index))]

    units = [(pid, unit(PROBES[pid].func)) for pid in VIEW_PROBES if pid in PROBES]
    units += [(pid, unit(fn)) for pid, funcs in TS_PROBES.items() for fn in funcs]
    return units
