"""C3 scoping family: destination checks on egress and per-agent tool allowlists."""

from __future__ import annotations

import re

from ..index.repo import RepoIndex
from .base import Names, finding, line_findings, probe


_CHECK_FN = Names(r"(validate|check|ensure)_?(url|host|destination|egress)", re.I)


@probe("scope.destination", ("C3",), "Check destinations of egress tools (allowlist, no private ranges).")
def destination(index: RepoIndex):
    """Private-address or host-allowlist checks applied in live code."""
    checks = ("is_private", "is_loopback", "is_link_local", "is_reserved")
    for facts, c in index.calls_named(lambda n: n in checks or _CHECK_FN.search(n)):
        yield finding("scope.destination", f"{c.raw}(...) checks a destination in "
                      f"{c.func or 'module scope'}.", facts.path, c.line)
    yield from line_findings(index, "scope.destination",
                             [r"\.is_(private|loopback|link_local|reserved|multicast)\b"],
                             "A private-address check is applied here.", code_only=True)


_CONFIG_CLASS = Names(r"Agent|Preset|Config|Settings|Spec|Profile|Args|Options|Definition", re.I)
_RESULT_CLASS = Names(r"Result|Response|Output|Event|Message|Record|Log|History|Trace", re.I)


@probe("scope.allowlist", ("C3",), "Give each agent an explicit, empty-by-default tool list.")
def allowlist(index: RepoIndex):
    """Agent config fields listing allowed tools/actions that default to empty."""
    pat = re.compile(r"^(allowed_tools|tool_allowlist|enabled_tools|actions|tools|allowed_actions)$")
    for facts in index.source_py():
        for a in facts.assigns:
            if a.scope_kind != "class" or not pat.match(a.target) or not a.annotation:
                continue
            # agent configuration, not a result or message that happens to list tools
            cls = a.scope.split(".")[-1]
            if not _CONFIG_CLASS.search(cls) or _RESULT_CLASS.search(cls):
                continue
            # a bare "tools"/"actions" list is an allowlist only on an agent's own configuration
            if a.target in ("tools", "actions") and not re.search(r"Agent|Preset|Assistant", cls):
                continue
            if not re.search(r"list|List|set|Sequence|tuple", a.annotation):
                continue
            value = (a.value or "").replace(" ", "")
            if value in ("None", "[]", "Field(default=None)", "Field(default_factory=list)",
                         "Field(None)", "field(default_factory=list)") or \
                    value.startswith("Field(default=None"):
                yield finding("scope.allowlist", f"{a.scope}.{a.target} defaults to an empty tool "
                              "list.", facts.path, a.line, field=a.target)
