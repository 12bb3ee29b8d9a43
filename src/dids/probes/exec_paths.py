"""C4 exec-path family: process spawns, the environment they pass, and isolation wrappers."""

from __future__ import annotations

import re

from ..index.pyfacts import Call, PyFacts, calls_by_func, short_name
from ..index.repo import RepoIndex
from .base import finding, probe, settings_named

SPAWN = {
    "subprocess.run", "subprocess.Popen", "subprocess.call", "subprocess.check_call",
    "subprocess.check_output", "subprocess.getoutput", "subprocess.getstatusoutput",
    "os.system", "os.popen", "os.execv", "os.execve", "os.execvp", "os.execvpe", "os.execl",
    "os.execlp", "os.spawnv", "os.spawnve", "os.posix_spawn", "os.posix_spawnp", "pty.spawn",
    "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell",
    "pexpect.spawn", "anyio.run_process", "anyio.open_process", "trio.run_process",
}
SHELL_ALWAYS = {"os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput",
                "asyncio.create_subprocess_shell"}
_FULL_ENV = re.compile(r"os\.environ\.copy\(\)|dict\(\s*os\.environ\s*\)|\*\*\s*os\.environ\b|^os\.environ$|"
                       r"copy\.copy\(\s*os\.environ\s*\)|^os\.environ\s*\||\|\s*os\.environ$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")

# Isolation wrappers by the strength class the rubric gives them.
WRAPPERS = {
    "nsjail": (3, r"""["'](?:[\w/.-]*/)?nsjail["']"""),
    "bwrap": (3, r"""["'](?:[\w/.-]*/)?bwrap["']"""),
    "gvisor": (3, r"""["'](?:[\w/.-]*/)?runsc["']"""),
    "firecracker": (3, r"""["'](?:[\w/.-]*/)?firecracker["']"""),
    "firejail": (2, r"""["'](?:[\w/.-]*/)?firejail["']"""),
    "unshare": (2, r"""["'](?:[\w/.-]*/)?unshare["']\s*,\s*["']-|os\.unshare\(|CLONE_NEWPID"""),
    "docker": (2, r"""["']docker["']\s*,\s*["']run["']|containers\.run\(|["']docker run """),
    "sandbox-exec": (2, r"""["']sandbox-exec["']"""),
    "remote-sandbox": (3, r"""\b(e2b(_code_interpreter)?\.)?Sandbox(\.create)?\(|modal\.Sandbox\.create\(|\bSandbox\.create\("""),
}
HARDENING = {
    "network namespace": r"clone_newnet|--net(?:work)?=none|unshare-net|CLONE_NEWNET|iface_no_lo|network_mode\s*=\s*[\"']none",
    "seccomp": r"seccomp",
    "read-only root": r"--ro-bind|is_bind.*rw:\s*false|read_only\s*=\s*True|rw:\s*false|\bro_bind|readonly_rootfs|--read-only",
    "non-root uid": r"uid_mapping|--user\b|inside_id|outside_id|--uid\b|65534|nobody",
    "minimal environment": r"keep_env|--clearenv|clearenv|env\s*=\s*\{\s*\}",
}


def env_kind(index: RepoIndex, facts: PyFacts, call: Call) -> tuple[str, int]:
    """(kind, line) of the environment a spawn passes: inherit | full | filtered | constructed."""
    kind, line = _env_kind(index, facts, call)
    if kind == "unknown":
        # `def _run(command, env): Popen(command, env=env)`: what the callers hand in
        passed = _passed_env(index, facts, call)
        if passed is not None:
            return passed
    return kind, line


