"""Node package manifests: what each package.json says runs, and VS Code extension contributions.

Every package.json that ships (role "config": not under node_modules, tests, docs or examples) is
read with the bounded, line-keeping JSON reader, so every entry point and default cites its
`file:line`. npm/yarn `workspaces` and `pnpm-workspace.yaml` name the packages of a monorepo (one
product, several packages).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .configs import load_yaml
from .jsonlines import JsonArray, JsonObject, loads, scalar_text

_MAX_ENTRIES = 5000  # per list of one manifest (exports, scripts, commands, settings ...)
_EXPORTS_DEPTH = 6


@dataclass(frozen=True)
class Entry:
    """One named value of a manifest and where it is written."""

    name: str  # bin name, script name, export subpath (conditions joined by ":"), command id ...
    value: str | None  # its text (a default: see jsonlines.scalar_text)
    path: str
    line: int
    detail: str | None = None  # a command's category, a setting's type

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass
class VsCodeExtension:
    """The VS Code extension fields of a package.json (it has `engines.vscode`)."""

    engine: Entry  # engines.vscode
    publisher: Entry | None = None  # with the package name, the Marketplace id "publisher.name"
    activation_events: tuple[Entry, ...] = ()  # name = the event ("onStartupFinished")
    main: Entry | None = None  # the Node entry (exports activate)
    browser: Entry | None = None  # the web-extension entry
    commands: tuple[Entry, ...] = ()  # contributes.commands: name = id, value = title
    # contributes.configuration properties: name = setting id, value = its default (None when
    # it has none), detail = its type; line = the "default" line (else the id's)
    configuration: tuple[Entry, ...] = ()


@dataclass
class NodePackage:
    path: str  # the package.json
    dir: str  # its directory ("" at the root)
    name: Entry | None = None
    description: Entry | None = None
    module_type: str | None = None  # "module" (ESM) or "commonjs", as `type` says
    main: Entry | None = None
    browser: Entry | None = None
    bin: tuple[Entry, ...] = ()  # name = the command
    exports: tuple[Entry, ...] = ()  # name = subpath[:condition...], value = the target file
    scripts: tuple[Entry, ...] = ()  # name = script, value = its command line
    workspaces: tuple[Entry, ...] = ()  # name = value = a package glob (package.json or pnpm)
    dependencies: tuple[Entry, ...] = ()  # dependencies, optional and peer: name, version range
    dev_dependencies: tuple[Entry, ...] = ()
    vscode: VsCodeExtension | None = None
    problems: list[str] = field(default_factory=list)  # what could not be read, if anything


def _entry(obj: JsonObject, key: str, path: str, name: str | None = None) -> Entry | None:
    value = obj.get(key)
    if not isinstance(value, (str, int, float, bool)):
        return None
    return Entry(name or key, scalar_text(value), path, obj.line_of(key))


def _named_strings(obj: object, path: str) -> tuple[Entry, ...]:
    """{"name": "value", ...} as entries (non-string values are left out)."""
    if not isinstance(obj, JsonObject):
        return ()
    return tuple(Entry(k, v, path, obj.line_of(k)) for k, v in list(obj.items())[:_MAX_ENTRIES]
                 if isinstance(v, str))


def _strings(arr: object, path: str) -> tuple[Entry, ...]:
    if not isinstance(arr, JsonArray):
        return ()
    return tuple(Entry(v, v, path, arr.lines[i]) for i, v in enumerate(arr[:_MAX_ENTRIES])
                 if isinstance(v, str))


def _exports(value: object, holder: JsonObject, path: str) -> tuple[Entry, ...]:
    """`exports` flattened: "./cli" -> {"import": "./a.mjs"} gives ("./cli:import", "./a.mjs");
    a conditions-only object is the "." subpath's."""
    if isinstance(value, str):
        return (Entry(".", value, path, holder.line_of("exports")),)
    if not isinstance(value, JsonObject):
        return ()
    out: list[Entry] = []
    top_is_conditions = not any(k.startswith(".") for k in value)
    stack = [("." if top_is_conditions else "", value, 0)]
    while stack and len(out) < _MAX_ENTRIES:
        prefix, obj, depth = stack.pop()
        for k, v in obj.items():
            name = f"{prefix}:{k}" if prefix else k
            if isinstance(v, str):
                out.append(Entry(name, v, path, obj.line_of(k)))
            elif isinstance(v, JsonObject) and depth < _EXPORTS_DEPTH:
                stack.append((name, v, depth + 1))
            elif v is None:
                out.append(Entry(name, None, path, obj.line_of(k)))  # a blocked subpath
    return tuple(sorted(out, key=lambda e: e.line))


