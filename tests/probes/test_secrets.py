"""secrets.* probes: encryption at rest, file modes, masking, telemetry, mask switches, deploy env."""

from __future__ import annotations

import pytest

from .helpers import probe_findings


def _line(src: str, needle: str) -> int:
    """1-based line of the only line of src containing needle."""
    hits = [i for i, t in enumerate(src.splitlines(), 1) if needle in t]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


# --------------------------------------------------------- secrets.encryption

STORE = '''import base64
import hashlib

import keyring
from cryptography.fernet import Fernet


class SecretStore:
    def __init__(self, key: bytes, kms_client):
        self._fernet = Fernet(key)
        self.kms_client = kms_client

    def put(self, name: str, value: str) -> bytes:
        return self._fernet.encrypt(value.encode())

    def put_os(self, name: str, value: str) -> None:
        keyring.set_password("agent", name, value)

    def wrap(self, data: bytes) -> dict:
        return self.kms_client.encrypt(KeyId="alias/agent", Plaintext=data)

    def fingerprint(self, value: str) -> str:
        return hashlib.sha256(base64.b64encode(value.encode())).hexdigest()
'''


def test_encryption_fires_on_fernet_keyring_and_kms(repo):
    found = probe_findings(repo, {"agent/secret_store.py": STORE}, "secrets.encryption")
    assert [(f.location.path, f.location.start_line, f.data["how"]) for f in found] == [
        ("agent/secret_store.py", _line(STORE, "Fernet(key)"), "encryption"),
        ("agent/secret_store.py", _line(STORE, "self._fernet.encrypt"), "encryption"),
        ("agent/secret_store.py", _line(STORE, "keyring.set_password"), "keychain"),
        ("agent/secret_store.py", _line(STORE, "self.kms_client.encrypt"), "encryption"),
    ]
    # base64 / hashlib are not encryption at rest


def test_encryption_near_misses_do_not_fire(repo):
    files = {
        "tests/test_store.py": STORE,
        "examples/store.py": STORE,
        "docs/security.md": "Secrets are stored with Fernet(key).encrypt(value).\n",
        "agent/notes.py": '"""Secrets are encrypted with Fernet(key)."""\n'
                          "# keyring.set_password('agent', name, value)\n"
                          "HOW = 'Fernet(key).encrypt(value)'\n",
    }
    assert probe_findings(repo, files, "secrets.encryption") == []


# ---------------------------------------------------------- secrets.file_mode

MODES = '''import os
import stat
from pathlib import Path


def save_token(path: Path, token: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(token)
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)


def save_config(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o600)
    os.chmod(path.parent, 0o755)
'''


def test_file_mode_fires_on_owner_only_modes(repo):
    found = probe_findings(repo, {"agent/creds.py": MODES}, "secrets.file_mode")
    assert [(f.location.path, f.location.start_line) for f in found] == [
        ("agent/creds.py", _line(MODES, "os.open(path")),
        ("agent/creds.py", _line(MODES, "stat.S_IRUSR")),
        ("agent/creds.py", _line(MODES, "path.chmod(0o600)")),
    ]
    # chmod 0o755 is not owner-only


def test_file_mode_near_misses_do_not_fire(repo):
    files = {
        "tests/test_creds.py": MODES,
        "examples/creds.py": MODES,
        "docs/creds.md": "We call os.chmod(path, 0o600) on the token file.\n",
        "agent/notes.py": '"""Tokens are written with os.chmod(path, 0o600)."""\n'
                          "# os.chmod(path, 0o600)\nMODE_HINT = 'os.chmod(path, 0o600)'\n",
    }
    assert probe_findings(repo, files, "secrets.file_mode") == []


# ------------------------------------------------------------ secrets.masking

REDACT = '''import re

PATTERNS = [re.compile(r"sk-[A-Za-z0-9]{20,}")]


def _redact_one(text: str, pat) -> str:
    return pat.sub("***", text)


def mask_secrets(text: str) -> str:
    for pat in PATTERNS:
        text = _redact_one(text, pat)
    return text


STATIC = mask_secrets("sk-notreallyasecret")
'''

LOGS = '''import logging

from some_lib import redact

from .redact import mask_secrets

log = logging.getLogger(__name__)


def log_tool_output(name: str, out: str) -> None:
    log.info("%s -> %s", name, mask_secrets(out))


class Tracer:
    def mask_secrets(self, text: str) -> str:
        return text

    def emit(self, event: str) -> None:
        log.info(self.mask_secrets(event))

    def emit_raw(self, event: str) -> None:
        log.info(redact(event))
'''


