"""Where a shipped default that a reviewer reads next to a level is defined.

A level on approval, sandboxing, tool scoping, secrets or limits usually rests on a default
someone can change: `confirmation_mode: bool = False` in a config class, `runtime = "docker"`,
`MAX_STEPS = 20`, `os.getenv("ALLOW_ALL", "false")`, a `--no-interactive` CLI switch. This probe
records the definitions of such settings in live source, with the value they ship with and the
topic their name is about. Assessors never level on these (a name is not a mechanism); they are
context citations placed after a level's decisive evidence, so the reader finds the switch.
"""

from __future__ import annotations

import re

from ..index.repo import RepoIndex
from ..index.settings import env_wrapper_key
from .base import finding, probe

# topic → what a setting's name says it is about (one name can be about one topic only: the
# first that matches, in this order, so `max_tool_calls` is a limit and `enable_sandbox` a sandbox)
TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((t, re.compile(p, re.I)) for t, p in (
    ("limits", r"(^|_)(max|min)_|_max$|(^|_)limit(s)?($|_)|timeout|budget|max(steps|iter|turns)|"
               r"iterations?$|(^|_)steps$|concurren|rate_limit|deadline"),
    ("approval", r"confirm|approv|(^|_)trust(_mode|ed)?($|_)|interactive|auto_?run|auto_?approve|"
                 r"yolo|ask_(user|human|before)|human_in|permission_mode|require_(user|human)"),
    ("sandbox", r"sandbox|(^|_)runtime($|_)|executor_(type|kind|backend)|nsjail|isolat|container|"
                r"unsafe|allow_all|dangerous|force_local|disable_(jail|sandbox|isolation)"),
    ("secrets", r"mask|redact|encrypt|expose_secret|secret_(store|backend)|keyring"),
    ("telemetry", r"telemetry|analytics|sentry|posthog|tracking|usage_stats"),
    ("network", r"internet|brows(er|ing)|egress|allowed_(domains|hosts|urls)|network_access|proxy"),
    ("tools", r"^(enable|disable)_\w+|(allowed|excluded|blocked|disabled|enabled)_(\w+_)?(tools|actions|"
              r"commands)|^tools?$|toolsets?$|available_tools"),
    ("extensions", r"mcp|plugin|extension|trust_remote_code|skills?_(dir|path)|marketplace"),
    ("memory", r"memory|history_(file|path|dir)|custom_instructions|profile_(dir|path)|"
               r"microagents?"),
    ("audit", r"audit|log_(level|file|dir)|trac(e|ing)_|langsmith|langfuse|record_|save_(history|"
              r"conversation|trajectory)"),
))
_SWITCH = re.compile(r"^(enabled?|disabled?|active|on|mode|level|strict)$")
_CONFIG_CLASS = re.compile(r"(Config|Settings|Options|Preferences|Profile|Flags|Session|Args)$")
_CONFIG_BASE = re.compile(r"(BaseSettings|BaseModel|BaseConfig|Config|Settings|ConfigModel|SettingsModel)$")
_LITERAL = re.compile(r"""^(?:-?\d[\d_.]*(?:\s*\*\s*\d[\d_.]*)*|True|False|None|["'][^"'\n]{0,80}["'])$""")
_FIELD = re.compile(r"^(?:\w+\.)?Field\((?:\s*default\s*=\s*)?(-?\d[\d_.]*|True|False|None|"
                    r"\"[^\"\n]{0,80}\"|'[^'\n]{0,80}')")
_GETENV = re.compile(r"^(?:os\.)?(?:environ\.get|getenv)$|(^|\.)env_(bool|int|str|float)$")
_CLI = re.compile(r"(^|\.)(Option|option|add_argument)$")
_FLAG = re.compile(r"""["'](--[a-z][\w-]*)(?:/--[\w-]+)?["']""")


# `is_interactive`, `has_approval`: the state of one object (a DOM node, a request), not a setting
_STATE_NAME = re.compile(r"^(?:is|has|was|were)(?:_|[A-Z])")


def topic(name: str) -> str | None:
    bare = name.lstrip("-_").replace("-", "_")
    if _STATE_NAME.match(bare.rsplit(".", 1)[-1]):
        return None
    for t, rx in TOPICS:
        if rx.search(bare):
            return t
    return None


def _claim(name: str, value: str | None, how: str) -> str:
    shown = " ".join(str(value).split())[:60] if value is not None else None
    if shown is None:
        return f"Setting {name} is defined here ({how}) with no default: unset unless the user sets it."
    return f"Setting {name} defaults to {shown} here ({how}); a user can change it."


