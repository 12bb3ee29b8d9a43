"""C6 memory & configuration family: model-written memory, re-injection, repo-local config."""

from __future__ import annotations

import re

from ..index.pyfacts import calls_by_func
from ..index.repo import RepoIndex
from ..index.settings import defaults_for
from .base import Names, calls_to_defined, finding, line_findings, probe, settings_named

_MEMORY_TOOL = Names(r"^(remember|save_memory|add_memory|store_memory|write_memory|"
                     r"memory_(write|add|save|remember|store|update|insert|append)|update_memory|"
                     r"core_memory_\w+|archival_memory_insert)$", re.I)
_REPO_CONFIG = [r"""["'](\.mcp\.json|mcp\.json|\.claude/settings(\.local)?\.json|\.cursor/mcp\.json|"""
                r"""\.vscode/mcp\.json|hooks\.json|AGENTS\.md|CLAUDE\.md|\.cursorrules|\.?\w+rc\.(ya?ml|json|toml))["']""",
                r"""setting_sources\s*=\s*\[[^\]]*["'](project|local)["']""",
                # a project-relative dot-folder of agent behaviour: setup scripts, microagents, rules
                r"""["']\.[\w-]+/(setup\.sh|pre-commit\.sh|microagents|skills|rules|hooks|commands|"""
                r"""agents|prompts|instructions|mcp\.json|settings\.json)\b""",
                r"""["']\.[\w-]+_instructions["']""",
                # the agent's own settings file in the project (`.tool.conf.yml` beside the code)
                r"""["']\.[\w-]+\.(conf|config)\.(ya?ml|json|toml)["']"""]
_HOME = re.compile(r"home\(\)|expanduser|~/|user_config_dir|user_data_dir|appdirs|platformdirs")


@probe("memory.model_write", ("C6",), "Gate model-initiated memory writes and tag their source.")
def model_write(index: RepoIndex):
    """Tools through which the model writes long-term memory: decorated functions and tool
    classes (`class MemorySave(Tool)`), by the name the tool is known by."""
    from .tools import _decorated_tools, _tool_classes

    classes = _tool_classes(index)
    for facts in index.source_py():
        for d, _dec, _ in _decorated_tools(facts):
            if _MEMORY_TOOL.match(d.name):
                yield finding("memory.model_write", f"Tool {d.name} lets the model write memory.",
                              facts.path, d.line, tool=d.name)
        for c in facts.classes:
            if classes.get(f"{facts.path}::{c.qualname}") is False and \
                    _MEMORY_TOOL.match(_snake(c.name)):  # a concrete tool class, not a base
                yield finding("memory.model_write", f"Tool class {c.name} lets the model write "
                              "memory.", facts.path, c.line, tool=c.name)


