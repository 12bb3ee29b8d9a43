#!/usr/bin/env python3
"""Benchmark `dids score` on a large synthetic agent repository or on any real git repository.

usage: bench.py [--files N[,N...]] [--ts-files N[,N...]] [--repo PATH] [--runs N]
                [--bandit-runs N] [--no-bandit] [--work DIR] [--json FILE] [--check]

For every tree it reports medians over --runs of:
  cold         `dids score` with an empty DIDS_CACHE_DIR
  warm         a second `dids score` with the same cache dir (result cache, packed search corpus)
  warm-nocache the same with --no-cache when `dids score` has it (search-corpus cache only)
  peak memory  largest single process (wait4 ru_maxrss) and the sampled sum over the process tree
  files/s      files indexed (and Python files parsed) per second of the cold run
  parse-once   tree-sitter parse of every .py and TypeScript/JavaScript file of the tree (.ts .tsx
               .mts .cts .js .jsx .mjs .cjs), no fact extraction, one process
  bandit       `bandit -r` on the same tree when Bandit is installed (median of --bandit-runs)

The synthetic repository is deterministic (same --files, same commit id), written by this script
and committed into a git repository under --work (default .dids-work/bench); it is reused when it
already exists. --ts-files writes a synthetic TypeScript agent instead (scripts/synth_ts.py). A
real repository given with --repo is only read: its committed tree is exported from the object
store (blobs absent from a partial clone are left out) for the baseline and Bandit, and dids reads
its object store. Nothing from the scored tree is ever executed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from synth_ts import TS_GENERATOR_VERSION, synth_ts_files

GENERATOR_VERSION = 2
ROOT = Path(__file__).resolve().parents[1]
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "dids bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "dids bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}
TARGETS = {"cold/bandit": 0.10, "cold/parse": 2.5, "warm/cold": 0.2}


# --------------------------------------------------------------------------------------------
# synthetic repository

_WORDS = ("search", "fetch", "shell", "browser", "memory", "planner", "vector", "ticket", "email",
          "github", "slack", "calendar", "sql", "files", "notebook", "docker", "jira", "weather",
          "translate", "summary", "crawler", "invoice", "report", "schedule", "deploy", "backup")
_KINDS = (  # (kind, weight per 100 files)
    ("tool", 22), ("core", 20), ("client", 12), ("settings", 6), ("sandbox", 1), ("test", 22),
    ("docs", 10), ("example", 4), ("config", 3),
)


def _name(rng: random.Random, i: int) -> str:
    return f"{rng.choice(_WORDS)}_{rng.choice(_WORDS)}_{i}"


def _pad(rng: random.Random, n: int) -> str:
    """Plain helper functions with comments and docstrings, the bulk of a real module."""
    out = []
    for k in range(n):
        w = rng.choice(_WORDS)
        out.append(f'''

def _{w}_helper_{k}(items: list[dict], limit: int = {rng.randint(5, 500)}) -> list[str]:
    """Normalise {w} records; keeps at most `limit` of them."""
    # drop empty records before sorting
    seen: set[str] = set()
    result = []
    for item in items[:limit]:
        key = str(item.get("{w}_id", "")).strip().lower()
        if not key or key in seen:
            continue
        seen.add(key)
        result.append(f"{{key}}:{{item.get('value', {k})}}")
    return sorted(result, key=lambda s: (len(s), s))
''')
    return "".join(out)


def _tool(rng: random.Random, i: int) -> str:
    name = _name(rng, i)
    env = rng.choice(["os.environ.copy()", "{\"PATH\": \"/usr/bin\"}", "build_env()", None,
                      "dict(os.environ)"])
    shell = rng.random() < 0.2
    timeout = rng.choice([None, 30, "self.settings.command_timeout"])
    kw = (f", env={env}" if env else "") + (", shell=True" if shell else "") + \
        (f", timeout={timeout}" if timeout else "")
    cmd = '" ".join(argv)' if shell else "argv"
    return f'''"""Tool: {name.replace("_", " ")} for the agent."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import httpx
from pydantic import BaseModel, Field

from agentx.registry import tool
from agentx.util.env import build_env

MAX_OUTPUT_BYTES = {rng.randint(1, 64) * 1024}


class {name.title().replace("_", "")}Args(BaseModel):
    query: str = Field(..., description="what to look for")
    limit: int = Field(default={rng.randint(1, 50)}, ge=1)


