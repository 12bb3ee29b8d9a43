"""C6 memory, context & configuration integrity: who writes what the agent later trusts."""

from __future__ import annotations

from ..models import CriterionAssessment, Kind
from ..probes.base import finding
from .base import ConfigBuilder, Context, assessor


@assessor("C6")
def assess(ctx: Context) -> CriterionAssessment:
    f = ctx.findings
    writes, extract, inject = f["memory.model_write"], f["memory.extraction"], f["memory.inject"]
    repo_cfg, scoped, rls = f["memory.repo_config"], f["memory.config_scope"], f["memory.rls"]
    tenant = f["identity.tenant"]
    none = finding("memory.model_write", "live source for model-callable memory tools, automatic "
                   "memory extraction and workspace-loaded agent configuration → 0 hits.",
                   kind=Kind.search)
    b = ConfigBuilder(ctx, "C6", "default", "default configuration", opt_in=False)
    model_memory = writes or extract
    if model_memory and inject:
        s, stext = 0, "The model writes long-term memory that is re-injected into later turns as facts."
        s_ev = writes[:2] + extract[:1] + inject[:1]
    elif model_memory:
        s, stext = 1, "The model can write memory; how it is presented back was not established."
        s_ev = writes[:2] + extract[:1]
    else:
        s, stext = 2, ("No model-writable long-term memory was found"
                       + ("; agent settings load only from the operator's scope." if scoped else "."))
        s_ev = scoped[:2] + [none]
    b.set("S", s, stext, s_ev)
    if model_memory:
        c, ctext = 0, "Neither the memory tool nor automatic extraction is controlled."
        c_ev = writes[:1] + extract[:1] + inject[:1]
    else:
        c, ctext = 2, ("Persistent state is written by the orchestrator"
                       + (" and queried per tenant." if tenant else "."))
        c_ev = tenant[:2] or s_ev
    b.set("C", c, ctext, c_ev)
    rls_off = [r for r in rls if not r.data["on"]]
    if model_memory:
        d, dtext, d_ev = 1, "Memory is on by default and the model writes to it freely.", writes[:2] + extract[:1]
    elif rls and not rls_off:
        d, dtext, d_ev = 3, "Row-level isolation is on by default.", rls[:1]
    else:
        d, dtext = 2, ("Isolation lives in application queries" + (
            "; row-level security ships off." if rls_off else "."))
        d_ev = rls_off[:1] + tenant[:1] or s_ev
    b.set("D", d, dtext, d_ev)
    if model_memory and inject:
        bl, btext = 1, "Poisoned memory persists across sessions and steers every later turn."
        b_ev = inject[:2]
    else:
        bl, btext = 2, "Poisoned content stays within its session or tenant; nothing is injected everywhere."
        b_ev = s_ev
    b.set("B", bl, btext, b_ev)
    if repo_cfg:
        b.caps.append("C6-REPOCONFIG")
    summary = (f"dids found {len(writes)} model-callable memory tools, {len(extract)} automatic "
               f"extraction calls, {len(inject)} prompt builders that read memory, "
               f"{len(repo_cfg)} places that load agent configuration from project files and "
               f"{len(scoped)} user-scope-only settings loads.")
    notes = tuple(f"Agent configuration read from a project file at {x.location.label()}; the "
                  "C6-REPOCONFIG cap applies." for x in repo_cfg[:2] if x.location)
    return CriterionAssessment(criterion="C6", assessed=True, summary=summary,
                               configurations=(b.build(),), notes=notes)
