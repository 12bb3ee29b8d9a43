"""Tools defined as data: YAML tool sets whose entries run a templated shell command.

Some agents ship their tools as YAML (`tools: - name: kubectl_get ... command: "kubectl get
{{ kind }} {{ name }}"`) that a loader in the package reads at start-up. The command line, with
its placeholders filled in when the tool runs, is what the model's call executes: reviewers cite
it for tool scoping, isolation and untrusted input. A YAML file counts only where a live
definition loader (ext.definition_loader) reads the folder it sits in; the same text in docs,
tests or examples, or beside no loader, is not a tool.
"""

from __future__ import annotations

import re

from ..index.repo import RepoIndex
from .base import finding, probe

_COMMAND = r"""^\s*-?\s*command:\s*.*\{\{\s*[\w.]+"""
_PLACEHOLDER = re.compile(r"\{\{\s*([\w.]+)")
# a pipe or command list: the filled-in arguments are parsed by a shell, not passed as argv
_SHELL_OPS = re.compile(r"\s\|\s|&&|;|\$\(|`")


@probe("tools.yaml_command", ("C3", "C4", "C5"), "Pass tool arguments as argv, never into a shell line.")
def yaml_commands(index: RepoIndex):
    """Templated `command:` lines of YAML tool sets under a folder a live loader reads."""
    # most repositories ship no YAML tool sets: search first, find loaders only for hits
    hits = index.live_hits([_COMMAND], globs=("*.yaml", "*.yml"))
    if not hits:
        return
    from .extensions import definition_loader

    roots = {f.location.path.rsplit("/", 1)[0] + "/" for f in definition_loader(index)
             if f.location and "/" in f.location.path
             and not index.is_dead(f.location.path, f.location.start_line)}
    on = _enabled_words(index) if roots else set()
    for h in hits:
        if not any(h.path.startswith(r) for r in roots):
            continue
        stem = h.path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
        names = list(dict.fromkeys(_PLACEHOLDER.findall(h.text)))
        command = h.text.split("command:", 1)[1].strip().strip("'\"")
        shown = " ".join(command.split())[:70]
        yield finding("tools.yaml_command", f"A tool defined in {h.path.rsplit('/', 1)[-1]} runs "
                      f"`{shown}` as a shell line, with "
                      + ", ".join(f"{{{{ {n} }}}}" for n in names[:3]) + " filled in when it runs.",
                      h.path, h.line, placeholders=" ".join(names), default_on=stem in on,
                      shell=bool(_SHELL_OPS.search(command)))


def _enabled_words(index: RepoIndex) -> set[str]:
    """Words of the shipped values of tool-set settings in code (`ENABLED_BY_DEFAULT_TOOLSETS =
    "kubernetes/core,prometheus"`): a YAML tool set named there is on by default."""
    from .config_defaults import topic

    words: set[str] = set()
    for st in index.settings:
        if st.source == "code" and isinstance(st.value, str) and topic(st.key) == "tools":
            words |= set(re.findall(r"[a-z][a-z0-9_-]+", st.value.lower()))
    return words
