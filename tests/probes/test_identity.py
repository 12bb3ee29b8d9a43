"""identity.* probes: each fires on live agent code and stays silent on the same words elsewhere."""

from __future__ import annotations

import pytest

from .family import family_fixtures, index_findings, line_of, located, near_miss_tests

CLIENTS = '''import subprocess

import boto3
import docker
from kubernetes import config


def s3_client():
    return boto3.client("s3")


def scoped_s3(creds):
    return boto3.client("s3", aws_access_key_id=creds.key, aws_secret_access_key=creds.secret)


def cluster():
    config.load_kube_config()


def containers():
    return docker.from_env()


def open_pr(title: str):
    return subprocess.run(["gh", "pr", "create", "--title", title], env={"PATH": "/usr/bin"})


def assumed(sts, arn: str):
    return sts.assume_role(RoleArn=arn, RoleSessionName="agent")
'''

AUTH = '''import time

import jwt


def mint_agent_token(agent_id: str, actions: list[str], key: str) -> str:
    claims = {"sub": agent_id, "allowed_actions": actions, "exp": int(time.time()) + 300}
    return jwt.encode(claims, key, algorithm="HS256")


def authorize(claims, action: str) -> None:
    if action not in claims.allowed_actions:
        raise PermissionError(action)


def memories(session, Memory, workspace_id: str):
    return session.query(Memory).where(Memory.workspace_id == workspace_id).all()
'''

ADMIN = '''from agent.registry import tool


@tool
def update_agent_tools(agent_id: str, allowed_tools: list[str]) -> str:
    return agent_id


@tool
def get_agent_tools(agent_id: str, allowed_tools: list[str]) -> str:
    return agent_id


def update_agent_scopes(agent_id: str, scopes: list[str]) -> str:
    return agent_id


def admin_api(agent_id, scopes):
    return update_agent_scopes(agent_id, scopes)
'''

LOOP = '''from agent.auth import authorize, memories, mint_agent_token
from agent.clients import assumed, cluster, containers, open_pr, s3_client, scoped_s3


def run(claims, call, session, Memory, sts, creds):
    token = mint_agent_token("agent-1", ["read"], "k")
    authorize(claims, call.name)
    s3_client(), scoped_s3(creds), cluster(), containers(), open_pr("t")
    assumed(sts, "arn:aws:iam::1:role/agent")
    return token, memories(session, Memory, "ws")
'''

LIVE = {"agent/clients.py": CLIENTS, "agent/auth.py": AUTH, "agent/admin.py": ADMIN,
        "agent/loop.py": LOOP}

PROSE = '''"""Identity notes.

    s3 = boto3.client("s3")
    token = jwt.encode(claims, key)
    if action not in claims.allowed_actions:
        raise PermissionError(action)
    sts.assume_role(RoleArn=arn)
    query.where(Memory.workspace_id == workspace_id)
"""
import subprocess

import boto3
import jwt

# s3 = boto3.client("s3")
# if action not in claims.allowed_actions: raise PermissionError(action)
# subprocess.run(["gh", "pr", "create"])
# session.query(Memory).where(Memory.workspace_id == ws)
CHECKED = 1  # if action not in claims.allowed_actions: raise


def _never_called(claims, action, sts, session, Memory, ws, key):
    """Dead code: nothing references this function."""
    boto3.client("s3")
    jwt.encode({"allowed_actions": []}, key)
    if action not in claims.allowed_actions:
        raise PermissionError(action)
    sts.assume_role(RoleArn="arn")
    subprocess.run(["gh", "auth", "status"])
    return session.query(Memory).where(Memory.workspace_id == ws)
'''

DECOYS = {
    "agent/notes.py": PROSE,
    "tests/test_identity.py": CLIENTS + AUTH + ADMIN + LOOP,
    "examples/identity_demo.py": CLIENTS + AUTH + ADMIN + LOOP,
    "docs/identity.md": "```python\nboto3.client('s3')\nif action not in claims.allowed_actions: raise\n```\n",
}

CONSTANTS = '''CHECK = "if action not in claims.allowed_actions: raise PermissionError(action)"
TENANT = "session.query(Memory).where(Memory.workspace_id == workspace_id)"
CLIENT = "boto3.client('s3') and jwt.encode(claims, key) and sts.assume_role(RoleArn=arn)"
GH_HELP = 'Agents call ["gh", "pr", "create"] with the operator login.'
'''

IDENTITY_PROBES = ["identity.ambient", "identity.token", "identity.check", "identity.assume_role",
                   "identity.tenant", "identity.self_edit"]


live, decoys, constants = family_fixtures(LIVE, DECOYS, {"agent/strings.py": CONSTANTS})
test_no_finding_in_prose_tests_docs_examples_or_dead_code, test_no_finding_in_unused_string_constants = \
    near_miss_tests(IDENTITY_PROBES, constants=True)


def test_ambient_fires_on_default_chains_not_explicit_credentials(live):
    found = live["identity.ambient"]
    assert [(f.location.path, f.location.start_line, f.data["source"]) for f in found] == [
        ("agent/clients.py", line_of(CLIENTS, 'return boto3.client("s3")'), "aws"),
        ("agent/clients.py", line_of(CLIENTS, "load_kube_config()"), "kube"),
        ("agent/clients.py", line_of(CLIENTS, "docker.from_env()"), "docker"),
        ("agent/clients.py", line_of(CLIENTS, '["gh", "pr"'), "gh"),
    ]  # boto3.client with aws_access_key_id= is explicit, not ambient


def test_token_fires_on_jwt_mint(live):
    assert located(live["identity.token"]) == [("agent/auth.py", line_of(AUTH, "jwt.encode("))]
    assert "mint_agent_token" in live["identity.token"][0].claim


def test_check_fires_on_allowlist_refusal(live):
    assert located(live["identity.check"]) == [
        ("agent/auth.py", line_of(AUTH, "if action not in claims.allowed_actions"))]


def test_assume_role_fires(live):
    assert located(live["identity.assume_role"]) == [
        ("agent/clients.py", line_of(CLIENTS, "sts.assume_role("))]


def test_tenant_fires_on_tenant_filtered_query(live):
    assert located(live["identity.tenant"]) == [
        ("agent/auth.py", line_of(AUTH, ".where(Memory.workspace_id =="))]


def test_self_edit_fires_on_tool_that_updates_tool_list(live):
    found = live["identity.self_edit"]
    assert [(f.location.path, f.location.start_line, f.data["tool"]) for f in found] == [
        ("agent/admin.py", line_of(ADMIN, "def update_agent_tools"), "update_agent_tools")]
    # get_agent_tools only reads; update_agent_scopes is an admin function, not a tool
