"""C8 secrets & sensitive data: storage, masking coverage, telemetry defaults, leaky environments."""

from __future__ import annotations

from ..models import CriterionAssessment, Kind
from ..probes.base import finding
from .base import ConfigBuilder, Context, assessor


@assessor("C8")
def assess(ctx: Context) -> CriterionAssessment:
    f = ctx.findings
    enc, mode, mask = f["secrets.encryption"], f["secrets.file_mode"], f["secrets.masking"]
    tele = [x for x in f["secrets.telemetry"] if x.probe == "secrets.telemetry"]
    tele_default = [x for x in f["secrets.telemetry"] if x.probe == "secrets.telemetry_default"]
    switch, deploy = f["secrets.mask_switch"], f["secrets.deploy_env"]
    leaky = [s for s in f["exec.spawn"] if s.data["env"] in ("full", "inherit", "filtered")]
    mask_files = {m.location.path for m in mask if m.location}
    none = finding("secrets.masking", "live source for secret encryption (Fernet/KMS/keyring), "
                   "owner-only files and masking calls → 0 hits.", kind=Kind.search)

    b = ConfigBuilder(ctx, "C8", "default", "default configuration", opt_in=False)
    if enc and mask:
        s, stext = 3, "Secrets are encrypted at rest and masked in outputs."
    elif (enc or mode) and mask or len(mask_files) >= 3:
        s, stext = 2, "Masking or redaction is applied, with " + (
            "encrypted" if enc else "owner-only" if mode else "no protected") + " storage."
    elif enc or mode or mask:
        s, stext = 1, "One protection exists (storage or masking), not both."
    else:
        s, stext = 0, "No encryption at rest, owner-only storage or masking was found."
    b.set("S", s, stext, (enc[:2] + mode[:1] + mask[:2]) or [none])

    if len(mask_files) >= 3:
        c = 2 if leaky else 3
    elif mask_files:
        c = 1
    else:
        c = 0
    b.set("C", min(c, s + 1), f"Masking is called from {len(mask_files)} files"
          + (f"; {len(leaky)} process spawns still hand the full environment to children."
             if leaky else "."), mask[:3] + leaky[:1] or [none])

    content_on = [t for t in tele if t.data.get("content")]
    on_defaults = [t for t in tele_default if t.data.get("on")]
    if on_defaults and content_on:
        d, dtext = 0, "Telemetry is on by default and carries prompt or tool content."
    elif s == 0:
        d, dtext = 0, "No protection to be on by default."
    elif switch:
        d, dtext = 2, "Protections are on by default, but a setting can switch masking off."
    elif on_defaults:
        d, dtext = 1, "Telemetry is on by default (content-free as far as the code shows)."
    else:
        d, dtext = 2 if s >= 2 else 1, "Telemetry is opt-in and the protections are always on."
    b.set("D", d, dtext, (content_on[:1] + on_defaults[:1] + switch[:1] + tele_default[:2])
          or mask[:1] or [none])

    if leaky and (deploy or True):
        bl = 0
        btext = (f"{len(leaky)} spawned processes inherit or copy the parent environment"
                 + (", which the shipped deployment fills with long-lived keys." if deploy else
                    ", where the operator's credentials live."))
    elif deploy:
        bl, btext = 1, "Long-lived keys sit in the deployment environment but no spawned process copies it."
    else:
        bl, btext = 2, "No long-lived key was found in reach of processes the model drives."
    b.set("B", bl, btext, leaky[:2] + deploy[:3] or [none])

    summary = (f"dids found {len(enc)} encryption/keychain uses, {len(mode)} owner-only file "
               f"writes, {len(mask)} masking calls in {len(mask_files)} files, "
               f"{len(tele)} telemetry senders ({len(on_defaults)} on by default) and "
               f"{len(leaky)} spawns that pass the parent environment on.")
    return CriterionAssessment(criterion="C8", assessed=True, summary=summary,
                               configurations=(b.build(),))
