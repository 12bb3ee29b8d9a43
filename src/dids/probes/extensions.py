"""C7 extensions family: MCP servers, plugins, custom code: pinning, integrity, environment."""

from __future__ import annotations

import re

from ..index.repo import RepoIndex
from .base import finding, line_findings, probe
from .exec_paths import _FULL_ENV


@probe("ext.mcp_stdio", ("C7",), "Start MCP servers with only their own configuration in the env.")
def mcp_stdio(index: RepoIndex):
    """Local MCP servers started as processes, and the environment they get."""
    launchers = ("StdioServerParameters", "stdio_client", "StdioServerParams", "MCPServerStdio")
    for facts, c in index.calls_named(launchers):
        if c.short == "stdio_client" and c.kw("command") is None:
            continue  # takes parameters built elsewhere (counted where they are built)
        env = c.kw("env")
        kind = "inherit" if env is None else ("full" if _FULL_ENV.search(env.strip()) else "constructed")
        yield finding("ext.mcp_stdio", f"{c.raw}(...) launches an MCP server with "
                      + {"inherit": "the default environment", "full": "the full parent environment",
                         "constructed": "an environment built for it"}[kind] + ".",
                      facts.path, c.line, env=kind)
    # MCP server configurations handed to an agent SDK as data
    for h in index.live_hits([r"""["']type["']\s*:\s*["']stdio["']""", r"""["']mcpServers["']"""],
                             globs=("*.py",)):
        yield finding("ext.mcp_stdio", "An MCP server configuration is built for the agent here.",
                      h.path, h.line, env="unknown")


@probe("ext.pin", ("C7",), "Pin extension versions with hashes in a lock.")
def pin(index: RepoIndex):
    """Lock models or checks that pin extension code to versions and fingerprints."""
    for facts in index.source_py():
        for cls in facts.classes:
            if not re.search(r"lock|pin|manifest", cls.name, re.I):
                continue
            fields = {a.target for a in facts.assigns if a.scope == cls.qualname}
            if any(re.search(r"version|origins", f) for f in fields) and \
                    any(re.search(r"fingerprint|sha|digest|hash|integrity", f) for f in fields):
                yield finding("ext.pin", f"{cls.name} pins extension versions with fingerprints.",
                              facts.path, cls.line, cls=cls.name)


@probe("ext.signature", ("C7",), "Verify signatures of downloaded extension code.")
def signature(index: RepoIndex):
    """Signature verification of downloaded code (ECDSA/Ed25519/GPG/sigstore)."""
    for facts, c in index.calls_named({"verify"}):
        if re.search(r"ecdsa|ed25519|public_key|pubkey|key|sig|gpg|sigstore",
                     c.raw + " ".join(c.args), re.I):
            yield finding("ext.signature", f"{c.raw}(...) verifies a signature.", facts.path,
                          c.line)


@probe("ext.remote_code", ("C7",), "Never fetch and run unpinned code at run time.")
def remote_code(index: RepoIndex):
    """Run-time loads of remote code, parsed as calls: Hub downloads and `from_pretrained`, calls
    passing `trust_remote_code=True`, and `npx -y` launches. Each says whether the load is
    pinned (`revision=`) and whether an acknowledgement guard (`if not trust_remote_code:
    raise`) stands in front of it in the same function."""
    from ..agent.semantics import matches

    found: dict[tuple[str, int], object] = {}
    for facts, c in index.all_calls():
        if (c.kw("trust_remote_code") or "").strip() == "True":
            found[(facts.path, c.line)] = _remote(
                facts, c, f"{c.raw}(...) runs code the remote model or tool ships "
                "(trust_remote_code=True)")
    for facts, c, row in matches(index).get("loader", ()):
        if str(row.get("what", "")).startswith("hub") and (facts.path, c.line) not in found:
            found[(facts.path, c.line)] = _remote(facts, c, f"{c.raw}(...) downloads code or "
                                                  "weights from the Hub")
    yield from found.values()
    for h in index.live_hits([r"""["']npx["']\s*,\s*["']-y["']|npx -y """], globs=("*.py",)):
        yield finding("ext.remote_code", "A package is fetched and run with npx -y (latest, "
                      "unpinned) here.", h.path, h.line, pinned=False, acknowledged=False)