@tool(name="{name}", requires_approval={rng.choice(["True", "False"])})
def run_{name}(command: str, cwd: str = ".", max_steps: int = {rng.randint(3, 40)}) -> str:
    """Run a command for the {name} tool and return its output."""
    argv = ["/usr/bin/env", "{rng.choice(_WORDS)}", command]
    proc = subprocess.run({cmd}, capture_output=True, cwd=cwd{kw})
    out = proc.stdout[:MAX_OUTPUT_BYTES].decode("utf-8", "replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{name} failed: {{proc.stderr[:200]!r}}")
    return out


@tool
async def fetch_{name}(url: str, timeout: float = {rng.choice([5, 10, 30])}) -> dict:
    """Fetch a page for {name}."""
    async with httpx.AsyncClient(timeout=timeout) as client:
        resp = await client.get(url, headers={{"User-Agent": "agentx"}})
        resp.raise_for_status()
        return resp.json()


async def stream_{name}(argv: list[str]) -> str:
    proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(proc.communicate(), timeout={rng.randint(5, 120)})
    return out.decode()


def save_{name}(path: str, text: str) -> None:
    Path(path).write_text(text)
    os.chmod(path, 0o600)
''' + _pad(rng, rng.randint(2, 8))


def _core(rng: random.Random, i: int) -> str:
    name = _name(rng, i)
    cls = name.title().replace("_", "")
    return f'''"""Core: {name.replace("_", " ")} loop and state."""

from __future__ import annotations

import logging
import os
import signal
from dataclasses import dataclass, field

log = logging.getLogger(__name__)
DEFAULT_MAX_ITERATIONS = {rng.randint(5, 100)}
MAX_STEPS = int(os.getenv("AGENTX_{name.upper()}_MAX_STEPS", "{rng.randint(5, 60)}"))


@dataclass
class {cls}State:
    steps: int = 0
    history: list[str] = field(default_factory=list)
    max_iterations: int = DEFAULT_MAX_ITERATIONS


class {cls}Loop:
    """The {name} agent loop."""

    def __init__(self, llm, tools, state: {cls}State | None = None):
        self.llm = llm
        self.tools = tools
        self.state = state or {cls}State()

    def run(self, prompt: str) -> str:
        while self.state.steps < self.state.max_iterations:
            self.state.steps += 1
            reply = self.llm.complete(prompt, tools=[t.schema for t in self.tools])
            if reply.done:
                return mask_secrets(reply.text)
            for call in reply.tool_calls:
                result = self.tools[call.name](**call.arguments)
                self.state.history.append(str(result)[:2000])
        log.warning("step cap reached after %d steps", self.state.steps)
        return ""

    def cancel(self) -> None:
        # stop the whole process group of in-flight commands
        os.killpg(os.getpgid(0), signal.SIGTERM)

    class Inner:
        def describe(self) -> str:
            return "{name}"


def mask_secrets(text: str) -> str:
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        value = os.environ.get(key)
        if value:
            text = text.replace(value, "***")
    return text
