"""C1 identity family: ambient credentials vs a scoped identity checked on every tool call."""

from __future__ import annotations

import re

from ..index.repo import RepoIndex
from .base import Names, finding, line_findings, probe

_EXPLICIT_CREDS = Names(r"aws_access_key_id|aws_session_token|profile_name|role_arn|credentials")
# compiled once: the probes below test them against every call in the repository
_BOTO3_CLIENT = Names(r"^boto3\.(client|resource|Session|session\.Session)$")
_KUBE_CONFIG = Names(r"(^|\.)load_kube_config$|(^|\.)new_client_from_config$")
_DEFAULT_CREDS = Names(r"(^|\.)(default|from_env)$")
_GOOGLE_DOCKER = Names(r"google\.auth|docker")
_JWT_ENCODE = Names(r"^(jwt|jose\.jwt|authlib\.jose\.jwt)\.encode$")


@probe("identity.ambient", ("C1",), "Give the agent its own narrow credentials instead of the operator's.")
def ambient(index: RepoIndex):
    """Clients built from ambient credentials: boto3 default chain, the user's kubeconfig, gh auth."""
    def ambient_client(n: str) -> bool:
        return _BOTO3_CLIENT.match(n) or _KUBE_CONFIG.search(n) or \
            _DEFAULT_CREDS.search(n) and _GOOGLE_DOCKER.search(n)

    for facts, c in index.calls_where(ambient_client):
        if _BOTO3_CLIENT.match(c.callee):
            if not any(_EXPLICIT_CREDS.search(k) for k, _ in c.kwargs):
                yield finding("identity.ambient", f"{c.raw}(...) uses the default AWS "
                              "credential chain.", facts.path, c.line, source="aws")
        elif _KUBE_CONFIG.search(c.callee):
            yield finding("identity.ambient", f"{c.raw}(...) loads the user's kubeconfig.",
                          facts.path, c.line, source="kube")
        else:
            yield finding("identity.ambient", f"{c.raw}(...) uses ambient credentials.",
                          facts.path, c.line, source=c.callee.split(".")[0])
    for h in index.live_hits([r"""\[\s*["']gh["']\s*,"""], globs=("*.py",)):
        yield finding("identity.ambient", "The GitHub CLI runs with the user's own gh login.",
                      h.path, h.line, source="gh")


@probe("identity.token", ("C1",), "Mint a short-lived token listing the actions the agent may take.")
def tokens(index: RepoIndex):
    """Signed tokens minted for the agent whose claims list allowed actions, tools or scopes."""
    for facts, c in index.calls_where(lambda n: _JWT_ENCODE.match(n) or n.endswith("jwt.encode")):
        yield finding("identity.token", f"{c.raw}(...) mints a signed token in "
                      f"{c.func or 'module scope'}.", facts.path, c.line)


@probe("identity.check", ("C1",), "Check every tool call against the identity's allowed actions.")
def checks(index: RepoIndex):
    """`if <tool> not in <claims>.allowed_*: raise` checks before tool execution."""
    pat = r"\bif\s+[\w.\[\]'\"]+\s+not\s+in\s+[\w.]*(allowed_(actions|tools)|permitted_\w+|tool_allowlist|allowlist)\b"
    yield from line_findings(index, "identity.check", [pat], "A tool call is refused unless its "
                             "name is in the identity's allowlist.", code_only=True)


@probe("identity.assume_role", ("C1",), "Use a narrower role per integration.")
def assume_role(index: RepoIndex):
    """Role assumption or credential narrowing on an integration path."""
    narrowing = ("assume_role", "assume_role_with_web_identity", "generate_db_auth_token")
    for facts, c in index.calls_named(narrowing):
        yield finding("identity.assume_role", f"{c.raw}(...) narrows credentials to an "
                      "assumed role.", facts.path, c.line)


@probe("identity.tenant", ("C1", "C6"), "Bind the agent's authority to one tenant.")
def tenant(index: RepoIndex):
    """Queries and roles filtered by a tenant key (workspace/org/project id)."""
    pat = r"\.where\([^)]*\b(workspace_id|org_id|organization_id|tenant_id|project_id)\s*=="
    yield from line_findings(index, "identity.tenant", [pat],
                             "A query is filtered by the tenant key.", code_only=True)


@probe("identity.self_edit", ("C1", "C6"), "Keep tool and approval settings out of the model's reach.")
def self_edit(index: RepoIndex):
    """Tools whose bodies write tool lists, approval flags, roles or scopes."""
    from .tools import _decorated_tools

    pat = re.compile(r"\b(tool_approvals|allowed_tools|actions|scopes|role|permissions|"
                     r"requires_approval|auto_run)\b")
    for facts in index.source_py():
        for d, _dec, _ in _decorated_tools(facts):
            if not re.search(r"update|set|add|grant|edit|modify|patch", d.name, re.I):
                continue
            if any(pat.search(p.name) for p in d.params):
                yield finding("identity.self_edit", f"Tool {d.name} can change an agent's tools, "
                              "approvals or scopes.", facts.path, d.line, tool=d.name)