def _passed_env(index: RepoIndex, facts: PyFacts, call: Call) -> tuple[str, int] | None:
    """(kind, line) of the environment the callers of CALL's function pass for the parameter
    its `env=` names (the first caller whose argument shows it)."""
    text = (call.kw("env") or "").strip()
    d = facts.func_at(call.line)
    if not text.isidentifier() or d is None:
        return None
    names = [p.name for p in d.params]
    if text not in names or facts.last_assign(text, call.func, call.line) is not None:
        return None
    idx = names.index(text) - (1 if names and names[0] in ("self", "cls") else 0)
    for cf, c in index.calls_named({d.name}):
        arg = c.kw(text) or (c.args[idx] if 0 <= idx < len(c.args) else None)
        if arg is None:
            continue
        arg = arg.strip()
        if _FULL_ENV.search(arg):
            return "full", c.line
        if arg.startswith("{") or arg.startswith("dict("):
            return "constructed", c.line
    return None


def _env_kind(index: RepoIndex, facts: PyFacts, call: Call) -> tuple[str, int]:
    if call.callee.startswith("os.exec") and not call.callee.endswith("e"):
        return "inherit", call.line
    if call.callee in ("os.system", "os.popen", "pty.spawn"):
        return "inherit", call.line
    text = call.kw("env")
    if text is None and call.callee.startswith(("os.exec", "os.spawn")) and call.callee.endswith("e") \
            and len(call.args) >= 3:
        text = call.args[-1]  # execve/execvpe/spawnve take the environment positionally
    if text is None or text.strip() == "None":
        return "inherit", call.line
    text = text.strip()
    if _FULL_ENV.search(text):
        return "full", call.line
    if text.startswith("{"):
        return "constructed", call.line
    if _IDENT.match(text) or text.endswith(")"):
        name = text.split("(")[0].split(".")[-1]
        # a local built earlier in the same function
        a = facts.last_assign(text, call.func, call.line)
        if a is not None:
            if a.value and _FULL_ENV.search(a.value.strip()):
                return _with_removals(facts, call, "full"), a.line
            if a.value and a.value.strip().startswith("{"):
                return "constructed", a.line
            name = a.value.split("(")[0].split(".")[-1] if a.value else name
        # a helper that builds the environment
        found = _helper_env(index, name)
        if found is not None:
            return found
    return "unknown", call.line


_HELPER_FULL = re.compile(r"os\.environ\.copy\(\)|dict\(\s*os\.environ\s*\)|\*\*\s*os\.environ\b")
_HELPER_REMOVES = re.compile(r"\.pop\(|del\s+\w+\[")


def _helper_env(index: RepoIndex, name: str) -> tuple[str, int] | None:
    """(kind, line) from the first function called NAME (in source_py order) whose body shows
    the environment it builds; memoised per index, with one name -> definitions map."""
    memo = index._search_cache.setdefault(("_env_helpers",), {})  # type: ignore[arg-type]
    if name in memo:
        return memo[name]  # type: ignore[return-value]
    by_name = index._search_cache.get(("_defs_by_name",))
    if by_name is None:
        by_name = {}
        for f in index.source_py():
            for d in f.defs:
                by_name.setdefault(d.name, []).append((f, d))  # type: ignore[union-attr]
        index._search_cache[("_defs_by_name",)] = by_name  # type: ignore[assignment]
    result = None
    for f, d in by_name.get(name, ()):  # type: ignore[union-attr]
        body = [f.is_code_line(i) and index.line(f.path, i) for i in range(d.line, d.end_line + 1)]
        src = "\n".join(b for b in body if b)
        if _HELPER_FULL.search(src):
            result = ("filtered" if _HELPER_REMOVES.search(src) else "full"), d.line
            break
        if "os.environ" in src or "{" in src:
            result = "constructed", d.line
            break
    memo[name] = result  # type: ignore[index]
    return result


def _with_removals(facts: PyFacts, call: Call, kind: str) -> str:
    for c in facts.calls:
        if c.func == call.func and c.callee.endswith(".pop") and c.line < call.line:
            return "filtered"
    return kind


def is_shell(call: Call) -> bool:
    if call.callee in SHELL_ALWAYS:
        return True
    return (call.kw("shell") or "").strip() == "True"


_STR_LIT = re.compile(r"""^[rbuRBU]{0,2}(["'])[^"']*\1$""")


