"""C8 secrets family: encryption at rest, file modes, masking, telemetry defaults, leaky envs."""

from __future__ import annotations

import re

from ..index.pyfacts import calls_by_func, short_name
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
_ENCRYPT_CALL = Names(r"\.(encrypt|decrypt)$")
# the receiver or module of an encrypt() call must be a cipher (a JWE/JWT library's encrypt
# wraps tokens, not stored secrets)
_CRYPT_WORD = Names(r"^(\w+\.)*[\w]*(kms|fernet|cipher|cryptography|aesgcm|crypto)[\w]*\.\w+$", re.I)
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
                re.search(r"HOST|URL|PORT|ENDPOINT|TIMEOUT|THRESHOLD|WINDOW|INTERVAL|BATCH|SIZE|"
                          r"RETRIES|RETRY|FLUSH|SAMPLE|EVENT|_NAME$", k):  # (an event's name is no switch)
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
        # a key's or DSN's value is never printed: only whether one is shipped
        shown = ("a shipped value" if v else "empty") if ("DSN" in k or _SECRET_KEY.search(k)) \
            else repr(best.value)
        yield finding("secrets.telemetry_default", f"{best.key} defaults to {shown}, so "
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


_SECRET_NAME = re.compile(r"(api_?key|token|secret|password|passwd|credential|private_key)", re.I)
_SECRET_TYPE = re.compile(r"\bSecret(Str|Bytes)\b")


@probe("secrets.secret_type", ("C8",), "Keep secrets in types that never print their value.")
def secret_types(index: RepoIndex):
    """Configuration fields and parameters typed SecretStr/SecretBytes (they print masked)."""
    for facts in index.source_py():
        for a in facts.assigns:
            if a.annotation and _SECRET_TYPE.search(a.annotation):
                yield finding("secrets.secret_type", f"{a.target} is a {_SECRET_TYPE.search(a.annotation).group(0)} "
                              "(its value never prints).", facts.path, a.line, field=a.target)
        for d in facts.defs:
            for p in d.params:
                if p.annotation and _SECRET_TYPE.search(p.annotation):
                    yield finding("secrets.secret_type", f"Parameter {p.name} of {d.name} is a "
                                  "secret type.", facts.path, d.line, field=p.name)


_MASKED_KW = {"is_password": "True", "hide_input": "True", "password": "True"}


@probe("secrets.masked_prompt", ("C8",), "Read keys with a masked prompt, never echoed.")
def masked_prompts(index: RepoIndex):
    """Prompts that read a secret without echoing it (getpass, is_password/hide_input)."""
    from ..agent.semantics import matches

    for facts, c, row in matches(index).get("prompt", ()):
        masked = bool(row.get("masked")) or any(
            (c.kw(k) or "").strip() == v for k, v in _MASKED_KW.items())
        if masked:
            yield finding("secrets.masked_prompt", f"{c.raw}(...) reads a secret without echoing "
                          "it.", facts.path, c.line, func=c.func or "")
    for facts, c in index.calls_named({"prompt", "password"}):
        if (c.kw("is_password") or "").strip() == "True" or c.callee == "questionary.password":
            yield finding("secrets.masked_prompt", f"{c.raw}(...) reads a secret without echoing "
                          "it.", facts.path, c.line, func=c.func or "")


_EXPORT_FN = re.compile(r"^(to_dict|to_json|serialize|save|export|dump|model_dump|__getstate__|"
                        r"as_dict|dict|push_to_hub|to_config|get_config|save_pretrained)$")
_EXCLUDE = re.compile(r"""(\.pop\(\s*["']|del\s+\w+\[["']|exclude\s*=|not\s+in\s*[\[({]|
                      ["']\s*(,\s*["'][\w-]+["']\s*)*[\])}]\s*\)?\s*$)""", re.X)


@probe("secrets.export_exclusion", ("C8",), "Leave credentials out of anything exported or saved.")
def export_exclusion(index: RepoIndex):
    """Serializers that leave token/api_key/secret fields out of what they export."""
    for facts in index.source_py():
        for d in facts.defs:
            if not _EXPORT_FN.match(d.name):
                continue
            for i in range(d.line, min(d.end_line, d.line + 80) + 1):
                if not facts.is_code_line(i):
                    continue
                text = index.line(facts.path, i)
                if _SECRET_NAME.search(text) and re.search(r"""["'](\w*(api_?key|token|secret|password)\w*)["']""", text, re.I) \
                        and _EXCLUDE.search(text):
                    yield finding("secrets.export_exclusion", f"{d.name} leaves credential "
                                  "fields out of what it exports.", facts.path, i, func=d.qualname)
                    break


_REPLACE_FN = re.compile(r"(mask|redact|scrub|sanitiz|hide|replace)_?\w*secret|secret\w*_(mask|"
                         r"redact|scrub|replace|hide)|^_?(mask|redact|scrub)\w*$", re.I)


@probe("secrets.replacement", ("C8",), "Replace every known secret value before text leaves.")
def replacement(index: RepoIndex):
    """Functions that replace known secret values (or secret patterns) in text, and are called."""
    names = {d.name for f in index.source_py() for d in f.defs if _REPLACE_FN.search(d.name)}
    # called from live code (a decoy called only by dead code protects nothing)
    called = {c.short for f, c in index.calls_named(names) if not index.is_dead(f.path, c.line)}
    for facts in index.source_py():
        by = calls_by_func(facts)
        for d in facts.defs:
            if not _REPLACE_FN.search(d.name) or d.name not in called:
                continue
            calls = by.get(d.qualname, [])
            if any(c.short in ("replace", "sub") for c in calls):
                yield finding("secrets.replacement", f"{d.name} replaces secret values in text "
                              "before it is stored or shown.", facts.path, d.line, func=d.qualname)


_ENV_READ = r"""(environ\.get|getenv|environ\[)\(?\s*["'](\w*(API_?KEY|TOKEN|SECRET|PASSWORD|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)\w*)["']"""


# names about a key that are not the key: a token budget, a password rule, a lifetime, where a
# secret lives (`LLM_MAX_TOKENS`, `AUTH_MIN_PASSWORD_LENGTH`, `TOKEN_TTL_SECONDS`, `API_KEY__ARN`)
_NOT_SECRET = re.compile(r"(^|_)(MAX|MIN)_|TOKENS|_(LENGTH|TTL|SECONDS|ARN|LIMIT|ENABLED|HEADER|URL|"
                         r"NAME)$|_TTL_", re.I)


@probe("secrets.env_key", ("C1", "C8"), "Hand the agent scoped credentials instead of the environment's.")
def env_keys(index: RepoIndex):
    """Long-lived keys read from the process environment (API keys, tokens, passwords)."""
    for h in index.live_hits([_ENV_READ], globs=("*.py",)):
        m = re.search(_ENV_READ, h.text)
        if m and not _NOT_SECRET.search(m.group(2)):
            yield finding("secrets.env_key", f"{m.group(2)} is read from the process environment.",
                          h.path, h.line, key=m.group(2))


_PERSIST_FUNC = re.compile(r"(^|_)(store|save|write|persist|dump|flush)", re.I)
_INTO_ENV = re.compile(r"\b\w*env\w*\s*(\.update\(|\[[^]]*\]\s*=|=)", re.I)


@probe("secrets.exposed", ("C1", "C8"), "Serialize secrets only into stores that encrypt them.")
def exposed(index: RepoIndex):
    """Calls that ask for secret values in clear text (`model_dump_json(context={'expose_secrets':
    True})`, `get_env_vars(expose_secrets=True)`): where a secret type's protection is switched
    off on purpose, to store the value or hand it on."""
    for h in index.live_hits([r"""expose_secrets["']?\s*[:=]\s*True"""], globs=("*.py",)):
        facts = index.py.get(h.path)
        if facts is None:
            continue
        calls = [c for c in facts.calls if c.line <= h.line <= (c.end_line or c.line)
                 and ("expose_secrets" in (c.kw("context") or "") or c.kw("expose_secrets"))]
        if not calls:
            continue
        c = min(calls, key=lambda c: (c.end_line or c.line) - c.line)  # the innermost call
        stored = bool(_PERSIST_FUNC.search((c.func or "").rsplit(".", 1)[-1]))
        # `env_vars.update(await handler.get_env_vars(expose_secrets=True))`: into an environment
        into_env = bool(_INTO_ENV.search(index.line(facts.path, c.line)))
        yield finding("secrets.exposed", f"{c.raw}(...) asks for secret values in clear text "
                      "(expose_secrets)" + (" to store them." if stored else
                                            " into an environment." if into_env else "."),
                      facts.path, c.line, c.end_line, func=c.func or "", stored=stored,
                      into_env=into_env)
