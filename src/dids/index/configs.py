"""Configuration files read as data: compose/Helm YAML (safe_load after a size check), .env files."""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

# the C-accelerated safe loader when libyaml is present; same constructors as safe_load
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_YAML_BYTES = 512 * 1024
# linear-time patterns: no two adjacent quantifiers can take the same characters
_ENV_LINE = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(.*)$")
_KEY_LINE = re.compile(r"^[ \t]*(?:-[ \t]*)?['\"]?([A-Za-z_][A-Za-z0-9_.-]*)['\"]?[ \t]*[:=]")
_MAX_LEAVES = 20_000
_COMPOSE_DEFAULT = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}$")


@dataclass(frozen=True)
class Setting:
    """A configuration key with the value a shipped file or code default gives it."""

    key: str
    value: str | None  # None: no default (unset unless the operator sets it)
    path: str
    line: int
    source: str  # compose | env-example | code | helm
    var: str | None = None  # the Python name a code default is bound to, if any


def load_yaml(data: bytes) -> object | None:
    if len(data) > MAX_YAML_BYTES:
        return None
    try:
        return yaml.load(data.decode("utf-8", "replace"), Loader=_SAFE_LOADER)
    except yaml.YAMLError:
        return None


def env_file_settings(path: str, text: str) -> list[Setting]:
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        m = _ENV_LINE.match(line)
        if m:
            out.append(Setting(m.group(1), m.group(2).strip().strip("'\""), path, i, "env-example"))
    return out


def _first_lines(text: str) -> dict[str, int]:
    """The first line that sets each key, in one pass (YAML loaders drop positions)."""
    first: dict[str, int] = {}
    for i, t in enumerate(text.splitlines(), 1):
        m = _KEY_LINE.match(t)
        if m:
            first.setdefault(m.group(1), i)
    return first


def compose_settings(path: str, text: str) -> list[Setting]:
    """Environment of every service in a compose file, resolving `${VAR:-default}`.

    Lines are found by scanning the text, since YAML loaders drop positions."""
    doc = load_yaml(text.encode())
    if not isinstance(doc, dict) or not isinstance(doc.get("services"), dict):
        return []
    first_line = _first_lines(text)
    out: list[Setting] = []
    for svc in doc["services"].values():
        if not isinstance(svc, dict):
            continue
        env = svc.get("environment")
        items: list[tuple[str, str | None]] = []
        if isinstance(env, dict):
            items = [(str(k), None if v is None else str(v)) for k, v in env.items()]
        elif isinstance(env, list):
            for e in env:
                if not isinstance(e, (str, int, float, bool)):
                    continue  # only scalars: str() of an aliased structure can be enormous
                k, _, v = str(e).partition("=")
                items.append((k, v if _ else None))
        for key, value in items:
            resolved = value
            if value is not None:
                m = _COMPOSE_DEFAULT.match(value.strip())
                if m:
                    resolved = m.group(2) if m.group(2) is not None else None
            line = first_line.get(key, 1)
            out.append(Setting(key, resolved, path, line, "compose"))
    return out


def helm_settings(path: str, text: str) -> list[Setting]:
    """Scalar leaves of a Helm values file as dotted keys (agent.sandbox.enabled = false)."""
    doc = load_yaml(text.encode())
    if not isinstance(doc, dict):
        return []
    first_line = _first_lines(text)
    out: list[Setting] = []
    stack: list[tuple[str, object]] = [("", doc)]
    seen: set[int] = set()
    while stack and len(out) < _MAX_LEAVES:  # iterative and bounded: aliases cannot blow it up
        prefix, node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                continue  # an alias to a node already walked
            seen.add(id(node))
        if isinstance(node, dict):
            for k, v in node.items():
                stack.append((f"{prefix}.{k}" if prefix else str(k), v))
        elif not isinstance(node, list):
            leaf = prefix.rsplit(".", 1)[-1]
            line = first_line.get(leaf, 1)
            out.append(Setting(prefix, None if node is None else str(node).lower()
                               if isinstance(node, bool) else str(node), path, line, "helm",
                               var=leaf))
    return sorted(out, key=lambda s: s.line)