def _split_top(text: str) -> list[str]:
    """Elements of a list/tuple literal's inside, split at top-level commas."""
    out, depth, cur, quote = [], 0, "", ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def fixed_command(facts: PyFacts, call: Call) -> bool:
    """Whether the command a spawn runs is fixed by the code (a literal argv, a loop over a
    literal list of commands, a path it computed plus literal flags) rather than handed in by its
    caller: a fixed command is an orchestrator's chore (`docker --version`), never the model's."""
    text = call.args[0] if call.args else (call.kw("args") or call.kw("cmd") or call.kw("command"))
    if text is None:
        return False
    d = facts.func_at(call.line)
    params = {p.name for p in d.params} if d else set()
    return _fixed(facts, d, text.strip(), params, 0)


_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def handed_in(facts: PyFacts, call: Call) -> bool:
    """Whether the command a spawn runs is built from its function's parameters (`Popen(command,
    shell=True)` in `run_cmd(command)`): the caller decides it, as the model's command reaches a
    tool's executor. A command read from the object's own settings (`self.bell_command`) or
    fixed in the code is not."""
    text = call.args[0] if call.args else (call.kw("args") or call.kw("cmd") or call.kw("command"))
    d = facts.func_at(call.line)
    if text is None or d is None:
        return False
    # a closure sees its enclosing functions' parameters too (`spawnAsync(command)` spawning
    # inside its `new Promise(...)` callback), and a local built from them carries them on
    # (`prepared = prepare({command})`, `{program: finalCommand} = prepared`), a few steps deep
    by_qual = {x.qualname: x for x in facts.defs}
    derived: set[str] = set()
    chain: set[str] = set()
    qual = d.qualname
    while qual in by_qual:
        derived |= {p.name.lstrip("*") for p in by_qual[qual].params}
        chain.add(qual)
        qual = qual.rpartition(".")[0]
    derived -= {"self", "cls", "this"}
    # (target, value) bindings before the call: assignments, and loop variables over what the
    # caller handed in (`for command in commands: subprocess.run(command.split())`)
    binds = [(a.target, a.value) for a in facts.assigns
             if a.scope in chain and a.value and a.line <= call.line]
    binds += [(b.target, b.head) for b in facts.blocks
              if b.kind == "for" and b.func in chain and b.target and b.line <= call.line]
    for _ in range(_DERIVED_STEPS):
        grown = {n for target, value in binds
                 if any(m.group(0) in derived for m in _NAME.finditer(value))
                 for n in _NAME.findall(target)} - derived - {"self", "this"}
        if not grown:
            break
        derived |= grown
    return any(m.group(0) in derived for m in _NAME.finditer(text))


_DERIVED_STEPS = 3


def _fixed(facts: PyFacts, d, text: str, params: set[str], depth: int) -> bool:
    if depth > 2:
        return False
    if _STR_LIT.match(text):
        return True
    if text[:1] in "[(" and text[-1:] in "])":
        parts = _split_top(text[1:-1])
        return bool(parts) and all(_fixed_element(facts, d, p, params, depth) for p in parts)
    if text.isidentifier():
        if text in params:
            return False
        scope = d.qualname if d else "module"
        for b in facts.blocks:  # a loop variable over a fixed list
            if b.kind == "for" and b.target.strip() == text and b.func == (d.qualname if d else None):
                return _fixed(facts, d, b.head.strip(), params, depth + 1)
        values = [a.value for a in facts.assigns if a.target == text and a.scope == scope and a.value]
        return bool(values) and all(_fixed(facts, d, v.strip(), params, depth + 1) for v in values)
    return False


def _fixed_element(facts, d, part: str, params: set[str], depth: int) -> bool:
    if _STR_LIT.match(part):
        return True
    m = re.match(r"^(str|os\.fspath)\((\w+)\)$", part)
    name = m.group(2) if m else part
    return name.isidentifier() and name not in params or _fixed(facts, d, part, params, depth + 1)


@probe("exec.spawn", ("C4", "C8", "C1"),
       "Run model-driven processes in a sandbox with a scrubbed environment.")
