"""Entry points of the repository's Node packages: where a TypeScript/JavaScript agent starts.

- the README's leading install (`npm i -g x`, `npx x`, `pnpm add -g x`, `yarn global add x`,
  `bun add -g x`, a VS Code marketplace install) names the package that is scored: the one
  whose name is x, or whose `bin` has a command x; a run command (`x ...`) names a bin;
- that package's `bin` targets (the sources they are built from), and for a VS Code extension
  its `main` module's `activate`; command-line subcommands (commander/yargs `.command("name")
  ... .action(handler)`) other than the one the README runs are alternative entries;
- with no README hint: the only package with a `bin`, else the only VS Code extension, else the
  root package's `main`.

Other packages' bins and extensions are alternative entries (`others`): their code is off the
scored path unless the scored entries reach it too.
"""

from __future__ import annotations

import re

from .callgraph import MODULE, CallGraph
from .entrypoints import Entry, EntryPoints
from .readme import leading_path, package_name

_NODE_INSTALL = re.compile(
    r"^(?:sudo\s+)?(?:npm\s+(?:i|install|add)|pnpm\s+(?:add|i|install)|yarn\s+(?:global\s+)?add|"
    r"bun\s+(?:add|i|install)|npx|bunx|pnpx|pnpm\s+dlx)\b(.*)$", re.I)
_VSCODE_INSTALL = re.compile(r"code\s+--install-extension|marketplace\.visualstudio\.com|"
                             r"open-vsx\.org", re.I)
_COMMAND_LABEL = re.compile(r"\.(command|action)\b")


def _install_target(text: str) -> str | None:
    m = _NODE_INSTALL.match(text.strip())
    if not m:
        return None
    for w in m.group(1).split():
        if w.startswith("-"):
            continue
        return package_name(w) or None  # `@scope/pkg@1.2`, `pkg@latest`
    return None


class Choice:
    """The Node package the scored path runs, and how it was chosen."""

    def __init__(self, pkg, how: str, lp, run_sub: str | None):
        self.pkg, self.how, self.lp, self.run_sub = pkg, how, lp, run_sub


def choose(index, ep: EntryPoints) -> Choice | None:
    """The package whose entries are the scored path, or None when the Python entry points
    already are (or no Node package ships an entry, or no TypeScript/JavaScript was parsed).
    Chosen from manifests and the README: only a Node choice waits for a deferred parse."""
    if not index.may_have_ts():
        return None
    choice = _choose(index, ep)
    return choice if choice is not None and index.ts else None