''' + _pad(rng, rng.randint(3, 10))


def _client(rng: random.Random, i: int) -> str:
    name = _name(rng, i)
    cls = name.title().replace("_", "") + "Client"
    return f'''"""HTTP client for the {name.replace("_", " ")} API."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlparse

import httpx
import requests

API_URL = "https://api.example.invalid/{name}"
TIMEOUT_SECONDS = {rng.randint(5, 60)}


def validate_url(url: str) -> str:
    host = urlparse(url).hostname or ""
    addr = ipaddress.ip_address(socket.gethostbyname(host))
    if addr.is_private or addr.is_loopback:
        raise ValueError("private destination")
    return url


class {cls}:
    def __init__(self, token: str, base_url: str = API_URL):
        self.base_url = base_url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {{token}}"

    def get(self, path: str, **params) -> dict:
        resp = self.session.get(f"{{self.base_url}}/{{path}}", params=params, timeout=TIMEOUT_SECONDS)
        resp.raise_for_status()
        return resp.json()

    def post(self, path: str, payload: dict) -> dict:
        url = validate_url(f"{{self.base_url}}/{{path}}")
        return httpx.post(url, json=payload, timeout=TIMEOUT_SECONDS).json()

    async def aget(self, path: str) -> dict:
        async with httpx.AsyncClient(base_url=self.base_url) as c:
            return (await c.get(path)).json()
''' + _pad(rng, rng.randint(1, 6))


def _settings(rng: random.Random, i: int) -> str:
    name = _name(rng, i)
    up = name.upper()
    return f'''"""Settings for {name.replace("_", " ")}."""

import os

from pydantic import Field
from pydantic_settings import BaseSettings

{up}_SANDBOX = os.environ.get("{up}_SANDBOX", "{rng.choice(["none", "nsjail", "docker", "local"])}")
{up}_TIMEOUT = {rng.randint(10, 600)}
TELEMETRY_ENABLED = os.getenv("AGENTX_TELEMETRY", "{rng.choice(["1", "0"])}")


class {name.title().replace("_", "")}Settings(BaseSettings):
    api_key: str = ""
    max_turns: int = {rng.randint(5, 50)}
    command_timeout: float = Field(default={rng.randint(5, 300)})
    allowed_tools: list[str] = Field(default_factory=list)
    executor_backend: str = "{rng.choice(["subprocess", "nsjail", "docker"])}"
    disable_masking: bool = False
    max_cost_usd: float = {rng.randint(1, 20)}.0
''' + _pad(rng, rng.randint(0, 3))


def _sandbox(rng: random.Random, i: int) -> str:
    return f'''"""Sandbox wrapper {i}."""

import os
import subprocess

NSJAIL_PATH = os.getenv("NSJAIL_PATH", "/usr/bin/nsjail")


def run_sandboxed(argv: list[str], timeout: int = {rng.randint(5, 60)}) -> str:
    if os.getenv("AGENTX_EXECUTOR_BACKEND", "subprocess") != "nsjail":
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout).stdout
    cmd = ["nsjail", "--clone_newnet", "--seccomp_string", "ALLOW", "--user", "65534",
           "--ro-bind", "/usr", "--", *argv]
    return subprocess.run(cmd, capture_output=True, text=True, env={{}}, timeout=timeout).stdout
'''


def _test(rng: random.Random, i: int) -> str:
    name = _name(rng, i)
    return f'''"""Tests for {name}."""

import subprocess

import pytest


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "a.txt").write_text("hello")
    return tmp_path


def test_{name}_runs(workspace):
    out = subprocess.run(["cat", str(workspace / "a.txt")], capture_output=True, text=True)
    assert out.stdout == "hello"


@pytest.mark.parametrize("n", [1, 2, {rng.randint(3, 99)}])
def test_{name}_limits(n):
    assert n > 0
''' + _pad(rng, rng.randint(1, 5))


def _docs(rng: random.Random, i: int) -> str:
    name = _name(rng, i)
    return f"""# {name.replace("_", " ").title()}

Configure the `{name}` tool with `AGENTX_{name.upper()}_MAX_STEPS` (default {rng.randint(5, 60)}).