def spawns(index: RepoIndex):
    """Every process spawn in live source code, with shell use and the environment it passes."""
    for facts, call in index.calls_where(SPAWN.__contains__):
        kind, env_line = env_kind(index, facts, call)
        shell = is_shell(call)
        env_desc = {"inherit": "inherits the parent environment (no env=)",
                    "full": "passes a full copy of the parent environment",
                    "filtered": "passes a copy of the parent environment with some keys removed",
                    "constructed": "passes an environment it builds itself",
                    "unknown": "passes an environment dids could not resolve"}[kind]
        claim = (f"{call.raw}(...) in {call.func or 'module scope'}"
                 f"{' with a shell' if shell else ''} {env_desc}.")
        yield finding("exec.spawn", claim, facts.path, call.line, call.end_line,
                      env=kind, env_line=env_line, shell=shell, func=call.func or "",
                      callee=call.callee, fixed=fixed_command(facts, call),
                      handed_in=handed_in(facts, call))


_QUOTED_BACKEND = r"""["'][\w/.-]*(?:nsjail|bwrap|runsc|firecracker|firejail|sandbox-exec)["']"""
# a setting's value compared with a backend's name: the branch that picks it, not its use
_COMPARED = re.compile(rf"[=!]==?\s*{_QUOTED_BACKEND}|{_QUOTED_BACKEND}\s*[=!]==?|\bcase\s+{_QUOTED_BACKEND}")
_QUOTED_NAME = re.compile(r"""["']([\w/.-]+)["']""")
_BARE_ELEMENT = re.compile(r"""^\|?\s*["']([\w/.-]+)["']\s*,?\s*$""")
# the wrappers above, their binaries, and the other values a backend setting takes
_BACKEND_NAMES = set(WRAPPERS) | {"runsc", "podman", "lxc", "e2b", "modal", "local", "none", "host"}


def _in_backend_list(index: RepoIndex, path: str, line: int) -> bool:
    """Whether LINE is one element of a list, enum or union of backend names (a line holding
    only a quoted name, beside another line naming a different backend, or a line listing
    three of them): the options a setting may take. An argv element (`"nsjail",` followed by
    its flags) is not."""
    text = index.line(path, line).strip()
    inline = {q.rsplit("/", 1)[-1] for q in _QUOTED_NAME.findall(text)} & _BACKEND_NAMES
    if len(inline) >= 3:  # `enum: ['docker', 'podman', 'runsc', 'lxc']` on one line
        return True
    m = _BARE_ELEMENT.match(text)
    if not m:
        return False
    own = m.group(1).rsplit("/", 1)[-1]
    for n in range(max(1, line - 3), line + 4):
        if n == line:
            continue
        other = _BARE_ELEMENT.match(index.line(path, n).strip())
        if other and other.group(1) != own and other.group(1).rsplit("/", 1)[-1] in _BACKEND_NAMES:
            return True
    return False


@probe("exec.wrapper", ("C4",),
       "Wrap exec paths in nsjail, bubblewrap or gVisor with a network namespace and seccomp.")
def wrappers(index: RepoIndex):
    """Isolation wrappers named in live code (argv strings, SDK calls), with their strength class."""
    names = list(WRAPPERS)
    off_names = set()
    for sel in selectors(index):
        if sel.data["sandbox_on"] is False:
            off_names.update(str(sel.data["names"]).split(","))
    hits = index.live_hits([WRAPPERS[n][1] for n in names], globs=("*.py",))
    for h in hits:
        if _in_backend_list(index, h.path, h.line) or _COMPARED.search(h.text):
            continue  # `'runsc',` among `'docker', ...`, `sandbox === 'runsc'`: a choice, not a use
        name = names[h.pattern]
        strength = WRAPPERS[name][0]
        facts = index.py.get(h.path)
        func = facts.func_at(h.line) if facts else None
        yield finding("exec.wrapper", f"Isolation wrapper {name} is named in live code here "
                      "(argv, path, SDK call or backend mode).", h.path, h.line,
                      wrapper=name, strength=strength, func=func.qualname if func else "",
                      opt_in=gated_by(index, h.path, h.line, off_names))