def _choose(index, ep: EntryPoints) -> Choice | None:
    pkgs = [p for p in index.node_packages if p.name is not None or p.bin or p.vscode]
    if not pkgs:
        return None
    bins = {e.name: (p, e) for p in pkgs for e in p.bin}
    names = {p.name.value: p for p in pkgs if p.name and p.name.value}
    readme = next((p for p in sorted(index.files) if _is_readme(p)), None)
    lp = None
    if readme is not None:
        lp = leading_path(readme, index.text(readme),
                          set(bins) | {n.rsplit("/", 1)[-1] for n in names})
    chosen, how, run_sub = None, "", None
    node_install = False
    if lp is not None:
        target = _install_target(lp.install.text) if lp.install else None
        if target:
            node_install = True
            chosen = names.get(target) or (bins[target][0] if target in bins else None) or \
                next((p for n, p in names.items() if n.rsplit("/", 1)[-1] == target), None)
            if chosen is not None:
                how = "README leading path"
        for cmd in lp.runs:
            w = cmd.words
            if (w[0] in ("npx", "bunx", "pnpx") or w[:2] == ["pnpm", "dlx"]) and len(w) > 1:
                w = [x for x in w[1:] if not x.startswith("-") and x != "dlx"] or w[:1]
                # `npx -y @scope/pkg`: the package named, run through its bin
                pkg = names.get(package_name(w[0]))
                if pkg is not None and pkg.bin and (chosen is None or pkg is chosen):
                    chosen, how = pkg, "README leading path"
                    break
            if w[0] in bins and (chosen is None or bins[w[0]][0] is chosen):
                chosen = bins[w[0]][0]
                how = "README leading path"
                rest = [x for x in w[1:] if not x.startswith("-")]
                run_sub = rest[0] if rest and re.match(r"^[a-z][\w-]*$", rest[0]) else None
                break
        if chosen is None and lp.install and _VSCODE_INSTALL.search(lp.install.text):
            chosen = next((p for p in pkgs if p.vscode), None)
            how = "README leading path" if chosen else ""
    if chosen is None and readme is not None:
        chosen = _listed_extension(index.text(readme), [p for p in pkgs if p.vscode])
        how = "README marketplace listing" if chosen else ""
    python_led = bool(ep.main or ep.roots) and not node_install
    if how == "README marketplace listing" and python_led and \
            not any(e.kind in _NAMED_KINDS for e in ep.main):
        # the Python side is only an image some Dockerfile runs (a test sandbox, a docs app):
        # the extension the README lists is the product
        python_led = False
    if chosen is not None:
        return None if python_led and how != "README leading path" else Choice(chosen, how, lp, run_sub)
    if python_led:
        return None
    with_bin = [p for p in pkgs if p.bin]
    exts = [p for p in pkgs if p.vscode]
    if len(with_bin) == 1:
        return Choice(with_bin[0], "package bin", lp, None)
    if not with_bin and len(exts) == 1:
        return Choice(exts[0], "VS Code extension", lp, None)
    if not with_bin and not exts:
        root = next((p for p in pkgs if p.dir == "" and p.main), None)
        if root is not None:
            return Choice(root, "package main", lp, None)
    return None


# Python entries a user is pointed at (the README's commands, the package's console scripts),
# as opposed to ones found only because a Dockerfile or a `__main__` module runs them
_NAMED_KINDS = frozenset({"readme-run", "readme-snippet", "console-script"})

# a Marketplace or Open VSX listing: itemName=<publisher>.<name>, extension/<publisher>/<name>
_LISTING = re.compile(r"marketplace\.visualstudio\.com/items\?itemName=([\w-]+)\.([\w.-]+)|"
                      r"open-vsx\.org/extension/([\w-]+)/([\w.-]+)", re.I)


def _listed_extension(readme: str, exts: list):
    """The extension package of this tree whose store listing the README links (its badge or
    install link): the product a user installs, over any CLI the tree also ships."""
    ids = {"{}.{}".format(*(g for g in m.groups() if g)).lower() for m in _LISTING.finditer(readme)}
    for p in exts:
        if p.vscode.publisher and p.name and isinstance(p.vscode.publisher.value, str) and \
                f"{p.vscode.publisher.value}.{p.name.value}".lower() in ids:
            return p
    return None


def _is_readme(path: str) -> bool:
    from ..index.repo import is_readme

    return is_readme(path)


def find(index, graph: CallGraph, info, ep: EntryPoints, choice: Choice) -> list[str]:
    """Add the Node entry points to EP (the chosen package's to main, the others' to others)
    and return the TS root nodes of the scored path (also appended to ep.roots)."""
    pkgs = [p for p in index.node_packages if p.name is not None or p.bin or p.vscode]
    roots: list[str] = []
    main_entries: list[Entry] = []
    other_entries: list[Entry] = []
    for p in pkgs:
        (main_entries if p is choice.pkg else other_entries).extend(_entries(graph, info, p))
    # the README's Node path wins over console scripts, and over a README path of the Python
    # side that comes later in the README (`npx -y @x/server` first, `uvx other` below it)
    if ep.main and (not any(e.kind.startswith("readme") for e in ep.main) or
                    _earlier(choice, ep.readme)):
        ep.others.extend(ep.main)
        ep.main = []
        ep.roots = []
    ep.main.extend(main_entries)
    lp = choice.lp
    if lp is not None and lp.install is not None and choice.how.startswith("README"):
        ep.readme = lp
    for e in main_entries:
        if e.node and e.node not in roots:
            roots.append(e.node)
    ep.exclude |= _other_subcommands(index, graph, roots, choice.run_sub)
    ep.how = choice.how or "package bin"
    ep.others.extend(other_entries)
    ep.roots.extend(r for r in roots if r not in ep.roots)
    if choice.pkg.name is not None and choice.pkg.name.value and not ep.project:
        ep.project = choice.pkg.name.value
    return roots


