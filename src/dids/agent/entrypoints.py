"""Entry points and the main path: where the scored configuration starts.

Sources, in the order a reviewer weighs them: the README's leading install/run block (a console
script and its subcommand, `python -m`, a Docker image, or a Python snippet that constructs the
agent), `[project.scripts]`/Poetry/setup.cfg console scripts, Dockerfile and compose commands
(`uvicorn pkg.app:app`, `python -m pkg.worker`), and modules run as scripts (`__main__`).
Subcommands the README does not run (or that only set the tool up) are alternative entries: their
code is not on the scored path unless the scored command reaches it too.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field

from ..index.configs import load_yaml
from ..index.pyfacts import extract
from ..index.repo import RepoIndex, is_readme
from .callgraph import MODULE, CallGraph
from .readme import LeadingPath, is_chore, launched, leading_path, package_name, subcommand


def offpath_place(path: str) -> bool:
    from .reach import offpath_place as off  # reach imports this module

    return off(path)

_SCRIPT_LINE = re.compile(r"""^\s*["']?([\w.-]+)["']?\s*=\s*["']?([\w.]+)\s*:\s*([\w.]+)""")
_SETUP_SCRIPT = re.compile(r"""["']([\w.-]+)\s*=\s*([\w.]+)\s*:\s*([\w.]+)["']""")
_COMMAND_DECORATOR = re.compile(r"^(?:[\w.]+\.)?(command|group|callback)\b")
_SERVER = re.compile(r"^(uvicorn|gunicorn|hypercorn|daphne|granian)$")
_APP_REF = re.compile(r"^([\w.]+):([\w.]+)(?:\(\))?$")


@dataclass(frozen=True)
class Entry:
    kind: str  # console-script | readme-run | readme-snippet | docker | compose | main-module | command
    name: str
    path: str  # where the entry is declared
    line: int
    target: str  # what it resolves to: "pkg.mod:func", a module name, a command function
    node: str | None = None  # call-graph node id


@dataclass
class EntryPoints:
    project: str  # [project].name, package.json name, or ""
    readme: LeadingPath | None
    main: list[Entry] = field(default_factory=list)  # the scored path's entries
    others: list[Entry] = field(default_factory=list)  # alternative entries (other commands)
    roots: list[str] = field(default_factory=list)  # call-graph nodes the scored path starts at
    calls: set[str] = field(default_factory=set)  # method names the README snippet calls
    exclude: set[str] = field(default_factory=set)  # command functions of other subcommands
    snippet_calls: list[tuple[str, tuple[tuple[str, str], ...], int]] = field(default_factory=list)
    snippet_values: dict[str, str] = field(default_factory=dict)  # `search = Toolkit().search`
    snippet_imports: dict[str, str] = field(default_factory=dict)  # name -> dotted origin
    how: str = ""  # how the main path was chosen, for the card

    def describe(self) -> str:
        parts = []
        if self.readme and self.readme.install:
            parts.append(f"`{self.readme.install.text}`")
        run = [e for e in self.main if e.kind in ("readme-run", "readme-snippet")]
        if run:
            parts.append("then " + ", ".join(f"`{e.name}`" for e in run[:3]))
        elif self.main:
            parts.append("entry " + ", ".join(f"`{e.name}` ({e.target})" for e in self.main[:3]))
        return " ".join(parts)


def manifests(index: RepoIndex) -> list[str]:
    """The root's packaging files, then those of workspace members (`lib/cli/pyproject.toml`),
    never templates, tests or examples."""
    root = [p for p in ("pyproject.toml", "setup.cfg", "setup.py") if p in index.files]
    members = sorted(p for p, rec in index.files.items()
                     if "/" in p and p.rsplit("/", 1)[-1] in ("pyproject.toml", "setup.cfg", "setup.py")
                     and rec.role in ("config", "source") and p.count("/") <= 3
                     and not re.search(r"(^|/)(templates?|cookiecutter|scaffold|\{\{)", p))
    return root + members


def console_scripts(index: RepoIndex) -> list[Entry]:
    out: list[Entry] = []
    for path in manifests(index):
        if path not in index.files:
            continue
        text = index.text(path)
        lines = text.splitlines()
        if path.endswith("pyproject.toml"):
            try:
                data = tomllib.loads(text)
            except (tomllib.TOMLDecodeError, ValueError):
                data = {}
            tables = [data.get("project", {}).get("scripts", {}),
                      data.get("project", {}).get("gui-scripts", {}),
                      data.get("tool", {}).get("poetry", {}).get("scripts", {})]
            for table in tables:
                if not isinstance(table, dict):
                    continue
                for name, target in table.items():
                    if isinstance(target, dict):
                        target = target.get("reference", "") or target.get("callable", "")
                    if not isinstance(target, str) or ":" not in target:
                        continue
                    line = next((i for i, t in enumerate(lines, 1)
                                 if re.match(rf"""^\s*["']?{re.escape(name)}["']?\s*=""", t)), 1)
                    out.append(Entry("console-script", name, path, line, target.replace(" ", "")))
        else:
            cfg = path.endswith("setup.cfg")
            pat = _SCRIPT_LINE if cfg else _SETUP_SCRIPT
            section = group = ""
            for i, t in enumerate(lines, 1):
                if cfg:  # [options.entry_points] console_scripts/gui_scripts = (indented) lines
                    head = t.strip()
                    if head.startswith("["):
                        section, group = head.strip("[]").strip().lower(), ""
                        continue
                    if t[:1].strip() and "=" in t:
                        group, _, t = t.partition("=")
                        group = group.strip().lower()
                    if section != "options.entry_points" or group not in ("console_scripts", "gui_scripts"):
                        continue
                for m in pat.finditer(t):
                    out.append(Entry("console-script", m.group(1), path, i,
                                     f"{m.group(2)}:{m.group(3)}"))
    return out


def project_name(index: RepoIndex) -> str:
    if "pyproject.toml" in index.files:
        try:
            data = tomllib.loads(index.text("pyproject.toml"))
        except (tomllib.TOMLDecodeError, ValueError):
            data = {}
        name = data.get("project", {}).get("name") or \
            data.get("tool", {}).get("poetry", {}).get("name")
        if isinstance(name, str):
            return name
    return ""


def _docker_commands(index: RepoIndex) -> list[Entry]:
    """CMD/ENTRYPOINT of shipped Dockerfiles and `command:` of compose services."""
    out: list[Entry] = []
    for path, rec in sorted(index.files.items()):
        if rec.role != "config":
            continue
        name = path.rsplit("/", 1)[-1]
        if rec.lang == "docker":
            for i, t in enumerate(index.text(path).splitlines(), 1):
                m = re.match(r"^\s*(CMD|ENTRYPOINT)\s+(.*)$", t)
                if m:
                    words = _words(m.group(2))
                    if words:
                        out.append(Entry("docker", " ".join(words)[:200], path, i, ""))
        elif rec.lang == "yaml" and "compose" in name:
            data = load_yaml(index.text(path).encode())
            services = data.get("services") if isinstance(data, dict) else None
            if not isinstance(services, dict):
                continue
            lines = index.text(path).splitlines()
            for svc, spec in services.items():
                if not isinstance(spec, dict):
                    continue
                cmd = spec.get("command") or spec.get("entrypoint")
                if not cmd:
                    continue
                words = cmd if isinstance(cmd, list) else _words(str(cmd))
                line = next((i for i, t in enumerate(lines, 1)
                             if re.match(r"^\s*(command|entrypoint)\s*:", t)
                             and str(words[0]) in t + "".join(lines[i:i + 3])), 1)
                out.append(Entry("compose", f"{svc}: {' '.join(map(str, words))}"[:200], path, line, ""))
    return out


def _shipped_variants(entries: list[Entry]) -> list[Entry]:
    """Commands of the plain compose file (`docker-compose.yml`) when one exists: `.dev`/`.local`
    variants are other deployments of the same services."""
    plain = {"docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml"}
    compose = [e for e in entries if e.kind == "compose"]
    if any(e.path.rsplit("/", 1)[-1] in plain for e in compose):
        compose = [e for e in compose if e.path.rsplit("/", 1)[-1] in plain]
    return [e for e in entries if e.kind != "compose"] + compose


def _langgraph_graphs(index: RepoIndex) -> list[Entry]:
    import json

    out = []
    for path in sorted(p for p in index.files if p.rsplit("/", 1)[-1] == "langgraph.json"):
        if index.role(path) in ("test", "example", "docs") or offpath_place(path):
            continue  # a sample deployment of the CLI's tests or docs, not the product
        try:
            data = json.loads(index.text(path))
        except ValueError:
            continue
        graphs = data.get("graphs") if isinstance(data, dict) else None
        if not isinstance(graphs, dict):
            continue
        base = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        lines = index.text(path).splitlines()
        for name, ref in graphs.items():
            if not isinstance(ref, str) or ":" not in ref:
                continue
            file = ref.split(":", 1)[0].lstrip("./")
            line = next((i for i, t in enumerate(lines, 1) if ref in t), 1)
            out.append(Entry("langgraph", str(name), path, line, base + file))
    return out


def _words(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("["):
        return re.findall(r'"((?:\\.|[^"\\])*)"', text)
    return text.split()


def _script_target(index: RepoIndex, words: list[str], scripts: dict[str, str],
                   depth: int = 0) -> str | None:
    """What a container command that runs one of the repository's shell scripts starts
    (`["/app/wait-for-it.sh", "db:5432", "--", "/app/entrypoint.sh"]`): the process the script
    `exec`s, else the last command it runs that names a target (setup steps come first). A
    script that hands over to supervisord starts what the supervisord configuration runs."""
    if depth > 3:  # scripts that run scripts: a few hops, never a cycle
        return None
    for w in reversed(words):
        path = _repo_file(index, w) if w.endswith(".sh") else None
        if path is None or index.files[path].size > 64_000:
            continue
        found = None
        for line in _shell_lines(index.text(path)):
            for part in re.split(r"\s*(?:&&|;|\|\|)\s*", line):
                target = _in_repo(index, _target_of_words(part.split(), scripts)) or \
                    _supervised(index, part.split(), scripts, depth)
                if target:
                    if part.split()[0] == "exec":
                        return target
                    found = target
        if found:
            return found
    return None


def _in_repo(index: RepoIndex, target: str | None) -> str | None:
    """TARGET, with a Python file named by its path in the image (`/a0/run_ui.py`) taken as
    the repository file the image copied there."""
    if target and target.endswith(".py") and target not in index.files:
        return _repo_file(index, target) or target
    return target


def _supervised(index: RepoIndex, words: list[str], scripts: dict[str, str],
                depth: int) -> str | None:
    """What `supervisord -c CONF` starts: the first `[program:...]` whose `command=` runs one
    of the repository's programs (daemons such as sshd or cron name none)."""
    names = [w.rsplit("/", 1)[-1] for w in words if not w.startswith("-")]
    if "supervisord" not in names[:2]:
        return None
    conf = next((_repo_file(index, words[i + 1]) for i, w in enumerate(words[:-1])
                 if w in ("-c", "--configuration")), None)
    confs = [conf] if conf else sorted(p for p in index.files if p.rsplit("/", 1)[-1]
                                       == "supervisord.conf" and index.role(p) == "config")
    for path in confs:
        if index.files[path].size > 64_000:
            continue
        for line in index.text(path).splitlines():
            m = re.match(r"^\s*command\s*=\s*(.+)$", line)
            if not m:
                continue
            cmd = m.group(1).split()
            target = _in_repo(index, _target_of_words(cmd, scripts)) or \
                _script_target(index, cmd, scripts, depth + 1)
            if target and (not target.endswith(".py") or target in index.files):
                return target
    return None


def _repo_file(index: RepoIndex, word: str) -> str | None:
    """The repository file a container path names (`/app/entrypoint.sh`, `./run.sh`): the
    longest trailing part of it that is a file of the tree (the image copies the tree in), else
    the one file of the tree that ends with the longest such part (an image built from a folder
    `COPY ./fs/ /` puts `docker/run/fs/exe/run.sh` at `/exe/run.sh`)."""
    parts = [p for p in word.strip("'\"").split("/") if p and p != "."]
    for i in range(len(parts)):
        cand = "/".join(parts[i:])
        if cand in index.files:
            return cand
    for i in range(len(parts)):
        tail = "/" + "/".join(parts[i:])
        found = [p for p in index.files if p.endswith(tail)]
        if len(found) == 1:
            return found[0]
        if found:  # several files end so: the path names none of them for sure
            return None
    return None


def _shell_lines(text: str) -> list[str]:
    """A shell script's command lines: continuations joined, comments and blanks dropped."""
    out, cur = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not cur and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        out.append(cur + line)
        cur = ""
    return out


_MAKE_RULE = re.compile(r"^([\w.-]+)\s*:(?!=)")
_MAKE_RECURSE = re.compile(r"^\$[({]MAKE[)}]|^make\b")


def make_recipe(index: RepoIndex, args: list[str], depth: int = 0) -> list[list[str]]:
    """The command lines (as words) the top-level Makefile runs for `make ARGS`: the recipe of
    each target named (the first rule when none is), following `$(MAKE) other` one level."""
    mk = next((p for p in ("Makefile", "makefile", "GNUmakefile") if p in index.files), None)
    if mk is None or depth > 1:
        return []
    lines = index.text(mk).splitlines()
    rules: dict[str, list[str]] = {}
    current = None
    for ln in lines:
        m = _MAKE_RULE.match(ln)
        if m and not ln.startswith("\t"):
            current = m.group(1)
            rules.setdefault(current, [])
        elif ln.startswith("\t") and current is not None:
            rules[current].append(ln.strip().lstrip("@-").strip())
        elif ln.strip() and not ln.startswith((" ", "#")):
            current = None
    targets = [a for a in args if not a.startswith("-") and "=" not in a] or \
        [t for t in rules if not t.startswith(".")][:1]
    out: list[list[str]] = []
    for t in targets:
        for cmd in rules.get(t, []):
            for part in re.split(r"\s*(?:&&|;|&(?!&))\s*", cmd):
                words = part.split()
                if not words or words[0] in ("echo", "cd", "printf", "true", ":"):
                    continue
                if _MAKE_RECURSE.match(part):
                    out += make_recipe(index, words[1:], depth + 1)
                else:
                    out.append(words)
    return out


def _target_of_words(words: list[str], scripts: dict[str, str]) -> str | None:
    """What a command line runs, as "module:func", "module", or a console-script target."""
    words = [w for w in words if w not in ("exec", "poetry", "run", "uv", "--")]
    while words and ("=" in words[0] or words[0] in ("sh", "bash", "/bin/sh", "/bin/bash", "-c",
                                                      "tini", "--", "dumb-init")):
        words = words[1:]
    if words and words[0].startswith(("'", '"')):  # sh -c "python -m x": the quoted command
        words = " ".join(words).strip("'\"").split()
    if not words:
        return None
    if words[0] in ("uvx", "pipx"):  # `uvx pkg`, `pipx run --spec pkg cmd`: the script it runs
        words = launched(words)
        if not words:
            return None
    w0 = words[0].rsplit("/", 1)[-1]
    if w0 in scripts:
        return scripts[w0]
    if w0 == "langgraph" and len(words) > 1 and words[1] in ("dev", "up"):
        return "langgraph"  # the LangGraph server runs the graphs its langgraph.json names
    if _SERVER.match(w0) or w0 in ("fastapi", "flask", "streamlit", "chainlit"):
        for w in words[1:]:
            m = _APP_REF.match(w)
            if m:
                return f"{m.group(1)}:{m.group(2)}"
            if w.endswith(".py"):
                return w
        return None
    if w0 == "celery":  # `celery -A pkg.worker worker`: the app module holds the tasks
        for i, w in enumerate(words[1:], 1):
            if w in ("-A", "--app") and i + 1 < len(words):
                return words[i + 1].split(":")[0]
            if w.startswith("--app="):
                return w.split("=", 1)[1].split(":")[0]
        return None
    if re.match(r"^python[\d.]*$", w0):
        if len(words) >= 3 and words[1] == "-m":
            if _SERVER.match(words[2]):  # python -m uvicorn pkg.app:app
                return _target_of_words(words[2:], scripts)
            return words[2]
        for w in words[1:]:
            if w.endswith(".py"):
                return w
    return None


def find(index: RepoIndex, graph: CallGraph) -> EntryPoints:
    scripts = console_scripts(index)
    script_targets = {e.name: e.target for e in scripts}
    ep = EntryPoints(project=project_name(index), readme=None)
    readme = next((p for p in sorted(index.files) if is_readme(p)), None)
    if readme:
        programs = set(script_targets) | ({ep.project} if ep.project else set())
        ep.readme = leading_path(readme, index.text(readme), programs)
    commands = _command_functions(index)

    # 1. the README's leading path
    lp = ep.readme
    if lp is not None:
        named: list[str] = []
        for cmd in lp.runs:
            target = _target_of_words(cmd.words, script_targets)
            if target is None and cmd.words[0] == "make":
                # `make dev`: what the Makefile's recipe for that target runs
                target = next((t for words in make_recipe(index, cmd.words[1:])
                               for t in [_target_of_words(words, script_targets)] if t), None)
            if target is None and cmd.words[0] in ("docker", "podman", "docker-compose"):
                target = "docker"
            if target is None:
                continue
            if target.endswith(".py") and (index.role(target) != "source" or offpath_place(target)):
                continue  # `python tests/run_evaluate.py`: an evaluation run, not the product
            sub = subcommand(cmd)
            if is_chore(cmd):
                continue
            ep.main.append(Entry("readme-run", cmd.text[:120], lp.path, cmd.line, target))
            if sub:
                named.append(sub)
        if named:
            chosen = {nid for nid, names in commands.items() if names & set(named)}
            if chosen:
                ep.exclude = set(commands) - chosen
                ep.roots.extend(sorted(chosen))
        if lp.snippet is not None and not ep.main:
            _snippet(ep, lp, graph)
    # 2. Docker/compose commands when the README runs an image (or nothing else is found)
    if any(e.target == "docker" for e in ep.main) or not ep.main:
        for e in _shipped_variants([d for d in _docker_commands(index) if not offpath_place(d.path)]):
            words = e.name.split(": ", 1)[-1].split()
            target = _in_repo(index, _target_of_words(words, script_targets)) or \
                _script_target(index, words, script_targets)
            if target:
                (ep.main if not any(m.kind in ("console-script", "readme-run") and m.target != "docker"
                                    for m in ep.main) else ep.others).append(
                    Entry(e.kind, e.name, e.path, e.line, target))
    # 2b. LangGraph deployments name their graphs in langgraph.json ("path.py:graph")
    manifest = _installed_manifest(index, ep) if not ep.main and not ep.roots else None
    # the installed package declares no console script: what it offers is its import API
    library = manifest is not None and not any(e.path == manifest for e in scripts)
    if (not ep.main and not library) or any(e.target == "langgraph" for e in ep.main):
        ep.main.extend(_langgraph_graphs(index))
    # 3. console scripts when nothing else named the path
    if not ep.main and not ep.roots and not library:
        ep.main.extend(scripts)
    else:
        ep.others.extend(s for s in scripts if s.target not in {m.target for m in ep.main})
    # 4. modules run as scripts: the path when nothing else is known, else other entries. A
    # README that installs the package and runs nothing presents a library: a module's
    # `if __name__ == "__main__"` demo is not how its users run it.
    known = {e.target for e in ep.main}
    for path in sorted(index.py):
        if index.role(path) != "source":
            continue
        facts = index.py[path]
        if path.endswith("__main__.py") or (facts.idents.get("__name__") and
                                             ("'__main__'" in index.text(path) or
                                              '"__main__"' in index.text(path))):
            if path in known:
                continue
            if not ep.main and not ep.roots and not _offpath_dir(path) and not library:
                ep.main.append(Entry("main-module", path, path, 1, path))
            else:
                ep.others.append(Entry("main-module", path, path, 1, path))
    for e in ep.main + ep.others:
        node = _resolve_target(graph, e.target)
        object.__setattr__(e, "node", node)
    ep.roots.extend(e.node for e in ep.main if e.node and e.node not in ep.roots)
    ep.how = ("README leading path" if any(e.kind.startswith("readme") for e in ep.main) else
              "console scripts" if any(e.kind == "console-script" for e in ep.main) else
              "Docker/compose commands" if any(e.kind in ("docker", "compose") for e in ep.main) else
              "modules run as scripts" if ep.main else
              "library (the README installs the package and runs nothing)" if library else
              "no entry point found")
    return ep


def _installed_manifest(index: RepoIndex, ep: EntryPoints) -> str | None:
    """The pyproject.toml of the package the README's leading install takes from an index
    (`pip install dspy`, `pip install -U "pkg[extra]"`; in a monorepo, whichever workspace
    package it names), when the README runs nothing after it; not a clone or requirements file."""
    lp = ep.readme
    if lp is None or lp.install is None or lp.runs or lp.snippet is not None:
        return None
    from .distributions import installed, norm  # the one reading of what an install names

    wanted = set(installed(lp.install.text))
    for path in sorted(p for p in index.files if p.rsplit("/", 1)[-1] == "pyproject.toml"):
        if path != "pyproject.toml" and (index.role(path) != "config" or offpath_place(path)):
            continue
        try:
            data = tomllib.loads(index.text(path))
        except (tomllib.TOMLDecodeError, ValueError):
            continue
        name = data.get("project", {}).get("name") or \
            data.get("tool", {}).get("poetry", {}).get("name")
        if isinstance(name, str) and norm(name) in wanted:
            return path
    return None


def _offpath_dir(path: str) -> bool:
    """A folder a product does not run from: build, CI and dev tooling anywhere in the tree
    (`tools/`, `.agents/skills/x/scripts/`), and hidden folders (editor and assistant config)."""
    from .reach import _OFF_PATH_DIR  # local: reach imports this module

    return bool(re.match(r"^(scripts?|tools|dev|build|ci|\.github|hack|bin)/", path)
                or re.search(r"(^|/)\.[^/]+/", path) or _OFF_PATH_DIR.search("/" + path))


def _command_functions(index: RepoIndex) -> dict[str, set[str]]:
    """CLI command functions (click/typer `@x.command(...)`) → the names they answer to."""
    out: dict[str, set[str]] = {}
    for facts in index.source_py():
        for d in facts.defs:
            for dec in d.decorators:
                m = _COMMAND_DECORATOR.match(dec)
                if not m or m.group(1) == "callback":
                    continue
                if m.group(1) == "group" and "invoke_without_command" in dec:
                    continue  # the group itself runs when no subcommand is given
                names = {d.name, d.name.replace("_", "-"), d.name.removesuffix("_command"),
                         d.name.removesuffix("_cmd")}
                for lit in re.findall(r"""["']([\w-]+)["']""", dec.split("(", 1)[-1]):
                    names.add(lit)
                out[f"{facts.path}::{d.qualname}"] = names
                break
    return out


def _snippet(ep: EntryPoints, lp: LeadingPath, graph: CallGraph) -> None:
    """Roots from a README Python snippet: the repository classes and functions it calls."""
    src = "\n".join(lp.snippet.lines).encode()
    facts = extract(lp.path, src)
    ep.snippet_values.update((a.target, a.value) for a in facts.assigns
                             if a.scope_kind == "module" and a.target.isidentifier() and a.value)
    ep.snippet_imports.update((k, v) for k, v in facts.imports.items()
                              if k.isidentifier() and v and not v.startswith("."))
    for c in facts.calls:
        node = _resolve_target(graph, c.callee)
        if node is None:
            ep.calls.add(c.short)
            continue
        ep.snippet_calls.append((c.callee, c.kwargs, lp.snippet.line + c.line - 1))
        kind = graph.nodes[node].kind
        if kind == "class":
            init = graph.method(node, "__init__")
            ep.roots.extend(x for x in (init,) if x)
            ep.roots.append(node)
        else:
            ep.roots.append(node)
        if not any(e.target == c.callee for e in ep.main):
            ep.main.append(Entry("readme-snippet", c.raw, lp.path, lp.snippet.line + c.line - 1,
                                 c.callee, node))


def _resolve_target(graph: CallGraph, target: str) -> str | None:
    """The node of "module:func", "module", "module.attr" or "path/to/file.py"."""
    if not target or target == "docker":
        return None
    if target.endswith(".py"):
        nid = f"{target.lstrip('./')}::{MODULE}"
        return nid if nid in graph.nodes else None
    mod, _, attr = target.partition(":")
    hit = graph.modules.split(mod)
    if hit is None:
        return None
    path, rest = hit
    name = ".".join(x for x in (rest, attr) if x)
    if not name:
        main = graph.modules.by_name.get(f"{graph.modules.by_path[path]}.__main__")
        return f"{main or path}::{MODULE}"
    nid = f"{path}::{name}"
    if nid in graph.nodes:
        return nid
    found = graph.resolve(f"{graph.modules.by_path[path]}.{name}")  # a re-export
    return found or f"{path}::{MODULE}"  # an object (an app instance): its module