@probe("exec.inprocess", ("C4",), "Do not exec model-written code inside the agent's own process.")
def inprocess(index: RepoIndex):
    """Model code run inside the agent process: exec/eval of non-literal code, Jupyter kernels."""
    kernels = ("KernelManager", "start_new_kernel", "InteractiveConsole", "InteractiveInterpreter",
               "BlockingKernelClient")
    for facts, call in index.calls_where(lambda n: n in ("exec", "eval") or
                                         short_name(n) in kernels):
        if call.callee in ("exec", "eval"):
            if call.args and not re.match(r"""^[rbfu]*["']""", call.args[0]):  # not a literal
                yield finding("exec.inprocess", f"{call.raw}() runs code given at run time "
                              "inside the agent process.", facts.path, call.line, how="exec")
        else:
            yield finding("exec.inprocess", f"{call.raw}(...) runs code in a local kernel as "
                          "the same user.", facts.path, call.line, how="kernel")


_STATEMENTS = {"ast.For", "ast.While", "ast.FunctionDef", "ast.ClassDef", "ast.Import",
               "ast.ImportFrom", "ast.Try", "ast.With", "ast.Assign", "ast.AugAssign", "ast.If",
               "ast.Return", "ast.Raise", "ast.Delete"}


@probe("exec.restricted", ("C4",), "A restricted interpreter is filtering, not isolation; sandbox it too.")
def restricted(index: RepoIndex):
    """AST-walking interpreters with an import allowlist (filtering rather than isolation)."""
    for facts in index.source_py():
        parses = [c for c in facts.calls if c.callee == "ast.parse"]
        if not parses:
            continue
        allow = [n for n in facts.idents if re.search(
            r"authorized_imports|allowed_imports|import_allowlist|safe_builtins|allowed_modules|"
            r"BASE_BUILTIN_MODULES|DANGEROUS_(MODULES|FUNCTIONS)", n)]
        # an interpreter of whole programs dispatches on statements, not just expressions
        stmt_types = {c.args[1] for c in facts.calls if c.callee == "isinstance" and
                      len(c.args) == 2 and c.args[1] in _STATEMENTS}
        if allow and len(stmt_types) >= 5:
            yield finding("exec.restricted", "Model code is run by an AST-walking interpreter with "
                          "an import allowlist.", facts.path, parses[0].line,
                          allow=",".join(sorted(allow)[:3]))
    # eval/exec whose globals replace the builtins with an allowlist (`eval(code,
    # {"__builtins__": safe_builtins})`): an expression evaluator restricted in code
    for facts in index.source_py():
        for c in facts.calls:
            if c.callee in ("eval", "exec") and len(c.args) >= 2 and \
                    _restricted_globals(facts, c, c.args[1].strip()):
                yield finding("exec.restricted", f"{c.raw}(...) in {c.func or 'module scope'} runs "
                              "code with its builtins replaced by an allowlist (restricted "
                              "evaluation, not isolation).", facts.path, c.line, c.end_line,
                              allow="__builtins__", func=c.func or "")


_RESTRICTED_BUILTINS = re.compile(r"""["']__builtins__["']\s*:(?!\s*(?:__builtins__|builtins)\b)""")


def _restricted_globals(facts, c, text: str) -> bool:
    """Whether TEXT (the globals handed to eval/exec) replaces `__builtins__`: a dict literal
    doing so, or a local bound to one earlier in the same function."""
    if text.startswith("{"):
        return bool(_RESTRICTED_BUILTINS.search(text))
    if not text.isidentifier():
        return False
    a = facts.last_assign(text, c.func or "module", c.line, valued=True)
    return a is not None and a.value.strip().startswith("{") and \
        bool(_RESTRICTED_BUILTINS.search(a.value))


@probe("exec.hardening", ("C4",),
       "Give the sandbox a network namespace, seccomp, a read-only root and a non-root uid.")