def _vscode(doc: JsonObject, path: str) -> VsCodeExtension | None:
    engines = doc.get("engines")
    if not isinstance(engines, JsonObject) or not isinstance(engines.get("vscode"), str):
        return None
    engine = Entry("vscode", engines["vscode"], path, engines.line_of("vscode"))
    ext = VsCodeExtension(engine=engine, publisher=_entry(doc, "publisher", path))
    ext.activation_events = _strings(doc.get("activationEvents"), path)
    ext.main = _entry(doc, "main", path)
    ext.browser = _entry(doc, "browser", path)
    contributes = doc.get("contributes")
    if not isinstance(contributes, JsonObject):
        return ext
    commands = contributes.get("commands")
    if isinstance(commands, JsonArray):
        ext.commands = tuple(
            Entry(c["command"], c.get("title") if isinstance(c.get("title"), str) else None,
                  path, c.line_of("command"),
                  c.get("category") if isinstance(c.get("category"), str) else None)
            for c in commands[:_MAX_ENTRIES]
            if isinstance(c, JsonObject) and isinstance(c.get("command"), str))
    config = contributes.get("configuration")
    sections = config if isinstance(config, JsonArray) else [config]
    settings: list[Entry] = []
    for section in sections[:_MAX_ENTRIES]:
        props = section.get("properties") if isinstance(section, JsonObject) else None
        if not isinstance(props, JsonObject):
            continue
        for key, spec in props.items():
            if not isinstance(spec, JsonObject) or len(settings) >= _MAX_ENTRIES:
                continue
            kind = spec.get("type")
            if isinstance(kind, JsonArray):  # "type": ["string", "null"]
                kind = "|".join(t for t in kind if isinstance(t, str))
            elif not isinstance(kind, str):
                kind = None
            if "default" in spec:
                settings.append(Entry(key, scalar_text(spec["default"]), path,
                                      spec.line_of("default"), kind))
            else:
                settings.append(Entry(key, None, path, props.line_of(key), kind))
    ext.configuration = tuple(settings)
    return ext


def read_package(path: str, text: str) -> NodePackage:
    """One package.json's entry points, scripts, workspaces and VS Code contributions."""
    pkg = NodePackage(path=path, dir=path.rsplit("/", 1)[0] if "/" in path else "")
    doc = loads(text)
    if not isinstance(doc, JsonObject):
        pkg.problems.append("not a JSON object within the reader's bounds")
        return pkg
    pkg.name = _entry(doc, "name", path)
    pkg.description = _entry(doc, "description", path)
    if isinstance(doc.get("type"), str):
        pkg.module_type = doc["type"]
    pkg.main = _entry(doc, "main", path)
    pkg.browser = _entry(doc, "browser", path)
    bin_ = doc.get("bin")
    if isinstance(bin_, str):  # the command is the package's name without its scope
        command = pkg.name.value.rsplit("/", 1)[-1] if pkg.name and pkg.name.value else "?"
        pkg.bin = (Entry(command, bin_, path, doc.line_of("bin")),)
    else:
        pkg.bin = _named_strings(bin_, path)
    if "exports" in doc:
        pkg.exports = _exports(doc["exports"], doc, path)
    pkg.scripts = _named_strings(doc.get("scripts"), path)
    workspaces = doc.get("workspaces")
    if isinstance(workspaces, JsonObject):  # yarn: {"packages": [...], "nohoist": [...]}
        workspaces = workspaces.get("packages")
    pkg.workspaces = _strings(workspaces, path)
    deps: list[Entry] = []
    for key in ("dependencies", "optionalDependencies", "peerDependencies"):
        deps += _named_strings(doc.get(key), path)
    pkg.dependencies = tuple(deps)
    pkg.dev_dependencies = _named_strings(doc.get("devDependencies"), path)
    pkg.vscode = _vscode(doc, path)
    return pkg


def pnpm_workspaces(path: str, text: str) -> tuple[Entry, ...]:
    """The `packages` globs of a pnpm-workspace.yaml, each with the line it is written on."""
    doc = load_yaml(text.encode())
    globs = doc.get("packages") if isinstance(doc, dict) else None
    if not isinstance(globs, list):
        return ()
    item_lines: dict[str, int] = {}  # "- 'apps/*'" -> apps/*: its first line, in one pass
    for i, t in enumerate(text.splitlines(), 1):
        t = t.strip()
        if t.startswith("-"):
            item_lines.setdefault(t[1:].split(" #", 1)[0].strip().strip("'\""), i)
    return tuple(Entry(g, g, path, item_lines.get(g, 1)) for g in globs[:_MAX_ENTRIES]
                 if isinstance(g, str))


def node_packages(files, blobs: dict[str, bytes], wanted) -> list[NodePackage]:
    """Every shipped package.json, in path order, with the pnpm workspace globs of its directory."""
    manifests: dict[str, NodePackage] = {}
    pnpm: dict[str, tuple[Entry, ...]] = {}
    for e in wanted:
        rec = files.get(e.path)
        if rec is None or rec.role != "config":
            continue
        name = e.path.rsplit("/", 1)[-1]
        if name == "package.json":
            text = blobs.get(e.sha, b"").decode("utf-8", "replace")
            manifests[e.path] = read_package(e.path, text)
        elif name == "pnpm-workspace.yaml":
            d = e.path.rsplit("/", 1)[0] if "/" in e.path else ""
            pnpm[d] = pnpm_workspaces(e.path, blobs.get(e.sha, b"").decode("utf-8", "replace"))
    for d, globs in pnpm.items():
        key = f"{d}/package.json" if d else "package.json"
        pkg = manifests.get(key)
        if pkg is None:  # a pnpm workspace root without a manifest still names its packages
            pkg = manifests[key] = NodePackage(path=key, dir=d, problems=["no package.json"])
        pkg.workspaces = pkg.workspaces + globs
    return [manifests[p] for p in sorted(manifests)]