@probe("config.default", ("C2", "C3", "C4", "C5", "C8", "C10"),
       "Ship the safe value as the default and say so where the setting is defined.")
def config_defaults(index: RepoIndex):
    """Definitions of safety-relevant settings with their shipped value: config-class fields,
    module constants, environment reads with a default, CLI switches."""
    for facts in index.source_py():
        config_classes = {c.qualname for c in facts.classes
                          if _CONFIG_CLASS.search(c.name)
                          or any(_CONFIG_BASE.search(b.split("[")[0]) for b in c.bases)
                          or any(d.split("(")[0].endswith("dataclass") for d in c.decorators)}
        for a in facts.assigns:
            if a.value is None or a.op not in (None, "", "="):  # not `x += 1`
                continue
            value = a.value.strip()
            if a.scope_kind == "class" and a.scope in config_classes and not a.target.startswith("_"):
                m = _FIELD.match(value)
                shown = m.group(1) if m else value if _LITERAL.match(value) else None
                how = "config field"
            elif a.scope_kind == "module" and re.match(r"^[A-Z][A-Z0-9_]{2,}$", a.target):
                shown = value if _LITERAL.match(value) else None
                how = "module constant"
            elif a.scope_kind == "function" and a.scope.endswith(".__init__") and \
                    re.match(r"^self\.[a-z]\w*$", a.target):
                # `self.max_budget = None` where the object is built: the value it runs with
                # unless someone sets the attribute
                shown = value if _LITERAL.match(value) else None
                how = "constructor"
                if shown is not None and (t := topic(a.target[5:])):
                    yield finding("config.default", f"Attribute {a.target[5:]} of "
                                  f"{a.scope.rsplit('.', 1)[0].rsplit('.', 1)[-1]} starts as "
                                  f"{' '.join(shown.split())[:60]} when the object is built.",
                                  facts.path, a.line, a.line, setting=a.target[5:], value=shown,
                                  topic=t, how=how)
                continue
            else:
                continue
            if shown is None:
                continue
            t = topic(a.target)
            name = a.target
            if not t and how == "config field" and _SWITCH.match(a.target):
                # `class MaskingPolicy: enabled: bool = False`: the class says what it switches
                cls = a.scope.rsplit(".", 1)[-1]
                t, name = topic(cls), f"{cls}.{a.target}"
            if t:
                yield finding("config.default", _claim(name, shown, how), facts.path, a.line,
                              a.line, setting=a.target, value=shown, topic=t, how=how)
        for c in facts.calls:
            # os.environ.get, or the repository's own helper (`load_bool("KEY", True)`) when
            # its first argument is an UPPER_CASE key
            if (_GETENV.search(c.callee) or env_wrapper_key(c)) and c.args:
                key = c.args[0].strip("\"' ")
                if not re.match(r"^[A-Za-z_]\w*$", key):
                    continue
                t = topic(key)
                if not t:
                    continue
                default = c.args[1] if len(c.args) > 1 else c.kw("default")
                yield finding("config.default", _claim(key, default, "environment"), facts.path,
                              c.line, c.line, setting=key, value=default, topic=t, how="environment")
            elif _CLI.search(c.callee) and _cli_module(facts, c.callee):
                flags = _FLAG.findall(" ".join(c.args))
                if not flags:
                    continue
                t = topic(flags[0])
                if not t:
                    continue
                default = c.kw("default")
                if default is None and c.callee.endswith("Option") and c.args and \
                        not c.args[0].lstrip().startswith(("'-", '"-')):
                    default = c.args[0]  # typer.Option(True, "--interactive/--no-interactive")
                if default is None and ((c.kw("action") or "").strip("\"'") == "store_true"
                                        or c.kw("is_flag") == "True"):
                    default = "False"  # a flag that is off unless given
                yield finding("config.default", _claim(flags[0], default, "command-line switch"),
                              facts.path, c.line, c.end_line or c.line, setting=flags[0],
                              value=default, topic=t, how="cli")


def _cli_module(facts, callee: str) -> bool:
    """Whether CALLEE defines a switch of this program's command line: the module imports the
    CLI library (`options.add_argument("--disable-gpu")` on a browser driver's options is a
    flag handed to Chrome, not a setting a user of the agent changes)."""
    mods = {o.split(".")[0] for o in facts.imports.values()}
    if callee.endswith("add_argument"):
        # a parser handed in from another module (`def add_args(parser)`) is still a parser
        recv = callee.rsplit(".", 1)[0].lower() if "." in callee else ""
        return "argparse" in mods or not re.search(r"option|chrome|driver|browser", recv)
    return bool(mods & {"typer", "click", "rich_click", "cyclopts", "asyncclick"})