def hardening(index: RepoIndex):
    """Sandbox hardening options (network namespace, seccomp, read-only root, uid mapping,
    minimal env) set in live code of files that also invoke an isolation wrapper."""
    wrapper_files = {h.path for h in index.live_hits([v[1] for v in WRAPPERS.values()],
                                                     globs=("*.py",))}
    if not wrapper_files:
        return
    names = list(HARDENING)
    for h in index.live_hits([HARDENING[n] for n in names], globs=("*.py",), ignore_case=True):
        if h.path not in wrapper_files and not _near_sandbox(h.path):
            continue
        for i in h.patterns:
            yield finding("exec.hardening", f"Sandbox option for {names[i]}.", h.path, h.line,
                          option=names[i])


def _near_sandbox(path: str) -> bool:
    return bool(re.search(r"sandbox|jail|isolat|seccomp", path, re.I))


@probe("exec.selector", ("C4",),
       "Make the hardened sandbox the shipped default and refuse to fall back to the host.")
def selectors(index: RepoIndex):
    """Settings that select or disable an isolation backend, with the default a new user gets."""
    from ..index.settings import defaults_for

    seen = set()
    for s in index.settings:
        key = s.key.upper()
        if not re.search(r"NSJAIL|SANDBOX|BWRAP|GVISOR|FIRECRACKER|ISOLATION|EXECUTOR_BACKEND|EXEC_BACKEND|RUNTIME_BACKEND|EXECUTOR_TYPE|^CODE_EXECUTOR$|EXECUTION_(BACKEND|MODE)|EXEC_MODE", key):
            continue
        if key in seen:
            continue
        seen.add(key)
        best = defaults_for(settings_named(index, s.key), s.key)[0]
        state = selector_state(best.key, best.value)
        if state is None:
            continue
        names = sorted({s.key} | {x.var for x in settings_named(index, s.key)
                                   if x.key == s.key and x.var})
        yield finding("exec.selector",
                      f"{best.key} defaults to {best.value!r} ({best.source}), which leaves the "
                      f"sandbox {'on' if state else 'off'}.",
                      best.path, best.line, key=best.key, value=best.value, sandbox_on=state,
                      source=best.source, names=",".join(names))


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
_HOST = {"none", "host", "local", "direct", "subprocess", "native", "unsafe", "disabled", "process"}
_SANDBOXY = re.compile(r"nsjail|sandbox|gvisor|runsc|firecracker|bwrap|docker|container|jail|e2b|modal")


def selector_state(key: str, value: str | None) -> bool | None:
    """Whether the default value of a sandbox-selecting key switches the sandbox on."""
    k = key.upper()
    v = (value or "").strip().lower()
    if re.search(r"PATH|ROOTFS|DIR|IMAGE|TIMEOUT|MEMORY|CPU|LIMIT|URL|HOST|PORT|CIDR|CACHE|"
                 r"_ID$|_IDS$|USER|GROUP|UID|GID|NAME$|PREFIX|SUFFIX|VOLUME|MOUNT|ENV_|_ENV$", k):
        return None  # paths, sizes, identities: values of a backend, never its selector
    if v in _HOST:
        return False
    if v in _TRUE | _FALSE:
        if "DISABLE" in k:
            return v not in _TRUE
        if re.search(r"ENABLE|USE_|_ON$", k) or k.endswith(("_SANDBOX", "NSJAIL")):
            return v in _TRUE
        return None
    if re.search(r"BACKEND|MODE|RUNTIME|SANDBOX|EXECUTOR|ISOLATION", k):
        return bool(_SANDBOXY.search(v))
    return None