def _snake(name: str) -> str:
    """`MemorySave` -> `memory_save`: a tool class's name as its snake-case tool names read."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


_EXTRACT = Names(r"extract_?(memor|fact|durable)|(memory|memories)_extract|"
                 r"summari[sz]e_to_memory", re.I)


@probe("memory.extraction", ("C6",), "Do not distil memories from untrusted transcripts unreviewed.")
def extraction(index: RepoIndex):
    """Automatic memory extraction passes that something calls, and the agent loop storing a
    turn's text (the model's reply, a tool's output) in its long-term memory store as it goes
    (`self.memory.add_texts(chunks)` after each step): no model decision, no review."""
    for facts, c in calls_to_defined(index, _EXTRACT):
        yield finding("memory.extraction", f"{c.raw}(...) extracts memories automatically.",
                      facts.path, c.line)
    model = index.agent
    if model is None or not model.session.loops:
        return
    driven, g = model.session.driven, model.graph
    for facts, c in index.calls_named(_STORE_WRITE):
        recv = c.raw.rpartition(".")[0]
        if not _STORE.search(recv) or g.node_at(facts.path, c.line) not in driven:
            continue
        # what is stored comes from the turn (a reply, a tool's result), not documents ingested
        # for retrieval (`vecdb.add_documents(docs)`, a report split into chunks)
        d = facts.func_at(c.line)
        said = " ".join(c.args) + " " + " ".join(p.name for p in (d.params if d else ()))
        if not _TURN.search(said):
            continue
        yield finding("memory.extraction", f"{c.raw}(...) stores the turn's text in the "
                      "agent's long-term memory as the loop runs.", facts.path, c.line,
                      how="store")


# what vector and memory stores are written with (LangChain's VectorStore API and its kin)
_STORE_WRITE = frozenset({"add_texts", "aadd_texts", "add_documents", "aadd_documents",
                          "insert_text", "insert_documents"})
_STORE = re.compile(r"memor|vector|store|index|db\b", re.I)
_TURN = re.compile(r"repl(y|ies)|response|answer|thought|result|output|conversation|turn", re.I)

_READ_VERB = Names(r"read|load|get|search|render|format|recall|retrieve|list", re.I)
_MEMORY = re.compile(r"memor", re.I)


@probe("memory.inject", ("C6",), "Present stored memories as data, not as instructions.")
def inject(index: RepoIndex):
    """Prompt builders that read the memory store into the model's context."""
    for facts in index.source_py():
        for d in facts.defs:
            calls = calls_by_func(facts).get(d.qualname, [])
            reads = [c for c in calls if _READ_VERB.search(c.short)
                     and _MEMORY.search(c.raw + " ".join(c.args))]
            if not reads:
                continue
            named = re.search(r"prompt|system|context|instructions", d.name, re.I)
            body = (index.line(facts.path, i) for i in range(d.line, min(d.end_line, d.line + 150) + 1)
                    if facts.is_code_line(i))
            if named or any(re.search(r"""["']system["']|system_prompt|SystemMessage""", t) for t in body):
                yield finding("memory.inject", f"{d.name}() puts stored memories into the "
                              "model's context.", facts.path, d.line, fn=d.name)


@probe("memory.repo_config", ("C6",), "Never load agent configuration from the workspace unprompted.")
def repo_config(index: RepoIndex):
    """Agent configuration files read from the workspace or project (MCP servers, hooks, rules)."""
    for h in index.live_hits(_REPO_CONFIG, globs=("*.py",)):
        if _HOME.search(h.text):
            continue  # the operator's own folder, not the project's
        yield finding("memory.repo_config", f"Agent configuration is loaded from "
                      f"{_config_named(h.text)}, named here.", h.path, h.line)


def _config_named(text: str) -> str:
    """What a repo-config hit names, for a claim true of its line: most hits name the file
    (`"AGENTS.md",` in a list the loader walks), not the read itself."""
    for pat in _REPO_CONFIG:
        m = re.search(pat, text)
        if m is None:
            continue
        if m.group(0).startswith("setting_sources"):
            return "the project's own settings (setting_sources)"
        lit = re.search(r"""["']([^"']+)["']""", m.group(0))
        if lit:
            return f"the project file {lit.group(1)}"
    return "a project file"


_USER_DIR = [r"""expanduser\(\s*f?["']~/?\.[\w-]+""", r"""home\(\)\s*/\s*["']\.[\w-]+["']""",
             r"""\b(platformdirs|appdirs)\.user_(config|data)_dir\(""", r"""\buser_(config|data)_dir\(\s*["']"""]
_FOREIGN_DIR = re.compile(r"""["']~?/?\.(ssh|aws|kube|docker|gnupg|git\w*|npm|cache|local|azure|"""
                          r"""gcloud|config/gcloud|netrc|pypirc)\b|["'](Desktop|Downloads|Documents)["']""")
_DEFINES = re.compile(r"toolset|custom_tool|mcp_server|mcpservers|profile|start_script|plugin|"
                      r"hook|skill|microagent", re.I)