def _remote(facts, c, text: str):
    rev = (c.kw("revision") or "").strip()
    pinned = bool(rev) and rev != "None"
    acknowledged = any(b.func == c.func and b.kind == "if" and "trust_remote_code" in b.head and
                       "x" in b.exits and b.line < c.line for b in facts.blocks)
    return finding("ext.remote_code", text + (", pinned to a revision" if pinned else "")
                   + ("; an acknowledgement flag must be set first." if acknowledged else "."),
                   facts.path, c.line, c.end_line, pinned=pinned, acknowledged=acknowledged,
                   func=c.func or "")


@probe("ext.loader", ("C7",), "Load extension code in its own confined process.")
def loader(index: RepoIndex):
    """Extension code loaded in-process or put on a child's import path."""
    for facts, c in index.calls_where(
            lambda n: n in ("importlib.import_module", "importlib.util.spec_from_file_location")):
        if c.args and not re.match(r"""^f?["'][\w.]+["']$""", c.args[0]):
            if _own_package(index, facts, c.args[0]):
                continue  # the package's own modules, found by name: not an extension
            yield finding("ext.loader", f"{c.raw}(...) imports code named at run time.",
                          facts.path, c.line, how="import")
    from ..agent.semantics import matches

    for facts, c, row in matches(index).get("exec", ()):  # exec of profile/plugin/skill code
        if row.get("class") == "inprocess" and _EXT_CONTEXT.search(facts.path + " " + (c.func or "")):
            yield finding("ext.loader", f"{c.raw}(...) runs extension code (a profile, plugin or "
                          "skill) inside the agent process.", facts.path, c.line, how="exec")
    for facts in index.source_py():
        for a in facts.assigns:
            if re.search(r"""\[\s*["']PYTHONPATH["']\s*\]""", a.target):
                yield finding("ext.loader", "Extension artifacts are put on a child's PYTHONPATH.",
                              facts.path, a.line, how="pythonpath")


_EXT_CONTEXT = re.compile(r"profile|plugin|skill|extension|addon|custom_tool", re.I)


def _own_package(index: RepoIndex, facts, arg: str) -> bool:
    """Whether an f-string module name is built under one of the repository's own packages."""
    model = index.agent
    if model is None:
        return False
    r = model.graph._resolver
    return bool(r is not None and r._dynamic_import_prefix(facts.path, facts, arg.strip()))


# a function that reads definitions the agent then runs with: tool sets, plugins, skills,
# profiles, sub-agent or server declarations (named for what it loads)
_DEF_LOADER = re.compile(r"^_*(load|import|read|discover|scan|collect|fetch|get|parse)_\w*?(toolsets?|tools|"
                         r"plugins?|skills?|profiles?|microagents?|agents|extensions?|servers|"
                         r"mcp_\w*|hooks|rules|instructions)(_from_\w+)?$", re.I)
_FILE_READ = re.compile(r"(^|\.)(open|read_text|read_bytes|safe_load|load|glob|rglob|iglob|listdir|"
                        r"scandir|walk|iterdir)$")


@probe("ext.definition_loader", ("C6", "C7"),
       "Load tool, plugin and profile definitions only from places the user controls.")
def definition_loader(index: RepoIndex):
    """Functions that read tool sets, plugins, skills, profiles or server declarations from
    files or directories (their body opens, globs, lists or parses a file): where definitions
    the agent runs with come from. Named for what they load and checked for what they do."""
    from ..index.pyfacts import calls_by_func

    found, readers, callers = [], set(), []
    for facts in index.source_py():
        by = None
        for d in facts.defs:
            m = _DEF_LOADER.match(d.name)
            if m is None:
                continue
            if by is None:
                by = calls_by_func(facts)
            calls = by.get(d.qualname, [])
            reads = [c for c in calls if _FILE_READ.search(c.callee or c.raw)]
            if reads:
                readers.add(d.name)
                found.append((facts, d, m, f"{reads[0].raw}(...) at line {reads[0].line}"))
            else:
                callers.append((facts, d, m, calls))
    # one level up: a loader that hands the reading to one of those (`_load_toolsets_from_paths`
    # calling `load_toolsets_from_file` for each configured path)
    for facts, d, m, calls in callers:
        via = next((c for c in calls if c.short in readers), None)
        if via is not None:
            found.append((facts, d, m, f"through {via.short}(...) at line {via.line}"))
    for facts, d, m, how in sorted(found, key=lambda t: (t[0].path, t[1].line)):
        what = m.group(2).lower().replace("_", " ")
        yield finding("ext.definition_loader", f"{d.name} reads {what} definitions from files "
                      f"({how}).", facts.path, d.line, min(d.end_line, d.line + 40),
                      func=d.qualname, what=what)