def gated_by(index: RepoIndex, path: str, line: int, names: set[str]) -> bool:
    """Whether the code at path:line runs only when a selector is changed from its default:
    its function reads a selector name before that line, or (one hop) the function or class
    holding it is only referenced from functions that read a selector name."""
    facts = index.py.get(path)
    if facts is None or not names:
        return False
    func = facts.func_at(line)
    start = func.line if func else max(1, line - 30)
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(names)) + r")\b")
    if any(facts.is_code_line(i) and pattern.search(index.line(path, i))
           for i in range(start, line + 1)):
        return True
    holders = {func.name} if func else set()
    if func and func.cls:
        holders.add(func.cls.split(".")[-1])
    holders = {h for h in holders if len(h) > 6 and not h.startswith("_")}
    if not holders:
        return False
    ref = re.compile(r"\b(" + "|".join(re.escape(h) for h in sorted(holders)) + r")\b")
    referencing = []
    for other in index.source_py():
        if not any(other.idents.get(h) for h in holders):
            continue
        for d in other.defs:
            body = [index.line(other.path, i) for i in range(d.line, min(d.end_line, d.line + 120) + 1)
                    if other.is_code_line(i)]
            if d.name in holders or (func and d.qualname == func.qualname):
                continue
            if any(ref.search(t) for t in body):
                referencing.append(any(pattern.search(t) for t in body))
    return bool(referencing) and all(referencing)


_VALIDATOR = re.compile(r"(make_\w*safe|validat\w*|sanitiz\w*|is_(allowed|safe|permitted)\w*|"
                        r"check_(command|cmd|safe|allowed|permission)\w*|ensure_safe|"
                        r"parse_command|assert_safe|verify_command|filter_command)", re.I)
_PATCH_LINE = (r"^\s*[\w.]*(socket|builtins|subprocess|os|shutil|requests|urllib)[\w]*\."
               r"(socket|create_connection|getaddrinfo|open|Popen|run|call|check_call|"
               r"check_output|system|popen|remove|rmtree|get|post|urlopen)\s*=\s*\w")


# a check of the model's reply (`validate_response`, `validate_json`): its shape, not what the
# command it carries would do
_OF_REPLY = re.compile(r"(response|reply|json|schema|format|output|result|answer|message)s?$", re.I)


@probe("exec.filter", ("C4", "C3"),
       "A command filter is not isolation: run the command in a sandbox as well.")
def filters(index: RepoIndex):
    """Filtering in front of model-driven execution: a validator that parses and rejects a
    command before the spawn that runs it (in the same function or the caller that hands the
    command on), and preambles that replace socket/open/subprocess before model code runs."""
    model = index.agent
    graph = model.graph if model is not None else None
    seen = set()
    for facts, call in index.calls_where(SPAWN.__contains__):
        sites = [(facts, call.func, call.line)]
        if graph is not None and call.func:
            nid = f"{facts.path}::{call.func}"
            for src, edges in _callers(graph, nid):
                sites.append(edges)
        for f2, func, line in sites:
            if not func or (f2.path, func) in seen:
                continue
            for c in calls_by_func(f2).get(func, ()):
                if c.line < line and _VALIDATOR.search(c.short) and c.short != call.short \
                        and not c.short.startswith("model_validate") \
                        and not _OF_REPLY.search(c.short):
                    seen.add((f2.path, func))
                    yield finding("exec.filter", f"{c.raw}(...) checks the command before "
                                  f"{func} runs it (filtering, not isolation).", f2.path, c.line,
                                  how="validator", spawn_path=facts.path, spawn_line=call.line,
                                  func=func)
                    break
    hits = index.live_hits([_PATCH_LINE], globs=("*.py",))
    by_file: dict[str, list] = {}
    for h in hits:
        by_file.setdefault(h.path, []).append(h)
    for path, hs in by_file.items():
        if len(hs) >= 2:  # one reassignment is a test double; a preamble replaces several
            yield finding("exec.filter", "A preamble replaces network, file or process "
                          "functions before the model's code runs (filtering, not isolation).",
                          path, hs[0].line, hs[-1].line, how="preamble")


def _callers(graph, nid: str):
    """(caller node, (facts, func, line of the call)) for direct callers of NID."""
    out = []
    idx = graph._callers_index()
    for src, line in idx.get(nid, ()):
        node = graph.nodes.get(src)
        if node is None or node.kind != "function":
            continue
        facts = graph._resolver.py.get(node.path) if graph._resolver else None
        if facts is not None:
            out.append((src, (facts, node.qualname, line)))
    return out
