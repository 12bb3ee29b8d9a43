"""The agent surface line (default session), and the tool list, from the session facts.

Each of the nine capabilities is `yes` when the default session holds it, `opt-in` when a
shipped mechanism gives it only after a user choice (another tool list, a backend, a flag, a
configured integration or extension), and `no` when nothing in the live code gives it.
"""

from __future__ import annotations

from .models import Tool

KEYS = ("code_execution", "filesystem_write", "network_egress", "external_credentials",
        "persistent_memory", "untrusted_input", "third_party_extensions", "sub_agents",
        "external_communication")


def _on(items):
    return [x for x in items if str(x.data.get("reach", "default")).split(":")[0] in ("default", "library")]


def _state(default: bool, opt: bool) -> str:
    return "yes" if default else ("opt-in" if opt else "no")


def surface(ctx) -> tuple[dict[str, str], list[Tool]]:
    from .criteria.c3_scoping import caps, default_tools
    from .criteria.c7_extensions import workspace_extensions
    from .probes.subagents import DELEGATE_TOOL
    from .criteria.facts import shared

    f = ctx.findings
    sh = shared(ctx)
    tools = default_tools(ctx)
    default_names = {id(t) for t in tools}
    inventory = [t for t in f["tools.inventory"] if not t.data.get("base")
                 and str(t.data.get("reach", "default")) != "off-path"]
    other = [t for t in inventory if id(t) not in default_names]  # shipped, not in the session

    def has(pool, *wanted) -> bool:
        return any(caps(t) & set(wanted) for t in pool)

    model = sh.model_exec(browser=True)
    opt_exec = sh.model_exec(opt_in=True) or [p for p in sh.exec_paths if p.opt_in]
    free_code = [p for p in model if p.cls in ("host", "inprocess", "kernel")]  # not filtered
    out = {}
    disabled_exec = [t for t in f["tools.inventory"] if t.data.get("disabled") and
                     caps(t) & {"exec", "shell"}]
    out["code_execution"] = _state(bool(model) or has(tools, "exec", "shell"),
                                   bool(opt_exec) or bool(disabled_exec) or has(other, "exec", "shell"))
    out["filesystem_write"] = _state(has(tools, "fs_write") or bool(free_code),
                                     has(other, "fs_write") or bool(model) or bool(opt_exec))
    out["network_egress"] = _state(has(tools, "network") or bool(free_code) or bool(model),
                                   has(other, "network") or bool(opt_exec))
    creds = _on(f["secrets.env_key"]) + [x for x in _on(f["sem.credential"])] + _on(f["identity.ambient"])
    out["external_credentials"] = _state(bool(creds) or has(tools, "credentials"),
                                         has(other, "credentials"))
    memory = _on(f["memory.model_write"] + f["memory.extraction"] + f["records.event_store"])
    out["persistent_memory"] = _state(bool(memory), bool(_on(f["records.transcript"])))
    untrusted = _on(f["untrusted.source"])
    out["untrusted_input"] = _state(bool(untrusted) or has(tools, "network") or bool(model),
                                    has(other, "network"))
    ext = [x for x in f["ext.remote_code"] + f["ext.loader"] + f["ext.mcp_stdio"] + f["sem.mcp"]
           if str(x.data.get("reach", "default")) != "off-path"]
    # on by default when the opened workspace's own hooks and plugins load without an install
    out["third_party_extensions"] = _state(bool(workspace_extensions(ctx)), bool(ext))
    subs = [x for x in f["agents.sub"] if str(x.data.get("reach", "default")) != "off-path"]
    # a default-session tool that starts another agent: one the sub-agent probe found at the
    # tool's definition, or a TypeScript tool named for it (`spawn_agent`, `invoke_agent`)
    sub_at = {(x.location.path, x.location.start_line) for x in subs
              if x.data.get("how") == "tool" and x.location and x.data.get("reach") == "default"}
    sub_default = [t for t in tools if t.location and (
        (t.location.path, t.location.start_line) in sub_at or
        (not t.location.path.endswith(".py") and DELEGATE_TOOL.search(str(t.data.get("name")))))]
    out["sub_agents"] = _state(bool(sub_default), bool(subs) or any(
        DELEGATE_TOOL.search(str(t.data.get("name"))) for t in other
        if t.location and not t.location.path.endswith(".py")))
    # code the model runs unfiltered on the host can mail or post to anyone, as it can reach
    # any network destination
    out["external_communication"] = _state(has(tools, "external_comm") or bool(free_code),
                                           has(other, "external_comm") or has(inventory, "external_comm"))
    tool_list = []
    for t in tools:
        approval = t.data.get("approval")
        tool_list.append(Tool(name=str(t.data["name"]), path=t.location.path if t.location else "",
                              line=t.location.start_line if t.location else 0,
                              registration=str(t.data["registration"]),
                              capabilities=tuple(str(t.data["capabilities"]).split(",")),
                              requires_approval=None if approval is None else approval == "True"))
    return out, tool_list
