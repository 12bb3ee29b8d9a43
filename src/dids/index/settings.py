"""Configuration keys and their shipped defaults as written in code.

`os.environ.get("K", d)` / `os.getenv("K", d)` bound to a name, pydantic BaseSettings fields and
UPPER_CASE module constants. Compose and .env defaults come from `configs`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .configs import Setting

if TYPE_CHECKING:
    from .repo import RepoIndex

_GETENV = re.compile(
    r"""(?:environ\.get|getenv)\([ \t]*(?:key[ \t]*=[ \t]*)?["']([A-Za-z_][A-Za-z0-9_]*)["'][ \t]*(?:,([^)]*))?\)"""
)
# the same read through a helper, as an assignment's value text (`load_bool("K", True)`)
_WRAPPED = re.compile(r"""^[\w.]+\([ \t]*["']([A-Z][A-Z0-9_]{2,})["']""")
# constructor/function parameters that choose an execution backend
_SELECTOR_PARAM = re.compile(r"^(executor_type|executor_kind|code_executor|sandbox|sandbox_type|"
                             r"sandbox_mode|sandbox_backend|execution_backend|backend|runtime|"
                             r"isolation|isolation_mode|exec_mode|execution_mode)$")
_ENUM_MEMBER = re.compile(r"^[A-Z][A-Za-z0-9_]*\.[A-Z][A-Z0-9_]*$")
_CONST = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")
_LITERAL = re.compile(r"""^(?:-?\d[\d_.]*|True|False|None|["'][^"']*["'])$""")


# a repository's own environment helper: `load_bool("KEY", True)`, `get_env_int("KEY", 5)`,
# `env_str("KEY")`, `read_env("KEY", "x")` (the key a literal UPPER_CASE name)
_ENV_HELPER = re.compile(r"^(?:(?:load|get|read|parse)_?)?(?:env_?)?(?:bool|int|float|str|list|flag)"
                         r"(?:_?env)?$|^(?:load|get|read)_?env(?:_\w+)?$|^env_\w+$", re.I)
_ENV_KEY = re.compile(r"""^["']([A-Z][A-Z0-9_]{2,})["']$""")


def env_wrapper_key(call) -> str | None:
    """The environment key a helper call reads (`load_bool("ENABLE_X", True)` -> ENABLE_X), or
    None when CALL is not such a helper or its key is not a literal UPPER_CASE name."""
    if not call.args or not _ENV_HELPER.match(call.callee.rsplit(".", 1)[-1]):
        return None
    m = _ENV_KEY.match(call.args[0].strip())
    return m.group(1) if m else None


def strip_quotes(v: str | None) -> str | None:
    if v is None:
        return None
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    return v


def code_settings(index: "RepoIndex") -> list[Setting]:
    out: list[Setting] = []
    for facts in index.source_py():
        start = len(out)  # this file's settings begin here
        for call in facts.calls:
            if call.callee not in ("os.environ.get", "os.getenv", "environ.get", "getenv") and \
                    not env_wrapper_key(call):
                continue
            if not call.args:
                continue
            key = strip_quotes(call.args[0])
            if not key or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key):
                continue
            default = call.args[1] if len(call.args) > 1 else call.kw("default")
            out.append(Setting(key, strip_quotes(default), facts.path, call.line, "code"))
        for d in facts.defs:
            for prm in d.params:
                if _SELECTOR_PARAM.match(prm.name) and prm.default and prm.default[:1] in "\"'":
                    out.append(Setting(prm.name, strip_quotes(prm.default), facts.path, d.line,
                                       "param", var=prm.name))
        settings_classes = {c.qualname for c in facts.classes
                            if any(b.endswith("BaseSettings") for b in c.bases)
                            or any(dec.split("(")[0].endswith("dataclass") for dec in c.decorators)}
        for a in facts.assigns:
            if a.scope_kind == "class" and a.scope in settings_classes and a.value is not None \
                    and not a.target.startswith("_"):  # `_session`: the object's own state
                value = a.value
                m = re.match(r"^Field\((.*)\)$", value, re.S)
                if m:
                    d = re.search(r"(?:^|,)\s*(?:default\s*=\s*)?([^,=]+?)\s*(?:,|$)", m.group(1))
                    value = d.group(1) if d else None
                out.append(Setting(a.target, strip_quotes(value), facts.path, a.line, "code",
                                   var=a.target))
            elif a.scope_kind == "module" and _CONST.match(a.target) and a.value:
                m = _GETENV.search(a.value) or _WRAPPED.search(a.value)
                if m:
                    continue  # recorded from the call itself above, with its variable below
                if _LITERAL.match(a.value.strip()) or _ENUM_MEMBER.match(a.value.strip()):
                    out.append(Setting(a.target, strip_quotes(a.value), facts.path, a.line,
                                       "code", var=a.target))
        # bind getenv calls to the module constant they initialise
        for a in facts.assigns:
            if a.scope_kind != "module" or not a.value:
                continue
            m = _GETENV.search(a.value) or _WRAPPED.search(a.value)
            if m:
                for i in range(start, len(out)):
                    s = out[i]
                    if s.line == a.line and s.key == m.group(1):
                        out[i] = Setting(s.key, s.value, s.path, s.line, s.source, var=a.target)
    return out


def defaults_for(settings: list[Setting], key: str) -> list[Setting]:
    """All places that give KEY a default, compose first (it is what a new user runs)."""
    order = {"compose": 0, "env-example": 1, "helm": 2, "manifest": 3, "code": 3, "param": 4}
    hits = [s for s in settings if s.key == key or s.var == key]
    return sorted(hits, key=lambda s: (order.get(s.source, 9), _variant_rank(s.path), s.path, s.line))


def _variant_rank(path: str) -> int:
    """The plain compose/.env file is what a new user runs; dev/test/override variants come later."""
    name = path.rsplit("/", 1)[-1].lower()
    depth = path.count("/")
    plain = name in ("docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml",
                     ".env.example", ".env.sample", ".env.template")
    return (0 if plain else 1) * 10 + min(depth, 9)
