"""C8 secrets family: encryption at rest, file modes, masking, telemetry defaults, leaky envs."""

from __future__ import annotations

import re

from ..index.pyfacts import short_name
from ..index.repo import RepoIndex
from ..index.settings import defaults_for
from .base import Names, calls_to_defined, finding, probe, settings_named

_MASK_FN = Names(r"^_*(mask|redact|scrub|sanitize_secret|sanitise_secret|obfuscate|"
                 r"apply_masks?|mask_secrets?|redact_secrets?|strip_secrets?)\w*$", re.I)
_SECRET_KEY = Names(r"(SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|PRIVATE_KEY|ENCRYPTION_KEY|"
                    r"SERVICE_KEY|SIGNING|DB_URI|DATABASE_URL|_DSN|ACCESS_KEY|CREDENTIAL)", re.I)


# compiled once: the probes below test them against every call in the repository
_CIPHER = Names(r"(^|\.)(Fernet|MultiFernet|AESGCM|ChaCha20Poly1305)$")
_KEYRING = Names(r"^keyring\.(set|get)_password$")
_ENCRYPT_CALL = Names(r"kms.*\.(encrypt|decrypt)$|\.(encrypt|decrypt)\(?$")
_CRYPT_WORD = Names(r"kms|fernet|crypt", re.I)
_ANALYTICS_CALL = Names(r"^(posthog|analytics|segment|mixpanel)\.(capture|track)$")
_POSTHOG = Names(r"posthog", re.I)


@probe("secrets.encryption", ("C8",), "Encrypt stored secrets (Fernet/KMS) or use the OS keychain.")
def encryption(index: RepoIndex):
    """Encryption-at-rest or keychain use in live code."""
    def protects(n: str) -> bool:
        return _CIPHER.search(n) or _KEYRING.match(n) or \
            _ENCRYPT_CALL.search(n) and _CRYPT_WORD.search(n)

    for facts, c in index.calls_where(protects):
        kind = "keychain" if c.callee.startswith("keyring") else "encryption"
        yield finding("secrets.encryption", f"{c.raw}(...) protects secrets at rest "
                      f"({kind}).", facts.path, c.line, how=kind)


@probe("secrets.file_mode", ("C8",), "Store credential files owner-only (0600) at least.")
def file_mode(index: RepoIndex):
    """Credential files written owner-only (chmod/open with 0o600)."""
    for facts, c in index.calls_where(
            lambda n: n in ("os.chmod", "os.open", "os.fchmod") or short_name(n) == "chmod"):
        if any("0o600" in a or "0o400" in a or "S_IRUSR" in a for a in c.args):
            yield finding("secrets.file_mode", f"{c.raw}(...) makes a file owner-only.",
                          facts.path, c.line)


@probe("secrets.masking", ("C8",), "Mask secret values before logs, telemetry and the model.")
def masking(index: RepoIndex):
    """Calls to masking/redaction functions defined in the repository (live callers only)."""
    for facts, c in calls_to_defined(index, _MASK_FN):
        if c.func and not _MASK_FN.match(c.func.split(".")[-1]):
            yield finding("secrets.masking", f"{c.raw}(...) masks values in {c.func}.",
                          facts.path, c.line, fn=c.short, caller=c.func)


@probe("secrets.telemetry", ("C8",), "Keep telemetry off by default and content-free.")
def telemetry(index: RepoIndex):
    """Telemetry/analytics initialisation and what it sends; on/off default from settings."""
    def analytics(n: str) -> bool:
        return _ANALYTICS_CALL.match(n) or \
            (_POSTHOG.search(n) and short_name(n) in ("capture", "track"))

    for facts, c in index.calls_where(lambda n: n == "sentry_sdk.init" or analytics(n)):
        if c.callee == "sentry_sdk.init":
            pii = (c.kw("send_default_pii") or "").strip()
            yield finding("secrets.telemetry", "Sentry is initialised"
                          + (f" with send_default_pii={pii}." if pii else " with SDK defaults."),
                          facts.path, c.line, vendor="sentry", content=pii == "True")
        else:
            content = any(re.search(r"prompt|message|content|output|response|input", a, re.I)
                          for a in c.args + tuple(v for _, v in c.kwargs))
            yield finding("secrets.telemetry", f"{c.raw}(...) sends an analytics event"
                          + (" carrying prompt or tool content." if content else "."),
                          facts.path, c.line, vendor="analytics", content=content)
    seen = set()
    for s in index.settings:
        k = s.key.upper()
        if k in seen or not re.search(r"TELEMETRY|ANALYTICS|POSTHOG|SENTRY_DSN|TRACKING", k) or \
                re.search(r"HOST|URL|PORT|ENDPOINT", k):
            continue
        seen.add(k)
        best = defaults_for(settings_named(index, s.key), s.key)[0]
        v = (best.value or "").strip().lower()
        if "DSN" in k or k.endswith("_KEY"):
            on = bool(v)
        elif re.search(r"DISABLE|NO_TELEMETRY|OPT_OUT", k):
            on = v not in ("1", "true", "yes")
        else:
            on = v in ("1", "true", "yes", "on")
        yield finding("secrets.telemetry_default", f"{best.key} defaults to {best.value!r}, so "
                      f"telemetry is {'on' if on else 'off'} by default.", best.path, best.line,
                      key=best.key, on=on)


@probe("secrets.mask_switch", ("C8",), "Do not let configuration switch masking off.")
def mask_switch(index: RepoIndex):
    """Settings that can switch secret masking or redaction off."""
    seen = set()
    for s in index.settings:
        if re.search(r"(DISABLE|UNSAFE|SKIP|NO)_?\w*(MASK|REDACT)", s.key, re.I) and s.key not in seen:
            seen.add(s.key)
            yield finding("secrets.mask_switch", f"{s.key} can switch masking off.", s.path,
                          s.line, key=s.key)


@probe("secrets.deploy_env", ("C8", "C4"), "Keep platform keys out of processes the model drives.")
def deploy_env(index: RepoIndex):
    """Long-lived secret-looking keys in the shipped deployment environment (values never read)."""
    for s in index.settings:
        if s.source in ("compose",) and _SECRET_KEY.search(s.key):
            yield finding("secrets.deploy_env", f"{s.key} is set in the shipped deployment "
                          "environment.", s.path, s.line, key=s.key)