def test_masking_fires_on_live_callers_of_repo_mask_functions(repo):
    found = probe_findings(repo, {"agent/redact.py": REDACT, "agent/logs.py": LOGS},
                           "secrets.masking")
    assert [(f.location.path, f.location.start_line, f.data["fn"], f.data["caller"])
            for f in found] == [
        ("agent/logs.py", _line(LOGS, "mask_secrets(out)"), "mask_secrets", "log_tool_output"),
        ("agent/logs.py", _line(LOGS, "self.mask_secrets(event)"), "mask_secrets", "Tracer.emit"),
    ]
    # _redact_one() is called from mask_secrets() itself (a mask function), STATIC is module
    # scope, and redact() is imported from a library, not defined in the repository


def test_masking_ignores_mask_functions_defined_only_in_tests(repo):
    files = {
        "tests/helpers.py": "def redact(text):\n    return '***'\n",
        "agent/out.py": "from tests.helpers import redact\n\n\ndef show(x):\n    return redact(x)\n",
    }
    assert probe_findings(repo, files, "secrets.masking") == []


def test_masking_near_misses_do_not_fire(repo):
    files = {
        "agent/redact.py": REDACT,
        "tests/test_logs.py": LOGS,
        "examples/logs.py": LOGS,
        "docs/logging.md": "Call mask_secrets(out) before logging.\n",
        "agent/notes.py": '"""Always call mask_secrets(out) before logging."""\n'
                          "def note():\n    # log.info(mask_secrets(out))\n"
                          "    return 'mask_secrets(out)'\n",
    }
    assert probe_findings(repo, files, "secrets.masking") == []


# ---------------------------------------------------------- secrets.telemetry

TELEMETRY = '''import os

import sentry_sdk
from posthog import Posthog

posthog = Posthog(os.getenv("POSTHOG_API_KEY", ""), host="https://eu.posthog.com")


def init_errors(dsn: str) -> None:
    sentry_sdk.init(dsn=dsn, send_default_pii=True)


def init_errors_quiet(dsn: str) -> None:
    sentry_sdk.init(dsn=dsn)


def track_run(user_id: str, prompt: str) -> None:
    posthog.capture(user_id, "agent_run", properties={"prompt": prompt})


def track_start(user_id: str) -> None:
    posthog.capture(user_id, "agent_started")
'''


def test_telemetry_fires_on_sentry_and_analytics(repo):
    found = probe_findings(repo, {"agent/telemetry.py": TELEMETRY}, "secrets.telemetry")
    calls = [f for f in found if f.probe == "secrets.telemetry"]
    assert [(f.location.path, f.location.start_line, f.data["vendor"], f.data["content"])
            for f in calls] == [
        ("agent/telemetry.py", _line(TELEMETRY, "send_default_pii=True"), "sentry", True),
        ("agent/telemetry.py", _line(TELEMETRY, "sentry_sdk.init(dsn=dsn)"), "sentry", False),
        ("agent/telemetry.py", _line(TELEMETRY, '"agent_run"'), "analytics", True),
        ("agent/telemetry.py", _line(TELEMETRY, '"agent_started"'), "analytics", False),
    ]


def test_telemetry_default_reads_compose_first_and_key_kinds(repo):
    config = '''import os

AGENT_TELEMETRY = os.getenv("AGENT_TELEMETRY", "false")
DISABLE_ANALYTICS = os.getenv("DISABLE_ANALYTICS", "1")
'''
    files = {
        "agent/config.py": config,
        "docker-compose.yml": "services:\n  agent:\n    environment:\n"
                              "      AGENT_TELEMETRY: ${AGENT_TELEMETRY:-true}\n",
        ".env.example": "SENTRY_DSN=\nLOG_LEVEL=info\n",
    }
    found = probe_findings(repo, files, "secrets.telemetry")
    defaults = [f for f in found if f.probe == "secrets.telemetry_default"]
    assert [(f.location.path, f.location.start_line, f.data["key"], f.data["on"])
            for f in defaults] == [
        (".env.example", 1, "SENTRY_DSN", False),
        ("agent/config.py", _line(config, "DISABLE_ANALYTICS"), "DISABLE_ANALYTICS", False),
        ("docker-compose.yml", 4, "AGENT_TELEMETRY", True),  # compose wins over the code default
    ]
    assert [f for f in found if f.probe == "secrets.telemetry"] == []