def _first_line(lp) -> int | None:
    lines = ([lp.install.line] if lp.install else []) + [c.line for c in lp.runs[:1]]
    return min(lines) if lines else None


def _earlier(choice: Choice, python_lp) -> bool:
    """Whether the Node package was chosen from a README command above the Python side's."""
    if not choice.how.startswith("README") or choice.lp is None or python_lp is None:
        return False
    node, py = _first_line(choice.lp), _first_line(python_lp)
    return node is not None and py is not None and node < py


def _entries(graph: CallGraph, info, pkg) -> list[Entry]:
    out = []
    mods = info.modules
    for e in pkg.bin:
        src = mods.source_of(pkg.dir, e.value or "")
        node = f"{src}::{MODULE}" if src else None
        out.append(Entry("package-bin", e.name, e.path, e.line, src or (e.value or ""),
                         node if node in graph.nodes else None))
    if pkg.vscode is not None:
        main = pkg.vscode.main or pkg.main
        src = mods.source_of(pkg.dir, main.value) if main and main.value else None
        if src:
            act = info.resolver.export(src, "activate") if info.resolver else None
            node = act or f"{src}::{MODULE}"
            out.append(Entry("vscode-extension", pkg.name.value if pkg.name else src,
                             main.path, main.line, src, node if node in graph.nodes else None))
    if not pkg.bin and pkg.vscode is None and pkg.main and pkg.main.value:
        src = mods.source_of(pkg.dir, pkg.main.value)
        if src:
            node = f"{src}::{MODULE}"
            out.append(Entry("package-main", pkg.name.value if pkg.name else src, pkg.main.path,
                             pkg.main.line, src, node if node in graph.nodes else None))
    return out


def _other_subcommands(index, graph: CallGraph, roots: list[str], chosen: str | None) -> set[str]:
    """Handlers of the command-line subcommands the scored command does not run: commander or
    yargs `.command("name")` chains ending in `.action(handler)` in the files the entries reach
    directly (the handler is the callback `<...action>` defined there)."""
    out: set[str] = set()
    files = {graph.nodes[r].path for r in roots if r in graph.nodes}
    # the entry file and the files it imports directly (a bin is often a thin wrapper)
    for r in list(roots):
        for dst, _line, how in graph.edges.get(r, ()):
            if how == "import":
                files.add(graph.nodes[dst].path)
    for path in files:
        facts = index.ts.get(path)
        if facts is None:
            continue
        commands = sorted((c.line, c.args[0].strip("'\"`").split()[0]) for c in facts.calls
                          if c.short == "command" and c.args and
                          re.match(r"""^["'`][\w:-]+""", c.args[0].strip()))
        if not commands:
            continue
        for d in facts.defs:
            if not d.name.startswith("<") or not _COMMAND_LABEL.search(d.name):
                continue
            if ".command()" not in d.name and not d.name.startswith("<program.action"):
                continue
            before = [name for line, name in commands if line <= d.line]
            if ".command()" not in d.name:
                continue  # the root program's own action: the default run
            name = before[-1] if before else None
            if name is None or (chosen is not None and name == chosen):
                continue
            out.add(f"{path}::{d.qualname}")
    return out
