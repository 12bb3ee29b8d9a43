"""C7 third-party extensions: pinning, integrity, who installs them, and what they can reach."""

from __future__ import annotations

from ..models import CriterionAssessment, Kind
from ..probes.base import finding
from .base import ConfigBuilder, Context, assessor
from .common import leaky_spawns


def _live(items):
    return [x for x in items if str(x.data.get("reach", "default")) != "off-path"]


def workspace_extensions(ctx) -> list:
    """Hooks and plugins the opened workspace supplies, loaded with no install step (the
    TypeScript reader of workspace configuration): third-party code on by default."""
    return [x for x in _live(ctx.findings["memory.repo_config"]) if x.data.get("executable")]


@assessor("C7")
def assess(ctx: Context) -> CriterionAssessment:
    f = ctx.findings
    restricted_files = {x.location.path for x in f["exec.restricted"] if x.location}
    mcp_stdio = _live(f["ext.mcp_stdio"])
    mcp_remote = [x for x in _live(f["sem.mcp"]) if x.data.get("transport") in ("sse", "http")]
    mcp = mcp_stdio + mcp_remote
    pin, sig = _live(f["ext.pin"]), _live(f["ext.signature"])
    remote = _live(f["ext.remote_code"])
    # the restricted interpreter's own `import` of an allowed module is not an extension
    loader = [x for x in _live(f["ext.loader"]) if not (x.location and
                                                         x.location.path in restricted_files)]
    inproc = [x for x in loader if x.data.get("how") in ("import", "exec")]
    executed = [x for x in loader if x.data.get("how") == "exec"]  # extension source exec'd
    none = finding("ext.mcp_stdio", "live source for MCP clients, plugin loaders, run-time code "
                   "fetches, extension locks and signature checks → 0 hits.", kind=Kind.search)
    types = {"mcp": bool(mcp), "plugins": bool(loader), "remote": bool(remote)}
    if not any(types.values()) and not pin:
        return CriterionAssessment(
            criterion="C7", assessed=True,
            summary="No extension mechanism (MCP servers, plugins, run-time code loading) was found.",
            configurations=(_no_extensions(ctx, none),))
    guarded = [r for r in remote if r.data.get("acknowledged") or r.data.get("pinned")]
    # a signature check counts where extension code is fetched (a webhook's signature is not one)
    ext_files = {x.location.path for x in mcp + remote + loader if x.location}
    sig = [x for x in sig if x.location and x.location.path in ext_files]
    default_path = lambda x: str(x.data.get("reach", "default")) == "default"  # noqa: E731
    b = ConfigBuilder(ctx, "C7", "default", "default configuration", opt_in=False)
    if pin:
        s, stext = 2, "Extension code is pinned in a lock with fingerprints; other extension types are not."
        s_ev = pin[:2] + mcp[:1]
    elif [x for x in executed if default_path(x)] or (remote and not guarded):
        s, stext = 0, ("Extension code (profiles, plugins, downloaded tools) is run as fetched, "
                       "with no pin, checksum or signature.")
        s_ev = ([x for x in executed if default_path(x)] + [r for r in remote if r not in guarded])[:3]
    else:
        s, stext = 1, ("Extensions run whatever the operator configured, unpinned"
                       + ("; remote code needs an acknowledgement flag or an optional revision "
                          "pin." if guarded else "")
                       + ("; only signature-verified releases are checked." if sig else "."))
        s_ev = guarded[:2] + mcp[:1] + sig[:1] + loader[:1]
    b.set("S", s, stext, s_ev)
    controlled = int(bool(pin)) + int(bool(sig)) + int(bool(guarded))
    kinds = max(1, sum(types.values()))
    # a type held apart without a pin is partial coverage too: MCP servers reached only over the
    # network (off-host, they see call arguments), or local servers started with an environment
    # built for them rather than the agent's own
    confined = [m for m in mcp_remote if not str(m.data.get("reach", "")).startswith("opt-in")] or \
        [m for m in mcp_stdio if m.data.get("env") == "constructed"]
    # every extension type pinned or verified is L2; one control on one type is partial
    c = 0 if not (controlled or confined) else (
        2 if controlled >= kinds and not (remote and len(guarded) < len(remote)) and (pin or sig) else 1)
    if controlled or not confined:
        ctext = f"{controlled} of {kinds} extension types are pinned, verified or acknowledged."
        c_ev = (pin[:1] + sig[:1] + guarded[:1] + mcp[:1]) or s_ev
    else:
        ctext = ("No extension type is pinned or verified, but one is held apart: "
                 + ("remote MCP servers run off-host and see only the calls sent to them."
                    if confined[0] in mcp_remote else
                    "local MCP servers start with an environment built for them."))
        c_ev = confined[:2] + [m for m in mcp if m not in confined][:1]
    b.set("C", min(c, s + 1), ctext, c_ev)
    env_mcp = [x for x in f["memory.dotenv_commands"] if "MCP" in str(x.data.get("key", "")).upper()]
    dotenv = [x for x in f["sem.credential"] if x.data.get("source") == "dotenv" and default_path(x)]
    auto = [r for r in remote if default_path(r) and not r.data.get("acknowledged")]
    ws_ext = workspace_extensions(ctx)
    if ws_ext:
        d, dtext = 0, ("Hooks and plugins supplied by the workspace are discovered and loaded "
                       "without an explicit install.")
        d_ev = ws_ext[:2]
    elif auto:
        d, dtext, d_ev = 1, "Some code is fetched at run time by the code itself.", auto[:2]
    elif [x for x in executed if default_path(x)]:
        d, dtext = 1, ("Extension files are loaded on every start (the operator adds them, but "
                       "what they contain is not shown).")
        d_ev = [x for x in executed if default_path(x)][:2]
    elif env_mcp and dotenv:
        d, dtext = 1, ("Extensions are added by the operator, but MCP commands can also come from "
                       "a .env loaded from the working folder.")
        d_ev = dotenv[:1] + env_mcp[:1]
    else:
        d, dtext = 2, ("Extensions come only from explicit operator or developer calls and "
                       "configuration; none ship enabled.")
        d_ev = (guarded[:1] + mcp[:1] + loader[:1]) or s_ev
    b.set("D", min(d, s + 1), dtext, d_ev)
    full_mcp = [m for m in mcp_stdio if m.data.get("env") in ("full", "inherit")]
    pythonpath = [x for x in loader if x.data.get("how") == "pythonpath"]
    leaky = leaky_spawns(ctx)
    exec_remote = [x for x in f["sem.exec"] if x.data.get("class") == "inprocess" and x.location
                   and any(r.location and r.location.path == x.location.path for r in remote)]
    user_tools = [x for x in _live(f["memory.user_config"]) if x.data.get("defines")]
    if pythonpath and leaky:
        bl, btext = 0, ("Extension code is put on the import path of a process that inherits the "
                        "platform's full environment.")
        b_ev = pythonpath[:2] + leaky[:1]
    elif inproc or exec_remote:
        bl, btext = 0, "Extension code runs inside the agent process with its full environment."
        b_ev = (inproc + exec_remote)[:2]
    elif full_mcp or (mcp_remote and user_tools):
        bl, btext = 1, ("MCP servers run as separate processes but receive the full environment."
                        if full_mcp else "Remote MCP servers see only call arguments, but "
                        "operator-defined tools run their commands with the full environment.")
        b_ev = (full_mcp or mcp_remote + user_tools)[:2]
    else:
        bl, btext = 2, ("Extension processes receive an environment built for them, or run "
                        "off-host.")
        b_ev = mcp[:2] or s_ev
    b.set("B", min(bl, s + 1), btext, b_ev)
    summary = (f"dids found {len(mcp_stdio)} MCP stdio launches ({len(full_mcp)} with the full "
               f"environment), {len(mcp_remote)} remote MCP clients, {len(pin)} extension locks, "
               f"{len(sig)} signature checks, {len(remote)} run-time code fetches "
               f"({len(guarded)} pinned or acknowledged) and {len(loader)} dynamic loaders.")
    return CriterionAssessment(criterion="C7", assessed=True, summary=summary,
                               configurations=(b.build(),))


def _no_extensions(ctx, none):
    b = ConfigBuilder(ctx, "C7", "default", "default configuration", opt_in=False)
    b.set("S", 1, "No extension mechanism exists, so nothing third-party is pinned or verified.", [none])
    b.set("C", 1, "No extension type to cover.", [none])
    b.set("D", 2, "Nothing third-party can be enabled, by default or otherwise.", [none])
    b.set("B", 2, "No third-party code runs in the agent's processes.", [none])
    return b.build()