@probe("memory.user_config", ("C6",), "Protect the agent's own configuration from its tools.")
def user_config(index: RepoIndex):
    """The agent's configuration and state folder in the operator's home (loaded at start-up),
    and whether what is loaded from it can define tools, commands or code."""
    for h in index.live_hits(_USER_DIR, globs=("*.py",)):
        if _FOREIGN_DIR.search(h.text):
            continue  # another tool's folder (ssh keys, cloud CLIs), not the agent's own
        facts = index.py.get(h.path)
        text = index.text(h.path)
        names = {a.target for a in (facts.assigns if facts else ()) if a.line <= h.line <= a.end_line}
        users = [f for f in index.source_py() if f is facts or any(f.idents.get(n) for n in names)]
        defines = any(_DEFINES.search(" ".join(f.idents)) for f in users)
        yield finding("memory.user_config", "The agent reads its configuration from a folder in "
                      "the operator's home" + (", where entries can define tools, commands or "
                      "code." if defines else "."), h.path, h.line, defines=defines,
                      size=len(text))


_ENV_COMMAND = re.compile(r"(_BIN|_CMD|_COMMAND|_EXECUTABLE|_EXE)$|MCP\w*_(COMMAND|ARGS|CMD|URL)$|"
                          r"^MCP_|_MCP_", re.I)


@probe("memory.dotenv_commands", ("C6", "C7"), "Do not let a .env in the working folder pick commands.")
def dotenv_commands(index: RepoIndex):
    """Settings read from the environment that name a command, binary or MCP server: with a
    .env loaded from the working folder at start-up, a file in the project can set them."""
    seen = set()
    for s in index.settings:
        if s.source != "code" or s.key in seen or not _ENV_COMMAND.search(s.key):
            continue
        if not re.search(r"environ|getenv|env\.get|load_\w*\(", index.line(s.path, s.line)):
            continue  # a constant in code, not something the environment sets
        seen.add(s.key)
        yield finding("memory.dotenv_commands", f"{s.key} is read from the environment and "
                      "names a command or server to start.", s.path, s.line, key=s.key)


@probe("memory.config_scope", ("C6",), "Load agent settings only from the operator's scope.")
def config_scope(index: RepoIndex):
    """Agent SDK settings restricted to the user scope."""
    yield from line_findings(index, "memory.config_scope",
                             [r"""setting_sources\s*=\s*\[\s*["']user["']\s*\]"""],
                             "Agent settings load only from the user scope.")


@probe("memory.rls", ("C6",), "Turn row-level isolation on by default.")
def rls(index: RepoIndex):
    """Row-level security settings and their default."""
    seen = set()
    for s in index.settings:
        if re.search(r"RLS_MODE|RLS_ENABLED|ENABLE_RLS|ROW_LEVEL_SECURITY", s.key, re.I) and s.key not in seen:
            seen.add(s.key)
            best = defaults_for(settings_named(index, s.key), s.key)[0]
            value = re.sub(r"\.(value|name)$", "", (best.value or "").strip())
            off = value.split(".")[-1].strip().lower() in ("off", "false", "0", "", "none", "disabled")
            yield finding("memory.rls", f"{best.key} defaults to {best.value!r}"
                          + (" (row-level isolation off)." if off else "."), best.path, best.line,
                          on=not off)


_MEMORY_RECV = re.compile(r"(memory|history|messages|conversation|chat_history|transcript)$", re.I)


@probe("memory.reset", ("C6",), "Start each run from clean memory unless the user chooses otherwise.")
def resets(index: RepoIndex):
    """Where the agent clears its memory or conversation (`self.memory.reset()`,
    `self.messages.clear()`) in code the agent loop reaches: how long poisoned content lasts."""
    model = index.agent
    if model is None:
        return
    session, g = model.session, model.graph
    for facts, c in index.calls_named({"reset", "clear"}):
        recv = c.raw.rsplit(".", 1)[0] if "." in c.raw else ""
        if not _MEMORY_RECV.search(recv.rsplit(".", 1)[-1]):
            continue
        d = session.driven.get(g.node_at(facts.path, c.line))
        if d is None or d > 4:
            continue
        block = next((b for b in reversed(facts.blocks) if b.kind in ("if", "elif")
                      and b.line < c.line <= b.end_line and b.func == c.func), None)
        when = f" when `{' '.join(block.head.split())[:40]}`" if block is not None else ""
        yield finding("memory.reset", f"{c.raw}() clears the agent's {recv.rsplit('.', 1)[-1]}"
                      f"{when}.", facts.path, c.line, func=c.func or "")
