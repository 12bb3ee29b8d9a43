"""Process spawns in TypeScript/JavaScript (exec.spawn): the Node exec models' host-process rows
with the options each call passes.

- shell: a row that always runs a shell (`exec`, `execSync`, `Terminal.sendText`), the row's
  shell option set to anything but false (`{shell: true}`), or a shell binary started with `-c`
  (`spawn("bash", ["-c", cmd])`);
- environment, from the row's env option: none given is the parent's environment (`inherit`:
  Node's default); `process.env` or an object spreading it is a full copy (`full`), minus keys
  deleted from it first (`filtered`); another object literal is `constructed`; a local bound
  earlier in the function is followed once;
- fixed: the command is a literal (or a literal list), so the code, not the model, picks it.
"""

from __future__ import annotations

import re

from ..agent.semantics import matches
from .base import finding
from .exec_paths import fixed_command, handed_in
from .ts_probes import ts_probe

_SHELL_BIN = re.compile(r"""^["'`](?:/bin/|/usr/bin/)?(?:ba|z|da|k|fi)?sh["'`]$|^["'`](?:cmd(?:\.exe)?|"""
                        r"""powershell(?:\.exe)?|pwsh)["'`]$""", re.I)
_SHELL_FLAG = re.compile(r"""["'`](-c|-lc|-ic|/c|-Command)["'`]""")
_FULL = re.compile(r"\.\.\.\s*process\.env\b|^process\.env$|Object\.assign\(\s*\{\}\s*,\s*process\.env")
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")
_OPTIONS_NAME = re.compile(r"opt|config|settings", re.I)
_DELETE = re.compile(r"\bdelete\s+[\w.]+\[|\bdelete\s+[\w.]+\.\w+")


def env_kind(facts, call, option: str | None) -> tuple[str, int]:
    """(inherit | full | filtered | constructed | unknown, line) of the environment a spawn passes."""
    if not option:
        return "inherit", call.line
    text = call.kw(option)
    if text is None:
        spread = [v for k, v in call.kwargs if k == "**"]
        if spread:
            return "unknown", call.line
        return _options_variable(facts, call, option)
    return _classify(facts, call, text.strip(), 0)


def _options_variable(facts, call, option: str) -> tuple[str, int]:
    """The environment of options handed in as a variable (`execFile(cmd, args, options)`):
    an object literal bound to it earlier in the function is read for OPTION; an options
    variable dids cannot follow leaves the environment unknown, not the parent's."""
    for arg in call.args[1:]:
        name = arg.strip()
        if not _IDENT.match(name):
            continue
        bound = facts.last_assign(name, call.func or "module", call.line)
        value = (bound.value or "").strip() if bound else ""
        if value.startswith("{"):
            m = re.search(r"(?:^|[{,\s])" + re.escape(option) + r"\s*:\s*", value)
            if m is None:
                return "inherit", call.line  # an options object without an environment
            kind, _ = _classify(facts, call, _value_at(value, m.end()), 0)
            return kind, bound.line
        if _OPTIONS_NAME.search(name):  # options built elsewhere (a parameter, a call)
            return "unknown", call.line
    return "inherit", call.line


def _value_at(text: str, start: int) -> str:
    """The expression of an object-literal property starting at START, up to its comma."""
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return text[start:i].strip()
            depth -= 1
        elif ch == "," and depth == 0:
            return text[start:i].strip()
    return text[start:].strip()


def _classify(facts, call, text: str, depth: int) -> tuple[str, int]:
    if _FULL.search(text):
        return _removals(facts, call), call.line
    if text.startswith("{"):
        return "constructed", call.line
    if _IDENT.match(text) and depth < 2:
        a = facts.last_assign(text, call.func or "module", call.line, valued=True)
        if a is not None:
            kind, _ = _classify(facts, call, a.value.strip(), depth + 1)
            return kind, a.line
    return "unknown", call.line


def _removals(facts, call) -> str:
    d = facts.func_at(call.line)
    if d is None:
        return "full"
    # `delete env.OPENAI_API_KEY` before the spawn: a copy with keys removed
    for c in facts.calls:
        if c.func == call.func and c.line < call.line and c.short in ("delete", "omit"):
            return "filtered"
    return "full"


def is_shell(call, row) -> bool:
    if row.get("shell") == "always":
        return True
    opt = row.get("shell_option")
    if opt:
        v = (call.kw(opt) or "").strip()
        if v and v not in ("false", "undefined", "null"):
            return True
    if call.args and _SHELL_BIN.match(call.args[0].strip()):
        return len(call.args) > 1 and bool(_SHELL_FLAG.search(call.args[1]))
    return False


@ts_probe("exec.spawn")
def spawns(index):
    """Every host process a TypeScript/JavaScript call starts, with its shell and environment."""
    for facts, call, row in matches(index).get("exec", ()):
        if row.get("class") != "host":
            continue
        kind, env_line = env_kind(facts, call, row.get("env_option"))
        shell = is_shell(call, row)
        env_desc = {"inherit": "inherits the parent environment (no env option)",
                    "full": "passes a full copy of the parent environment",
                    "filtered": "passes a copy of the parent environment with some keys removed",
                    "constructed": "passes an environment it builds itself",
                    "unknown": "passes an environment dids could not resolve"}[kind]
        claim = (f"{call.raw}(...) in {call.func or 'module scope'}"
                 f"{' with a shell' if shell else ''} {env_desc}.")
        yield finding("exec.spawn", claim, facts.path, call.line, call.end_line,
                      env=kind, env_line=env_line, shell=shell, func=call.func or "",
                      callee=call.callee, fixed=fixed_command(facts, call) if call.args else False,
                      handed_in=handed_in(facts, call))


_MCP_SCOPE = re.compile(r"mcp|modelcontextprotocol", re.I)


@ts_probe("ext.mcp_stdio")
def mcp_stdio(index):
    """Local MCP servers started as processes in TypeScript: the MCP SDK's stdio transport with
    its `env` option, or a host spawn inside an MCP client (a class, function or file named for
    MCP), with the environment the spawn passes."""
    for facts, call, row in matches(index).get("mcp", ()):
        if row.get("transport") != "stdio":
            continue
        opts = call.kw("env")
        kind = "inherit" if opts is None else ("full" if _FULL.search(opts.strip()) else "constructed")
        if opts is None and call.args and not call.args[0].strip().startswith("{"):
            kind = "unknown"  # parameters built elsewhere
        yield finding("ext.mcp_stdio", f"{call.raw}(...) launches an MCP server with "
                      + {"inherit": "the default environment", "full": "the full parent environment",
                         "constructed": "an environment built for it",
                         "unknown": "parameters built elsewhere"}[kind] + ".",
                      facts.path, call.line, call.end_line, env=kind)
    for facts, call, row in matches(index).get("exec", ()):
        if row.get("class") != "host":
            continue
        scope = (call.func or "") + " " + (call.cls or "") + " " + facts.path.rsplit("/", 1)[-1]
        if not _MCP_SCOPE.search(scope):
            continue
        kind, _line = env_kind(facts, call, row.get("env_option"))
        if kind == "unknown":
            continue
        yield finding("ext.mcp_stdio", f"{call.raw}(...) in {call.func or 'module scope'} starts an "
                      "MCP server process with " + {"inherit": "the parent's environment",
                                                    "full": "a full copy of the parent environment",
                                                    "filtered": "the parent environment minus some keys",
                                                    "constructed": "an environment built for it"}[kind]
                      + ".", facts.path, call.line, call.end_line,
                      env="full" if kind in ("full", "filtered") else kind)