```python
subprocess.run(["{rng.choice(_WORDS)}"], env=os.environ.copy())
```
""" + "\nMore text about the tool and its options.\n" * rng.randint(5, 40)


def _example(rng: random.Random, i: int) -> str:
    return f'''"""Example {i}."""
import os

os.system("echo example {i}")
'''


def _config(rng: random.Random, i: int) -> str:
    return json.dumps({"name": _name(rng, i), "steps": rng.randint(1, 9),
                       "tools": rng.sample(_WORDS, 3)}, indent=2) + "\n"


_GEN = {"tool": _tool, "core": _core, "client": _client, "settings": _settings,
        "sandbox": _sandbox, "test": _test, "docs": _docs, "example": _example, "config": _config}
_DIRS = {"tool": "src/agentx/tools", "core": "src/agentx/core", "client": "src/agentx/clients",
         "settings": "src/agentx/settings", "sandbox": "src/agentx/sandbox", "test": "tests",
         "docs": "docs", "example": "examples", "config": "config"}
_EXT = {"docs": ".md", "config": ".json"}

_FIXED = {
    "README.md": "# agentx\n\nA synthetic agent repository generated by scripts/bench.py.\n",
    "pyproject.toml": '[project]\nname = "agentx"\ndescription = "Synthetic agent for the dids '
                      'benchmark"\nversion = "0.0.0"\n',
    ".env.example": "AGENTX_EXECUTOR_BACKEND=subprocess\nAGENTX_TELEMETRY=1\nOPENAI_API_KEY=\n",
    "docker-compose.yml": "services:\n  agent:\n    image: agentx\n    environment:\n"
                          "      - AGENTX_EXECUTOR_BACKEND=${AGENTX_EXECUTOR_BACKEND:-subprocess}\n"
                          "      - OPENAI_API_KEY=${OPENAI_API_KEY}\n",
    "src/agentx/__init__.py": "",
    "src/agentx/registry.py": "def tool(*args, **kwargs):\n    def wrap(f):\n        return f\n"
                              "    return wrap(args[0]) if args and callable(args[0]) else wrap\n",
    "src/agentx/util/env.py": "import os\n\n\ndef build_env() -> dict:\n    env = os.environ.copy()\n"
                              "    env.pop('OPENAI_API_KEY', None)\n    return env\n",
}


def synth_files(n: int, seed: int = 0):
    """(path, text) of a deterministic synthetic agent repository with about n files."""
    yield from _FIXED.items()
    kinds = [k for k, w in _KINDS for _ in range(w)]
    random.Random(f"{seed}:kinds").shuffle(kinds)  # every size gets every kind of file
    for i in range(max(0, n - len(_FIXED))):
        rng = random.Random(f"{seed}:{i}")
        kind = kinds[i % len(kinds)]
        group = f"g{i // 250:03d}"  # about 250 files per directory at most
        prefix = "test_" if kind == "test" else ""
        path = f"{_DIRS[kind]}/{group}/{prefix}{kind}_{i:06d}{_EXT.get(kind, '.py')}"
        yield path, _GEN[kind](rng, i)


def git(cwd: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "core.hooksPath=/dev/null",
                           *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True, **kw)


def make_synthetic(n: int, work: Path, seed: int = 0, lang: str = "python") -> Path:
    """Write and commit the synthetic repository under WORK (reused if already complete);
    LANG "typescript" writes the TypeScript agent of synth_ts instead of the Python one."""
    if lang == "typescript":
        dest, files = work / f"synth-ts-{n}-s{seed}-v{TS_GENERATOR_VERSION}", synth_ts_files(n, seed)
    else:
        dest, files = work / f"synth-{n}-s{seed}-v{GENERATOR_VERSION}", synth_files(n, seed)
    marker = work / f"{dest.name}.complete"
    if marker.exists() and (dest / ".git").exists():
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    made = set()
    for rel, text in files:
        p = dest / rel
        if p.parent not in made:
            p.parent.mkdir(parents=True, exist_ok=True)
            made.add(p.parent)
        p.write_text(text)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", f"synthetic agent repository ({n} files)")
    marker.write_text(head_commit(dest) + "\n")
    return dest


def head_commit(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD", text=True).stdout.strip()


def export_tree(repo: Path, dest: Path) -> Path:
    """The regular files of REPO's tree at HEAD, written from its object store (no checkout, no
    hooks, no filters). Blobs a partial or mirrored clone lacks are left out, as dids does."""
    dest.mkdir(parents=True, exist_ok=True)
    listing = git(repo, "ls-tree", "-r", "-z", "HEAD").stdout.split(b"\0")
    entries = []
    for row in listing:
        if not row:
            continue
        meta, _, path = row.partition(b"\t")
        mode, kind, sha = meta.split()
        rel = os.fsdecode(path)
        if kind == b"blob" and mode in (b"100644", b"100755") and ".." not in rel.split("/") \
                and not rel.startswith("/"):
            entries.append((sha, rel))
    cat = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, env=GIT_ENV)
    feeder = threading.Thread(target=_feed, args=(cat.stdin, [sha for sha, _ in entries]),
                              daemon=True)
    feeder.start()
    made: set[Path] = set()
    for _sha, rel in entries:
        header = cat.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)  # the newline after each object
        target = dest / rel
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        target.write_bytes(data)
    feeder.join()
    cat.stdout.close()
    cat.wait()
    return dest


def _feed(stdin, shas: list[bytes]) -> None:
    for sha in shas:
        stdin.write(sha + b"\n")
    stdin.close()


# --------------------------------------------------------------------------------------------
# measurements

# file suffix -> grammar of the parse-once baseline
BASELINE_GRAMMARS = {".py": "python", ".ts": "typescript", ".mts": "typescript",
                     ".cts": "typescript", ".tsx": "tsx", ".js": "javascript", ".jsx": "javascript",
                     ".mjs": "javascript", ".cjs": "javascript"}


def source_files(tree: Path, suffixes=BASELINE_GRAMMARS) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        out.extend(Path(dirpath) / f for f in sorted(filenames)
                   if os.path.splitext(f)[1] in suffixes)
    return [p for p in out if p.is_file() and not p.is_symlink()]


def python_files(tree: Path) -> list[Path]:
    return source_files(tree, (".py",))


def _parsers() -> dict:
    import tree_sitter as ts
    import tree_sitter_javascript as tsjs
    import tree_sitter_python as tsp
    import tree_sitter_typescript as tsts

    langs = {"python": tsp.language(), "typescript": tsts.language_typescript(),
             "tsx": tsts.language_tsx(), "javascript": tsjs.language()}
    return {name: ts.Parser(ts.Language(lang)) for name, lang in langs.items()}


def parse_once(tree: Path, by_lang: dict | None = None) -> tuple[float, int, int]:
    """Seconds to tree-sitter-parse every Python and TypeScript/JavaScript file once (read
    beforehand, not timed), how many files and bytes. BY_LANG, when given, receives
    {"python"|"ts": [files, bytes]}."""
    parsers = _parsers()
    work = []
    for p in source_files(tree):
        grammar = BASELINE_GRAMMARS[p.suffix]
        work.append((parsers[grammar], p.read_bytes()))
        if by_lang is not None:
            row = by_lang.setdefault("python" if grammar == "python" else "ts", [0, 0])
            row[0] += 1
            row[1] += len(work[-1][1])
    t0 = time.perf_counter()
    for parser, data in work:
        parser.parse(data)
    return time.perf_counter() - t0, len(work), sum(len(d) for _, d in work)


class _TreeRss(threading.Thread):
    """Samples the summed RSS of every process in one session (the child and its workers)."""

    def __init__(self, sid: int, every: float = 0.05):
        super().__init__(daemon=True)
        self.sid, self.every, self.peak_kb = sid, every, 0
        self.done = threading.Event()

    def run(self) -> None:
        page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
        while not self.done.is_set():
            total = 0
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    with open(f"/proc/{pid}/stat", "rb") as f:
                        stat = f.read()
                    fields = stat[stat.rindex(b")") + 2:].split()
                    if int(fields[3]) == self.sid:  # field 6: session id
                        with open(f"/proc/{pid}/statm", "rb") as f:
                            total += int(f.read().split()[1]) * page_kb
                except (OSError, ValueError, IndexError):
                    continue
            self.peak_kb = max(self.peak_kb, total)
            self.done.wait(self.every)


def run_measured(cmd: list[str], env: dict[str, str]) -> dict:
    """Run CMD; wall seconds, ru_maxrss of the largest process and the sampled tree RSS."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    sampler = _TreeRss(proc.pid)
    sampler.start()
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    sampler.done.set()
    sampler.join()
    return {"wall": wall, "rc": proc.returncode, "maxrss_mb": usage.ru_maxrss / 1024,
            "tree_rss_mb": sampler.peak_kb / 1024, "cpu": usage.ru_utime + usage.ru_stime,
            "stderr": stderr.decode("utf-8", "replace")[-400:]}


