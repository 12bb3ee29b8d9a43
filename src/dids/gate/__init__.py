"""The CI gate: thresholds, baselines, waivers and suppression comments (`dids gate`)."""

from .claims import Claims, Waiver, annotate_report, collect_claims, json_with_claims
from .policy import GateResult, render_gate_json, render_text, run_gate

__all__ = ["Claims", "GateResult", "Waiver", "annotate_report", "collect_claims",
           "json_with_claims", "render_gate_json", "render_text", "run_gate"]