def test_telemetry_near_misses_do_not_fire(repo):
    files = {
        "tests/test_telemetry.py": TELEMETRY,
        "examples/telemetry.py": TELEMETRY,
        "tests/docker-compose.yml": "services:\n  agent:\n    environment:\n"
                                    "      AGENT_TELEMETRY: 'true'\n",
        ".env.example": "# AGENT_TELEMETRY=true\n",
        "docs/telemetry.md": "sentry_sdk.init(dsn=dsn, send_default_pii=True)\n",
        "agent/notes.py": '"""We used to call sentry_sdk.init(dsn=dsn)."""\n'
                          "# posthog.capture(user_id, 'agent_run')\n"
                          "HOW = 'sentry_sdk.init(dsn=dsn)'\n",
    }
    assert probe_findings(repo, files, "secrets.telemetry") == []


def test_telemetry_default_ignores_env_file_under_docs(repo):
    found = probe_findings(repo, {"docs/.env.example": "AGENT_TELEMETRY=true\n"},
                           "secrets.telemetry")
    assert found == []


# -------------------------------------------------------- secrets.mask_switch

def test_mask_switch_fires_on_settings_that_turn_masking_off(repo):
    config = '''import os

SKIP_REDACTION = os.getenv("AGENT_SKIP_REDACTION", "0")
MASK_CHAR = os.getenv("MASK_CHAR", "*")
'''
    files = {
        "agent/config.py": config,
        "docker-compose.yml": "services:\n  agent:\n    environment:\n"
                              "      - LOG_LEVEL=info\n"
                              "      - DISABLE_SECRET_MASKING=false\n",
    }
    found = probe_findings(repo, files, "secrets.mask_switch")
    assert [(f.location.path, f.location.start_line, f.data["key"]) for f in found] == [
        ("agent/config.py", _line(config, "AGENT_SKIP_REDACTION"), "AGENT_SKIP_REDACTION"),
        ("docker-compose.yml", 5, "DISABLE_SECRET_MASKING"),
    ]


def test_mask_switch_near_misses_do_not_fire(repo):
    files = {
        "tests/docker-compose.yml": "services:\n  agent:\n    environment:\n"
                                    "      - DISABLE_SECRET_MASKING=true\n",
        "tests/test_config.py": "import os\nX = os.getenv('DISABLE_SECRET_MASKING', '1')\n",
        ".env.example": "# DISABLE_SECRET_MASKING=true\nMASKING_ENABLED=true\n",
        "docs/config.md": "Set DISABLE_SECRET_MASKING=true to see raw values.\n",
        "agent/notes.py": '"""os.getenv("DISABLE_SECRET_MASKING") switches masking off."""\n'
                          "# os.getenv('DISABLE_SECRET_MASKING')\n"
                          "NAME = 'DISABLE_SECRET_MASKING'\n",
    }
    assert probe_findings(repo, files, "secrets.mask_switch") == []


# --------------------------------------------------------- secrets.deploy_env

COMPOSE = """services:
  agent:
    image: example/agent:latest
    environment:
      - OPENAI_API_KEY=${OPENAI_API_KEY}
      - LOG_LEVEL=info
      - DATABASE_URL=postgres://agent:agent@db/agent
  worker:
    environment:
      JWT_SECRET: change-me
      # GITHUB_TOKEN: ${GITHUB_TOKEN}
      MAX_STEPS: "25"
"""


def test_deploy_env_fires_on_secret_keys_in_compose(repo):
    found = probe_findings(repo, {"docker-compose.yml": COMPOSE}, "secrets.deploy_env")
    assert [(f.location.path, f.location.start_line, f.data["key"]) for f in found] == [
        ("docker-compose.yml", _line(COMPOSE, "OPENAI_API_KEY"), "OPENAI_API_KEY"),
        ("docker-compose.yml", _line(COMPOSE, "DATABASE_URL"), "DATABASE_URL"),
        ("docker-compose.yml", _line(COMPOSE, "JWT_SECRET"), "JWT_SECRET"),
    ]
    # the values are never reported
    assert all("change-me" not in f.claim and "postgres://" not in f.claim for f in found)


def test_deploy_env_near_misses_do_not_fire(repo):
    files = {
        "tests/docker-compose.yml": COMPOSE,
        ".env.example": "OPENAI_API_KEY=\nJWT_SECRET=change-me\n",  # not the deployment env
        "agent/config.py": "import os\nOPENAI_API_KEY = os.getenv('OPENAI_API_KEY')\n",
        "docs/deploy.md": "environment:\n  - OPENAI_API_KEY=${OPENAI_API_KEY}\n",
        "docker-compose.yml": "services:\n  agent:\n    environment:\n"
                              "      # - OPENAI_API_KEY=${OPENAI_API_KEY}\n"
                              "      - LOG_LEVEL=info\n",
    }
    assert probe_findings(repo, files, "secrets.deploy_env") == []


def test_deploy_env_ignores_example_compose(repo):
    found = probe_findings(repo, {"examples/docker-compose.yml": COMPOSE}, "secrets.deploy_env")
    assert found == []