def dids_cmd() -> list[str]:
    exe = Path(sys.executable).parent / "dids"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "dids.cli"]


def dids_has(option: str) -> bool:
    out = subprocess.run(dids_cmd() + ["score", "--help"], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "200"})
    return option in out.stdout


def bandit_cmd() -> list[str] | None:
    exe = Path(sys.executable).parent / "bandit"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("bandit")
    return [found] if found else None


def median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def bench_tree(label: str, repo: Path, tree: Path, args, scratch: Path) -> dict:
    """All measurements for one repository (REPO: git work tree; TREE: its exported files)."""
    base = dids_cmd() + ["score", str(repo), "--format", "json"]
    if dids_has("--timeout"):
        base += ["--timeout", "0"]  # measure, do not stop at the default limit
    no_cache = dids_has("--no-cache")
    rows: dict[str, list[dict]] = {"cold": [], "warm": [], "warm_nocache": []}
    report = None
    for r in range(args.runs):
        cache = Path(tempfile.mkdtemp(prefix=f"cache{r}-", dir=scratch))
        env = {**os.environ, "DIDS_CACHE_DIR": str(cache)}
        out = scratch / f"report{r}.json"
        for kind in ("cold", "warm", "warm_nocache"):
            if kind == "warm_nocache" and not no_cache:
                continue
            cmd = base + ["-o", str(out)] + (["--no-cache"] if kind == "warm_nocache" else [])
            m = run_measured(cmd, env)
            if m["rc"] != 0:
                raise SystemExit(f"dids failed (exit {m['rc']}): {' '.join(cmd)}\n{m['stderr']}")
            rows[kind].append(m)
            if kind == "cold":
                report = json.loads(out.read_text())
        shutil.rmtree(cache, ignore_errors=True)
        print(f"  run {r + 1}/{args.runs}: " + ", ".join(
            f"{k} {v[-1]['wall']:.2f}s" for k, v in rows.items() if v), file=sys.stderr)
    by_lang: dict[str, list[int]] = {}
    parse = [parse_once(tree, by_lang if r == 0 else None) for r in range(args.runs)]
    py_count, py_bytes = by_lang.get("python", [0, 0])
    ts_count, ts_bytes = by_lang.get("ts", [0, 0])
    bandit = []
    bcmd = None if args.no_bandit else bandit_cmd()
    if bcmd:
        for _ in range(args.bandit_runs):
            m = run_measured(bcmd + ["-r", str(tree), "-q", "-f", "json", "-o",
                                     str(scratch / "bandit.json")], dict(os.environ))
            if m["rc"] not in (0, 1):
                print(f"  bandit failed (exit {m['rc']}): {m['stderr']}", file=sys.stderr)
                break
            bandit.append(m["wall"])
            print(f"  bandit {m['wall']:.1f}s", file=sys.stderr)
    stats = (report or {}).get("stats", {})
    cold = median([m["wall"] for m in rows["cold"]])
    res = {
        "label": label, "commit": head_commit(repo), "runs": args.runs,
        "files_indexed": stats.get("files"), "python_parsed": stats.get("python_parsed"),
        "ts_parsed": stats.get("ts_parsed"),
        "py_files_in_tree": py_count, "py_mb_in_tree": round(py_bytes / 1e6, 2),
        "ts_files_in_tree": ts_count, "ts_mb_in_tree": round(ts_bytes / 1e6, 2),
        "cold_s": cold, "warm_s": median([m["wall"] for m in rows["warm"]]),
        "warm_nocache_s": median([m["wall"] for m in rows["warm_nocache"]]),
        "cold_cpu_s": median([m["cpu"] for m in rows["cold"]]),
        "cold_maxrss_mb": median([m["maxrss_mb"] for m in rows["cold"]]),
        "cold_tree_rss_mb": median([m["tree_rss_mb"] for m in rows["cold"]]),
        "parse_once_s": median([p[0] for p in parse]),
        "bandit_s": median(bandit), "bandit_runs": len(bandit),
        "all_cold_s": [round(m["wall"], 3) for m in rows["cold"]],
    }
    if cold:
        res["files_per_s"] = (stats.get("files") or 0) / cold
        res["py_files_per_s"] = (stats.get("python_parsed") or 0) / cold
        res["ts_files_per_s"] = (stats.get("ts_parsed") or 0) / cold
        res["cold/parse"] = cold / res["parse_once_s"] if res["parse_once_s"] else None
        res["cold/bandit"] = cold / res["bandit_s"] if res["bandit_s"] else None
        res["warm/cold"] = res["warm_s"] / cold if res["warm_s"] is not None else None
        if res["warm_nocache_s"] is not None:
            res["warm_nocache/cold"] = res["warm_nocache_s"] / cold
    return res


