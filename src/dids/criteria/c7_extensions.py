"""C7 third-party extensions: pinning, integrity, who installs them, and what they can reach."""

from __future__ import annotations

from ..models import CriterionAssessment, Kind
from ..probes.base import finding
from .base import ConfigBuilder, Context, assessor
from .common import leaky_spawns


@assessor("C7")
def assess(ctx: Context) -> CriterionAssessment:
    f = ctx.findings
    mcp, pin, sig = f["ext.mcp_stdio"], f["ext.pin"], f["ext.signature"]
    remote, loader = f["ext.remote_code"], f["ext.loader"]
    none = finding("ext.mcp_stdio", "live source for MCP stdio launches, plugin loaders, extension "
                   "locks and signature checks → 0 hits.", kind=Kind.search)
    types = {"mcp": bool(mcp), "plugins": bool(loader), "remote": bool(remote)}
    if not any(types.values()) and not pin:
        return CriterionAssessment(
            criterion="C7", assessed=True,
            summary="No extension mechanism (MCP servers, plugins, run-time code loading) was found.",
            configurations=(_no_extensions(ctx, none),))
    b = ConfigBuilder(ctx, "C7", "default", "default configuration", opt_in=False)
    if pin:
        s, stext = 2, "Extension code is pinned in a lock with fingerprints; other extension types are not."
        s_ev = pin[:2] + mcp[:1]
    elif remote:
        s, stext = 0, "Code is fetched and run at run time without a pin or integrity check."
        s_ev = remote[:3]
    else:
        s, stext = 1, ("Extensions run whatever the operator configured, unpinned"
                       + ("; only signature-verified releases are checked." if sig else "."))
        s_ev = mcp[:2] + sig[:1] + loader[:1]
    b.set("S", s, stext, s_ev)
    verified = int(bool(pin)) + int(bool(sig))
    kinds = max(1, sum(types.values()))
    c = 0 if not verified else (2 if verified >= kinds else 1)
    b.set("C", min(c, s + 1), f"{verified} of {kinds} extension types are pinned or verified.",
          pin[:1] + sig[:1] + mcp[:1] or s_ev)
    if remote:
        d, dtext = 1, "Some code is fetched at run time by the code itself."
        d_ev = remote[:2]
    else:
        d, dtext = 2, "Extensions come only from explicit operator configuration; none ship enabled."
        d_ev = (mcp[:1] + loader[:1]) or s_ev
    b.set("D", min(d, s + 1), dtext, d_ev)
    full_mcp = [m for m in mcp if m.data["env"] in ("full", "inherit")]
    pythonpath = [x for x in loader if x.data["how"] == "pythonpath"]
    leaky = leaky_spawns(ctx)
    if pythonpath and leaky:
        bl, btext = 0, ("Extension code is put on the import path of a process that inherits the "
                        "platform's full environment.")
        b_ev = pythonpath[:2] + leaky[:1]
    elif [x for x in loader if x.data["how"] == "import"]:
        bl, btext = 0, "Extension code is imported into the agent process itself."
        b_ev = loader[:2]
    elif full_mcp:
        bl, btext = 1, "MCP servers run as separate processes but receive the full environment."
        b_ev = full_mcp[:2]
    else:
        bl, btext = 2, "Extension processes receive an environment built for them."
        b_ev = mcp[:2] or s_ev
    b.set("B", min(bl, s + 1), btext, b_ev)
    summary = (f"dids found {len(mcp)} MCP stdio launches ({len(full_mcp)} with the full "
               f"environment), {len(pin)} extension locks, {len(sig)} signature checks, "
               f"{len(remote)} run-time code fetches and {len(loader)} dynamic loaders.")
    return CriterionAssessment(criterion="C7", assessed=True, summary=summary,
                               configurations=(b.build(),))


def _no_extensions(ctx, none):
    b = ConfigBuilder(ctx, "C7", "default", "default configuration", opt_in=False)
    b.set("S", 1, "No extension mechanism exists, so nothing third-party is pinned or verified.", [none])
    b.set("C", 1, "No extension type to cover.", [none])
    b.set("D", 2, "Nothing third-party can be enabled, by default or otherwise.", [none])
    b.set("B", 2, "No third-party code runs in the agent's processes.", [none])
    return b.build()
