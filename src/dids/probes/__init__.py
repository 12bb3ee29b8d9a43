"""Probes: small reusable detectors that turn the index into findings with locations.

Each probe is a function registered with `@probe`; a probe module holds one family. Probes only
credit live code: source files (not tests, docs or examples), code lines (not comments or
docstrings), and, where it matters, functions something references.
"""

from .base import PROBES, Findings, probe
from .runner import run_probes

__all__ = ["PROBES", "Findings", "probe", "run_probes"]