def _fmt(v, unit="") -> str:
    if v is None:
        return "n/a"
    return f"{v:.2f}{unit}" if isinstance(v, float) else f"{v}{unit}"


def print_result(res: dict) -> None:
    print(f"\n== {res['label']} @ {res['commit'][:10]}  (medians of {res['runs']} runs)")
    print(f"   tree: {res['py_files_in_tree']} .py files, {res['py_mb_in_tree']} MB; "
          f"{res['ts_files_in_tree']} TypeScript/JavaScript files, {res['ts_mb_in_tree']} MB")
    print(f"   dids indexed {res['files_indexed']} files, parsed {res['python_parsed']} Python and "
          f"{_fmt(res['ts_parsed'])} TypeScript/JavaScript source files")
    print(f"   cold          {_fmt(res['cold_s'], ' s')}   (cpu {_fmt(res['cold_cpu_s'], ' s')}, "
          f"runs {res['all_cold_s']})")
    print(f"   warm          {_fmt(res['warm_s'], ' s')}")
    print(f"   warm --no-cache {_fmt(res['warm_nocache_s'], ' s')}  (search-corpus cache only)")
    print(f"   peak memory   {_fmt(res['cold_maxrss_mb'], ' MB')} largest process, "
          f"{_fmt(res['cold_tree_rss_mb'], ' MB')} process tree (sampled)")
    print(f"   throughput    {_fmt(res.get('files_per_s'), ' files/s')}, "
          f"{_fmt(res.get('py_files_per_s'), ' Python files/s')}, "
          f"{_fmt(res.get('ts_files_per_s'), ' TS/JS files/s')}")
    print(f"   parse-once    {_fmt(res['parse_once_s'], ' s')}  (tree-sitter, every .py and TS/JS "
          "file, 1 process)")
    print(f"   bandit        {_fmt(res['bandit_s'], ' s')}" + (
        f"  (median of {res['bandit_runs']})" if res["bandit_runs"] else "  (not run)"))
    for key, limit in TARGETS.items():
        v = res.get(key)
        mark = "n/a" if v is None else ("ok" if v <= limit else "MISSED")
        print(f"   {key:<18}{_fmt(v)}  target <= {limit}  {mark}")
    if res.get("warm_nocache/cold") is not None:
        print(f"   {'warm_nocache/cold':<18}{_fmt(res['warm_nocache/cold'])}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", default="2000",
                    help="synthetic repository size; a comma list compares sizes (2000,20000)")
    ap.add_argument("--ts-files", default="",
                    help="benchmark a synthetic TypeScript agent of this size instead (3000)")
    ap.add_argument("--repo", type=Path, help="benchmark this git repository instead")
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement (median)")
    ap.add_argument("--bandit-runs", type=int, default=1, help="Bandit runs (slow; default 1)")
    ap.add_argument("--no-bandit", action="store_true", help="skip Bandit even if installed")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, default=ROOT / ".dids-work" / "bench",
                    help="where synthetic repositories and scratch files go")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"dids bench: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}",
          file=sys.stderr)
    results = []
    with tempfile.TemporaryDirectory(prefix="scratch-", dir=args.work) as tmp:
        scratch = Path(tmp)
        if args.repo:
            repo = args.repo.resolve()
            if not (repo / ".git").exists() and not (repo / "HEAD").exists():
                ap.error(f"{repo}: not a git repository")
            tree = export_tree(repo, scratch / "tree")
            print(f"benchmarking {repo}", file=sys.stderr)
            results.append(bench_tree(str(repo), repo, tree, args, scratch))
        else:
            lang = "typescript" if args.ts_files else "python"
            sizes = args.ts_files or str(args.files)
            for n in [int(x) for x in sizes.split(",") if x.strip()]:
                t0 = time.perf_counter()
                repo = make_synthetic(n, args.work, args.seed, lang)
                label = f"synthetic {'TypeScript ' if args.ts_files else ''}{n} files"
                print(f"synthetic repository {repo} ({n} files, ready in "
                      f"{time.perf_counter() - t0:.1f}s)", file=sys.stderr)
                results.append(bench_tree(label, repo, repo, args, scratch))
    for res in results:
        print_result(res)
    if len(results) > 1:
        a, b = results[0], results[-1]
        grow_files = (b["files_indexed"] or 1) / (a["files_indexed"] or 1)
        print(f"\n   growth {a['label']} -> {b['label']}: files x{grow_files:.1f}, cold time "
              f"x{b['cold_s'] / a['cold_s']:.1f}, peak memory x"
              f"{(b['cold_tree_rss_mb'] or 0) / max(a['cold_tree_rss_mb'] or 1, 1):.1f}")
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    missed = [k for r in results for k, lim in TARGETS.items() if (r.get(k) or 0) > lim]
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
