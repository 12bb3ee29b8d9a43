"""Facts several assessors share: powerful tools, the default tool set, Rule-of-Two legs."""

from __future__ import annotations

from .base import Context


def tool_caps(t) -> set[str]:
    return set(str(t.data["capabilities"]).split(","))


def powerful_tools(ctx: Context):
    """Tools that execute code, reach the network or write to external systems (not those
    only an opt-in branch or an extra installs: the default session does not hold them)."""
    from .c3_scoping import default_tools

    return [t for t in default_tools(ctx) if tool_caps(t) & {"exec", "network", "external_comm"}]


def empty_default_toolset(ctx: Context) -> bool:
    return bool(ctx.findings["scope.allowlist"])


def leaky_spawns(ctx: Context):
    """Spawns that pass the environment on, the model's own executors first."""
    from .facts import shared

    leaky = [s for s in ctx.findings["exec.spawn"] if s.data["env"] in ("full", "inherit", "filtered")]
    return sorted(leaky, key=shared(ctx).exec_rank)
