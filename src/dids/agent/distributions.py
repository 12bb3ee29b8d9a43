"""Python distributions that live in the repository, and the extras that pull them in.

A monorepo may ship a collection of tools or integrations as a distribution of its own
(`lib/crewai-tools/pyproject.toml`) that the scored distribution lists only under
`[project.optional-dependencies]` (`crewai[tools]`). A default install does not have it, so
nothing it defines is on the default path: it is opt-in, enabled by that extra, however many
package `__init__` imports would reach it once it is installed.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field

_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def norm(name: str) -> str:
    """A distribution name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Dist:
    name: str  # normalised ("crewai-tools")
    shown: str  # as written ("crewai")
    prefix: str  # the folder it packages, "" for the repository root
    requires: set[str] = field(default_factory=set)
    extras: dict[str, set[str]] = field(default_factory=dict)


def _dists(index, manifests: list[str]) -> list[Dist]:
    out = []
    for path in manifests:
        if not path.endswith("pyproject.toml") or path not in index.files:
            continue
        try:
            project = tomllib.loads(index.text(path)).get("project", {})
        except (tomllib.TOMLDecodeError, ValueError):
            continue
        name = project.get("name") if isinstance(project, dict) else None
        if not isinstance(name, str) or not name:
            continue
        d = Dist(norm(name), name, path.rsplit("/", 1)[0] + "/" if "/" in path else "")
        for req in project.get("dependencies", ()) or ():
            m = _REQ_NAME.match(str(req))
            if m:
                d.requires.add(norm(m.group(1)))
        extras = project.get("optional-dependencies", {}) or {}
        for extra, reqs in (extras.items() if isinstance(extras, dict) else ()):
            names = {norm(m.group(1)) for r in reqs or () if (m := _REQ_NAME.match(str(r)))}
            d.extras[str(extra)] = names
        out.append(d)
    return out


def own_packages(index, manifests: list[str], modules) -> frozenset[str]:
    """Import names of the repository's own distributions that its tree holds as packages
    (`pydantic-ai` → `pydantic_ai`, when a module name of MODULES, a ModuleMap, has that part:
    `libs/langgraph/langgraph/graph/` of a namespace package counts): a library model of that
    package describes code the call graph reads itself."""
    wanted = {re.sub(r"[-.]", "_", d.name) for d in _dists(index, manifests)}
    if not wanted:
        return frozenset()
    parts = {part for name in modules.by_name for part in name.split(".")}
    return frozenset(wanted & parts)


def owner(prefixes: list[str], path: str) -> str | None:
    """The folder of the distribution PATH belongs to: the deepest one holding it."""
    return next((p for p in prefixes if path.startswith(p)), None)


_PIP_INSTALL = re.compile(r"^(?:python3?\s+-m\s+)?(?:uv\s+)?(?:pip3?|pipx|uv)\s+(?:install|add)\s+(.*)$")


def installed(command: str) -> list[str]:
    """The distribution names a README's `pip install ...` / `uv add ...` line installs."""
    m = _PIP_INSTALL.match(command.strip())
    if not m:
        return []
    out = []
    for w in m.group(1).split():
        if w.startswith("-") or "/" in w or w.startswith("."):
            continue  # a flag, a path or a URL
        n = _REQ_NAME.match(w.strip("'\""))
        if n:
            out.append(norm(n.group(1)))
    return out


def optional_roots(index, manifests: list[str], root_paths: list[str],
                   install: str | None = None) -> dict[str, str]:
    """Folder of each in-repository distribution the scored one reaches only through an extra
    -> the extra that installs it (`crewai[tools]`). ROOT_PATHS: files of the scored entry
    points; INSTALL: the README's install command (together they say what a default install
    holds)."""
    return split_roots(index, manifests, root_paths, install)[0]


def split_roots(index, manifests: list[str], root_paths: list[str],
                install: str | None) -> tuple[dict[str, str], list[str]]:
    """(optional_roots, separate): the folders only an extra installs, and the folders of
    in-repository distributions that neither the scored one requires nor any of its extras
    installs (a monorepo's deploy CLI beside the library the README installs). A default install
    holds neither; the second is off the scored path altogether."""
    dists = _dists(index, manifests)
    if len(dists) < 2:
        return {}, []
    by_name = {d.name: d for d in dists}
    prefixes = sorted((d.prefix for d in dists), key=len, reverse=True)
    by_prefix = {d.prefix: d for d in dists}
    scored = {by_prefix[p].name for path in root_paths if (p := owner(prefixes, path)) is not None}
    scored |= {n for n in installed(install or "") if n in by_name}
    if not scored:
        return {}, []

    def closure(start: set[str]) -> set[str]:
        seen, stack = set(start), list(start)
        while stack:
            for dep in by_name[stack.pop()].requires:
                if dep in by_name and dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return seen

    required = closure(scored)
    out: dict[str, str] = {}
    for name in sorted(required):
        d = by_name[name]
        for extra, names in sorted(d.extras.items()):
            pulled = {n for n in names if n in by_name and n not in required}
            for n in sorted(closure(pulled) - required):
                prefix = by_name[n].prefix
                if prefix:  # the repository root is never an add-on
                    out.setdefault(prefix, f"{d.shown}[{extra}]")
    separate = sorted(d.prefix for d in dists if d.prefix and d.name not in required
                      and d.prefix not in out)
    return out, separate
